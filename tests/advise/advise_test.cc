// Every rule of advise on a small module that triggers it and on one that must not, with the
// time at stake derived by hand. Device figures: tpu_v5e HBM 8.19e11 B/s, bf16 peak 1.97e14
// FLOP/s, PCIe 1.6e10 B/s, 16e9 B HBM, per-op overhead 1 us; h100 HBM 3.35e12 B/s, bf16 peak
// 9.89e14 FLOP/s, f32 peak 6.7e13 FLOP/s, per-op overhead 1 us (data/hardware/*.json).
#include <algorithm>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "advise_test_util.h"
#include "host_slice.h"
#include "hloroof/units.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::advise_text;
using testing::roofline_without_overhead;

constexpr double kV5eHbm = 8.19e11;
constexpr double kH100Hbm = 3.35e12;

// ---- exposed-collective

// A synchronous all-reduce of f32[1024,1024] (4 MiB) over the 4 chips of a v5e 2x2: the step
// waits for all of it, so the time at stake is its whole time.
constexpr const char* kSyncAllReduce = R"(HloModule m, num_partitions=4
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0)
  ROOT ar = f32[1024,1024]{1,0} all-reduce(p), channel_id=1, replica_groups={{0,1,2,3}},
    use_global_device_ids=true, to_apply=add
})";

// The same all-reduce, async, with a bf16 4096^3 dot between start and done that does not
// depend on it: 2 x 4096^3 / 1.97e14 = 698 us of work hides it whole.
constexpr const char* kHiddenAllReduce = R"(HloModule m, num_partitions=4, is_scheduled=true
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0)
  a = bf16[4096,4096]{1,0} parameter(1)
  ars = f32[1024,1024]{1,0} all-reduce-start(p), channel_id=1, replica_groups={{0,1,2,3}},
    use_global_device_ids=true, to_apply=add
  d = bf16[4096,4096]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ard = f32[1024,1024]{1,0} all-reduce-done(ars)
  ROOT t = (f32[1024,1024]{1,0}, bf16[4096,4096]{1,0}) tuple(ard, d)
})";

TEST_CASE("exposed-collective: a collective the step waits for, and one it hides") {
  auto a = advise_text(kSyncAllReduce, "tpu_v5e:2x2", roofline_without_overhead());
  const AdviceFinding* f = a.find("exposed-collective");
  REQUIRE(f != nullptr);
  // Synchronous: exposed = the all-reduce's whole time, once per step.
  const double ar = a.op("ar").time_s;
  REQUIRE(ar > 0);
  CHECK(f->time_at_stake_s == Approx(ar));
  CHECK(f->time_at_stake_s == Approx(a.prediction.step_time_s));
  REQUIRE(f->evidence.size() == 1);
  CHECK(f->evidence[0].op == "ar");
  CHECK(f->evidence[0].bytes == 4194304);  // the payload
  CHECK_THAT(f->evidence[0].detail, Catch::Contains("all-reduce of 4 MiB over 4 devices"));
  // One collective: said in the singular ("1 collective are not hidden ... for them" before).
  CHECK_THAT(f->what, Catch::StartsWith("1 collective is not hidden behind other work: the "
                                        "step waits") &&
                          Catch::Contains(" for it ("));

  auto hidden = advise_text(kHiddenAllReduce, "tpu_v5e:2x2", roofline_without_overhead());
  CHECK(hidden.op("ard").time_s == 0);
  CHECK(hidden.find("exposed-collective") == nullptr);
  CHECK(hidden.find("serial-loop-collective") == nullptr);
}

// ---- serial-loop-collective

// A loop of 4 trips whose body all-reduces x (synchronous) and, independently, multiplies two
// bf16 2048x2048 weights: 2 x 2048^3 / 1.97e14 = 87.2 us of work the all-reduce could hide.
std::string loop_module(bool independent) {
  const std::string work = independent
                               ? "d = bf16[2048,2048]{1,0} dot(w, w), lhs_contracting_dims={1}, "
                                 "rhs_contracting_dims={0}"
                               : "d = bf16[2048,2048]{1,0} convert(ar)";
  return absl::StrCat(R"(HloModule m, num_partitions=4
add { x = f32[] parameter(0)  y = f32[] parameter(1)  ROOT s = f32[] add(x, y) }
cond {
  s = (s32[], f32[2048,2048]{1,0}, bf16[2048,2048]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2048,2048]{1,0}, bf16[2048,2048]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2048,2048]{1,0} get-tuple-element(s), index=1
  w = bf16[2048,2048]{1,0} get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ar = f32[2048,2048]{1,0} all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}},
    use_global_device_ids=true, to_apply=add
  )",
                      work, R"(
  ROOT r = (s32[], f32[2048,2048]{1,0}, bf16[2048,2048]{1,0}) tuple(i1, ar, d)
}
ENTRY e {
  x = f32[2048,2048]{1,0} parameter(0)
  w = bf16[2048,2048]{1,0} parameter(1)
  zero = s32[] constant(0)
  s = (s32[], f32[2048,2048]{1,0}, bf16[2048,2048]{1,0}) tuple(zero, x, w)
  ROOT loop = (s32[], f32[2048,2048]{1,0}, bf16[2048,2048]{1,0}) while(s), condition=cond,
    body=body, backend_config={"known_trip_count":{"n":"4"}}
})");
}

