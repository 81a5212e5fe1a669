// run_passes: passes that change nothing, change the module, fail, or leave a module that does
// not verify.
#include "hloroof/passes.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// A copy that keeps its operand's shape and layout, then a negate: on the h100, each reads and
// writes f32[1024,1024], 4 MiB: 2 x 1024 x 1024 x 4 = 8,388,608 bytes an op, 16,777,216 in all.
constexpr char kModule[] = R"(
HloModule m, entry_computation_layout={(f32[1024,1024]{1,0})->f32[1024,1024]{1,0}}

ENTRY %main (p: f32[1024,1024]) -> f32[1024,1024] {
  %p = f32[1024,1024]{1,0} parameter(0)
  %same = f32[1024,1024]{1,0} copy(%p)
  ROOT %n = f32[1024,1024]{1,0} negate(%same)
}
)";

Module parsed() {
  absl::StatusOr<Module> m = parse_module(kModule);
  INFO(m.status().ToString());
  REQUIRE_OK(m);
  return *std::move(m);
}

absl::StatusOr<bool> nothing(Module&) { return false; }

// Replaces each copy whose shape is its operand's by the operand.
absl::StatusOr<bool> remove_copies(Module& m) {
  bool changed = false;
  for (Computation* c : m.computations()) {
    std::vector<Instruction*> copies;
    for (Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kCopy && i->shape() == i->operand(0)->shape()) {
        copies.push_back(i);
      }
    }
    for (Instruction* copy : copies) {
      if (absl::Status s = c->replace_instruction(copy, copy->operand(0)); !s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

// Gives the negate a shape its operand does not have.
absl::StatusOr<bool> break_shape(Module& m) {
  m.entry()->find_instruction("n")->set_shape(Shape::Array(PrimitiveType::kF32, {7}));
  return true;
}

TEST_CASE("a pass that changes nothing: the step predicted once") {
  Module m = parsed();
  absl::StatusOr<PassRun> run = run_passes(m, {{"nothing", nothing}}, {.device = "h100"});
  INFO(run.status().ToString());
  REQUIRE_OK(run);
  REQUIRE(run->passes.size() == 1);
  const PassResult& r = run->passes[0];
  CHECK(r.name == "nothing");
  CHECK_FALSE(r.changed);
  CHECK(r.verified);
  REQUIRE(r.after.has_value());
  CHECK(r.after->step_time_s == r.before.step_time_s);
  CHECK(r.before.hbm_bytes == 16777216);
  CHECK_FALSE(run->changed());
  CHECK(run->after.step_time_s == run->before.step_time_s);
  // The module is as it was: the records still point into it.
  REQUIRE(!run->before.ops.empty());
  CHECK(run->before.ops.front().instruction != nullptr);
}

TEST_CASE("a pass that changes the module: predicted before and after it") {
  Module m = parsed();
  absl::StatusOr<PassRun> run =
      run_passes(m, {{"nothing", nothing}, {"remove_copies", remove_copies}},
                 {.device = "h100", .verify_each = true, .reparse = true});
  INFO(run.status().ToString());
  REQUIRE_OK(run);
  REQUIRE(run->passes.size() == 2);
  const PassResult& removed = run->passes[1];
  CHECK(removed.changed);
  CHECK(removed.verified);
  REQUIRE(removed.after.has_value());
  // The copy's 8,388,608 bytes are gone; the negate's stay.
  CHECK(removed.before.hbm_bytes == 16777216);
  CHECK(removed.after->hbm_bytes == 8388608);
  CHECK(removed.after->step_time_s < removed.before.step_time_s);
  // The pass before it changed nothing: its figures are the module's as given.
  CHECK(run->passes[0].after->step_time_s == removed.before.step_time_s);
  // The run's predictions are the first pass's before and the last one's after.
  CHECK(run->changed());
  CHECK(run->before.step_time_s == removed.before.step_time_s);
  CHECK(run->after.step_time_s == removed.after->step_time_s);
  CHECK(run->after.hbm_bytes == 8388608);
  CHECK(m.entry()->find_instruction("same") == nullptr);
  // `before`'s records no longer point into the module; `after`'s do, and explain themselves.
  for (const OpPrediction& op : run->before.ops) CHECK(op.instruction == nullptr);
  const Instruction* negate = m.entry()->find_instruction("n");
  bool found = false;
  for (const OpPrediction& op : run->after.ops) {
    if (op.instruction != negate) continue;
    found = true;
    CHECK(!op.explanation().empty());
  }
  CHECK(found);
}

TEST_CASE("a module that does not verify after a pass stops the run, naming the pass") {
  Module m = parsed();
  bool third_ran = false;
  const std::vector<Pass> passes = {
      {"remove_copies", remove_copies},
      {"break_shape", break_shape},
      {"third", [&](Module&) -> absl::StatusOr<bool> {
         third_ran = true;
         return false;
       }}};
  absl::StatusOr<PassRun> run = run_passes(m, passes, {.device = "h100"});
  REQUIRE_FALSE(run.ok());
  const std::string message(run.status().message());
  INFO(message);
  CHECK(message.find("after pass break_shape (2 of 3): the module does not verify: ") == 0);
  CHECK(message.find("instruction n (negate)") != std::string::npos);
  CHECK_FALSE(third_ran);
}

TEST_CASE("a pass's own error names it and keeps its code") {
  Module m = parsed();
  absl::StatusOr<PassRun> run = run_passes(
      m, {{"refuses", [](Module&) -> absl::StatusOr<bool> {
             return absl::FailedPreconditionError("no loop to unroll");
           }}});
  REQUIRE_FALSE(run.ok());
  CHECK(run.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(run.status().message() == "after pass refuses (1 of 1): no loop to unroll");
}

TEST_CASE("without verify_each: checked and predicted after the last pass only") {
  SECTION("a module that verifies") {
    Module m = parsed();
    absl::StatusOr<PassRun> run = run_passes(
        m, {{"remove_copies", remove_copies}, {"nothing", nothing}},
        {.device = "h100", .verify_each = false});
    INFO(run.status().ToString());
    REQUIRE_OK(run);
    CHECK_FALSE(run->passes[0].verified);
    CHECK_FALSE(run->passes[0].after.has_value());
    CHECK(run->passes[1].verified);
    CHECK_FALSE(run->passes[1].after.has_value());
    CHECK(run->after.hbm_bytes == 8388608);
  }
  SECTION("a module that does not: no single pass is named") {
    Module m = parsed();
    absl::StatusOr<PassRun> run = run_passes(
        m, {{"break_shape", break_shape}, {"nothing", nothing}},
        {.device = "h100", .verify_each = false});
    REQUIRE_FALSE(run.ok());
    const std::string message(run.status().message());
    INFO(message);
    CHECK(message.find("after the passes break_shape, nothing (verify_each is off") == 0);
  }
}

TEST_CASE("a module that does not verify as given, or an unknown device, runs no pass") {
  bool ran = false;
  const std::vector<Pass> passes = {{"any", [&](Module&) -> absl::StatusOr<bool> {
                                       ran = true;
                                       return false;
                                     }}};
  Module m = parsed();
  SECTION("an unknown device") {
    absl::StatusOr<PassRun> run = run_passes(m, passes, {.device = "no_such_device"});
    REQUIRE_FALSE(run.ok());
    CHECK(run.status().message().find("before the passes, predicting: ") == 0);
  }
  SECTION("a module broken before the passes") {
    REQUIRE_OK(break_shape(m));
    absl::StatusOr<PassRun> run = run_passes(m, passes, {.device = "h100"});
    REQUIRE_FALSE(run.ok());
    CHECK(run.status().message().find("before the passes: the module does not verify: ") == 0);
  }
  CHECK_FALSE(ran);
}

}  // namespace
}  // namespace hloroof
