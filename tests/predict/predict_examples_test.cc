// Tests that read like a user's: the example steps of examples/README.md predicted on the
// devices they were written for, checked against floors derived by hand.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "hloroof/cost.h"
#include "predict_test_util.h"

namespace hloroof {
namespace {

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(HLOROOF_SOURCE_DIR) + "/examples/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(!text.str().empty());
  return text.str();
}

double collective_time(const Prediction& p) {
  double sum = 0;
  for (const OpPrediction& op : p.ops) {
    if (op.collective) sum += op.collective->time_s * op.multiplier;
  }
  return sum;
}

// 1 us (both devices' per-op overhead) for every execution of every op that does work.
double overhead(const Prediction& p) {
  double runs = 0;
  for (const OpPrediction& op : p.ops) runs += op.time_s > 0 ? op.multiplier : 0;
  return 1e-6 * runs;
}

TEST_CASE("the v5e FSDP train step: between its roofline floor and twice it") {
  const std::string text = read_example("tpu_v5e_train_step.hlo");
  auto p = testing::predict(text, "tpu_v5e:2x2");
  // examples/README.md: 336 U = 11,544,872,091,648 matmul FLOPs, 11,593,180,221,489 in all.
  CHECK(p->matrix_flops == 11544872091648.0);
  CHECK(p->flops == Approx(11593180221489.0).epsilon(1e-9));
  // Floors: the MXU at 1.97e14 needs 11.545e12 / 1.97e14 = 58.6 ms; HBM needs the step's
  // bytes (the cost layer's count, 94.8e9 B: the f32 attention scores [8,8,2048,2048] and
  // logits [16384,32768] are written and read several times per layer) at 8.19e11 B/s =
  // 115.7 ms. So the step is memory bound: the HBM floor alone is nearly twice the compute
  // floor, and a window of "the compute floor to twice it" could not hold the step.
  absl::StatusOr<ModuleCost> cost = analyze_cost(p.module);
  REQUIRE(cost.ok());
  const double compute_floor = 11544872091648.0 / 1.97e14;
  const double memory_floor = cost->totals.hbm_bytes() / 8.19e11;
  CHECK(compute_floor == Approx(58.6e-3).epsilon(0.001));
  CHECK(memory_floor > 1.9 * compute_floor);
  // The step can be no faster than the slower floor (SB-roof: max(T_math, T_comms) <= T) and
  // no slower than both floors added, plus every collective exposed and 1 us per op run.
  const double ceiling =
      compute_floor + memory_floor + collective_time(p.prediction) + overhead(p.prediction);
  CHECK(p->step_time_s >= std::max(compute_floor, memory_floor));
  CHECK(p->step_time_s <= ceiling);
  // "This train step stays under 2x its memory floor (231 ms) on tpu_v5e:2x2."
  CHECK(p->step_time_s < 2 * memory_floor);
  CHECK(p->breakdown.memory_s > p->breakdown.compute_s);
  CHECK(p->mfu == Approx(p->flops / (p->step_time_s * 1.97e14)));
  CHECK(p->mfu < compute_floor / memory_floor + 1e-3);
  // FSDP's weight all-gathers hide behind the layers' matmuls: none of their time is exposed.
  int gathers = 0;
  for (const OpPrediction& op : p->ops) {
    if (op.collective && op.collective->kind == "all-gather" && op.computation != "main.100") {
      ++gathers;
      CHECK(op.collective->exposed_s == 0);
    }
  }
  CHECK(gathers == 8);
  CHECK(p->breakdown.collective_hidden_s > 0);
  CHECK(p->unknown_ops.empty());
  CHECK(!p->is_lower_bound);
  // The topology was given: the only assumptions are about the network and device figures.
  CHECK(!p.assumes("inferred"));
}

TEST_CASE("the 8xH100 MLP step: GEMMs plus the exposed gradient all-reduce") {
  const std::string text = read_example("h100_gemm_step.hlo");
  auto p = testing::predict(text, "h100");
  // examples/README.md: five GEMMs of 2^40 FLOPs = 5.4976e12 at 9.89e14 = 5.559 ms.
  const double gemms = 5 * 1099511627776.0 / 9.89e14;
  CHECK(p->matrix_flops == 5 * 1099511627776.0);
  CHECK(p->flops == Approx(5502524194817.0).epsilon(1e-9));
  // The all-reduce-done follows its start directly, so the all-reduce of both f32 weight
  // gradients and the loss (V = 2 x 4096 x 16384 x 4 + 4 = 536,870,916 B) is all exposed:
  // 2 V 7 / (8 x 4.5e11) + 5 us = 2.093 ms.
  const OpPrediction& start = p.op("all-reduce-start");
  REQUIRE(start.collective.has_value());
  CHECK(start.collective->payload_bytes == 536870916);
  const double all_reduce = 2 * 536870916.0 * 7 / (8 * 4.5e11) + 5e-6;
  CHECK(start.collective->time_s == Approx(all_reduce));
  CHECK(start.collective->exposed_s == Approx(all_reduce));
  // Floor: GEMMs and the all-reduce; ceiling: plus all HBM traffic and 1 us per kernel.
  absl::StatusOr<ModuleCost> cost = analyze_cost(p.module);
  REQUIRE(cost.ok());
  const double floor = gemms + all_reduce;
  const double ceiling = floor + cost->totals.hbm_bytes() / 3.35e12 + overhead(p.prediction);
  CHECK(p->step_time_s >= floor);
  CHECK(p->step_time_s <= ceiling);
  // "This step stays under 10 ms on one 8xH100 node."
  CHECK(p->step_time_s < 10e-3);
  CHECK(p->topology == "1x8");
  CHECK(p.assumes("topology 1x8"));
}

}  // namespace
}  // namespace hloroof
