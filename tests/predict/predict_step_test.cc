// Composing a step (docs/prediction-model.md, "Async pairs and the schedule"): schedule order,
// async pairs overlapping the ops between start and done (S1), loops, conditionals, calls, async
// copies and computations; the breakdown, the op records, the timeline, the topology and the
// assumptions.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "examples.h"
#include "host_slice.h"
#include "hloroof/device_target.h"
#include "hloroof/report.h"
#include "nlohmann/json.hpp"
#include "predict_on.h"
#include "predict_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::no_overhead;
using testing::predict;

// S1 in microseconds on a TPU v5e 1x2, without per-op overhead: each add reads two f32
// operands and writes one, 12 B per element at 8.19e11 B/s, so f32[204750] takes 3 us,
// f32[136500] 2 us, f32[273000] 4 us. The all-gather of f32[67500] -> f32[135000]
// (V = 540,000 B) runs along a line of 2: V (2-1) / (2 x 4.5e10) = 6 us.
constexpr char kS1[] = R"(HloModule overlap, num_partitions=2, is_scheduled=true
ENTRY main {
  x = f32[67500] parameter(0)
  a0 = f32[204750] parameter(1)
  b0 = f32[136500] parameter(2)
  c0 = f32[273000] parameter(3)
  ORDER
  ROOT t = (f32[135000], f32[204750], f32[136500], f32[273000]) tuple(agd, a, b, c)
})";
constexpr char kStart[] =
    "ags = (f32[67500], f32[135000]) all-gather-start(x), channel_id=1, "
    "replica_groups={{0,1}}, use_global_device_ids=true, dimensions={0}\n";
constexpr char kA[] = "a = f32[204750] add(a0, a0)\n";
constexpr char kB[] = "b = f32[136500] add(b0, b0)\n";
constexpr char kC[] = "c = f32[273000] add(c0, c0)\n";
constexpr char kDone[] = "agd = f32[135000] all-gather-done(ags)\n";

// S1 in the order start, A, B, done, C.
std::string s1_text() {
  return absl::StrReplaceAll(kS1, {{"ORDER", std::string(kStart) + kA + kB + kDone + kC}});
}

testing::Predicted s1(std::vector<const char*> order) {
  std::string body;
  for (const char* line : order) body += line;
  return predict(absl::StrReplaceAll(kS1, {{"ORDER", body}}), "tpu_v5e:1x2", no_overhead());
}

constexpr double kUs = 1e-6;

TEST_CASE("S1: the done waits only for what the ops in between did not hide") {
  // start, A (3), B (2), done, C (4); latency 6: clock 0, 3, 5, wait 1 -> 6, 10.
  auto p = s1({kStart, kA, kB, kDone, kC});
  CHECK(p.op("a").time_s == Approx(3 * kUs));
  CHECK(p.op("ags").collective->time_s == Approx(6 * kUs));
  CHECK(p->step_time_s == Approx(10 * kUs));  // serial would be 15, perfect overlap 9
  CHECK(p.op("agd").time_s == Approx(1 * kUs));
  CHECK(p.op("agd").bound == BoundBy::kCollective);
  CHECK(p.op("ags").time_s == 0);
  CHECK(p.op("ags").collective->exposed_s == Approx(1 * kUs));
  CHECK(p.op("ags").collective->hidden_s == Approx(5 * kUs));
  CHECK(p->breakdown.collective_exposed_s == Approx(1 * kUs));
  CHECK(p->breakdown.collective_hidden_s == Approx(5 * kUs));
  CHECK(p->breakdown.memory_s == Approx(9 * kUs));
  REQUIRE(p.op("agd").async.has_value());
  CHECK(p.op("agd").async->start == "ags");
  CHECK(p.op("agd").async->stream == "async all-gather");
}

TEST_CASE("S1 variants: fully hidden and fully exposed") {
  // Done after C: 9 us of work hide all 6 us.
  auto hidden = s1({kStart, kA, kB, kC, kDone});
  CHECK(hidden->step_time_s == Approx(9 * kUs));
  CHECK(hidden->breakdown.collective_exposed_s == 0);
  CHECK(hidden->breakdown.collective_hidden_s == Approx(6 * kUs));
  // Done right after the start: nothing hides it, 6 + 9 = 15.
  auto exposed = s1({kStart, kDone, kA, kB, kC});
  CHECK(exposed->step_time_s == Approx(15 * kUs));
  CHECK(exposed->breakdown.collective_exposed_s == Approx(6 * kUs));
  CHECK(exposed->breakdown.collective_hidden_s == 0);
}

TEST_CASE("S1 timeline: compute track in order, the all-gather on its own stream") {
  auto p = s1({kStart, kA, kB, kDone, kC});
  std::vector<std::string> compute;
  const TimelineEvent* stream = nullptr;
  for (const TimelineEvent& e : p->timeline) {
    if (e.track == "compute") compute.push_back(e.name);
    if (e.track == "async all-gather") stream = &e;
  }
  CHECK(compute == std::vector<std::string>{"a", "b", "agd", "c"});
  REQUIRE(stream != nullptr);
  CHECK(stream->name == "ags");
  CHECK(stream->start_s == 0);
  CHECK(stream->duration_s == Approx(6 * kUs));
  // The trace view renders it.
  const nlohmann::json trace = nlohmann::json::parse(prediction_to_trace_json(p.prediction));
  CHECK(trace["traceEvents"].size() > 4);
}

// A loop of 5 iterations (known_trip_count) whose body adds f32[1024] (12,288 B) and bumps
// an s32 counter (12 B); the condition compares the counter with a constant (9 B).
constexpr char kLoop[] = R"(HloModule m, is_scheduled=true
cond {
  s = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[1024] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[1024] add(x, x)
  ROOT r = (s32[], f32[1024]) tuple(i1, x1)
}
ENTRY e {
  x = f32[1024] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[1024]) tuple(zero, x)
  ROOT w = (s32[], f32[1024]) while(s), condition=cond, body=body, backend_config={"known_trip_count":{"n":"5"}}
})";

TEST_CASE("a while loop runs its body trip-count times and its condition once more") {
  auto p = predict(kLoop, "tpu_v5e", no_overhead());
  const double body = (12288.0 + 12) / 8.19e11, condition = 9 / 8.19e11;
  CHECK(p->step_time_s == Approx(5 * body + 6 * condition));
  CHECK(p.op("x1").multiplier == 5);
  CHECK(p.op("lt").multiplier == 6);
  CHECK(!p.has_op("w"));  // the loop is its body's and condition's ops, not an op itself
  CHECK(!p->is_lower_bound);
}

// PredictOptions::explain off only leaves the explanations empty: the JSON of both predictions
// is the same once those are cleared. S1 has an async collective pair (its done explains its
// wait), kLoop a loop; on tpu_v5e (the measured TPU models) and on h100 (the GPU tables).
TEST_CASE("explain off leaves every explanation empty and every other figure as it was") {
  for (const char* device : {"tpu_v5e:1x2", "h100:1x2"}) {
    for (const std::string& text :
         {absl::StrReplaceAll(kS1, {{"ORDER", std::string(kStart) + kA + kB + kDone + kC}}),
          std::string(kLoop)}) {
      INFO(device << "\n" << text);
      PredictOptions off;
      off.explain = false;
      auto explained = predict(text, device);
      auto plain = predict(text, device, off);
      size_t with_text = 0;
      for (OpPrediction& op : explained.prediction.ops) {
        with_text += !op.explanation().empty();
        OpTexts t = op.all_texts();
        t.explanation = {};
        op.set_texts(std::make_shared<TextPool>(), t);
      }
      for (const OpPrediction& op : plain->ops) CHECK(op.explanation().empty());
      CHECK(with_text == explained->ops.size());  // asked, every op says how it was timed
      CHECK(prediction_to_json(explained.prediction) == prediction_to_json(plain.prediction));
    }
  }
}

