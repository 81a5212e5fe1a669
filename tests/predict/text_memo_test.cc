// Explanations made once for each set of figures (TextMemo, FigureKey): a memo gives each key
// the text made for it, and texts of a memo shared by many ops read as each op's made anew; the
// device figures they cite, cited once; ops alike timed once (CombinedModel::time_op); cost
// records found by their place (CombinedModel::cost_of).
#include <catch2/catch.hpp>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/roofline.h"
#include "hloroof/text_pool.h"
#include "hloroof/topology.h"
#include "predict/expected_time.h"
#include "predict/predict_internal.h"
#include "predict/roofline_internal.h"
#include "util/fields.h"
#include "predict_test_util.h"
#include "require_ok.h"

namespace hloroof::predict {
namespace {

TEST_CASE("text memo: a key's text is made once, and another key's apart") {
  TextPool pool;
  TextMemo memo(pool);
  int made = 0;
  auto make = [&made](std::string text) {
    return [&made, text] {
      ++made;
      return text;
    };
  };
  const std::string_view a = memo.text("key a", make("text a"));
  CHECK(a == "text a");
  CHECK(memo.text("key a", make("never made")).data() == a.data());
  CHECK(memo.text("key b", make("text b")) == "text b");
  CHECK(made == 2);
  CHECK(memo.size() == 2);
  // Memoizing off: every text is made.
  TextMemo anew(pool);
  anew.set_memoize(false);
  CHECK(anew.text("key a", make("text a")) == "text a");
  CHECK(anew.text("key a", make("text a 2")) == "text a 2");
  CHECK(made == 4);
  CHECK(anew.size() == 0);
}

TEST_CASE("text memo: past its limit of 4096 keys, texts are made anew and still right") {
  TextPool pool;
  TextMemo memo(pool);
  int made = 0;
  for (int k = 0; k < 4100; ++k) {
    const std::string key = absl::StrCat("key ", k);
    CHECK(memo.text(key, [&] { return ++made, absl::StrCat("text ", k); }) ==
          absl::StrCat("text ", k));
  }
  CHECK(memo.size() == 4096);
  // Key 4099 was not kept (made again); key 0 was (not made again).
  CHECK(memo.text("key 4099", [&] { return ++made, std::string("text 4099"); }) == "text 4099");
  CHECK(memo.text("key 0", [&] { return ++made, std::string("never made"); }) == "text 0");
  CHECK(made == 4101);
}

TEST_CASE("figure key: values by their bytes, texts by their size and bytes") {
  FigureKey a, b;
  a.add(1.0);
  b.add(1.0);
  CHECK(a.bytes() == b.bytes());
  CHECK(a.bytes().size() == sizeof(double));
  // 0 and -0: two keys (each may print its own text).
  FigureKey zero, minus_zero;
  zero.add(0.0);
  minus_zero.add(-0.0);
  CHECK(zero.bytes() != minus_zero.bytes());
  // "ab" + "c" and "a" + "bc" are two keys.
  FigureKey x, y;
  x.add_text("ab");
  x.add_text("c");
  y.add_text("a");
  y.add_text("bc");
  CHECK(x.bytes() != y.bytes());
}

// A struct of every kind of member a memo's key reads.
struct Keyed {
  double figure = 1;
  std::string_view text = "a";
  std::optional<TimeRange> range;
  std::vector<GemmCall> gemms;
  std::pair<int, double> pair{1, 2};
  KernelClass kernel = KernelClass::kNone;
};

TEST_CASE("figure key: every member of a struct, found without naming them") {
  CHECK(util::kFieldCount<Keyed> == 6);
  CHECK(util::kFieldCount<GpuOpBasis> == 27);
  const auto key = [](const auto& value) {
    FigureKey k;
    k.add_fields(value);
    return std::string(k.bytes());
  };
  const Keyed base;
  // Each member changed alone makes another key, nested ones too (a GEMM's shape, a range's
  // text).
  std::vector<Keyed> changed(8, base);
  changed[0].figure = 2;
  changed[1].text = "b";
  changed[2].range = TimeRange{};
  changed[3].gemms.push_back(GemmCall{});
  changed[4].pair.second = 3;
  changed[5].kernel = KernelClass::kReduction;
  changed[6].range = TimeRange{.low = "x"};
  changed[7].gemms.push_back(GemmCall{.shape = {.b = 1, .m = 2, .n = 1, .k = 1}});
  std::vector<std::string> keys = {key(base)};
  for (const Keyed& c : changed) keys.push_back(key(c));
  std::sort(keys.begin(), keys.end());
  CHECK(std::unique(keys.begin(), keys.end()) == keys.end());
  CHECK(key(base) == key(Keyed{}));
  // An explanation's figures: a member the text prints (the unaligned GEMMs' slowest time) is
  // in the key, whichever term holds it.
  GpuOpBasis b;
  b.terms.push_back({GpuOpBasis::Term::kHbm, 1e-6});
  GpuOpBasis worse = b;
  worse.unaligned_slowest_s = 2e-6;
  CHECK(key(b) != key(worse));
}

// One HBM term of `hbm_s` seconds under an op whose roofline is that term.
RooflineEstimate hbm_roofline(double hbm_s) {
  RooflineEstimate e;
  e.terms.push_back({Bound::kHbm, 1e6, 1e6 / hbm_s, hbm_s, ""});
  e.roofline_s = hbm_s;
  e.time_s = hbm_s;
  e.bound = Bound::kHbm;
  return e;
}

// The device model's explanation of an op with a memo `memo`.
std::string explained(const DeviceSpec& d, TextMemo& memo, double hbm_s, bool overhead,
                      const IssueTime& issue, const std::vector<GemmCall>& gemms) {
  OpView op;
  op.work.matrix_flops = gemms.empty() ? 0 : 1e9;
  op.include_overhead = overhead;
  op.issue = issue;
  op.gemms = gemms;
  OpEstimate roofline;
  roofline.roofline = hbm_roofline(hbm_s);
  roofline.time_s = hbm_s;
  GemmTimeCache gemm_times;
  const std::unique_ptr<DeviceModel> model = pick_device_model(d, gemm_times);
  const OpEstimate e = model->estimate(op, roofline);
  return std::string(model->explain(e, memo));
}

TEST_CASE("expected explanations: one memo for many ops reads as each op's made anew") {
  for (const std::string_view name : {"h100", "h200", "tpu_v5e", "tpu_v6e"}) {
    absl::StatusOr<DeviceSpec> d = device(name);
    REQUIRE_OK(d);
    TextPool pool;
    TextMemo memo(pool), anew(pool);
    anew.set_memoize(false);
    // Two issue times of the same length, of different ops: 1e9 element ops at 2 slots each and
    // 2e9 at 1; each 2e9 slots, 2e9 / (6.7e13 / 2) = 59.7 us on h100, above HBM terms of 1 and
    // 2 us, below one of 1 ms (GPUs only: TPUs have no op profile).
    const IssueTime one{2e9 / (d->vector_flops_per_s / 2), 1e9, 2e9, "h100"};
    const IssueTime two{2e9 / (d->vector_flops_per_s / 2), 2e9, 2e9, "h100"};
    const GemmCall gemm{{1, 1024, 1024, 1024}, PrimitiveType::kBF16, PrimitiveType::kBF16,
                        "bf16"};
    const std::vector<std::vector<GemmCall>> gemm_sets = {{}, {gemm}, {gemm, gemm}};
    std::vector<std::string> texts;
    for (int round = 0; round < 2; ++round) {  // the second round reads the memo's texts
      for (const double hbm_s : {1e-6, 2e-6, 1e-3}) {
        for (const bool overhead : {false, true}) {
          for (const IssueTime* issue : {&one, &two}) {
            for (const std::vector<GemmCall>& gemms : gemm_sets) {
              INFO(name << " hbm " << hbm_s << " s, overhead " << overhead << ", "
                        << issue->element_ops << " element ops, " << gemms.size() << " GEMMs");
              const std::string text = explained(*d, memo, hbm_s, overhead, *issue, gemms);
              CHECK(text == explained(*d, anew, hbm_s, overhead, *issue, gemms));
              if (round == 0) texts.push_back(text);
            }
          }
        }
      }
    }
    // The texts name what differs: on GPUs, 3 GEMM sets x 2 overheads x (2 HBM terms below the
    // issue time x 2 issue times + the HBM term above it, which hides them) = 30; on TPUs
    // (no issue term) 3 x 2 x 3 HBM terms = 18.
    std::sort(texts.begin(), texts.end());
    const auto distinct = std::unique(texts.begin(), texts.end()) - texts.begin();
    CHECK(distinct == (d->kind == DeviceKind::kGpu ? 30 : 18));
    if (d->kind == DeviceKind::kGpu) {
      CHECK_THAT(explained(*d, memo, 1e-6, true, one, {}),
                 Catch::Contains("1e+09 element ops at 2 issue slots each"));
      CHECK_THAT(explained(*d, memo, 1e-6, true, two, {}),
                 Catch::Contains("2e+09 element ops at 1 issue slots each"));
    }
  }
}

// A prediction cites each term's figure once (cite_figure of rate_figure) instead of in every
// roofline_time: the same texts as roofline_time's own, for every kind of term but the matrix
// one (which roofline_time still cites: its class picks the figure).
TEST_CASE("roofline citations made once read as roofline_time's") {
  for (const std::string_view name : {"h100", "tpu_v5e", "tpu_v6e"}) {
    absl::StatusOr<DeviceSpec> d = device(name);
    REQUIRE_OK(d);
    OpWork work;
    work.vector_flops = 1e9;
    work.transcendentals = 1e6;
    work.hbm_bytes = 1e8;
    work.on_chip_bytes = 1e7;
    work.host_bytes = 1e5;
    const RooflineEstimate e = roofline_time(*d, work);
    REQUIRE(e.terms.size() >= 3);
    for (const RooflineTerm& t : e.terms) {
      INFO(name << " " << bound_name(t.bound));
      CHECK_FALSE(rate_figure(t.bound).empty());
      CHECK(cite_figure(*d, rate_figure(t.bound)) == t.rate_source);
    }
  }
  CHECK(rate_figure(Bound::kHbm) == "hbm.bandwidth");
  CHECK(rate_figure(Bound::kMatrix).empty());
}

// Ops alike in their work and in what their expected time reads of the instruction are timed
// once in a prediction (CombinedModel::time_op). Each op of this module, timed beside the others,
// must read as the module of it alone: e1 and e2 are alike; t1 has e1's work (bytes, one
// transcendental an element); d1 and d2 have the same FLOPs and bytes but GEMMs of other
// shapes (m 256 and n 1024, and the reverse); f1 and f3 fuse four tanh, f2 four exp: the same
// work, another issue time on GPUs (tanh's issue slots, not exp's).
constexpr char kAloneComputations[] = R"(
fa {
  x = f32[1024,1024] parameter(0)
  a1 = f32[1024,1024] tanh(x)
  a2 = f32[1024,1024] tanh(a1)
  a3 = f32[1024,1024] tanh(a2)
  ROOT a4 = f32[1024,1024] tanh(a3)
}

fb {
  x = f32[1024,1024] parameter(0)
  b1 = f32[1024,1024] exponential(x)
  b2 = f32[1024,1024] exponential(b1)
  b3 = f32[1024,1024] exponential(b2)
  ROOT b4 = f32[1024,1024] exponential(b3)
}
)";

constexpr char kAloneParameters[] = R"(
  p = f32[1024,1024] parameter(0)
  a = f32[256,512] parameter(1)
  b = f32[512,1024] parameter(2)
  c = f32[1024,512] parameter(3)
  d = f32[512,256] parameter(4)
)";