TEST_CASE("serial-loop-collective: per-iteration exposed time x trips, capped by the work") {
  auto a = advise_text(loop_module(true), "tpu_v5e:2x2", roofline_without_overhead());
  const AdviceFinding* f = a.find("serial-loop-collective");
  REQUIRE(f != nullptr);
  const OpPrediction& ar = a.op("ar");
  CHECK(ar.multiplier == 4);
  // Independent work per iteration: the dot and the counter's add (neither feeds nor uses the
  // all-reduce). At stake: min(all-reduce time, that work) x 4 trips.
  const double work = a.op("d").time_s + a.op("i1").time_s;
  CHECK(a.op("d").time_s == Approx(2.0 * 2048 * 2048 * 2048 / 1.97e14));
  CHECK(f->time_at_stake_s == Approx(std::min(ar.time_s, work) * 4));
  CHECK(f->evidence[0].op == "ar");
  CHECK(a.find("exposed-collective") == nullptr);  // the same op is not reported twice

  // No independent work (the only other op uses the all-reduce's result): nothing to overlap,
  // so it is an exposed collective, not a serial loop.
  auto b = advise_text(loop_module(false), "tpu_v5e:2x2", roofline_without_overhead());
  CHECK(b.find("serial-loop-collective") == nullptr);
  const AdviceFinding* e = b.find("exposed-collective");
  REQUIRE(e != nullptr);
  CHECK(e->time_at_stake_s == Approx(b.op("ar").time_s * 4));
}

// ---- loop-invariant-gather

// A loop of 4 trips whose body all-gathers the bf16[rows/4,1024] shard of its state's weight w
// to the full [rows,1024] for a dot. `update` is the state's next w: w itself (through a
// bitcast: the loop carries it unchanged) or a new value.
std::string invariant_gather_module(std::string_view update, int rows = 2048) {
  const std::string x = absl::StrCat("bf16[4096,", rows, "]{1,0}");
  const std::string w = absl::StrCat("bf16[", rows / 4, ",1024]{1,0}");
  const std::string state = absl::StrCat("(s32[], ", x, ", ", w, ")");
  return absl::StrCat("HloModule m, num_partitions=4\ncond {\n  s = ", state, R"( parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = )", state, R"( parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = )", x, R"( get-tuple-element(s), index=1
  w = )", w, R"( get-tuple-element(s), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ag = bf16[)", rows, R"(,1024]{1,0} all-gather(w), channel_id=1, replica_groups={{0,1,2,3}},
    use_global_device_ids=true, dimensions={0}
  d = bf16[4096,1024]{1,0} dot(x, ag), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  y = )", x, R"( negate(x)
  )", std::string(update), R"(
  ROOT r = )", state, R"( tuple(i1, y, next)
}
ENTRY e {
  x = )", x, R"( parameter(0)
  w = )", w, R"( parameter(1)
  zero = s32[] constant(0)
  s = )", state, R"( tuple(zero, x, w)
  ROOT loop = )", state, R"( while(s), condition=cond, body=body,
    backend_config={"known_trip_count":{"n":"4"}}
})");
}

TEST_CASE("loop-invariant-gather: the same state gathered on every trip, less one gather") {
  auto a = advise_text(invariant_gather_module("next = bf16[512,1024]{1,0} bitcast(w)"),
                       "tpu_v5e:2x2", roofline_without_overhead());
  const AdviceFinding* f = a.find("loop-invariant-gather");
  REQUIRE(f != nullptr);
  const OpPrediction& ag = a.op("ag");
  REQUIRE(ag.multiplier == 4);
  REQUIRE(ag.time_s > 0);
  // Synchronous: the step waits for the whole gather on each of the 4 trips; gathered once
  // before the loop it would wait once: 4 x t - t = 3 x t.
  CHECK(f->time_at_stake_s == Approx(3 * ag.time_s));
  CHECK(f->bytes_at_stake == 4 * 4194304);  // 2048 x 1024 x 2 B, 4 times a step
  REQUIRE(f->evidence.size() == 1);
  CHECK_THAT(f->evidence[0].detail,
             Catch::Contains("gathers element 2 of the state of loop") &&
                 Catch::Contains("in each of its 4 trips"));
  // The same gather is not reported again by the other collective rules.
  CHECK(a.find("replicated-weight-gather") == nullptr);
  CHECK(a.find("exposed-collective") == nullptr);

  // The loop changes w on each trip: each trip's gather is of a new value, a replicated
  // weight gather (loop state feeding a dot) and not a loop-invariant one.
  auto b = advise_text(invariant_gather_module("next = bf16[512,1024]{1,0} negate(w)"),
                       "tpu_v5e:2x2", roofline_without_overhead());
  CHECK(b.find("loop-invariant-gather") == nullptr);
  const AdviceFinding* g = b.find("replicated-weight-gather");
  REQUIRE(g != nullptr);
  CHECK(g->time_at_stake_s == Approx(4 * b.op("ag").time_s));

  // A gather of 256 x 1024 x 2 B = 512 KiB, under weight_gather_min_bytes (1 MiB): not this
  // rule's (nor the replicated weight gather's), and still a collective the loop waits for
  // (beside the negate, which does not depend on it).
  auto c = advise_text(invariant_gather_module("next = bf16[64,1024]{1,0} bitcast(w)", 256),
                       "tpu_v5e:2x2", roofline_without_overhead());
  CHECK(c.find("loop-invariant-gather") == nullptr);
  CHECK(c.find("replicated-weight-gather") == nullptr);
  const AdviceFinding* e = c.find("serial-loop-collective");
  REQUIRE(e != nullptr);
  CHECK(e->evidence[0].op == "ag");
}

// ---- replicated-weight-gather