// PredictOptions::timeline off leaves the timeline empty and nothing else changed: the JSON
// (which holds no timeline) of both predictions is the same. kLoop's timeline has slices (its
// iterations and their ops), so the test could fail.
TEST_CASE("timeline off leaves the timeline empty and every other figure as it was") {
  for (const char* device : {"tpu_v5e:1x2", "h100:1x2"}) {
    for (const std::string& text :
         {absl::StrReplaceAll(kS1, {{"ORDER", std::string(kStart) + kA + kB + kDone + kC}}),
          std::string(kLoop)}) {
      INFO(device << "\n" << text);
      PredictOptions off;
      off.timeline = false;
      auto laid_out = predict(text, device);
      auto plain = predict(text, device, off);
      CHECK(!laid_out->timeline.empty());
      CHECK(plain->timeline.empty());
      CHECK(prediction_to_json(laid_out.prediction) == prediction_to_json(plain.prediction));
    }
  }
}

// The cost analysed once and given to the predictions of several devices (`hloroof compare`)
// gives each the prediction it makes analysing the cost itself: the cost depends on no device.
// A TPU layout's tiles pad bytes (kTiled), which the cost holds whichever device reads it. A
// cost that keeps the record of every fused instruction (the prediction's keeps a fused
// collective's only) gives the same prediction too.
TEST_CASE("a prediction from a cost analysed once is the one analysing it itself") {
  const std::string tiled = R"(HloModule t
ENTRY e {
  p = bf16[3,100]{1,0:T(8,128)(2,1)} parameter(0)
  ROOT n = bf16[3,100]{1,0:T(8,128)(2,1)} negate(p)
})";
  const std::string fused = R"(HloModule f, replica_count=2
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
body {
  p = f32[4096] parameter(0)
  e = f32[4096] exponential(p)
  ar = f32[4096] all-reduce(e), replica_groups={{0,1}}, to_apply=sum
  ROOT m = f32[4096] multiply(ar, e)
}
ENTRY e {
  a = f32[4096] parameter(0)
  f = f32[4096] fusion(a), kind=kCustom, calls=body
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(f, zero), dimensions={0}, to_apply=sum
})";
  for (const std::string& text :
       {absl::StrReplaceAll(kS1, {{"ORDER", std::string(kStart) + kA + kB + kDone + kC}}),
        std::string(kLoop), tiled, fused}) {
    absl::StatusOr<Module> module = parse_module(text);
    REQUIRE_OK(module);
    for (int64_t trips : {1, 3}) {
      PredictOptions options;
      options.default_trip_count = trips;
      const absl::StatusOr<ModuleCost> cost = analyze_cost(*module, cost_options(options));
      REQUIRE_OK(cost);
      CostOptions every_record = cost_options(options);
      every_record.fused_records = true;
      const absl::StatusOr<ModuleCost> every = analyze_cost(*module, every_record);
      REQUIRE_OK(every);
      for (const char* name : {"tpu_v5e:1x2", "tpu_v5p:2x2x1", "h100:1x2"}) {
        INFO(name << "\n" << text);
        absl::StatusOr<DeviceTarget> device = resolve_device(name, &*module);
        REQUIRE_OK(device);
        absl::StatusOr<Prediction> own = predict_step_time(*module, *device, options);
        absl::StatusOr<Prediction> shared = predict_step_time(*module, *device, options, *cost);
        absl::StatusOr<Prediction> from_every =
            predict_step_time(*module, *device, options, *every);
        REQUIRE_OK(own);
        REQUIRE_OK(shared);
        REQUIRE_OK(from_every);
        CHECK(own->hbm_bytes > 0);
        CHECK(prediction_to_json(*own) == prediction_to_json(*shared));
        CHECK(prediction_to_json(*own) == prediction_to_json(*from_every));
      }
    }
  }
}

// PredictOptions::max_ops keeps the records of the ops with the most step time only: the first
// N records of the whole prediction, and every figure of the step (the JSON holds the breakdown,
// FLOPs, bytes, HFU) as it was. S1 has ops of equal time (the ties keep their order).
TEST_CASE("max_ops keeps the first records and every figure of the step") {
  for (const char* device : {"tpu_v5e:1x2", "h100:1x2"}) {
    for (const std::string& text :
         {absl::StrReplaceAll(kS1, {{"ORDER", std::string(kStart) + kA + kB + kDone + kC}}),
          std::string(kLoop)}) {
      auto all = predict(text, device);
      REQUIRE(all->ops.size() >= 2);
      for (size_t n : {size_t{1}, size_t{2}, all->ops.size() - 1, all->ops.size() + 5}) {
        INFO(device << " max_ops " << n << "\n" << text);
        PredictOptions cut;
        cut.max_ops = n;
        // Not through predict(), which checks that the records add up to the step.
        absl::StatusOr<Prediction> some = testing::predict_text(text, device, cut);
        REQUIRE_OK(some);
        CHECK(some->ops.size() == std::min(n, all->ops.size()));
        absl::StatusOr<Prediction> first = testing::predict_text(text, device);
        REQUIRE_OK(first);
        if (first->ops.size() > n) first->ops.resize(n);
        CHECK(prediction_to_json(*first) == prediction_to_json(*some));
      }
    }
  }
}

// A record keeps its texts as Refs of the pool it holds: a copy outlives the prediction and
// the pool's other holders, and set_texts saves a record's texts made by hand.
TEST_CASE("an op record's texts live as long as the record") {
  std::optional<OpPrediction> kept;
  std::string name, explanation;
  {
    absl::StatusOr<Prediction> p = testing::predict_text(std::string(kLoop), "tpu_v5e");
    REQUIRE_OK(p);
    REQUIRE(!p->ops.empty());
    const OpPrediction& first = p->ops.front();
    name = std::string(first.name());
    explanation = std::string(first.explanation());
    kept = first;
  }
  CHECK(kept->name() == name);
  CHECK(!name.empty());
  CHECK(kept->explanation() == explanation);
  CHECK(!kept->opcode().empty());
  CHECK(!kept->model().empty());

  OpPrediction made;
  CHECK(made.name().empty());
  CHECK(made.texts() == nullptr);
  {
    auto texts = std::make_shared<TextPool>();
    std::string category = "loop fusion";
    made.set_texts(texts, {.name = "fusion.1",
                           .opcode = "fusion",
                           .computation = "main",
                           .category = category,
                           .op_name = "jit(f)/add",
                           .model = "roofline",
                           .explanation = "why"});
    category.assign(category.size(), '?');  // saved: the record does not view the caller's
  }
  const OpTexts t = made.all_texts();
  CHECK(t.name == "fusion.1");
  CHECK(t.opcode == "fusion");
  CHECK(t.computation == "main");
  CHECK(t.category == "loop fusion");
  CHECK(t.op_name == "jit(f)/add");
  CHECK(t.model == "roofline");
  CHECK(t.explanation == "why");
  made.set_texts(nullptr, {});
  CHECK(made.all_texts().name.empty());
  CHECK(made.texts() == nullptr);
  // Two devices' records are most of `compare --json`'s peak (gemma3: 15,900 records each).
  CHECK(sizeof(OpPrediction) <= 168);
}

