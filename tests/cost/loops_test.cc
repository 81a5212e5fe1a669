// While loops: trip counts from the backend config or derived from the loop, nested loops'
// multipliers, and the XLA-compatible single-iteration figures.
#include "absl/strings/str_format.h"
#include "cost_test_util.h"

namespace hloroof {
namespace {

using testing::analyze;

constexpr std::string_view kNestedLoops = R"(
HloModule loops

inner_cond {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

inner_body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  y = f32[8] add(x, x)
  ROOT t = (s32[], f32[8]) tuple(next, y)
}

outer_cond {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(100)
  ROOT lt = pred[] compare(i, n), direction=LT
}

outer_body {
  p = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8] get-tuple-element(p), index=1
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, x)
  inner = (s32[], f32[8]) while(init), condition=inner_cond, body=inner_body
  y = f32[8] get-tuple-element(inner), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[8]) tuple(next, y)
}

ENTRY e {
  x = f32[8] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8]) tuple(zero, x)
  outer = (s32[], f32[8]) while(init), condition=outer_cond, body=outer_body, backend_config={"known_trip_count":{"n":"4"}}
  ROOT r = f32[8] get-tuple-element(outer), index=1
}
)";

TEST_CASE("nested loops multiply by known and derived trip counts") {
  auto c = analyze(kNestedLoops);
  // The outer count comes from the backend config (it wins over the condition's 100).
  REQUIRE(c["outer"].trip_count);
  CHECK(c["outer"].trip_count->count == 4);
  CHECK(c["outer"].trip_count->source == TripCountSource::kBackendConfig);
  // The inner count is derived: i = 0; i < 3; i += 1.
  const InstructionCost& inner = c.at("outer_body", "inner");
  REQUIRE(inner.trip_count);
  CHECK(inner.trip_count->count == 3);
  CHECK(inner.trip_count->source == TripCountSource::kDerived);

  // inner body per iteration: next (1 flop; 4+4 read, 4 written = 12 B), y (8 flops; 32+32
  // read, 32 written = 96 B), tuple (16 B pointer table): 9 flops, 124 B.
  // inner condition: compare, 1 flop, 4+4 read + 1 written = 9 B.
  // inner loop: 3 bodies, 4 conditions: 3*9 + 4*1 = 31 flops, 3*124 + 4*9 = 408 B.
  CHECK(inner.cost.flops == 31);
  CHECK(inner.cost.bytes() == 408);
  // outer body: init tuple 16 B, the inner loop, next (1 flop, 12 B), tuple 16 B:
  // 32 flops, 452 B. outer loop: 4 bodies and 5 conditions: 4*32 + 5*1 = 133 flops,
  // 4*452 + 5*9 = 1853 B. Entry adds its init tuple: 16 B.
  CHECK(c["outer"].cost.flops == 133);
  CHECK(c["outer"].cost.bytes() == 1853);
  CHECK(c.cost.totals.flops == 133);
  CHECK(c.cost.totals.bytes() == 1869);
  CHECK_FALSE(c.cost.is_lower_bound);

  // Executions per step: outer body 4, outer condition 5, inner body 4*3, inner condition 4*4.
  CHECK(c.at("outer_body", "next").multiplier == 4);
  CHECK(c.at("outer_cond", "lt").multiplier == 5);
  CHECK(c.at("inner_body", "y").multiplier == 12);
  CHECK(c.at("inner_cond", "lt").multiplier == 16);
  CHECK(c.cost.find(c.module.find_computation("inner_body"))->multiplier == 12);
  CHECK(c.cost.find(c.module.find_computation("inner_body"))->per_execution.flops == 9);

  // Summing cost x multiplier over the scheduled instructions that call nothing gives the
  // total too (docs/cost-conventions.md): entry 16 B, outer body 44 B x 4, inner body 124 B
  // x 12, inner condition 9 B x 16, outer condition 9 B x 5 = 1869 B.
  double flat_bytes = 0, flat_flops = 0;
  for (const InstructionCost& r : c.cost.instructions) {
    if (r.role == CostRole::kScheduled && r.instruction->opcode() != Opcode::kWhile) {
      flat_bytes += r.cost.bytes() * r.multiplier;
      flat_flops += r.cost.flops * r.multiplier;
    }
  }
  CHECK(flat_bytes == 1869);
  CHECK(flat_flops == 133);

  // XLA counts one iteration of each loop: inner 9 + 1, outer body 10 + 1, condition 1.
  CHECK(inner.cost.xla_flops == 10);
  CHECK(c["outer"].cost.xla_flops == 12);
  CHECK(c.cost.totals.xla_flops == 12);
}