TEST_CASE("op times: ops alike are timed once, and each op reads as timed alone") {
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"e1", "f32[1024,1024] exponential(p)"},
      {"e2", "f32[1024,1024] exponential(p)"},
      {"t1", "f32[1024,1024] tanh(p)"},
      {"x1", "f32[1024,1024] add(p, p)"},
      {"d1", "f32[256,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"d2", "f32[1024,256] dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"f1", "f32[1024,1024] fusion(p), kind=kLoop, calls=fa"},
      {"f2", "f32[1024,1024] fusion(p), kind=kLoop, calls=fb"},
      {"f3", "f32[1024,1024] fusion(p), kind=kLoop, calls=fa"},
  };
  std::string all = absl::StrCat("HloModule m\n", kAloneComputations, "\nENTRY e {",
                                 kAloneParameters);
  std::vector<std::string> names, shapes;
  for (const auto& [name, op] : ops) {
    absl::StrAppend(&all, "  ", name, " = ", op, "\n");
    names.push_back(name);
    shapes.push_back(op.substr(0, op.find(' ')));
  }
  absl::StrAppend(&all, "  ROOT r = (", absl::StrJoin(shapes, ", "), ") tuple(",
                  absl::StrJoin(names, ", "), ")\n}\n");
  for (const std::string_view device : {"h100", "tpu_v5e"}) {
    for (const bool roofline_only : {false, true}) {
      PredictOptions options;
      options.roofline_only = roofline_only;
      const testing::Predicted p = testing::predict(all, device, options);
      for (const auto& [name, op] : ops) {
        INFO(device << (roofline_only ? ", roofline only: " : ": ") << name);
        const testing::Predicted alone = testing::predict(
            absl::StrCat("HloModule m\n", kAloneComputations, "\nENTRY e {", kAloneParameters,
                         "  ROOT ", name, " = ", op, "\n}\n"),
            device, options);
        const OpPrediction &a = p.op(name), &b = alone.op(name);
        CHECK(a.time_s == b.time_s);
        CHECK(a.roofline_time_s == b.roofline_time_s);
        CHECK(a.bound == b.bound);
        CHECK(a.resource == b.resource);
        CHECK(a.model() == b.model());
        CHECK(a.explanation() == b.explanation());
      }
      CHECK(p.op("e2").explanation().data() == p.op("e1").explanation().data());  // one text
      CHECK(p.op("f3").explanation().data() == p.op("f1").explanation().data());
      if (device == "h100" && !roofline_only) {
        // Measured GEMM tables and issue slots tell them apart (h100: d1 11.03 us, d2
        // 11.14 us; f1 9.35 us at 66.7 issue slots an element, f2 3.88 us, HBM bound).
        CHECK(p.op("d1").time_s != p.op("d2").time_s);
        CHECK(p.op("f1").time_s > 2 * p.op("f2").time_s);
      }
    }
  }
}