// A weight parameter's bf16[256,1024] shard (512 KiB) is all-gathered to the full [1024,1024]
// (2 MiB) right before a dot: synchronous, so the step waits the gather's whole time.
std::string gather_module(std::string_view source) {
  return absl::StrCat(R"(HloModule m, num_partitions=4
ENTRY e {
  w = bf16[256,1024]{1,0} parameter(0)
  x = bf16[8192,1024]{1,0} parameter(1)
  )",
                      std::string(source), R"(
  ag = bf16[1024,1024]{1,0} all-gather(src), channel_id=1, replica_groups={{0,1,2,3}},
    use_global_device_ids=true, dimensions={0}
  ROOT d = bf16[8192,1024]{1,0} dot(x, ag), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
}

TEST_CASE("replicated-weight-gather: a parameter gathered whole for a matmul") {
  auto a = advise_text(gather_module("src = bf16[256,1024]{1,0} bitcast(w)"), "tpu_v5e:2x2",
                       roofline_without_overhead());
  const AdviceFinding* f = a.find("replicated-weight-gather");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(a.op("ag").time_s));
  CHECK(f->bytes_at_stake == 2097152);  // 1024 x 1024 x 2 B gathered
  CHECK_THAT(f->evidence[0].detail, Catch::Contains("parameter w from its 512 KiB shard"));
  CHECK(a.find("exposed-collective") == nullptr);

  // The gathered value is computed (an activation), not a weight: an exposed collective.
  auto b = advise_text(gather_module("src = bf16[256,1024]{1,0} exponential(w)"), "tpu_v5e:2x2",
                       roofline_without_overhead());
  CHECK(b.find("replicated-weight-gather") == nullptr);
  const AdviceFinding* e = b.find("exposed-collective");
  REQUIRE(e != nullptr);
  CHECK_THAT(e->evidence[0].detail, !Catch::Contains("gathers parameter"));

  // A weight gathered for something other than a matmul: an exposed collective that says
  // which parameter it gathers.
  auto c = advise_text(R"(HloModule m, num_partitions=4
ENTRY e {
  w = bf16[256,1024]{1,0} parameter(0)
  ag = bf16[1024,1024]{1,0} all-gather(w), channel_id=1, replica_groups={{0,1,2,3}},
    use_global_device_ids=true, dimensions={0}
  ROOT n = bf16[1024,1024]{1,0} negate(ag)
})",
                       "tpu_v5e:2x2", roofline_without_overhead());
  CHECK(c.find("replicated-weight-gather") == nullptr);
  const AdviceFinding* g = c.find("exposed-collective");
  REQUIRE(g != nullptr);
  CHECK(g->time_at_stake_s == Approx(c.op("ag").time_s));
  CHECK_THAT(g->evidence[0].detail, Catch::Contains("it gathers parameter w"));
}

// ---- layout-copy

// b is copied from {1,0} to {0,1} for the dot: 16 MiB read + 16 MiB written =
// 33554432 / 8.19e11 = 40.97 us at stake.
std::string copy_module(std::string_view consumer) {
  return absl::StrCat(R"(HloModule m
ENTRY e {
  a = f32[2048,2048]{1,0} parameter(0)
  b = f32[2048,2048]{1,0} parameter(1)
  t = f32[2048,2048]{0,1} copy(b)
  ROOT d = f32[2048,2048]{1,0} )",
                      std::string(consumer), "\n}");
}

TEST_CASE("layout-copy: a copy that only re-lays out a dot operand") {
  auto a = advise_text(copy_module("dot(a, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                       "tpu_v5e", roofline_without_overhead());
  const AdviceFinding* f = a.find("layout-copy");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(33554432 / kV5eHbm));
  CHECK(f->evidence[0].op == "t");
  CHECK_THAT(f->evidence[0].detail, Catch::Contains("{1,0} -> {0,1}"));
  CHECK_THAT(f->evidence[0].detail, Catch::Contains("for d (dot)"));

  auto b = advise_text(copy_module("add(a, t)"), "tpu_v5e", roofline_without_overhead());
  CHECK(b.find("layout-copy") == nullptr);
}

// ---- padding-waste

// f32[4096,2] under T(8,128) pads each row of 2 to 128: 4096 x 128 x 4 = 2 MiB padded for
// 32 KiB logical. negate reads and writes it: HBM 4194304 / 8.19e11 = 5.121 us, of which the
// padding share 1 - 65536 / 4194304 = 0.984375 is at stake: 5.041 us.
TEST_CASE("padding-waste: tensors that are mostly tile padding") {
  auto a = advise_text(R"(HloModule m
ENTRY e {
  p = f32[4096,2]{1,0:T(8,128)} parameter(0)
  ROOT n = f32[4096,2]{1,0:T(8,128)} negate(p)
})",
                       "tpu_v5e", roofline_without_overhead());
  const AdviceFinding* f = a.find("padding-waste");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(4194304 / kV5eHbm * 0.984375));
  // Traffic and peak waste alike: 2 x (2097152 - 32768) = 4128768 B.
  CHECK(f->bytes_at_stake == 4128768);
  CHECK(f->evidence[0].op == "n");

  auto b = advise_text(R"(HloModule m
ENTRY e {
  p = f32[4096,128]{1,0:T(8,128)} parameter(0)
  ROOT n = f32[4096,128]{1,0:T(8,128)} negate(p)
})",
                       "tpu_v5e", roofline_without_overhead());
  CHECK(b.find("padding-waste") == nullptr);
}

// ---- small-ops

// A chain of N negates of f32[8] on an H100: each moves 64 B (19 ps) and pays the 1 us launch
// overhead, so each is overhead bound; at stake N x 1 us.
std::string negate_chain(int n) {
  std::string s = "HloModule m\nENTRY e {\n  v0 = f32[8]{0} parameter(0)\n";
  for (int k = 1; k <= n; ++k) {
    absl::StrAppend(&s, k == n ? "  ROOT " : "  ", "v", k, " = f32[8]{0} negate(v", k - 1, ")\n");
  }
  return s + "}\n";
}

TEST_CASE("small-ops: many ops below the per-op overhead") {
  auto a = advise_text(negate_chain(30), "h100");
  const AdviceFinding* f = a.find("small-ops");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(30 * 1e-6));
  CHECK(f->op_count == 30);
  CHECK_THAT(f->what, Catch::Contains("30 op executions"));
  // Each negate also feeds the next one, but fusing saves only 2 x 32 B / 3.35e12 = 19 ps
  // each: below the threshold, so nothing is said about it.
  CHECK(a.find("unfused-elementwise") == nullptr);

  // 10 ops: below the 20 the rule asks for.
  auto b = advise_text(negate_chain(10), "h100");
  CHECK(b.find("small-ops") == nullptr);
}

// ---- host-launched-loop

