// Hostile inputs seen through the library: bounds on nesting refuse with a clear error at the
// text, and structures that repeat a computation along exponentially many paths are analysed
// once per computation. The command-line runs of the same inputs are in tests.cmake.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "hloroof/cost.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "predict_on.h"
#include "util/checked_math.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;

// Entry -> f<levels> -> ... -> f1 -> f0, each a fusion calling the next; f0 negates f32[8].
std::string fusion_chain(int levels) {
  std::ostringstream t;
  t << "HloModule chain\n"
       "%f0 (p0: f32[8]) -> f32[8] {\n  %p0 = f32[8] parameter(0)\n"
       "  ROOT %n0 = f32[8] negate(%p0)\n}\n";
  for (int i = 1; i <= levels; ++i) {
    t << "%f" << i << " (p" << i << ": f32[8]) -> f32[8] {\n  %p" << i
      << " = f32[8] parameter(0)\n  ROOT %n" << i << " = f32[8] fusion(%p" << i
      << "), kind=kLoop, calls=%f" << i - 1 << "\n}\n";
  }
  t << "ENTRY %e (a: f32[8]) -> f32[8] {\n  %a = f32[8] parameter(0)\n"
    << "  ROOT %top = f32[8] fusion(%a), kind=kLoop, calls=%f" << levels << "\n}\n";
  return t.str();
}

// c0 exponentiates f32[1024]; c<i> calls c<i-1> `ways` times, one after the other.
std::string call_fan_out(int levels, int ways = 2) {
  std::ostringstream t;
  t << "HloModule fan_out\n"
       "%c0 (p0: f32[1024]) -> f32[1024] {\n  %p0 = f32[1024] parameter(0)\n"
       "  ROOT %exp = f32[1024] exponential(%p0)\n}\n";
  for (int i = 1; i <= levels; ++i) {
    t << "%c" << i << " (p" << i << ": f32[1024]) -> f32[1024] {\n  %x" << i << "_0"
      << " = f32[1024] parameter(0)\n";
    for (int w = 1; w <= ways; ++w) {
      t << "  " << (w == ways ? "ROOT " : "") << "%x" << i << "_" << w << " = f32[1024] call(%x"
        << i << "_" << w - 1 << "), to_apply=%c" << i - 1 << "\n";
    }
    t << "}\n";
  }
  t << "ENTRY %e (a: f32[1024]) -> f32[1024] {\n  %a = f32[1024] parameter(0)\n"
    << "  ROOT %r = f32[1024] call(%a), to_apply=%c" << levels << "\n}\n";
  return t.str();
}

TEST_CASE("arithmetic on values from the text never overflows") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  CHECK(checked_add(kMax, 1) == std::nullopt);
  CHECK(checked_add(kMax - 1, 1) == kMax);
  CHECK(checked_sub(kMin, 1) == std::nullopt);
  CHECK(checked_mul(int64_t{1} << 62, 2) == std::nullopt);  // the reduce-window 2 * pad + 1
  CHECK(checked_mul(int64_t{1} << 61, 2) == int64_t{1} << 62);
  CHECK(saturating_mul(int64_t{1} << 62, 4) == kMax);
  CHECK(saturating_mul(-(int64_t{1} << 62), 4) == kMin);
  CHECK(saturating_mul(-(int64_t{1} << 62), -4) == kMax);
  CHECK(saturating_add(kMax, kMax) == kMax);
  CHECK(saturating_add(kMin, -1) == kMin);
  CHECK(saturating_add(3, 4) == 7);
}

TEST_CASE("calls nested more than 128 levels deep are refused where the text is") {
  // The entry calls f127 (height 128): the deepest chain accepted.
  CHECK(parse_module(fusion_chain(127)).ok());
  absl::StatusOr<Module> deep = parse_module(fusion_chain(128));
  REQUIRE(!deep.ok());
  CHECK_THAT(std::string(deep.status().message()),
             Contains("calls nest more than 128 levels deep"));
  // 20,000 levels stop at the same place, before any recursion deep enough to overflow the
  // stack.
  absl::StatusOr<Module> deeper = parse_module(fusion_chain(20000));
  REQUIRE(!deeper.ok());
  CHECK_THAT(std::string(deeper.status().message()),
             Contains("calls nest more than 128 levels deep"));
}