// A scatter whose indices may repeat has a time range (TimeRange), carried by its record, the
// step and the JSON. Two bf16 embedding gradients, 16384 rows of 4096 into bf16[32000,4096], in
// any order (examples/h200_embedding_grads.hlo), on h200 (tests/predict/measured_models_test.cc derives the model's terms): each
// takes 16384 x 9.2 ps + 16384 x 4096 x 7.6 ps = 510.178 us of atomics + 0.7 us overhead, and
// indices spread evenly put 16384 / 32000 < 1 update on a row: the low end is the expected
// time. The high end, token ids under a Zipf law of exponent 1.1 over 32000 rows: H(32000, 1.1)
// = 1 + 2^-1.1 + ... + 32000^-1.1 = 7.04053, 16384 / 7.04053 = 2327.10 updates on the first
// row, 2326.10 repeats x 6.8 us = 15.8175 ms more. The step's range: the step, and the step +
// 2 x 15.8175 ms = 31.635 ms more (both scatters run once, one after the other).
TEST_CASE("a scatter's repeated indices give its record and the step a time range") {
  const std::string two_grads = testing::read_example("h200_embedding_grads.hlo");
  const auto p = predict(two_grads, "h200");
  const double expected = 16384 * 9.2e-12 + 16384.0 * 4096 * 7.6e-12 + 0.7e-6;
  const double zipf_more = (16384 / 7.04053 - 1) * 6.8e-6;
  for (const char* name : {"g1", "g2"}) {
    INFO(name);
    const OpPrediction& op = p.op(name);
    CHECK(op.time_s == Approx(expected).epsilon(1e-5));
    const std::optional<TimeRange> r = op.time_range();
    REQUIRE(r.has_value());
    CHECK(r->low_s == op.time_s);
    CHECK(r->high_s == Approx(expected + zipf_more).epsilon(1e-5));
    CHECK(r->low == "indices spread evenly over the rows");
    CHECK(r->high == "a Zipf law of exponent 1.1 over the rows, as text's token ids");
    // The range travels with the texts into another pool, and goes with them.
    OpPrediction copy = op;
    copy.set_texts(std::make_shared<TextPool>(), op.all_texts());
    REQUIRE(copy.time_range().has_value());
    CHECK(copy.time_range()->high_s == r->high_s);
    CHECK(copy.time_range()->high == r->high);
    copy.set_texts(nullptr, {});
    CHECK(!copy.time_range().has_value());
  }
  REQUIRE(p->step_time_range.has_value());
  CHECK(p->step_time_range->low_s == Approx(p->step_time_s).epsilon(1e-12));
  CHECK(p->step_time_range->high_s == Approx(p->step_time_s + 2 * zipf_more).epsilon(1e-5));
  CHECK(p->step_time_range->high.find("Zipf law") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(prediction_to_json(p.prediction));
  CHECK(j["step_time_range"]["high_s"].get<double>() == p->step_time_range->high_s);
  for (const nlohmann::json& op : j["ops"]) {
    CHECK(op["time_range"]["low_s"].get<double>() == op["time_s"].get<double>());
    CHECK(op["time_range"]["high_s"].get<double>() ==
          Approx(expected + zipf_more).epsilon(1e-5));
  }
  // Sorted bf16 indices keep the range: sorting puts a row's repeats side by side, it does not
  // shorten their chain (bench/measured/gpu_h200_contention: Zipf 1.1 ids took 23.5 ms a call
  // sorted, 17.6 ms unsorted). The sorted model's conflicts, min(32 / 4096, 0.512) < 1, add
  // nothing: the same range as above.
  std::string sorted = two_grads;
  absl::StrReplaceAll({{"to_apply=add", "indices_are_sorted=true, to_apply=add"}}, &sorted);
  const auto sorted_p = predict(sorted, "h200");
  REQUIRE(sorted_p.op("g1").time_range().has_value());
  CHECK(sorted_p.op("g1").time_range()->high_s == Approx(expected + zipf_more).epsilon(1e-5));
  // Indices declared unique: no range.
  std::string unique = two_grads;
  absl::StrReplaceAll({{"to_apply=add", "unique_indices=true, to_apply=add"}}, &unique);
  const auto q = predict(unique, "h200");
  CHECK(!q->step_time_range.has_value());
  CHECK(!q.op("g1").time_range().has_value());
  const nlohmann::json k = nlohmann::json::parse(prediction_to_json(q.prediction));
  CHECK(k["step_time_range"].is_null());
  CHECK(k["ops"][0]["time_range"].is_null());
}

// A decode step's two memory-bound pieces on h200 (HBM at 0.87 of 4.8e12 B/s, + 0.7 us a
// kernel). A matrix-vector product, bf16[1,4096] x bf16[4096,12288], is outside the measured
// GEMM table (M from 256) and reads its weights once: 100663296 + 8192 + 24576 = 100696064 B,
// 24.113 us, + 0.7 = 24.813 us (the table's extrapolated GEMM, 0.24 us, is below it). The
// new position written into a KV cache bf16[8,8192,32,128] in place (a fusion whose root is a
// dynamic-update-slice of its parameter) moves the update, not the cache: 65536 B read and
// 65536 B written + the 4 B index = 131076 B (the cache's 536870912 B would take 128.6 us).
// At the HBM share that is 31.4 ns, + 0.7 us = 0.7314 us; the small-kernel floor of an
// elementwise kernel on h200 is longer: 0.87 us + 0.03 us x log2(131076 / 1024) = 0.21 us,
// + its floor's work, the 65536 B written at 4.8e12 B/s = 13.65 ns (the 65540 B read may come
// from L2 at 6.5e12 B/s: 10.08 ns) = 1.0937 us.
TEST_CASE("decode: a GEMV reads its weights once, a cache write moves the update only") {
  constexpr std::string_view kGemv = R"(HloModule m
ENTRY e {
  x = bf16[1,4096] parameter(0)
  w = bf16[4096,12288] parameter(1)
  ROOT d = bf16[1,12288] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  const auto gemv = predict(kGemv, "h200");
  CHECK(gemv.op("d").hbm_bytes == 100696064);
  CHECK(gemv.op("d").time_s == Approx(100696064 / (0.87 * 4.8e12) + 0.7e-6).epsilon(1e-4));
  constexpr std::string_view kCacheWrite = R"(HloModule m
write {
  c = bf16[8,8192,32,128] parameter(0)
  u = bf16[8,1,32,128] parameter(1)
  p = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = bf16[8,8192,32,128] dynamic-update-slice(c, u, z, p, z, z)
}
ENTRY e {
  cache = bf16[8,8192,32,128] parameter(0)
  new = bf16[8,1,32,128] parameter(1)
  pos = s32[] parameter(2)
  ROOT f = bf16[8,8192,32,128] fusion(cache, new, pos), kind=kLoop, calls=write
})";
  const auto write = predict(kCacheWrite, "h200");
  CHECK(write.op("f").hbm_bytes == 131076);
  CHECK(write.op("f").time_s ==
        Approx(0.87e-6 + 0.03e-6 * std::log2(131076.0 / 1024) + 65536 / 4.8e12).epsilon(1e-4));
  CHECK(write.op("f").model() == "small-kernel floor (measured)");
}

// The small kernels between a decode step's large ones: softmax's max over a row of scores,
// f32[32,8192] -> f32[32] (a reduction: 1048576 B and the 4 B initial value read, 128 B
// written: 1048708 B). The HBM share and per-op cost give h200 1048708 / (0.87 x 4.8e12) +
// 0.7 us = 0.9511 us, h100 1048708 / (0.87 x 3.35e12) + 1 us = 1.3598 us; the decode-attention
// sweeps measured such reductions (1.06 MB) at 1.70-2.35 us on the H200 and 1.78-2.24 us on
// the H100. The small-kernel floor of a reduction: its start (h200 1.01 us, h100 1.13 us) +
// 0.07 us x log2(1048708 / 1024) = 0.700 us + its floor's work, the 1048580 B read from L2 at
// 6.5e12 B/s = 161.3 ns (above the 128 B written at HBM's rate): h200 1.8713 us, h100 1.9913
// us. a100 borrows the H100's (said); mi300x has its own, a start of 3.79 us + the same ramp
// + the work at its roofline (no L2 bandwidth in its file: 1048708 B / 5.3e12 = 197.9 ns):
// 4.6876 us, above its HBM time (1048708 / (0.67 x 5.3e12) + 1 us = 1.2953 us).
TEST_CASE("decode: a small reduction takes the small-kernel floor of its class") {
  constexpr std::string_view kRowMax = R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  s = f32[32,8192] parameter(0)
  i = f32[] constant(-inf)
  ROOT r = f32[32] reduce(s, i), dimensions={1}, to_apply=max
})";
  const double ramp = 0.07e-6 * std::log2(1048708.0 / 1024);
  const double l2 = 1048580 / 6.5e12;
  const auto h200 = predict(kRowMax, "h200");
  CHECK(h200.op("r").hbm_bytes == 1048708);
  CHECK(h200.op("r").time_s == Approx(1.01e-6 + ramp + l2).epsilon(1e-4));
  CHECK(h200.op("r").model() == "small-kernel floor (measured)");
  CHECK(h200.op("r").explanation().find(
            "small-kernel floor: a reduction kernel takes at least") != std::string_view::npos);
  const auto h100 = predict(kRowMax, "h100");
  CHECK(h100.op("r").time_s == Approx(1.13e-6 + ramp + l2).epsilon(1e-4));
  const auto a100 = predict(kRowMax, "a100");
  CHECK(a100.op("r").model() == "small-kernel floor (measured on h100, borrowed)");
  CHECK(std::any_of(a100->diagnostics.notes.begin(), a100->diagnostics.notes.end(),
                    [](const std::string& a) { return a.find("borrowed") != std::string::npos; }));
  const auto mi300x = predict(kRowMax, "mi300x");
  CHECK(mi300x.op("r").time_s == Approx(3.79e-6 + ramp + 1048708 / 5.3e12).epsilon(1e-4));
  CHECK(mi300x.op("r").model() == "small-kernel floor (measured)");
  // The MI325X borrows the MI300X's starts; its bytes move at its own 6 TB/s.
  const auto mi325x = predict(kRowMax, "mi325x");
  CHECK(mi325x.op("r").time_s == Approx(3.79e-6 + ramp + 1048708 / 6e12).epsilon(1e-4));
  CHECK(mi325x.op("r").model() == "small-kernel floor (measured on mi300x, borrowed)");
  // Without the per-op cost (the roofline alone), no floor.
  CHECK(predict(kRowMax, "h200", no_overhead()).op("r").time_s < 1e-6);
}