TEST_CASE("a loop whose trip count cannot be told counts once, flagged") {
  auto c = analyze(R"(
cond {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(next, n)
}
ENTRY e {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, n)
  ROOT loop = (s32[], s32[]) while(init), condition=cond, body=body
})");
  REQUIRE(c["loop"].trip_count);
  CHECK(c["loop"].trip_count->source == TripCountSource::kAssumed);
  CHECK(c["loop"].trip_count->count == 1);
  CHECK(c.cost.is_lower_bound);
  REQUIRE(c.cost.notes.size() == 1);
  CHECK(c.cost.notes[0] == "loop: trip count unknown, counted 1 time (lower bound)");
  // body: add 1 flop; condition 1 flop, run twice.
  CHECK(c["loop"].cost.flops == 1 + 2 * 1);

  auto ten = analyze(std::string(c.module.source()), CostOptions{.default_trip_count = 10});
  CHECK(ten["loop"].trip_count->count == 10);
  CHECK(ten["loop"].cost.flops == 10 * 1 + 11 * 1);
}

void replace(std::string& text, std::string_view key, std::string_view value) {
  text.replace(text.find(key), key.size(), value);
}

// A counted loop over s32 `i` with the given start, condition root and update of i.
std::string counted_loop(int64_t start, std::string_view condition, std::string_view update) {
  std::string text = R"(
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  CONDITION
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  UPDATE
  y = f32[4] multiply(x, x)
  ROOT t = (s32[], f32[4]) tuple(next, y)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = s32[] constant(START)
  init = (s32[], f32[4]) tuple(start, x)
  ROOT loop = (s32[], f32[4]) while(init), condition=cond, body=body
})";
  replace(text, "START", std::to_string(start));
  replace(text, "CONDITION", condition);
  replace(text, "UPDATE", update);
  return text;
}

int64_t derived_count(const std::string& text) {
  auto c = analyze(text);
  const InstructionCost& loop = c["loop"];
  REQUIRE(loop.trip_count);
  INFO(text);
  REQUIRE(loop.trip_count->source == TripCountSource::kDerived);
  return loop.trip_count->count;
}

constexpr std::string_view kPlusOne = "s = s32[] constant(1)\n  next = s32[] add(i, s)";

TEST_CASE("trip counts derived from counted loops") {
  auto bound = [](std::string_view direction, int64_t n) {
    return absl::StrFormat("n = s32[] constant(%d)\n  ROOT c = pred[] compare(i, n), direction=%s",
                           n, direction);
  };
  CHECK(derived_count(counted_loop(0, bound("LT", 10), kPlusOne)) == 10);  // 0..9
  CHECK(derived_count(counted_loop(0, bound("LE", 10), kPlusOne)) == 11);  // 0..10
  CHECK(derived_count(counted_loop(3, bound("LT", 10), kPlusOne)) == 7);   // 3..9
  CHECK(derived_count(counted_loop(0, bound("NE", 6), kPlusOne)) == 6);
  CHECK(derived_count(counted_loop(12, bound("LT", 10), kPlusOne)) == 0);  // never entered
  // Step 3 from 1 below 11: 1, 4, 7, 10.
  CHECK(derived_count(counted_loop(1, bound("LT", 11),
                                   "s = s32[] constant(3)\n  next = s32[] add(s, i)")) == 4);
  // Counting down: 10, 8, 6, 4, 2 while i > 0.
  CHECK(derived_count(counted_loop(10, bound("GT", 0),
                                   "s = s32[] constant(2)\n  next = s32[] subtract(i, s)")) == 5);
  // 10 down to 0 inclusive: i >= 0.
  CHECK(derived_count(counted_loop(10, bound("GE", 0),
                                   "s = s32[] constant(-1)\n  next = s32[] add(i, s)")) == 11);
  // The bound on the left: 5 > i means i < 5.
  CHECK(derived_count(counted_loop(
            0, "n = s32[] constant(5)\n  ROOT c = pred[] compare(n, i), direction=GT", kPlusOne)) ==
        5);
}