TEST_CASE("op times: past the memo's 4,096 keys, each op's explanation reads as timed alone") {
  // 4,200 ops of distinct work (the exponential of the first k elements of p): the op memo
  // keeps the first 4,096 ops' times; the later ones are made with their explanation's pieces
  // held only until they are joined (CombinedModel::set_transient_texts).
  constexpr int kOps = 4200;
  auto module = [](int first, int last) {
    std::string text = absl::StrCat("HloModule m\n\nENTRY e {\n  p = f32[", kOps + 1,
                                    "] parameter(0)\n");
    std::vector<std::string> outs, shapes;
    for (int k = first; k <= last; ++k) {
      absl::StrAppend(&text, "  sl", k, " = f32[", k, "] slice(p), slice={[0:", k, "]}\n",
                      "  ex", k, " = f32[", k, "] exponential(sl", k, ")\n");
      outs.push_back(absl::StrCat("ex", k));
      shapes.push_back(absl::StrCat("f32[", k, "]"));
    }
    absl::StrAppend(&text, "  ROOT r = (", absl::StrJoin(shapes, ", "), ") tuple(",
                    absl::StrJoin(outs, ", "), ")\n}\n");
    return text;
  };
  for (const std::string_view device : {"h100", "tpu_v5e"}) {
    PredictOptions options;
    options.explain = true;
    const testing::Predicted all = testing::predict(module(1, kOps), device, options);
    for (const int k : {1, 2, 4000, 4150, 4199, 4200}) {
      INFO(device << ": ex" << k);
      // Alone among four others: five kernels or more run as a command buffer, as the 4,200
      // do (a GPU program of fewer would wait on the host's launch of each).
      const int first = std::max(1, k - 4);
      const testing::Predicted alone = testing::predict(module(first, first + 4), device, options);
      const std::string name = absl::StrCat("ex", k);
      const OpPrediction &a = all.op(name), &b = alone.op(name);
      CHECK(!a.explanation().empty());
      CHECK(a.explanation() == b.explanation());
      CHECK(a.time_s == b.time_s);
      CHECK(a.model() == b.model());
    }
  }
}