// PredictOptions::before_records is called once a prediction, and changes nothing it gives
// (hloroof compare --json waits there for the devices before to be written).
TEST_CASE("before_records is called once and changes nothing") {
  for (const char* device : {"tpu_v5e:1x2", "h100:1x2"}) {
    INFO(device);
    const std::string text = std::string(kLoop);
    absl::StatusOr<Prediction> plain = testing::predict_text(text, device);
    REQUIRE_OK(plain);
    int calls = 0;
    PredictOptions options;
    options.before_records = [&calls] { ++calls; };
    absl::StatusOr<Prediction> called = testing::predict_text(text, device, options);
    REQUIRE_OK(called);
    CHECK(calls == 1);
    CHECK(prediction_to_json(*plain) == prediction_to_json(*called));
  }
}

// XLA's GPU runtime runs a loop of known trip count by its count, and never its condition
// (its WhileThunk; the H100 captures of tests/data/h100 hold no kernel of any loop's
// condition). On a TPU, or without a known trip count, the condition runs.
TEST_CASE("a GPU loop of known trip count runs its body alone") {
  auto gpu = predict(kLoop, "h100", no_overhead());
  // The floor on an H100: every read here may come from L2 (6.5e12 B/s), and each op's reads
  // at that rate outlast its write at HBM's 3.35e12: x1 reads 8192 B (1.260 ns against 4096 B
  // written, 1.223 ns), i1 8 B, the condition 8 B.
  const double body = (8192.0 + 8) / 6.5e12;
  CHECK(gpu->roofline_step_time_s == Approx(5 * body));
  CHECK(gpu.op("x1").multiplier == 5);
  CHECK(!gpu.has_op("lt"));  // never runs
  std::string unknown(kLoop);
  unknown.erase(unknown.find(", backend_config"));
  unknown += "\n}";
  auto counted = predict(unknown, "h100", no_overhead());
  // The trip count is derived from the counter (5), not known to XLA: the condition runs 6
  // times, 9 bytes each.
  CHECK(counted.op("lt").multiplier == 6);
  CHECK(counted->roofline_step_time_s == Approx(5 * body + 6 * 8 / 6.5e12));
}

// The time of kLoop's body's two kernels with f32[n], each as the only kernel of a program
// (two kernels in one program would wait for the host's launch of the second).
double loop_body_kernels(const std::string& n) {
  const std::string x1 = absl::StrCat("HloModule m, is_scheduled=true\nENTRY e {\n  x = f32[", n,
                                      "] parameter(0)\n  ROOT x1 = f32[", n, "] add(x, x)\n}");
  const std::string i1 =
      "HloModule m, is_scheduled=true\nENTRY e {\n  i = s32[] parameter(0)\n"
      "  one = s32[] constant(1)\n  ROOT i1 = s32[] add(i, one)\n}";
  return predict(x1, "h100").op("x1").time_s + predict(i1, "h100").op("i1").time_s;
}

// A GPU loop body of fewer than 5 kernels is launched by the host kernel by kernel, 8.5 us a
// kernel, and the host runs ahead of the device: a trip takes the longer of the launches and
// the kernels (gpu_families.h, fitted to the op-family sweeps' loops).
TEST_CASE("a small GPU loop body: a trip takes the longer of its launches and its kernels") {
  // kLoop's body, two kernels of about a microsecond: the host's 2 x 8.5 us set each trip,
  // and the ops (predict() checks that they add up to the step) hold the launches' rest.
  auto tiny = predict(kLoop, "h100");
  CHECK(tiny->step_time_s == Approx(5 * 17e-6));
  CHECK(tiny.op("x1").time_s < 17e-6);
  // f32[268435456] (1 GiB) instead: x1's kernel takes hundreds of microseconds, the launches
  // hide behind it, and a trip is the two kernels' time, as they take outside a loop.
  const std::string big = absl::StrReplaceAll(kLoop, {{"f32[1024]", "f32[268435456]"}});
  auto large = predict(big, "h100");
  const double kernels = loop_body_kernels("268435456");
  CHECK(kernels > 100e-6);
  CHECK(large->step_time_s == Approx(5 * kernels));
}

// The host runs ahead of the device across the entry too: it launches a small loop's kernels
// while the device still runs the work queued before the loop, so the launches hide behind that
// work (step_walk.cc, hide_launches_behind_queued_work): measured on an H200, a loop of 16
// trips of 2 kernels (272 us of launches) after a cache copy of 16, 128 and 257 us took 263,
// 305 and 308 us, not the copy and the launches added up.
TEST_CASE("a small GPU loop's launches hide behind the work queued before it") {
  // kLoop's entry with `pre`, an add of f32[N] that runs first (before), or last (after).
  auto with_pre = [](const std::string& n, bool before) {
    const std::string pre = absl::StrCat("  b = f32[", n, "] parameter(1)\n  pre = f32[", n,
                                         "] add(b, b)\n");
    std::string text = absl::StrReplaceAll(
        kLoop, {{"ROOT w = (s32[], f32[1024]) while", "w = (s32[], f32[1024]) while"}});
    const std::string root =
        absl::StrCat("  ROOT t = ((s32[], f32[1024]), f32[", n, "]) tuple(w, pre)\n}");
    text.erase(text.rfind('}'));
    if (before) {
      text = absl::StrReplaceAll(text, {{"  zero = s32[] constant(0)\n",
                                         absl::StrCat(pre, "  zero = s32[] constant(0)\n")}});
      return text + root;
    }
    return text + pre + root;
  };
  auto alone = [](const std::string& n) {
    return predict(absl::StrCat("HloModule m, is_scheduled=true\nENTRY e {\n  b = f32[", n,
                                "] parameter(0)\n  ROOT pre = f32[", n, "] add(b, b)\n}"),
                   "h100");
  };
  const double launches = 5 * 17e-6;  // 5 trips of 2 kernels at 8.5 us
  REQUIRE(predict(kLoop, "h100")->step_time_s == Approx(launches));
  // The body's two kernels, as they take outside a loop, 5 times.
  const double kernels = 5 * loop_body_kernels("1024");
  REQUIRE(kernels > 0);
  REQUIRE(kernels < 20e-6);

  // f32[4194304] (16 MiB: 48 MiB moved, about 17 us) before the loop: the host launches the
  // loop's kernels while it runs, and the step is the launches alone.
  const double small = alone("4194304")->step_time_s;
  CHECK(small > 10e-6);
  CHECK(small < launches - kernels);
  CHECK(predict(with_pre("4194304", true), "h100")->step_time_s == Approx(launches));
  // f32[268435456] (1 GiB, hundreds of microseconds) before it: every launch hides, and the
  // loop takes its kernels alone.
  const double large = alone("268435456")->step_time_s;
  CHECK(large > 10 * launches);
  auto hidden = predict(with_pre("268435456", true), "h100");
  CHECK(hidden->step_time_s == Approx(large + kernels));
  CHECK(hidden.op("x1").explanation().find("hidden behind the work queued before loop w") !=
        std::string::npos);
  // A host callback between the add and the loop: the host runs it once the device gets there,
  // and nothing is queued when the loop starts.
  const std::string callback = absl::StrReplaceAll(
      with_pre("268435456", true),
      {{"  s = (s32[], f32[1024]) tuple(zero, x)\n",
        "  cb = () custom-call(), custom_call_target=\"xla_ffi_python_gpu_callback\"\n"
        "  s = (s32[], f32[1024]) tuple(zero, x)\n"}});
  CHECK(predict(callback, "h100")->step_time_s == Approx(large + launches));
  // The same add after the loop: nothing is queued when the loop starts.
  CHECK(predict(with_pre("268435456", false), "h100")->step_time_s ==
        Approx(large + launches));
  // A loop whose trip count XLA does not know: the host reads its condition every trip, waiting
  // for the device each time, and nothing hides.
  auto uncounted = [](const std::string& text) {
    return absl::StrReplaceAll(text, {{R"(, backend_config={"known_trip_count":{"n":"5"}})", ""}});
  };
  const double loop_alone = predict(uncounted(kLoop), "h100")->step_time_s;
  CHECK(predict(uncounted(with_pre("268435456", true)), "h100")->step_time_s ==
        Approx(large + loop_alone));
}