// A GPU loop of 100 trips (known to XLA) whose body adds f32[N] and bumps a counter: two
// kernels, too few for a command buffer (5), which the host launches one by one every trip,
// 8.5 us each (predict/gpu_families.h).
std::string small_loop(const std::string& n) {
  return absl::StrCat(R"(HloModule m, is_scheduled=true
cond {
  s = (s32[], f32[)", n, R"(]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  c = s32[] constant(100)
  ROOT lt = pred[] compare(i, c), direction=LT
}
body {
  s = (s32[], f32[)", n, R"(]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[)", n, R"(] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  x1 = f32[)", n, R"(] add(x, x)
  ROOT r = (s32[], f32[)", n, R"(]) tuple(i1, x1)
}
ENTRY e {
  x = f32[)", n, R"(] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[)", n, R"(]) tuple(zero, x)
  ROOT w = (s32[], f32[)", n, R"(]) while(s), condition=cond, body=body,
    backend_config={"known_trip_count":{"n":"100"}}
})");
}

TEST_CASE("host-launched-loop: a small GPU loop at the host's pace, and one at its kernels'") {
  auto a = advise_text(small_loop("1024"), "h100");
  // Each trip is the host's 2 x 8.5 = 17 us: the kernels (a microsecond or two) hide little.
  CHECK(a.prediction.step_time_s == Approx(100 * 17e-6));
  const AdviceFinding* f = a.find("host-launched-loop");
  REQUIRE(f != nullptr);
  // Per op, min(its time - its roofline, its 8.5 us launch), 100 times.
  auto saving = [&a](const char* op) {
    return std::min(a.op(op).time_s - a.op(op).roofline_time_s, 8.5e-6);
  };
  CHECK(f->time_at_stake_s == Approx(100 * (saving("x1") + saving("i1"))));
  CHECK(f->time_at_stake_s > 0.8 * a.prediction.step_time_s);
  CHECK(f->op_count == 2);
  CHECK_THAT(f->what, Catch::Contains("loop w (e) runs its body of 2 kernels 100 times") &&
                          Catch::Contains("17 us a trip"));
  CHECK_THAT(f->fix, Catch::Contains("unroll"));
  // Their cost is the launches, not the per-op overhead: small-ops leaves them to this rule.
  CHECK(a.find("small-ops") == nullptr);

  // f32[268435456] (1 GiB): the add's kernel outlasts the launches and hides them.
  auto b = advise_text(small_loop("268435456"), "h100");
  CHECK(b.find("host-launched-loop") == nullptr);
  // A TPU launches no kernel from the host: nothing to say either.
  auto c = advise_text(small_loop("1024"), "tpu_v5e");
  CHECK(c.find("host-launched-loop") == nullptr);
}

// ---- scatter-repeats

// An embedding gradient: 16384 updates of 2048 added into 32000 rows at indices that may
// repeat, in `type`.
std::string embedding_gradient(const std::string& type) {
  return absl::StrCat(R"(HloModule m
add {
  a = )", type, R"([] parameter(0)
  b = )", type, R"([] parameter(1)
  ROOT s = )", type, R"([] add(a, b)
}
ENTRY e {
  t = )", type, R"([32000,2048] parameter(0)
  i = s32[16384,1] parameter(1)
  u = )", type, R"([16384,2048] parameter(2)
  ROOT s = )", type, R"([32000,2048] scatter(t, i, u), update_window_dims={1},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
}

TEST_CASE("scatter-repeats: a bf16 scatter whose indices may repeat, and an f32 one") {
  auto a = advise_text(embedding_gradient("bf16"), "h200");
  const AdviceFinding* f = a.find("scatter-repeats");
  REQUIRE(f != nullptr);
  // A risk, not step time: the range's top (Zipf 1.1 ids: 16384 / H(32000, 1.1) = 2327 on the
  // first row, 2326 waits of 6.8 us = 15.8 ms) over the expected time, outside the ranking.
  CHECK(f->time_at_stake_s == 0);
  const auto range = a.op("s").time_range();
  REQUIRE(range);
  CHECK(range->high_s - a.op("s").time_s > 15e-3);
  CHECK_THAT(f->arithmetic, Catch::Contains("not counted in the step"));
  CHECK_THAT(f->fix, Catch::Contains("f32"));
  // f32 atomics wait 13 ns a repeat: 2326 x 13 ns = 30 us, under 10% of the step.
  auto b = advise_text(embedding_gradient("f32"), "h200");
  CHECK(b.find("scatter-repeats") == nullptr);
  // Declared unique: no repeats, nothing to say.
  auto c = advise_text(absl::StrReplaceAll(embedding_gradient("bf16"),
                                           {{"to_apply=add", "to_apply=add, unique_indices=true"}}),
                       "h200");
  CHECK(c.find("scatter-repeats") == nullptr);
}

// ---- dense-ragged-dot

// jax.lax.ragged_dot of 4096 tokens of 1024 features over 4 groups of [1024, 4096] weights, as
// XLA's GPU compiler lowers it: each token copied into all 4 group slots, masked by the group
// sizes (s32[`groups`]), and one dense [4096, 4096] x [4096, 4096] dot over them, named by its
// metadata as `op_name`.
std::string dense_ragged_dot(int groups, const std::string& op_name) {
  const std::string g = absl::StrCat(groups);
  return absl::StrCat(R"(HloModule m
add32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
mask {
  x = bf16[4096,1024] parameter(0)
  g = s32[)", g, R"(] parameter(1)
  zero = s32[] constant(0)
  n = s32[] reduce(g, zero), dimensions={0}, to_apply=add32
  xb = bf16[4096,4,1024] broadcast(x), dimensions={0,2}
  gb = s32[4096,4,1024] broadcast(n), dimensions={}
  io = s32[4096,4,1024] iota(), iota_dimension=0
  in = pred[4096,4,1024] compare(io, gb), direction=LT
  z = bf16[] constant(0)
  zb = bf16[4096,4,1024] broadcast(z), dimensions={}
  ROOT s = bf16[4096,4,1024] select(in, xb, zb)
}
gemm {
  a = bf16[4096,4096] parameter(0)
  b = bf16[4096,4096] parameter(1)
  ROOT d = bf16[4096,4096] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0},
    metadata={op_name=")", op_name, R"("}
}
ENTRY e {
  x = bf16[4096,1024] parameter(0)
  w = bf16[4,1024,4096] parameter(1)
  g = s32[)", g, R"(] parameter(2)
  m = bf16[4096,4,1024] fusion(x, g), kind=kLoop, calls=mask
  mb = bf16[4096,4096] bitcast(m)
  wb = bf16[4096,4096] bitcast(w)
  ROOT f = bf16[4096,4096] fusion(mb, wb), kind=kCustom, calls=gemm
})");
}

TEST_CASE("dense-ragged-dot: a ragged dot lowered as one dense dot over its groups") {
  auto a = advise_text(dense_ragged_dot(4, "jit(f)/moe/ragged_dot_general"), "h100");
  const AdviceFinding* f = a.find("dense-ragged-dot");
  REQUIRE(f != nullptr);
  // 4 groups (the s32[4] two steps above the dot; its contracting 4096 = 4 x 1024): a grouped
  // matmul runs a quarter of the 2 x 4096^3 FLOPs, so 3/4 of the dot's time is at stake.
  const double dot = a.op("f").time_s;
  REQUIRE(dot > 0);
  CHECK(f->time_at_stake_s == Approx(dot * 3 / 4));
  REQUIRE(f->evidence.size() == 1);
  CHECK_THAT(f->evidence[0].detail, Catch::Contains("4 groups"));
  CHECK_THAT(f->fix, Catch::Contains("capacity"));
  // The same dot from a plain einsum: nothing ragged about it.
  auto b = advise_text(dense_ragged_dot(4, "jit(f)/moe/dot_general"), "h100");
  CHECK(b.find("dense-ragged-dot") == nullptr);
  // An integer vector of 3 cannot be the groups of a contraction over 4096: nothing said.
  auto c = advise_text(dense_ragged_dot(3, "jit(f)/moe/ragged_dot_general"), "h100");
  CHECK(c.find("dense-ragged-dot") == nullptr);
}

// The same on a TPU, as its compiler writes a ragged dot: every token in each of the 4 groups'
// slots, a convolution that picks slot o's product with group o's weights (a window of 4 over a
// base dilated by 4), then the slots masked by the group sizes and summed.
std::string tpu_dense_ragged_dot(const std::string& op_name) {
  return absl::StrCat(R"(HloModule m
addbf {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
grouped {
  a = bf16[4096,1024] parameter(0)
  k = bf16[4,1024,4096] parameter(1)
  g = s32[4] parameter(2)
  ab = bf16[4,4096,1024] broadcast(a), dimensions={1,2}
  c = bf16[4,4096,4096] convolution(ab, k), window={size=4 stride=3 lhs_dilate=4},
    dim_labels=0bf_0io->0bf, metadata={op_name=")", op_name, R"("}
  gb = s32[4,4096,4096] broadcast(g), dimensions={0}
  io = s32[4,4096,4096] iota(), iota_dimension=1
  m = pred[4,4096,4096] compare(io, gb), direction=LT
  z = bf16[] constant(0)
  zb = bf16[4,4096,4096] broadcast(z), dimensions={}
  s = bf16[4,4096,4096] select(m, c, zb)
  ROOT r = bf16[4096,4096] reduce(s, z), dimensions={0}, to_apply=addbf
}
ENTRY e {
  a = bf16[4096,1024] parameter(0)
  k = bf16[4,1024,4096] parameter(1)
  g = s32[4] parameter(2)
  ROOT f = bf16[4096,4096] fusion(a, k, g), kind=kOutput, calls=grouped
})");
}

TEST_CASE("dense-ragged-dot: a TPU's base-dilated convolution over every group's slot") {
  auto a = advise_text(tpu_dense_ragged_dot("jit(f)/moe/ragged_dot_general"), "tpu_v5e");
  const AdviceFinding* f = a.find("dense-ragged-dot");
  REQUIRE(f != nullptr);
  // 4 groups (the s32[4] operand; a window of 4 over a base dilated by 4): each slot's product
  // is 2 x 4096 x 1024 x 4096 FLOPs, all 4 computed where a grouped matmul needs one: 3/4 of
  // the fusion's time is at stake.
  const double fusion = a.op("f").time_s;
  REQUIRE(fusion > 0);
  CHECK(f->time_at_stake_s == Approx(fusion * 3 / 4));
  CHECK_THAT(f->evidence.at(0).detail, Catch::Contains("4 groups"));
  auto b = advise_text(tpu_dense_ragged_dot("jit(f)/conv_general_dilated"), "tpu_v5e");
  CHECK(b.find("dense-ragged-dot") == nullptr);
}

// ---- unfused-attention

// Attention over 64 heads of 2048 queries and keys of 128 features, as XLA writes it without a
// fused kernel: a batched dot writes the [64, 2048, 2048] scores, a softmax (row maximum, exp,
// row sum, divide) reads and writes them, a second batched dot reads them. `between` replaces
// the softmax fusion's body.
constexpr const char* kSoftmax = R"(
  mx = bf16[64,2048] reduce(x, lo), dimensions={2}, to_apply=maxbf
  mb = bf16[64,2048,2048] broadcast(mx), dimensions={0,1}
  d = bf16[64,2048,2048] subtract(x, mb)
  e = bf16[64,2048,2048] exponential(d)
  sm = bf16[64,2048] reduce(e, zero), dimensions={2}, to_apply=addbf
  sb = bf16[64,2048,2048] broadcast(sm), dimensions={0,1}
  ROOT p = bf16[64,2048,2048] divide(e, sb))";
constexpr const char* kGelu = R"(
  ROOT t = bf16[64,2048,2048] tanh(x))";

std::string attention(int queries, const char* between) {
  const std::string q = absl::StrCat(queries);
  const std::string body =
      absl::StrReplaceAll(between, {{"64,2048,2048", absl::StrCat("64,", q, ",2048")},
                                    {"64,2048]", absl::StrCat("64,", q, "]")}});
  return absl::StrCat(R"(HloModule m
maxbf {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] maximum(a, b)
}
addbf {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
softmax {
  x = bf16[64,)", q, R"(,2048] parameter(0)
  lo = bf16[] constant(-inf)
  zero = bf16[] constant(0))", body, R"(
}
ENTRY e {
  q = bf16[64,)", q, R"(,128] parameter(0)
  k = bf16[64,2048,128] parameter(1)
  v = bf16[64,2048,128] parameter(2)
  s = bf16[64,)", q, R"(,2048] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2},
    rhs_batch_dims={0}, rhs_contracting_dims={2}
  p = bf16[64,)", q, R"(,2048] fusion(s), kind=kInput, calls=softmax
  ROOT o = bf16[64,)", q, R"(,128] dot(p, v), lhs_batch_dims={0}, lhs_contracting_dims={2},
    rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
}

TEST_CASE("unfused-attention: scores through HBM between two batched dots") {
  auto a = advise_text(attention(2048, kSoftmax), "h100");
  const AdviceFinding* f = a.find("unfused-attention");
  REQUIRE(f != nullptr);
  // At stake: the softmax's whole time, and each dot's time beyond its FLOPs at the bf16 peak x
  // the matmul efficiency: 2 x 64 x 2048 x 2048 x 128 = 68.7 GFLOP a dot.
  const DeviceSpec h100 = *device("h100");
  const double flops = 2.0 * 64 * 2048 * 2048 * 128;
  const double compute = flops / (*h100.matrix_peak(PrimitiveType::kBF16) * h100.matmul_efficiency);
  const double expected = a.op("p").time_s + std::max(0.0, a.op("s").time_s - compute) +
                          std::max(0.0, a.op("o").time_s - compute);
  CHECK(f->time_at_stake_s == Approx(expected));
  // The dot writing the scores moves 512 MiB of them, more than its FLOPs take.
  CHECK(a.op("s").time_s > compute);
  CHECK_THAT(f->fix, Catch::Contains("implementation=\"cudnn\""));
  // Between the dots, no row reduction (an activation, as a batched MLP has): not attention.
  auto b = advise_text(attention(2048, kGelu), "h100");
  CHECK(b.find("unfused-attention") == nullptr);
  // One query a head (a decode step): the scores are smaller than the keys they come from.
  auto c = advise_text(attention(1, kSoftmax), "h100");
  CHECK(c.find("unfused-attention") == nullptr);
}

// ---- f32-matmul

// d32: 2 x 1024^3 = 2147483648 FLOP at the f32 peak 6.7e13 = 32.05 us (HBM 12 MiB / 3.35e12 =
// 3.76 us). In bf16: max(2147483648 / 9.89e14 = 2.17 us, (12582912 - 8388608 / 2) / 3.35e12 =
// 2.50 us) = 2.50 us. At stake 32.05 - 2.50 = 29.55 us.
std::string matmul_module(bool with_bf16) {
  std::string s = R"(HloModule m
ENTRY e {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{1,0} parameter(1)
  x = bf16[1024,1024]{1,0} parameter(2)
  d32 = f32[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)";
  if (with_bf16) {
    s +=
        R"(  d16 = bf16[1024,1024]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[1024,1024]{1,0}, bf16[1024,1024]{1,0}) tuple(d32, d16)
})";
  } else {
    s += "  ROOT t = (f32[1024,1024]{1,0}, bf16[1024,1024]{1,0}) tuple(d32, x)\n}";
  }
  return s;
}

TEST_CASE("f32-matmul: an f32 dot in a bf16 program") {
  auto a = advise_text(matmul_module(true), "h100", roofline_without_overhead());
  const AdviceFinding* f = a.find("f32-matmul");
  REQUIRE(f != nullptr);
  const double flops = 2.0 * 1024 * 1024 * 1024;
  // H100 runs f32 dots at DEFAULT precision on its TF32 tensor cores (4.945e14 FLOP/s):
  // 2^31 / 4.945e14 = 4.34 us, above the 12582912 B / 3.35e12 B/s = 3.76 us of HBM traffic.
  const double now = std::max(flops / 4.945e14, 12582912 / kH100Hbm);
  const double then = std::max(flops / 9.89e14, (12582912 - 8388608 / 2.0) / kH100Hbm);
  CHECK(a.op("d32").time_s == Approx(now));
  CHECK(f->time_at_stake_s == Approx(now - then));
  CHECK(f->evidence[0].op == "d32");

  // Every matmul in f32: nothing in the program is bf16, so nothing to compare with.
  auto b = advise_text(matmul_module(false), "h100", roofline_without_overhead());
  CHECK(b.find("f32-matmul") == nullptr);
}

// ---- unfused-elementwise

// exp -> add -> multiply on f32[2048,2048] (16 MiB), each its own op: a and b are written and
// read back, 2 x 16 MiB = 33554432 B / 8.19e11 = 40.97 us each (each op takes longer than
// that: exp 32 MiB, add 48 MiB of traffic), 81.94 us in all.
TEST_CASE("unfused-elementwise: chains that round-trip HBM") {
  auto a = advise_text(R"(HloModule m
ENTRY e {
  p = f32[2048,2048]{1,0} parameter(0)
  a = f32[2048,2048]{1,0} exponential(p)
  b = f32[2048,2048]{1,0} add(a, a)
  ROOT c = f32[2048,2048]{1,0} multiply(b, p)
})",
                       "tpu_v5e", roofline_without_overhead());
  const AdviceFinding* f = a.find("unfused-elementwise");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(2 * 33554432 / kV5eHbm));
  CHECK(f->op_count == 2);
  CHECK(f->bytes_at_stake == 2 * 33554432);

  // The same chain fused: one op, nothing round-trips.
  auto b = advise_text(R"(HloModule m
fused {
  p = f32[2048,2048]{1,0} parameter(0)
  a = f32[2048,2048]{1,0} exponential(p)
  b = f32[2048,2048]{1,0} add(a, a)
  ROOT c = f32[2048,2048]{1,0} multiply(b, p)
}
ENTRY e {
  p = f32[2048,2048]{1,0} parameter(0)
  ROOT f = f32[2048,2048]{1,0} fusion(p), kind=kLoop, calls=fused
})",
                       "tpu_v5e", roofline_without_overhead());
  CHECK(b.find("unfused-elementwise") == nullptr);
}

