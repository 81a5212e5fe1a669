// The example modules of examples/ against the FLOPs their README derives by hand.
#include <fstream>
#include <sstream>

#include "cost_test_util.h"
#include "examples.h"

namespace hloroof {
namespace {

using testing::read_example;

TEST_CASE("tpu_v5e_train_step: the README's FLOPs") {
  auto c = testing::analyze(read_example("tpu_v5e_train_step.hlo"));
  const OpCost& t = c.cost.totals;
  // examples/README.md: 336 U of matmuls, U = 2^35.
  CHECK(t.matrix_flops() == 11544872091648.0);
  CHECK(t.matrix_type() == PrimitiveType::kBF16);
  CHECK(t.transcendentals == 4026826752.0);
  // examples/README.md: 11,593,180,221,489 with each loop condition counted trip-count times;
  // a condition runs once more (the evaluation that ends the loop): 3 loops, one compare each.
  CHECK(t.flops == 11593180221489.0 + 3);
  // XLA's HloCostAnalysis visits each loop body once: the README's 4,553,224,884,237.
  CHECK(t.xla_flops == 4553224884237.0);
  CHECK(c.cost.unknown.empty());
  CHECK_FALSE(c.cost.is_lower_bound);
}

TEST_CASE("h100_gemm_step: the README's FLOPs") {
  auto c = testing::analyze(read_example("h100_gemm_step.hlo"));
  const OpCost& t = c.cost.totals;
  // Five GEMMs (four cuBLAS custom calls, one Triton fusion) of 2^40 FLOPs each.
  CHECK(t.matrix_flops() == 5497558138880.0);
  CHECK(t.flops == 5502524194817.0);
  CHECK(t.transcendentals == 268435456.0);
  CHECK(c.cost.unknown.empty());
}

}  // namespace
}  // namespace hloroof