// A program of fewer than 5 kernels runs without a command buffer: the host launches each
// kernel after the one before, the step beginning with the first. Measured on an H200 (bench/
// measured/gpu_h200_cache), four kernels of 0.9-2.5 us began 11, 11 and 8 us apart: a 31 us
// step of 5.6 us of kernels.
TEST_CASE("a small GPU program: the host launches its kernels one after another") {
  // Three adds of f32[1024], about a microsecond each: after the first, two launches at 8.5
  // us set the step, and the ops (predict() checks that they add up to it) hold the rest.
  const std::string kThree = R"(HloModule m, is_scheduled=true
ENTRY e {
  x = f32[1024] parameter(0)
  a = f32[1024] add(x, x)
  b = f32[1024] multiply(a, a)
  ROOT c = f32[1024] subtract(b, x)
})";
  auto three = predict(kThree, "h100");
  CHECK(three->step_time_s == Approx(2 * 8.5e-6));
  CHECK(three.op("a").time_s < 2e-6);  // the first kernel: no launch before it
  CHECK(three.op("c").explanation().find("runs without a command buffer") != std::string::npos);
  // f32[268435456] (1 GiB) instead: each kernel takes hundreds of microseconds, the launches
  // hide behind them, and the step is the kernels' time alone.
  const std::string big = absl::StrReplaceAll(kThree, {{"f32[1024]", "f32[268435456]"}});
  auto large = predict(big, "h100");
  CHECK(large->step_time_s ==
        Approx(large.op("a").time_s + large.op("b").time_s + large.op("c").time_s));
  CHECK(large->step_time_s > 500e-6);
  // Five kernels make a command buffer, launched at once: no host launches between them.
  const std::string five = absl::StrReplaceAll(
      kThree, {{"  ROOT c = f32[1024] subtract(b, x)",
                "  c = f32[1024] subtract(b, x)\n  d = f32[1024] add(c, c)\n"
                "  ROOT f = f32[1024] multiply(d, d)"}});
  auto graph = predict(five, "h100");
  CHECK(graph->step_time_s < 10e-6);
  // A TPU launches no kernels from the host: its three ops' overheads, less than one launch.
  CHECK(predict(kThree, "tpu_v5e")->step_time_s < 8.5e-6);
}

TEST_CASE("a loop's timeline: iterations up to the limit, then one slice") {
  PredictOptions o = no_overhead();
  o.max_expanded_iterations = 2;
  auto p = predict(kLoop, "tpu_v5e", o);
  std::vector<std::string> names;
  for (const TimelineEvent& e : p->timeline) {
    if (e.instruction == nullptr) names.push_back(e.name);
  }
  CHECK(names == std::vector<std::string>{"w iteration 1", "w iteration 2", "w iterations 3-5"});
  double x1_slices = 0;
  for (const TimelineEvent& e : p->timeline) {
    if (e.name == "x1") {
      ++x1_slices;
      CHECK(e.depth == 2);
    }
    if (e.name == "w") CHECK(e.duration_s == Approx(p->step_time_s));
  }
  CHECK(x1_slices == 2);
}

TEST_CASE("an unknown trip count is assumed, and the step is a lower bound") {
  // The bound is loop state, not a constant: the count cannot be told.
  auto p = predict(R"(HloModule m, is_scheduled=true
cond {
  s = (s32[], s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  x = f32[1024] get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[1024] add(x, x)
  ROOT r = (s32[], s32[], f32[1024]) tuple(i1, n, x1)
}
ENTRY e {
  x = f32[1024] parameter(0)
  n = s32[] parameter(1)
  zero = s32[] constant(0)
  s = (s32[], s32[], f32[1024]) tuple(zero, n, x)
  ROOT w = (s32[], s32[], f32[1024]) while(s), condition=cond, body=body
})",
                   "tpu_v5e", [] {
                     PredictOptions o = no_overhead();
                     o.default_trip_count = 3;
                     return o;
                   }());
  CHECK(p->is_lower_bound);
  CHECK(p.assumes("w: trip count unknown; assumed 3"));
  CHECK(p.op("x1").multiplier == 3);
  CHECK(p.op("lt").multiplier == 4);
}

TEST_CASE("a conditional takes its slowest branch; a call its callee") {
  // Branch `small` adds f32[1024] (12,288 B), `large` f32[4096] (49,152 B).
  auto p = predict(R"(HloModule m, is_scheduled=true
small { x = f32[4096] parameter(0)  s = f32[1024] slice(x), slice={[0:1024]}  ROOT ys = f32[1024] add(s, s) }
large { x = f32[4096] parameter(0)  y = f32[4096] add(x, x)  ROOT z = f32[1024] slice(y), slice={[0:1024]} }
callee { x = f32[4096] parameter(0)  ROOT mm = f32[4096] multiply(x, x) }
ENTRY e {
  x = f32[4096] parameter(0)
  k = s32[] parameter(1)
  c = f32[1024] conditional(k, x, x), branch_computations={small, large}
  m = f32[4096] call(x), to_apply=callee
  ROOT t = (f32[1024], f32[4096]) tuple(c, m)
})",
                   "tpu_v5e", no_overhead());
  // large: add 49,152 B + slice 2 x 4,096 B; call: multiply 49,152 B.
  CHECK(p->step_time_s == Approx((49152.0 + 8192 + 49152) / 8.19e11));
  CHECK(p.op("z").multiplier == 1);
  CHECK(!p.has_op("ys"));  // the branch not taken runs no op
  CHECK(p.op("mm").computation() == "callee");
  CHECK(p.op("mm").multiplier == 1);
}