// ---- host-transfer

// copy-start brings f32[1048576] (4 MiB) from host memory over PCIe: 4194304 / 1.6e10 =
// 262.1 us, of which an add of 12 MiB (15.36 us) hides some: 262.1 - 15.36 = 246.8 us exposed.
std::string host_copy_module(int memory_space) {
  return absl::StrCat(R"(HloModule m, is_scheduled=true
ENTRY e {
  h = f32[1048576]{0:S()",
                      memory_space, R"()} parameter(0)
  a = f32[1048576] parameter(1)
  cs = (f32[1048576], f32[1048576]{0:S()",
                      memory_space, R"()}, u32[]) copy-start(h)
  s = f32[1048576] add(a, a)
  cd = f32[1048576] copy-done(cs)
  ROOT t = (f32[1048576], f32[1048576]) tuple(cd, s)
})");
}

TEST_CASE("host-transfer: the step waits for a copy from host memory") {
  auto a = advise_text(host_copy_module(5), "tpu_v5e", roofline_without_overhead());
  const AdviceFinding* f = a.find("host-transfer");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(4194304 / 1.6e10 - 3 * 4194304 / kV5eHbm));
  CHECK(f->evidence[0].op == "cd");

  // The same copy within device memory: no host transfer.
  auto b = advise_text(host_copy_module(0), "tpu_v5e", roofline_without_overhead());
  CHECK(b.find("host-transfer") == nullptr);
}

TEST_CASE("host-transfer: copies queued on the host link say so") {
  // Two 4 MiB copies in from host memory started together, then their dones: 262.1 us each
  // (4194304 / 1.6e10). The second waits behind the first: its done waits 262.1 us, all of it
  // from the queue (alone on the link it would have ended with the first); the step waits
  // 2 x 262.1 us in all.
  auto a = advise_text(R"(HloModule m, is_scheduled=true
ENTRY e {
  h0 = f32[1048576]{0:S(5)} parameter(0)
  h1 = f32[1048576]{0:S(5)} parameter(1)
  in0 = (f32[1048576], f32[1048576]{0:S(5)}, u32[]) copy-start(h0)
  in1 = (f32[1048576], f32[1048576]{0:S(5)}, u32[]) copy-start(h1)
  a0 = f32[1048576] copy-done(in0)
  a1 = f32[1048576] copy-done(in1)
  ROOT t = (f32[1048576], f32[1048576]) tuple(a0, a1)
})",
                       "tpu_v5e", roofline_without_overhead());
  const AdviceFinding* f = a.find("host-transfer");
  REQUIRE(f != nullptr);
  const double copy_s = 4194304 / 1.6e10;
  CHECK(f->time_at_stake_s == Approx(2 * copy_s));
  CHECK_THAT(f->what,
             Catch::Contains(format_seconds(copy_s) + " of it comes from copies queueing"));
  bool said = false;
  for (const AdviceEvidence& e : f->evidence) {
    if (e.op == "a1") said = absl::StrContains(e.detail, "queueing behind earlier copies");
  }
  CHECK(said);
  // A lone copy queues behind nothing: no such words.
  auto b = advise_text(host_copy_module(5), "tpu_v5e", roofline_without_overhead());
  REQUIRE(b.find("host-transfer") != nullptr);
  CHECK_FALSE(absl::StrContains(b.find("host-transfer")->what, "queueing"));
}

TEST_CASE("host-transfer: an offloaded layer input loaded back by an async computation") {
  // The row, 4 MiB, crosses the host link (4194304 / 1.6e10 = 262.1 us at the roofline) and
  // nothing runs beside it: the step waits for all of it.
  auto a = advise_text(testing::host_slice_module(5), "tpu_v5e", roofline_without_overhead());
  const AdviceFinding* f = a.find("host-transfer");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == Approx(4194304 / 1.6e10));
  REQUIRE(f->evidence.size() == 1);
  CHECK(f->evidence[0].op == "dn");
  CHECK(f->evidence[0].bytes == 4194304);
  CHECK_THAT(f->what, Catch::Contains("1 transfer between host and device memory (4 MiB per "
                                      "step) is on the critical path"));

  // The same slice out of device memory: no host transfer.
  auto b = advise_text(testing::host_slice_module(0), "tpu_v5e", roofline_without_overhead());
  CHECK(b.find("host-transfer") == nullptr);
}

