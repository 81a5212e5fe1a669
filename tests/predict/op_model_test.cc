// The models of one op's time (lib/predict/op_model.h) and the combined model that picks one
// for each op (combined_model.h): each estimate carries its figures, the data it used and what
// it assumed, and the combined model records those and renders the explanation afterwards.
#include <catch2/catch.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/topology.h"
#include "predict/combined_model.h"
#include "predict/op_model.h"
#include "predict/predict_internal.h"
#include "require_ok.h"

namespace hloroof::predict {
namespace {

bool has(absl::Span<const std::string_view> figures, std::string_view path) {
  return std::find(figures.begin(), figures.end(), path) != figures.end();
}

// 3.35e9 bytes of HBM traffic: 1 ms at the H100's 3.35e12 B/s (data/hardware/h100.json).
OpWork hbm_work() {
  OpWork w;
  w.hbm_bytes = 3.35e9;
  return w;
}

TEST_CASE("roofline model: an HBM-bound op at the bandwidth, the figures it used noted") {
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(h100);
  OpView op;
  op.work = hbm_work();
  op.include_overhead = true;
  const OpEstimate e = RooflineModel(*h100, /*cite_matrix=*/false).estimate(op);
  // 3.35e9 B / 3.35e12 B/s = 1 ms, plus the 1 us per-op overhead; the floor is the term alone
  // (the launch floor, 0.9 us, overlaps it).
  CHECK(e.roofline.floor_s == Approx(1e-3));
  CHECK(e.time_s == Approx(1e-3 + 1e-6));
  CHECK(e.resource == Bound::kHbm);
  CHECK(e.bound == BoundBy::kMemory);
  CHECK(e.model == "roofline");
  CHECK(has(e.notes.figures, "hbm.bandwidth"));
  CHECK(has(e.notes.figures, "per_op_overhead"));
  CHECK(has(e.notes.figures, "launch_floor"));
  CHECK(e.notes.assumptions.empty());
  CHECK(!e.kernel);
  CHECK(e.device_model == nullptr);
}

TEST_CASE("GPU tables model: a memory-bound GPU op at the measured 0.87 of HBM bandwidth") {
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(h100);
  OpView op;
  op.work = hbm_work();
  GemmTimeCache gemm_times;
  const std::unique_ptr<DeviceModel> gpu = pick_device_model(*h100, gemm_times);
  REQUIRE(gpu != nullptr);
  const OpEstimate e = gpu->estimate(op, RooflineModel(*h100, false).estimate(op));
  // 1 ms / 0.87 + 1 us = 1.1504 ms (kGpuHbmFraction).
  CHECK(e.time_s == Approx(1e-3 / 0.87 + 1e-6));
  CHECK(e.model == "achievable HBM (measured)");
  CHECK(e.device_model == gpu.get());
  CHECK(e.model_s == e.time_s);
  CHECK(e.roofline.floor_s == Approx(1e-3));  // the roofline is kept beside it
  // What the time was made from, for its explanation: the HBM term alone, 1 ms / 0.87, at the
  // measured share; no GEMM table.
  const auto* basis = std::get_if<GpuOpBasis>(&e.basis);
  REQUIRE(basis != nullptr);
  REQUIRE(basis->terms.size() == 1);
  CHECK(basis->terms[0].first == GpuOpBasis::Term::kHbm);
  CHECK(basis->terms[0].second == Approx(1e-3 / 0.87));
  CHECK(basis->hbm_fraction == 0.87);
  CHECK(!basis->hbm_calibrated);
  CHECK(basis->gemms == 0);
  // Rendered afterwards: the share and the term's time, 1.149 ms; the sum 1.150 ms.
  TextPool pool;
  TextMemo memo(pool);
  CHECK(std::string(gpu->explain(e, memo)) ==
        "expected = max(terms as measured) + overhead = 0.00115 s (HBM at 0.87 of its "
        "bandwidth (measured): 0.001149 s)");
}

TEST_CASE("kernel estimate model: XLA's estimate of the kernel, never below the roofline") {
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(h100);
  const KernelEstimateModel model(*h100);
  OpView op;
  op.work = hbm_work();
  const OpEstimate roofline = RooflineModel(*h100, false).estimate(op);
  op.kernel = KernelTimeEstimate{.exec_time_s = 2e-3, .model = "sol"};
  const OpEstimate slower = model.estimate(op, roofline);
  CHECK(slower.time_s == 2e-3);
  CHECK(slower.model == "kernel's own estimate (XLA cost model sol)");
  REQUIRE(slower.kernel);
  CHECK(slower.kernel->exec_time_s == 2e-3);
  REQUIRE(slower.notes.assumptions.size() == 1);
  CHECK(absl::StrContains(slower.notes.assumptions[0], "reification_cost"));
  // 0.5 ms is below the 1.001 ms roofline, which is kept.
  op.kernel = KernelTimeEstimate{.exec_time_s = 5e-4};
  const OpEstimate faster = model.estimate(op, roofline);
  CHECK(faster.time_s == roofline.time_s);
  CHECK(faster.model == "kernel's own estimate (XLA cost model)");
}

TEST_CASE("combined model: each op's model picked by the op and the device") {
  absl::StatusOr<Module> m = parse_module(R"(
HloModule m

fused_negate {
  p = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(p)
}

ENTRY e {
  a = f32[1024]{0} parameter(0)
  k = f32[1024]{0} fusion(a), kind=kCustom, calls=fused_negate, backend_config={"reification_cost":[{"exec_time_us":500,"name":"sol"}]}
  x = f32[1048576]{0} parameter(1)
  big = f32[1048576]{0} negate(x)
  ROOT t = (f32[1024]{0}, f32[1048576]{0}) tuple(k, big)
}
)");
  REQUIRE_OK(m);
  absl::StatusOr<ModuleCost> cost = analyze_cost(*m);
  REQUIRE_OK(cost);
  const Instruction* k = m->entry()->find_instruction("k");
  const Instruction* big = m->entry()->find_instruction("big");
  REQUIRE(k != nullptr);
  REQUIRE(big != nullptr);
  const auto work = [&](const Instruction* i) {
    const InstructionCost* r = cost->find(i);
    REQUIRE(r != nullptr);
    OpWork w;
    w.hbm_bytes = r->cost.hbm_bytes();
    w.vector_flops = r->cost.vector_flops();
    return w;
  };
  for (const std::string_view name : {"h100", "tpu_v5e"}) {
    INFO(name);
    absl::StatusOr<DeviceSpec> d = device(name);
    REQUIRE_OK(d);
    absl::StatusOr<Topology> slice = make_topology(*d, "1x1");
    REQUIRE_OK(slice);
    for (const bool roofline_only : {false, true}) {
      PredictOptions options;
      options.roofline_only = roofline_only;
      CombinedModel model({.module = *m,
                           .device = *d,
                           .slice = *slice,
                           .options = options,
                           .cost = *cost});
      const OpView kernel_op = model.view_of(*k, work(k), true, false);
      const OpEstimate kernel = model.estimate(kernel_op);
      const OpEstimate general = model.estimate(model.view_of(*big, work(big), true, false));
      if (roofline_only) {
        // The roofline walk times every op at its floor, by no other model.
        CHECK(kernel.time_s == kernel.roofline.floor_s);
        CHECK(general.time_s == general.roofline.floor_s);
        CHECK(!kernel.kernel);
        CHECK(general.device_model == nullptr);
        continue;
      }
      // A GPU kernel's own estimate (500 us) is its time; a TPU reads none.
      CHECK(kernel.kernel.has_value() == (name == "h100"));
      if (name == "h100") CHECK(kernel.time_s == Approx(500e-6));
      CHECK(!general.kernel);
      REQUIRE(general.device_model != nullptr);
      CHECK(general.time_s >= general.roofline.time_s);
      // What the estimates assumed is recorded once, in order.
      const RecordedNotes notes = model.take_notes();
      const bool reification = std::any_of(
          notes.assumptions.begin(), notes.assumptions.end(),
          [](const std::string& a) { return absl::StrContains(a, "reification_cost"); });
      CHECK(reification == (name == "h100"));
      CHECK(notes.figures_used.contains("hbm.bandwidth"));
    }
  }
}

// One elementwise op over 4 MiB in, 4 MiB out.
constexpr char kOneNegate[] = R"(
HloModule m

ENTRY e {
  x = f32[1048576]{0} parameter(0)
  ROOT big = f32[1048576]{0} negate(x)
}
)";

TEST_CASE("combined model: the explanation is rendered from the estimate") {
  absl::StatusOr<Module> m = parse_module(kOneNegate);
  REQUIRE_OK(m);
  absl::StatusOr<ModuleCost> cost = analyze_cost(*m);
  REQUIRE_OK(cost);
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(h100);
  absl::StatusOr<Topology> slice = make_topology(*h100, "1x1");
  REQUIRE_OK(slice);
  PredictOptions options;
  options.explain = true;
  CombinedModel model(
      {.module = *m, .device = *h100, .slice = *slice, .options = options, .cost = *cost});
  const Instruction* big = m->entry()->root();
  OpWork w;
  w.hbm_bytes = cost->find(big)->cost.hbm_bytes();
  w.hbm_read_bytes = cost->find(big)->cost.padded_read.device;  // as a prediction counts it
  const OpView op = model.view_of(*big, w, true, false);
  const OpEstimate e = model.estimate(op);
  Explanation explanation;
  model.render(op, e, explanation);
  const std::string text(model.join(explanation));
  // The roofline's formula, then the GPU tables model's line: 8 MiB read and written,
  // 8388608 B / 3.35e12 B/s = 2.504 us at the roofline, / 0.87 + 1 us = 3.878 us expected.
  // The small-kernel floor of an elementwise kernel is below it: 1.07 us + 0.03 us x
  // log2(8388608 / 1024) = 0.39 us + its floor's work, the 4 MiB written at 3.35e12 B/s (the 4
  // MiB read may come from L2, at 6.5e12 B/s: 0.645 us) = 1.252 us: 2.712 us.
  CHECK(absl::StrContains(text, "HBM at 0.87 of its bandwidth (measured)"));
  CHECK(absl::StartsWith(text, std::string(model.join([&] {
                           Explanation roofline_only;
                           model.render(op, RooflineModel(*h100, true).estimate(op),
                                        roofline_only);
                           return roofline_only;
                         }()))));
  CHECK(e.time_s == Approx(8388608 / 3.35e12 / 0.87 + 1e-6));
}


// A toy device model, added as docs/development.md says a model is: a class deriving from
// DeviceModel, and one line of the list the combined model picks from. Every op at twice its
// roofline.
class TwiceTheRooflineModel final : public DeviceModel {
 public:
  OpEstimate estimate(const OpView&, OpEstimate e) const override {
    e.model = "toy: twice the roofline";
    e.model_s = 2 * e.roofline.time_s;
    e.time_s = e.model_s;
    e.device_model = this;
    return e;
  }
  std::string_view explain(const OpEstimate& e, TextMemo& memo) const override {
    return memo.save(absl::StrCat("expected = 2 x the roofline = ", e.model_s, " s"));
  }
};

bool takes_h100(const DeviceSpec& d) { return d.name == "h100"; }
std::unique_ptr<DeviceModel> make_twice(const DeviceSpec&, GemmTimeCache&) {
  return std::make_unique<TwiceTheRooflineModel>();
}

TEST_CASE("device models: a new model is a class and one line of the list") {
  absl::StatusOr<Module> m = parse_module(kOneNegate);
  REQUIRE_OK(m);
  absl::StatusOr<ModuleCost> cost = analyze_cost(*m);
  REQUIRE_OK(cost);
  // The toy first, then the built-in models.
  std::vector<DeviceModelChoice> models = {{"toy", takes_h100, make_twice}};
  for (const DeviceModelChoice& c : device_models()) models.push_back(c);
  PredictOptions options;
  options.explain = true;
  for (const std::string_view name : {"h100", "h200"}) {
    INFO(name);
    absl::StatusOr<DeviceSpec> d = device(name);
    REQUIRE_OK(d);
    absl::StatusOr<Topology> slice = make_topology(*d, "1x1");
    REQUIRE_OK(slice);
    CombinedModel model(
        {.module = *m, .device = *d, .slice = *slice, .options = options, .cost = *cost},
        models);
    absl::StatusOr<InstructionTiming> t = model.time_instruction(*m->entry()->root(), {});
    REQUIRE_OK(t);
    // 8 MiB read and written at the roofline, plus the 1 us overhead (both GPUs).
    const RooflineEstimate roofline =
        op_roofline(*m->entry()->root(), *cost->find(m->entry()->root()), *d, true);
    if (name == "h100") {
      // The toy takes the h100: 2 x its roofline, and its own words in the explanation.
      CHECK(t->time_s == Approx(2 * roofline.time_s));
      CHECK(t->model == "toy: twice the roofline");
      CHECK(absl::StrContains(std::string(t->explanation), "expected = 2 x the roofline = "));
    } else {
      // Not the h200: the GPU tables, as without the toy.
      CHECK(t->model != "toy: twice the roofline");
      CHECK(absl::StrContains(std::string(t->explanation), "HBM at 0.87 of its bandwidth"));
    }
  }
}

TEST_CASE("device models: the first of the list that takes the device") {
  GemmTimeCache gemm_times;
  OpView op;
  op.work = hbm_work();
  // 3.35e9 B of HBM traffic on each device; its roofline from RooflineModel.
  const auto model_of = [&](const DeviceSpec& d) {
    std::unique_ptr<DeviceModel> m = pick_device_model(d, gemm_times);
    REQUIRE(m != nullptr);
    return m->estimate(op, RooflineModel(d, false).estimate(op));
  };
  absl::StatusOr<DeviceSpec> v5e = device("tpu_v5e");
  REQUIRE_OK(v5e);
  // A TPU whose file sets no calibration: the TPU fits, measured on tpu7x and borrowed.
  CHECK(std::holds_alternative<TpuOpBasis>(model_of(*v5e).basis));
  CHECK(absl::StrContains(model_of(*v5e).model, "tpu7x"));
  // With a calibrated HBM efficiency, 0.5: the calibrated model, HBM at half the bandwidth:
  // 3.35e9 B / 8.19e11 B/s (data/hardware/tpu_v5e.json) = 4.09 ms, / 0.5 = 8.18 ms, plus the
  // per-op overhead.
  DeviceSpec calibrated = *v5e;
  calibrated.hbm_efficiency = 0.5;
  calibrated.hbm_efficiency_set = true;
  const OpEstimate c = model_of(calibrated);
  CHECK(c.model == "calibrated hbm_efficiency");
  CHECK(c.time_s ==
        Approx(3.35e9 / calibrated.hbm_bandwidth / 0.5 + calibrated.per_op_overhead_s));
  // A TPU that names no fits to take: the roofline itself.
  DeviceSpec unmeasured = *v5e;
  unmeasured.measured_on.tpu_fits.clear();
  const OpEstimate r = model_of(unmeasured);
  CHECK(r.model == "roofline (no measured model for TPUs)");
  CHECK(r.time_s == r.roofline.time_s);
  CHECK(std::holds_alternative<std::monostate>(r.basis));
}

}  // namespace
}  // namespace hloroof::predict