TEST_CASE("async copies and async computations overlap like collectives") {
  // copy-start moves f32[1048576] (4 MiB) from host memory (S(5)) over PCIe at 1.6e10 B/s
  // (262 us) while a 4 MiB-per-operand add runs (12 MiB at 8.19e11 = 15.4 us): 247 us exposed.
  auto copy = predict(R"(HloModule m, is_scheduled=true
ENTRY e {
  h = f32[1048576]{0:S(5)} parameter(0)
  a = f32[1048576] parameter(1)
  cs = (f32[1048576], f32[1048576]{0:S(5)}, u32[]) copy-start(h)
  s = f32[1048576] add(a, a)
  cd = f32[1048576] copy-done(cs)
  ROOT t = (f32[1048576], f32[1048576]) tuple(cd, s)
})",
                      "tpu_v5e", no_overhead());
  const double pcie = 4194304 / 1.6e10, add = 3 * 4194304 / 8.19e11;
  CHECK(copy->step_time_s == Approx(pcie));
  CHECK(copy.op("cd").time_s == Approx(pcie - add));
  CHECK(copy.op("cd").bound == BoundBy::kMemory);
  CHECK(copy->breakdown.async_hidden_s == Approx(add));
  CHECK(copy->breakdown.memory_s == Approx(pcie));

  // An async computation runs its own schedule. Its latency hides behind the longer add, but
  // its memory traffic does not: the add holds the memory all its 15.36 us, so the negate's
  // 8192 B (10 ns at 8.19e11 B/s) wait after it.
  auto computation = predict(R"(HloModule m, is_scheduled=true
wrapped { x = f32[1024] parameter(0)  ROOT y = f32[1024] negate(x) }
ENTRY e {
  x = f32[1024] parameter(0)
  a = f32[1048576] parameter(1)
  st = ((f32[1024]), f32[1024], s32[]) async-start(x), calls=wrapped
  s = f32[1048576] add(a, a)
  dn = f32[1024] async-done(st)
  ROOT t = (f32[1024], f32[1048576]) tuple(dn, s)
})",
                             "tpu_v5e", no_overhead());
  const double negate = 8192 / 8.19e11;
  CHECK(computation->step_time_s == Approx(add + negate));
  CHECK(computation.op("st").async->latency_s == Approx(negate));
  CHECK(computation.op("st").async->stream == "async negate");
  CHECK(computation.op("dn").time_s == Approx(negate));
  CHECK_THAT(std::string(computation.op("dn").explanation()),
             Catch::Contains("shares the memory with them"));
  // The record says that whole wait is the memory's, in JSON and CSV alike.
  CHECK(computation.op("dn").async->contended_s == Approx(negate));
  CHECK(computation.op("st").async->contended_s == Approx(negate));
  const nlohmann::json j = nlohmann::json::parse(prediction_to_json(computation.prediction));
  double said = -1;
  for (const nlohmann::json& op : j["ops"]) {
    if (op["name"] == "dn") said = op["async"]["contended_s"].get<double>();
  }
  CHECK(said == Approx(negate));
  // Behind a matrix product that leaves the memory free, it hides whole.
  auto behind_dot = predict(R"(HloModule m, is_scheduled=true
wrapped { x = f32[1024] parameter(0)  ROOT y = f32[1024] negate(x) }
ENTRY e {
  x = f32[1024] parameter(0)
  a = bf16[4096,4096] parameter(1)
  st = ((f32[1024]), f32[1024], s32[]) async-start(x), calls=wrapped
  d = bf16[4096,4096] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dn = f32[1024] async-done(st)
  ROOT t = (f32[1024], bf16[4096,4096]) tuple(dn, d)
})",
                              "tpu_v5e", no_overhead());
  CHECK(behind_dot.op("dn").time_s == 0);
  CHECK(behind_dot.op("dn").async->contended_s == 0);
  CHECK(behind_dot->step_time_s == Approx(behind_dot.op("d").time_s));

  // A GPU runs such work in line on its compute stream, as every measured GPU program ran it:
  // the start takes the negate's time, the done waits for nothing (no op of its own), the step
  // is both ops' times.
  const auto on_gpu = [](const std::string& attributes) {
    return absl::StrCat(R"(HloModule m, is_scheduled=true
wrapped { x = f32[1024] parameter(0)  ROOT y = f32[1024] negate(x) }
ENTRY e {
  x = f32[1024] parameter(0)
  a = bf16[4096,4096] parameter(1)
  st = ((f32[1024]), f32[1024], s32[]) async-start(x), calls=wrapped)",
                        attributes, R"(
  d = bf16[4096,4096] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dn = f32[1024] async-done(st)
  ROOT t = (f32[1024], bf16[4096,4096]) tuple(dn, d)
})");
  };
  auto in_line = predict(on_gpu(""), "h100", no_overhead());
  CHECK(in_line.op("st").time_s > 0);
  CHECK(std::none_of(in_line->ops.begin(), in_line->ops.end(),
                     [](const OpPrediction& op) { return op.name() == "dn"; }));
  CHECK(in_line->step_time_s ==
        Approx(in_line.op("d").time_s + in_line.op("st").time_s));
  CHECK(in_line->roofline_step_time_s <= in_line->step_time_s);
  CHECK_THAT(std::string(in_line.op("st").explanation()),
             Catch::Contains("run in line on the compute stream"));
  // Pinned to a stream of its own, it hides behind the product as on a TPU.
  auto pinned = predict(on_gpu(", frontend_attributes={_xla_stream_annotation=\"1\"}"), "h100",
                        no_overhead());
  CHECK(pinned.op("dn").time_s == 0);
  CHECK(pinned->step_time_s == Approx(pinned.op("d").time_s));
}

TEST_CASE("an async computation is bound by what bounds its ops") {
  // A dynamic-slice out of host memory (S(5)), run as an async computation, as libtpu loads an
  // offloaded layer input: its 4 MiB cross the host link, so the step waits on memory (the host
  // link), not on compute.
  auto p = predict(testing::host_slice_module(5), "tpu_v5e", no_overhead());
  REQUIRE(p->step_time_s > 0);
  CHECK(p.op("st").bound == BoundBy::kMemory);
  CHECK(p.op("dn").bound == BoundBy::kMemory);
  CHECK(p.op("dn").resource == Bound::kHost);
  CHECK(p->breakdown.memory_s == Approx(p->step_time_s));
  CHECK(p->breakdown.compute_s == 0);
  // A wrapped matrix product is compute.
  auto dot = predict(R"(HloModule m, is_scheduled=true
wrapped {
  a = bf16[2048,2048] parameter(0)
  ROOT d = bf16[2048,2048] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = bf16[2048,2048] parameter(0)
  st = ((bf16[2048,2048]), bf16[2048,2048], u32[]) async-start(a), calls=wrapped
  ROOT dn = bf16[2048,2048] async-done(st)
})",
                     "tpu_v5e", no_overhead());
  CHECK(dot.op("dn").bound == BoundBy::kCompute);
  CHECK(dot.op("dn").resource == Bound::kMatrix);
}

TEST_CASE("host-offload copies queue on their direction of the host link") {
  // Two 4 MiB copies in from host memory (S(5)) and one out, started together, then their
  // dones: 262 us each at 1.6e10 B/s (4194304 / 1.6e10). The two in run one after the other
  // (0-262, 262-524 us); the copy out runs beside them on the other direction (0-262 us). The
  // step waits for the second copy in: 2 x 262 us (unqueued, every copy would end at 262 us).
  auto p = predict(R"(HloModule m, is_scheduled=true
ENTRY e {
  h0 = f32[1048576]{0:S(5)} parameter(0)
  h1 = f32[1048576]{0:S(5)} parameter(1)
  d = f32[1048576] parameter(2)
  in0 = (f32[1048576], f32[1048576]{0:S(5)}, u32[]) copy-start(h0)
  in1 = (f32[1048576], f32[1048576]{0:S(5)}, u32[]) copy-start(h1)
  out = (f32[1048576]{0:S(5)}, f32[1048576], u32[]) copy-start(d)
  a0 = f32[1048576] copy-done(in0)
  a1 = f32[1048576] copy-done(in1)
  o = f32[1048576]{0:S(5)} copy-done(out)
  ROOT t = (f32[1048576], f32[1048576], f32[1048576]{0:S(5)}) tuple(a0, a1, o)
})",
                   "tpu_v5e", no_overhead());
  const double pcie = 4194304 / 1.6e10;
  CHECK(p->step_time_s == Approx(2 * pcie));
  REQUIRE(p.op("in1").async.has_value());
  CHECK(p.op("in0").async->queued_s == 0);
  CHECK(p.op("in1").async->queued_s == Approx(pcie));
  CHECK(p.op("in1").async->latency_s == Approx(pcie));
  CHECK(p.op("out").async->queued_s == 0);
  CHECK(p.op("in1").async->contended_s == 0);  // the host link's wait, not the memory's
  CHECK(p.op("a0").time_s == Approx(pcie));
  CHECK(p.op("a1").time_s == Approx(pcie));  // the rest of in1's span: 524 - 262 us
  CHECK(p.op("o").time_s == 0);
  CHECK_THAT(std::string(p.op("a1").explanation()), Catch::Contains("queued behind the host link"));
  // The roofline queues too: the link's full rate is its floor.
  CHECK(p->roofline_step_time_s == Approx(p->step_time_s));
  // The trace draws in1's work after its wait: from 262 us, for 262 us.
  const TimelineEvent* in1 = nullptr;
  for (const TimelineEvent& e : p->timeline) {
    if (e.name == "in1" && e.track == "async copy") in1 = &e;
  }
  REQUIRE(in1 != nullptr);
  CHECK(in1->start_s == Approx(pcie));
  CHECK(in1->duration_s == Approx(pcie));
  // The JSON says the wait.
  const nlohmann::json j = nlohmann::json::parse(prediction_to_json(p.prediction));
  bool said = false;
  for (const nlohmann::json& op : j["ops"]) {
    if (op["name"] == "in1") said = op["async"]["queued_s"].get<double>() == Approx(pcie);
  }
  CHECK(said);
}