// ---- memory-headroom

// p and its negation, f32[N,1024,1024] each (N x 4 MiB), are live together.
std::string big_module(int n) {
  return absl::StrCat("HloModule m\nENTRY e {\n  p = f32[", n,
                      ",1024,1024]{2,1,0} parameter(0)\n  ROOT r = f32[", n,
                      ",1024,1024]{2,1,0} negate(p)\n}\n");
}

TEST_CASE("memory-headroom: a peak within 10% of capacity, or over it") {
  // N = 1800: 2 x 7549747200 = 15099494400 B, 94.4% of 16e9; freeing down to 90% needs
  // 15099494400 - 14400000000 = 699494400 B.
  auto a = advise_text(big_module(1800), "tpu_v5e");
  const AdviceFinding* f = a.find("memory-headroom");
  REQUIRE(f != nullptr);
  CHECK(f->bytes_at_stake == 699494400);
  CHECK(f->time_at_stake_s == 0);
  CHECK_THAT(f->title, Catch::Contains("nearly full"));

  // N = 2000: 16777216000 B does not fit: ranked first whatever the time of other findings.
  auto b = advise_text(big_module(2000), "tpu_v5e");
  REQUIRE(!b.advice.findings.empty());
  CHECK(b.advice.findings.front().id == "memory-headroom");
  CHECK_THAT(b.advice.findings.front().title, Catch::Contains("does not fit"));

  // N = 1000: 8388608000 B, 52% of capacity.
  auto c = advise_text(big_module(1000), "tpu_v5e");
  CHECK(c.find("memory-headroom") == nullptr);
}