TEST_CASE("cost_of finds the cost record that ModuleCost::find does, in any order asked") {
  // A loop whose body and condition are costed after the entry (callers first): asked for in
  // schedule order, then backwards and by skipping, each answer is find's.
  absl::StatusOr<Module> m = parse_module(R"(
HloModule m

body {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[1024] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[1024] exponential(x)
  ROOT t = (s32[], f32[1024]) tuple(j, y)
}

cond {
  p = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  a = f32[1024] parameter(0)
  z = s32[] constant(0)
  b = f32[1024] negate(a)
  t = (s32[], f32[1024]) tuple(z, b)
  w = (s32[], f32[1024]) while(t), condition=cond, body=body
  ROOT r = f32[1024] get-tuple-element(w), index=1
}
)");
  REQUIRE_OK(m);
  absl::StatusOr<ModuleCost> cost = analyze_cost(*m);
  REQUIRE_OK(cost);
  absl::StatusOr<DeviceSpec> d = device("tpu_v5e");
  REQUIRE_OK(d);
  absl::StatusOr<Topology> slice = make_topology(*d, "1x1");
  REQUIRE_OK(slice);
  const PredictOptions options;
  std::vector<const Instruction*> all;
  for (const Computation* c : m->computations()) {
    for (const Instruction* i : c->instructions()) all.push_back(i);
  }
  REQUIRE(all.size() == 17);  // 7 in the body, 4 in the condition, 6 in the entry
  std::vector<std::vector<const Instruction*>> orders = {all, all, {}};
  std::reverse(orders[1].begin(), orders[1].end());
  for (size_t k = 0; k < all.size(); k += 3) orders[2].push_back(all[k]);
  for (size_t k = 1; k < all.size(); k += 3) orders[2].push_back(all[k]);
  for (const std::vector<const Instruction*>& order : orders) {
    const PredictionInputs inputs{
        .module = *m, .device = *d, .slice = *slice, .options = options, .cost = *cost};
    CombinedModel model(inputs);
    for (const Instruction* i : order) {
      INFO(std::string(i->name()));
      CHECK(model.cost_of(*i) == cost->find(i));
      CHECK(model.cost_of(*i) == cost->find(i));  // asked again at once
    }
  }
}

}  // namespace
}  // namespace hloroof::predict