TEST_CASE("async computations that move host bytes queue on the host link too") {
  // libtpu's host offload as async computations: two dynamic-slices of a row (4 MiB) from a
  // host buffer (S(5)) and one dynamic-update-slice of a row into one, started together. Each
  // moves its row over the host link (262 us at 1.6e10 B/s, as a copy's); the slices queue on
  // the way in (0-262, 262-524 us), the update runs beside them on the way out. Unqueued, the
  // three would run at the link's full rate at once and the step would end at 262 us.
  auto p = predict(R"(HloModule m, is_scheduled=true
slice0 {
  h = f32[4,1048576]{1,0:S(5)} parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  ROOT s = f32[1,1048576] dynamic-slice(h, i, z), dynamic_slice_sizes={1,1048576}
}
slice1 {
  h = f32[4,1048576]{1,0:S(5)} parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  ROOT s = f32[1,1048576] dynamic-slice(h, i, z), dynamic_slice_sizes={1,1048576}
}
store {
  h = f32[4,1048576]{1,0:S(5)} parameter(0)
  u = f32[1,1048576] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT s = f32[4,1048576]{1,0:S(5)} dynamic-update-slice(h, u, i, z)
}
ENTRY e {
  h = f32[4,1048576]{1,0:S(5)} parameter(0)
  g = f32[4,1048576]{1,0:S(5)} parameter(1)
  u = f32[1,1048576] parameter(2)
  i = s32[] parameter(3)
  in0 = ((f32[4,1048576]{1,0:S(5)}, s32[]), f32[1,1048576], u32[]) async-start(h, i), calls=slice0
  in1 = ((f32[4,1048576]{1,0:S(5)}, s32[]), f32[1,1048576], u32[]) async-start(h, i), calls=slice1
  out = ((f32[4,1048576]{1,0:S(5)}, f32[1,1048576], s32[]), f32[4,1048576]{1,0:S(5)}, u32[])
        async-start(g, u, i), calls=store
  a0 = f32[1,1048576] async-done(in0)
  a1 = f32[1,1048576] async-done(in1)
  o = f32[4,1048576]{1,0:S(5)} async-done(out)
  ROOT t = (f32[1,1048576], f32[1,1048576], f32[4,1048576]{1,0:S(5)}) tuple(a0, a1, o)
})",
                   "tpu_v5e", no_overhead());
  const double pcie = 4194304 / 1.6e10;
  REQUIRE(p.op("in1").async.has_value());
  CHECK(p.op("in0").async->latency_s == Approx(pcie));
  CHECK(p.op("in1").async->latency_s == Approx(pcie));
  CHECK(p.op("out").async->latency_s == Approx(pcie));
  CHECK(p.op("in0").async->queued_s == 0);
  CHECK(p.op("in1").async->queued_s == Approx(pcie));
  CHECK(p.op("out").async->queued_s == 0);
  CHECK(p->step_time_s == Approx(2 * pcie));
  CHECK(p.op("a1").time_s == Approx(pcie));
  CHECK(p.op("o").time_s == 0);
  // The step's hidden async work is work, not a queue's wait: in1's 262 us in its queue ran
  // behind a0's wait, the three rows' 786 us of work less the 524 us their dones exposed.
  CHECK(p->breakdown.async_hidden_s == Approx(pcie));
}

TEST_CASE("an async reduce-scatter wrapped in a computation is a collective") {
  auto p = predict(R"(HloModule m, num_partitions=4, is_scheduled=true
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
wrapped { x = f32[4096] parameter(0)  ROOT rs = f32[1024] reduce-scatter(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=add }
ENTRY e {
  x = f32[4096] parameter(0)
  st = ((f32[4096]), f32[1024], u32[]) async-start(x), calls=wrapped
  ROOT dn = f32[1024] async-done(st)
})",
                   testing::on(*device("tpu_v5e"), "4x1"));
  REQUIRE(p.op("st").collective.has_value());
  CHECK(p.op("st").collective->kind == "reduce-scatter");
  CHECK(p.op("st").collective->is_async);
  CHECK(p.op("st").collective->payload_bytes == 16384);
  CHECK(p->step_time_s == Approx(p.op("st").collective->time_s));
  CHECK(p.op("dn").bound == BoundBy::kCollective);
}

TEST_CASE("pointer-only ops take no time and no overhead") {
  auto p = predict(R"(HloModule m
ENTRY e {
  x = f32[1024]{0} parameter(0)
  c = f32[] constant(1)
  b = f32[32,32]{1,0} bitcast(x)
  t = (f32[32,32], f32[]) tuple(b, c)
  ROOT g = f32[32,32] get-tuple-element(t), index=0
})",
                   "h100");
  CHECK(p->step_time_s == 0);
  CHECK(p->ops.empty());
  CHECK(p->hfu == 0);
}

TEST_CASE("the topology: inferred from the module, named with the device, or given") {
  constexpr char kText[] = R"(HloModule m, num_partitions=8
ENTRY e { ROOT x = f32[8] parameter(0) })";
  auto inferred = predict(kText, "tpu_v5e");
  CHECK(inferred->topology == "2x4");
  CHECK(inferred.assumes("topology 2x4"));
  auto named = predict(kText, "tpu_v5e:4x2");
  CHECK(named->topology == "4x2");
  CHECK(!named.assumes("inferred"));
  // Given apart from the device (the command's --topology), where the device is resolved.
  absl::StatusOr<Module> module = parse_module(kText);
  REQUIRE_OK(module);
  const DeviceTargetOptions apart{.topology = "4x2", .topology_option = "topology"};
  absl::StatusOr<DeviceTarget> given = resolve_device("tpu_v5e", &*module, apart);
  REQUIRE_OK(given);
  CHECK(predict(kText, *given)->topology == "4x2");
  // Named twice, the two must agree (the command's --device and --topology).
  absl::StatusOr<DeviceTarget> twice =
      resolve_device("tpu_v5e:4x2", &*module,
                     {.topology = "2x4", .device_option = "device", .topology_option = "topology"});
  REQUIRE(!twice.ok());
  CHECK_THAT(std::string(twice.status().message()),
             Catch::Contains("device tpu_v5e:4x2 says topology 4x2 but topology says 2x4"));
  // No v5e slice is 8x1 (the long side at most twice the short one) or 3x3x3 (two axes).
  absl::StatusOr<Prediction> line = testing::predict_text(kText, "tpu_v5e:8x1");
  REQUIRE(!line.ok());
  CHECK_THAT(std::string(line.status().message()), Catch::Contains("no tpu_v5e slice is 8x1"));
  absl::StatusOr<Prediction> bad = testing::predict_text(kText, "tpu_v5e:3x3x3");
  CHECK(!bad.ok());
  // The model itself times any shape: a spec with the topology.
  CHECK(predict(kText, testing::on(*device("tpu_v5e"), "8x1"))->topology == "8x1");
  absl::StatusOr<Prediction> unknown = testing::predict_text(kText, "tpu_v99");
  REQUIRE(!unknown.ok());
  CHECK_THAT(std::string(unknown.status().message()), Catch::Contains("unknown device"));
  absl::StatusOr<Prediction> garbled = testing::predict_text("HloModule m\nENTRY {", "tpu_v5e");
  CHECK(!garbled.ok());
}

// A target's slice is predicted on as it is held: a target made by hand holds the slice
// make_topology made, and one without a slice has it inferred.
TEST_CASE("a resolved device's slice is the one it parsed") {
  constexpr char kText[] = R"(HloModule m, num_partitions=8
ENTRY e { ROOT x = f32[8] parameter(0) })";
  absl::StatusOr<Module> module = parse_module(kText);
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("tpu_v5e:4x2", &*module);
  REQUIRE_OK(target);
  REQUIRE(target->slice.has_value());
  absl::StatusOr<Prediction> spec =
      testing::predict_on(*module, testing::on(target->spec, "4x2"));
  REQUIRE_OK(spec);
  const DeviceTarget& parsed = *target;
  absl::StatusOr<Prediction> p = predict_step_time(*module, parsed);
  REQUIRE_OK(p);
  CHECK(p->topology == "4x2");
  CHECK(prediction_to_json(*p) == prediction_to_json(*spec));
  const PredictOptions options;
  absl::StatusOr<ModuleCost> cost = analyze_cost(*module, cost_options(options));
  REQUIRE_OK(cost);
  absl::StatusOr<Prediction> shared = predict_step_time(*module, parsed, options, *cost);
  REQUIRE_OK(shared);
  CHECK(prediction_to_json(*shared) == prediction_to_json(*spec));
  // By hand: the slice make_topology made; none, the slice is inferred.
  absl::StatusOr<Topology> four_by_two = make_topology(target->spec, "4x2");
  REQUIRE_OK(four_by_two);
  DeviceTarget by_hand{.spec = target->spec, .slice = *four_by_two};
  absl::StatusOr<Prediction> hand = predict_step_time(*module, by_hand);
  REQUIRE_OK(hand);
  CHECK(prediction_to_json(*hand) == prediction_to_json(*spec));
  by_hand.slice.reset();
  absl::StatusOr<Prediction> inferred = predict_step_time(*module, by_hand);
  REQUIRE_OK(inferred);
  CHECK(inferred->topology == "2x4");
  CHECK(std::any_of(inferred->diagnostics.notes.begin(), inferred->diagnostics.notes.end(),
                    [](const std::string& n) { return n.starts_with("topology 2x4"); }));
}