TEST_CASE("a chain of nested fusions reads its parameter once, through every level") {
  absl::StatusOr<Module> m = parse_module(fusion_chain(127));
  REQUIRE_OK(m);
  absl::StatusOr<ModuleCost> cost = analyze_cost(*m);
  REQUIRE_OK(cost);
  // The one scheduled op is the entry's fusion: it reads f32[8] (32 B) where the innermost
  // negate reads it, writes f32[8] (32 B), and does 8 negations.
  CHECK(cost->totals.flops == 8);
  CHECK(cost->totals.bytes_read == 32);
  CHECK(cost->totals.bytes_written == 32);
}

TEST_CASE("a computation reached along 2^30 call paths is timed once, the trace is bounded") {
  absl::StatusOr<Prediction> p = testing::predict_text(call_fan_out(30), "tpu_v5e");
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  const OpPrediction* exp = nullptr;
  for (const OpPrediction& op : p->ops) {
    if (op.name() == "exp") exp = &op;
  }
  REQUIRE(exp != nullptr);
  CHECK(exp->multiplier == std::ldexp(1.0, 30));  // c0 runs 2^30 times per step
  // 50,000 slices, and first the slice that says the timeline was cut.
  REQUIRE(p->timeline.size() == 50001);
  CHECK(p->timeline.front().track == "timeline cut");
  CHECK(p->timeline.front().name ==
        "timeline cut: the timeline holds its first 50000 slices; later ones are left out");
  CHECK(p->timeline.front().duration_s == p->step_time_s);
  bool said_truncated = false;
  for (const std::string& a : p->diagnostics.notes) {
    said_truncated = said_truncated || a.find("the timeline holds its first") != std::string::npos;
  }
  CHECK(said_truncated);
  // Without the timeline (PredictOptions::timeline off), the cut is still said: the outputs do
  // not depend on whether the timeline was laid out.
  PredictOptions no_timeline;
  no_timeline.timeline = false;
  absl::StatusOr<Prediction> q = testing::predict_text(call_fan_out(30), "tpu_v5e", no_timeline);
  REQUIRE_OK(q);
  CHECK(q->timeline.empty());
  CHECK(q->diagnostics.notes == p->diagnostics.notes);

  absl::StatusOr<Module> m = parse_module(call_fan_out(30));
  REQUIRE_OK(m);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*m);
  INFO(memory.status().ToString());
  REQUIRE_OK(memory);
  // At least the entry's parameter f32[1024] (4096 B) is live at the peak.
  CHECK(memory->peak_bytes >= 4096);
}

TEST_CASE("a small module fanning out 3 ways 20 deep writes a bounded trace that says so") {
  // 3^20 (3.5e9) paths through 21 computations of a few KB of text: laid out whole, the trace
  // would have billions of slices.
  const std::string text = call_fan_out(20, 3);
  CHECK(text.size() < 5000);
  absl::StatusOr<Module> m = parse_module(text);
  REQUIRE_OK(m);
  absl::StatusOr<Prediction> p = testing::predict_on(*m, "tpu_v5e");
  REQUIRE_OK(p);
  REQUIRE(p->timeline.size() == 50001);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*m);
  REQUIRE_OK(memory);
  const std::string trace = prediction_to_trace_json(*p, &*memory);
  // 50,000 slices and their counters: under 32 MiB.
  CHECK(trace.size() < (size_t{32} << 20));
  CHECK(trace.find("timeline cut: the timeline holds its first 50000 slices") !=
        std::string::npos);
}

}  // namespace
}  // namespace hloroof