TEST_CASE("a condition computed in a fusion still gives its trip count") {
  const std::string text = R"(
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT f = pred[] fusion(i, n), kind=kLoop, calls=less
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  s = s32[] constant(1)
  next = s32[] add(i, s)
  ROOT t = (s32[], f32[4]) tuple(next, x)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = s32[] constant(0)
  init = (s32[], f32[4]) tuple(start, x)
  ROOT loop = (s32[], f32[4]) while(init), condition=cond, body=body
})";
  CHECK(derived_count(text) == 7);
}

TEST_CASE("a counter copied into scalar memory still gives its trip count") {
  // XLA's TPU programs copy a loop's counter and its start (a copy of a copy, at times) into
  // scalar memory, S(6): 0, 1, 2, 3 while i < 4.
  const std::string text = R"(
cond {
  p = (u32[], f32[4]) parameter(0)
  i = u32[] get-tuple-element(p), index=0
  n = u32[] constant(4)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (u32[], f32[4]) parameter(0)
  i = u32[] get-tuple-element(p), index=0
  held = u32[]{:S(6)} copy(i)
  x = f32[4] get-tuple-element(p), index=1
  s = u32[] constant(1)
  next = u32[] add(held, s)
  ROOT t = (u32[], f32[4]) tuple(next, x)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = u32[] constant(0)
  first = u32[] copy(zero)
  start = u32[] copy(first)
  init = (u32[], f32[4]) tuple(start, x)
  ROOT loop = (u32[], f32[4]) while(init), condition=cond, body=body
})";
  CHECK(derived_count(text) == 4);
  // The next value copied too (a loop peeled of its first iteration, GPT-OSS-120B's forward
  // scan on TPU7x): from 1 while i < 4, 3 iterations.
  std::string copied = text;
  copied.replace(copied.find("  ROOT t = (u32[], f32[4]) tuple(next, x)"),
                 std::string("  ROOT t = (u32[], f32[4]) tuple(next, x)").size(),
                 "  stored = u32[]{:S(6)} copy(next)\n  ROOT t = (u32[], f32[4]) tuple(stored, x)");
  copied.replace(copied.find("zero = u32[] constant(0)"),
                 std::string("zero = u32[] constant(0)").size(), "zero = u32[] constant(1)");
  CHECK(derived_count(copied) == 3);
}

TEST_CASE("loops that never end or do not count are not derived") {
  auto source = [](const std::string& text) {
    auto c = analyze(text);
    return c["loop"].trip_count->source;
  };
  const std::string lt10 = "n = s32[] constant(10)\n  ROOT c = pred[] compare(i, n), direction=LT";
  // Counting away from the bound never ends.
  CHECK(source(counted_loop(0, lt10, "s = s32[] constant(-1)\n  next = s32[] add(i, s)")) ==
        TripCountSource::kAssumed);
  // A step that is not a constant.
  CHECK(source(counted_loop(0, lt10, "next = s32[] add(i, i)")) == TripCountSource::kAssumed);
  // NE that steps over its bound.
  CHECK(source(counted_loop(
            0, "n = s32[] constant(5)\n  ROOT c = pred[] compare(i, n), direction=NE",
            "s = s32[] constant(2)\n  next = s32[] add(i, s)")) == TripCountSource::kAssumed);
}

TEST_CASE("a trip count of zero runs the condition once and the body never") {
  auto c = analyze(counted_loop(
      0, "n = s32[] constant(0)\n  ROOT c = pred[] compare(i, n), direction=LT", kPlusOne));
  CHECK(c["loop"].trip_count->count == 0);
  CHECK(c.at("body", "y").multiplier == 0);
  CHECK(c.at("cond", "c").multiplier == 1);
  CHECK(c["loop"].cost.flops == 1);  // the one compare
}

}  // namespace
}  // namespace hloroof