TEST_CASE("a prediction of text holds the module it parsed") {
  std::optional<Prediction> kept;
  {
    absl::StatusOr<Prediction> p = predict_step_time(s1_text(), "tpu_v5e:1x2");
    REQUIRE_OK(p);
    REQUIRE(p->module != nullptr);
    kept = *std::move(p);
  }
  // The text and the first prediction are gone; the copy's pointers are the module's it holds.
  REQUIRE(!kept->ops.empty());
  for (const OpPrediction& op : kept->ops) {
    REQUIRE(op.instruction != nullptr);
    CHECK(op.instruction->name() == op.name());
  }
  for (const TimelineEvent& e : kept->timeline) {
    if (e.instruction != nullptr) CHECK(e.instruction->name() == e.name);
  }
  // Given a module, the caller holds it.
  absl::StatusOr<Module> module = parse_module(s1_text());
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> on_module = predict_step_time(*module, "tpu_v5e:1x2");
  REQUIRE_OK(on_module);
  CHECK(on_module->module == nullptr);
  CHECK(on_module->ops.front().instruction->name() == on_module->ops.front().name());
}

// The call the library exists for: HLO text (or a module) and a device's name, the same
// prediction as the device resolved apart, choosing the device's notes leading the assumptions.
TEST_CASE("predict_step_time on text and a device name") {
  const std::string text = s1_text();
  absl::StatusOr<Prediction> by_name = predict_step_time(text, "tpu_v5e:1x2", no_overhead());
  REQUIRE_OK(by_name);
  absl::StatusOr<Module> module = parse_module(text);
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("tpu_v5e:1x2", &*module);
  REQUIRE_OK(target);
  absl::StatusOr<Prediction> apart = predict_step_time(*module, *target, no_overhead());
  REQUIRE_OK(apart);
  add_diagnostics(target->diagnostics, *apart);
  CHECK(prediction_to_json(*by_name) == prediction_to_json(*apart));
  // S1 in order start, A, B, done, C: 3 + 2 + 1 (the done's wait) + 4 = 10 us.
  CHECK(by_name->step_time_s == Approx(10 * kUs));
  CHECK(by_name->topology == "1x2");
  // No slice named: the smallest that holds the module's two devices, said in the notes.
  absl::StatusOr<Prediction> inferred = predict_step_time(text, "tpu_v5e");
  REQUIRE_OK(inferred);
  CHECK(inferred->topology == "1x2");
  CHECK(std::any_of(inferred->diagnostics.notes.begin(), inferred->diagnostics.notes.end(),
                    [](const std::string& n) { return n.starts_with("topology 1x2"); }));
  // A module and a GPU cluster's name: 2 nodes of 8 for a module of 2 devices.
  absl::StatusOr<Prediction> gpus = predict_step_time(*module, "h100:2x8");
  REQUIRE_OK(gpus);
  CHECK(gpus->device == "h100");
  CHECK(gpus->topology == "2x8");
  // Errors a person can act on: the devices there are, the text's line and column.
  absl::StatusOr<Prediction> typo = predict_step_time(text, "tpu_v5f");
  REQUIRE(!typo.ok());
  CHECK_THAT(std::string(typo.status().message()),
             Catch::StartsWith("unknown device 'tpu_v5f'; built-in devices:") &&
                 Catch::Contains("tpu_v5e"));
  absl::StatusOr<Prediction> garbled = predict_step_time("HloModule m\nENTRY {", "tpu_v5e");
  REQUIRE(!garbled.ok());
  // Line 2, column 7: the '{' where the entry's name should be.
  CHECK_THAT(std::string(garbled.status().message()),
             Catch::StartsWith("2:7: error: expected a computation name"));
}

TEST_CASE("the JSON rendering carries the contract's fields") {
  auto p = s1({kStart, kA, kB, kDone, kC});
  const nlohmann::json j = nlohmann::json::parse(prediction_to_json(p.prediction));
  CHECK(j["device"] == "tpu_v5e");
  CHECK(j["topology"] == "1x2");
  CHECK(j["step_time_s"].get<double>() == Approx(10 * kUs));
  CHECK(j["breakdown"]["collective_exposed_s"].get<double>() == Approx(1 * kUs));
  CHECK(j["breakdown"]["collective_hidden_s"].get<double>() == Approx(5 * kUs));
  for (const char* key : {"compute_s", "memory_s", "overhead_s"}) {
    CHECK(j["breakdown"].contains(key));
  }
  for (const char* key : {"hfu", "mfu", "flops", "hbm_bytes", "unknown_ops", "assumptions"}) {
    CHECK(j.contains(key));
  }
  REQUIRE(j["ops"].size() == p->ops.size());
  bool found = false;
  for (const nlohmann::json& op : j["ops"]) {
    for (const char* key : {"name", "opcode", "multiplier", "time_s", "total_time_s", "bound",
                            "flops", "hbm_bytes"}) {
      CHECK(op.contains(key));
    }
    if (op["name"] == "ags") {
      found = true;
      CHECK(op["collective"]["kind"] == "all-gather");
      CHECK(op["collective"]["payload_bytes"] == 540000);
      CHECK(op["collective"]["group_size"] == 2);
      CHECK(op["collective"]["time_s"].get<double>() == Approx(6 * kUs));
      CHECK(op["collective"]["exposed_s"].get<double>() == Approx(1 * kUs));
      CHECK(op["collective"]["formula"].get<std::string>().find("line") != std::string::npos);
    }
  }
  CHECK(found);
}

TEST_CASE("the text summary gives every number its unit") {
  auto p = s1({kStart, kA, kB, kDone, kC});
  const std::string text = prediction_summary(p.prediction, {.top_ops = 3});
  CHECK_THAT(text, Catch::Contains("device tpu_v5e, topology 1x2"));
  CHECK_THAT(text, Catch::Contains("10 us"));
  CHECK_THAT(text, Catch::Contains("top 3 of 5 ops"));
  CHECK_THAT(text, Catch::Contains("all-gather (async)"));
  CHECK_THAT(text, Catch::Contains("unknown ops: none"));
}

TEST_CASE("MFU counts the model's FLOPs given over every device; HFU every FLOP run") {
  // Two devices, each running one bf16 dot of 2 x 1024^3 = 2147483648 FLOPs.
  constexpr const char* kDot = R"(HloModule m, num_partitions=2
ENTRY e {
  a = bf16[1024,1024]{1,0} parameter(0)
  b = bf16[1024,1024]{1,0} parameter(1)
  ROOT d = bf16[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto plain = predict(kDot, "h100");
  CHECK(plain->devices == 2);
  CHECK(plain->mfu == 0);  // no model FLOPs given
  CHECK(plain->hfu == Approx(2147483648.0 / (plain->step_time_s * 9.89e14)));
  // Model FLOPs equal to what both devices run: MFU = 2 x 2147483648 / (2 x step x peak) = HFU.
  PredictOptions all_run;
  all_run.model_flops = 2 * 2147483648.0;
  auto same = predict(kDot, "h100", all_run);
  CHECK(same->model_flops == 2 * 2147483648.0);
  CHECK(same->mfu == Approx(same->hfu));
  // Half of it (the other half rematerialized, say): half the MFU, the same HFU.
  PredictOptions half;
  half.model_flops = 2147483648.0;
  auto remat = predict(kDot, "h100", half);
  CHECK(remat->mfu == Approx(same->hfu / 2));
  CHECK(remat->hfu == Approx(same->hfu));
}

}  // namespace
}  // namespace hloroof
