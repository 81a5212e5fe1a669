// OpIndex: a prediction's records found by instruction, through each computation's schedule
// positions.
#include <catch2/catch.hpp>
#include <vector>

#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "predict/op_index.h"
#include "require_ok.h"

namespace hloroof {
namespace {

constexpr std::string_view kModule = R"(HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[8]{0} parameter(0)
  n = f32[8]{0} negate(a)
  e = f32[8]{0} exponential(n)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(e, zero), dimensions={0}, to_apply=add
}
)";

TEST_CASE("an op index finds each instruction's record, the first where several name it") {
  absl::StatusOr<Module> m = parse_module(kModule);
  REQUIRE_OK(m);
  const Computation* main = m->entry();
  const Computation* add = m->find_computation("add");
  // Records of r, n and the add computation's s, out of schedule order, and a second one of n.
  std::vector<OpPrediction> ops(5);
  ops[0].instruction = main->find_instruction("r");
  ops[1].instruction = main->find_instruction("n");
  ops[2].instruction = add->find_instruction("s");
  ops[3].instruction = main->find_instruction("n");
  ops[4].instruction = nullptr;  // a record of no instruction is skipped
  const predict::OpIndex index(ops);
  CHECK(index.find(main->find_instruction("r")) == &ops[0]);
  CHECK(index.find(main->find_instruction("n")) == &ops[1]);
  CHECK(index.find(add->find_instruction("s")) == &ops[2]);
  // No record: the other instructions of both computations, and null.
  CHECK(index.find(main->find_instruction("e")) == nullptr);
  CHECK(index.find(main->find_instruction("a")) == nullptr);
  CHECK(index.find(add->find_instruction("x")) == nullptr);
  CHECK(index.find(nullptr) == nullptr);
  // Of another module (the same text parsed again), whose computations have no records: none.
  absl::StatusOr<Module> other = parse_module(kModule);
  REQUIRE_OK(other);
  CHECK(index.find(other->entry()->find_instruction("r")) == nullptr);
}

}  // namespace
}  // namespace hloroof