// ---- unknown-cost

TEST_CASE("unknown-cost: custom calls hloroof cannot cost") {
  auto a = advise_text(R"(HloModule m
ENTRY e {
  p = f32[1024]{0} parameter(0)
  ROOT k = f32[1024]{0} custom-call(p), custom_call_target="my_fancy_kernel"
})",
                       "tpu_v5e");
  const AdviceFinding* f = a.find("unknown-cost");
  REQUIRE(f != nullptr);
  CHECK(f->time_at_stake_s == 0);
  // Reading 4 KiB and writing 4 KiB takes at least 8192 / 8.19e11 = 10 ns.
  CHECK(f->evidence[0].bytes == 8192);
  CHECK_THAT(f->evidence[0].detail, Catch::Contains("my_fancy_kernel: 1 op (k)"));

  auto b = advise_text(
      "HloModule m\nENTRY e {\n  p = f32[1024]{0} parameter(0)\n"
      "  ROOT k = f32[1024]{0} negate(p)\n}\n",
      "tpu_v5e");
  CHECK(b.find("unknown-cost") == nullptr);
}

// ---- the ranking

// a = exp(p) and b = negate(a) on padded f32[4096,2]: padding-waste claims both ops (5.04 us
// each), unfused-elementwise would claim a (2 x 2 MiB / 8.19e11 = 5.12 us): a is counted once,
// under the finding ranked higher, and what remains of the other is below the threshold.
TEST_CASE("the ranking never counts an op's time twice") {
  auto a = advise_text(R"(HloModule m
ENTRY e {
  p = f32[4096,2]{1,0:T(8,128)} parameter(0)
  a = f32[4096,2]{1,0:T(8,128)} exponential(p)
  ROOT b = f32[4096,2]{1,0:T(8,128)} negate(a)
})",
                       "tpu_v5e", roofline_without_overhead());
  REQUIRE(!a.advice.findings.empty());
  CHECK(a.advice.findings.front().id == "padding-waste");
  CHECK(a.find("unfused-elementwise") == nullptr);
  CHECK(a.advice.time_at_stake_s <= a.prediction.step_time_s);
  // Nothing to say about a clean module.
  auto clean = advise_text(
      "HloModule m\nENTRY e {\n  p = f32[1024,1024]{1,0} parameter(0)\n"
      "  ROOT n = f32[1024,1024]{1,0} negate(p)\n}\n",
      "tpu_v5e");
  CHECK(clean.advice.findings.empty());
  CHECK_THAT(render_advice_text(clean.advice), Catch::Contains("nothing to fix"));
}

TEST_CASE("every rule has a documented id; the advice names its device") {
  CHECK(advice_rule_ids().size() == 16);
  absl::StatusOr<Module> m = parse_module("HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }");
  REQUIRE_OK(m);
  // The device is a parameter (no options struct holds it): nothing to predict, nothing found.
  absl::StatusOr<Advice> a = advise(*m, Prediction{}, MemoryReport{}, *device("h100"));
  REQUIRE_OK(a);
  CHECK(a->device == "h100");
  CHECK(a->findings.empty());
}

// ---- AdviceMaker

TEST_CASE("AdviceMaker: made before the memory report, finished with it: advise()'s advice") {
  // Padding waste (a memory rule) beside small ops (a rule of the prediction alone): a chain of
  // negates of a mostly padded f32[4096,2] under T(8,128).
  std::string text = "HloModule m\nENTRY e {\n  v0 = f32[4096,2]{1,0:T(8,128)} parameter(0)\n";
  for (int k = 1; k <= 8; ++k) {
    absl::StrAppend(&text, k == 8 ? "  ROOT " : "  ", "v", k,
                    " = f32[4096,2]{1,0:T(8,128)} negate(v", k - 1, ")\n");
  }
  text += "}\n";
  testing::Advised a = testing::advise_text(text, "tpu_v5e");
  REQUIRE(a.find("padding-waste") != nullptr);
  AdviceMaker maker(a.module, a.prediction, a.device);
  // A warning the caller adds between the two steps is the advice's too.
  a.prediction.diagnostics.warnings.push_back("added after the prediction's findings");
  absl::StatusOr<Advice> made = maker.finish(a.memory);
  REQUIRE_OK(made);
  absl::StatusOr<Advice> whole = advise(a.module, a.prediction, a.memory, a.device);
  REQUIRE_OK(whole);
  CHECK(advice_to_json(*made) == advice_to_json(*whole));
  CHECK(made->warnings.back() == "added after the prediction's findings");
  CHECK(advice_to_json(*made) != advice_to_json(a.advice));  // the warning
}

TEST_CASE("AdviceMaker: a prediction of another module is finish()'s error") {
  testing::Advised a = testing::advise_text(negate_chain(3), "h100");
  // Ops found by name (a prediction read back without its instructions), not in `other`.
  for (OpPrediction& op : a.prediction.ops) op.instruction = nullptr;
  absl::StatusOr<Module> other =
      parse_module("HloModule o\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n");
  REQUIRE_OK(other);
  AdviceMaker maker(*other, a.prediction, a.device);
  absl::StatusOr<Advice> made = maker.finish(a.memory);
  REQUIRE_FALSE(made.ok());
  CHECK(absl::StrContains(made.status().message(), "is not in module 'o'"));
}
}  // namespace
}  // namespace hloroof
