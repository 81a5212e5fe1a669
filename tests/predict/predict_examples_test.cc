// Tests that read like a user's: the example steps of examples/README.md predicted on the
// devices they were written for, checked against floors derived by hand.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "examples.h"
#include "hloroof/cost.h"
#include "predict_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::read_example;

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
  // examples/README.md: 336 U = 11,544,872,091,648 matmul FLOPs, 11,593,180,221,492 in all
  // (conditions counted trip count + 1 times).
  CHECK(p->matrix_flops == 11544872091648.0);
  CHECK(p->flops == 11593180221492.0);
  // Floors: the MXU at 1.97e14 needs 11.545e12 / 1.97e14 = 58.6 ms; HBM needs the step's
  // bytes (the cost layer's count, 94.8e9 B: the f32 attention scores [8,8,2048,2048] and
  // logits [16384,32768] are written and read several times per layer) at 8.19e11 B/s =
  // 115.7 ms. So the step is memory bound: the HBM floor alone is nearly twice the compute
  // floor, and a window of "the compute floor to twice it" could not hold the step.
  absl::StatusOr<ModuleCost> cost = analyze_cost(p.module);
  REQUIRE_OK(cost);
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
  CHECK(p->hfu == Approx(p->flops / (p->step_time_s * 1.97e14)));
  CHECK(p->hfu < compute_floor / memory_floor + 1e-3);
  // FSDP's weight all-gathers hide behind the layers' matmuls: none of their time is exposed.
  int gathers = 0;
  for (const OpPrediction& op : p->ops) {
    if (op.collective && op.collective->kind == "all-gather" && op.computation() != "main.100") {
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
  // The roofline, as examples/README.md works it out.
  auto p = testing::predict(text, "h100", testing::roofline_only());
  // examples/README.md: five GEMMs of 2^40 FLOPs = 5.4976e12 at 9.89e14 = 5.559 ms.
  const double gemms = 5 * 1099511627776.0 / 9.89e14;
  CHECK(p->matrix_flops == 5 * 1099511627776.0);
  CHECK(p->flops == Approx(5502524194817.0).epsilon(1e-9));
  // The all-reduce-done follows its start directly, so the all-reduce of both f32 weight
  // gradients and the loss (V = 2 x 4096 x 16384 x 4 + 4 = 536,870,916 B) is all exposed:
  // 2 V 7 / (8 x 4.5e11) + 2 us = 2.0878 + 0.002 = 2.090 ms.
  const OpPrediction& start = p.op("all-reduce-start");
  REQUIRE(start.collective.has_value());
  CHECK(start.collective->payload_bytes == 536870916);
  const double all_reduce = 2 * 536870916.0 * 7 / (8 * 4.5e11) + 2e-6;
  CHECK(start.collective->time_s == Approx(all_reduce));
  CHECK(start.collective->exposed_s == Approx(all_reduce));
  // Floor: GEMMs and the all-reduce; ceiling: plus all HBM traffic and 1 us per kernel.
  absl::StatusOr<ModuleCost> cost = analyze_cost(p.module);
  REQUIRE_OK(cost);
  const double floor = gemms + all_reduce;
  const double ceiling = floor + cost->totals.hbm_bytes() / 3.35e12 + overhead(p.prediction);
  CHECK(p->step_time_s >= floor);
  CHECK(p->step_time_s <= ceiling);
  // "This step stays under 10 ms on one 8xH100 node."
  CHECK(p->step_time_s < 10e-3);
  CHECK(p->topology == "1x8");
  CHECK(p.assumes("topology 1x8"));

  // Expected: the GEMMs at what the measured H100 table gives an 8192 x 16384 x 4096 bf16
  // GEMM (about 80% of peak: the table's large bf16 GEMMs reach 0.78-0.81), times 0.81 in this
  // program of 8 partitions (h100's sharded_compute_share), the all-reduce at the fitted 8-GPU
  // all-reduce. Slower than the roofline, but not by more than the GEMMs' efficiency and the
  // measured all-reduce bus bandwidth allow.
  auto e = testing::predict(text, "h100");
  absl::StatusOr<DeviceSpec> h100 = device("h100");
  REQUIRE_OK(h100);
  DeviceSpec alone = *h100;
  alone.sharded_compute_share.reset();
  auto table = testing::predict(text, alone);
  CHECK(e->roofline_step_time_s == Approx(p->step_time_s));
  CHECK(e->step_time_s > p->step_time_s);
  CHECK(e->step_time_s < p->step_time_s / (0.7 * 0.81));
  CHECK(table->step_time_s < p->step_time_s / 0.7);
  // m = 8192 and n = 16384 lie above the table's box (256-4096 a side): extrapolated.
  for (const char* gemm : {"custom-call.1", "custom-call.2", "custom-call.3", "custom-call.4"}) {
    CHECK(e.op(gemm).model() == "gemm table h100 (measured, extrapolated)");
    CHECK(table.op(gemm).efficiency > 0.7);
    CHECK(table.op(gemm).efficiency < 0.95);
    CHECK(e.op(gemm).efficiency == Approx(0.81 * table.op(gemm).efficiency).epsilon(1e-3));
  }
  // The all-reduce: 2 x 536.9 MB x 7/8 = 939.5 MB of bus traffic; the table's 8-GPU
  // all-reduces move at most ~402 GB/s of bus bandwidth (2 GiB in 9.34 ms), so at least
  // 939.5 MB / 402 GB/s = 2.34 ms, against 2.090 ms at the roofline.
  const OpPrediction& reduce = e.op("all-reduce-start");
  CHECK(reduce.model() == "collective fit h100 (measured, fitted)");
  CHECK(reduce.collective->time_s > 2.3e-3);
  CHECK(reduce.collective->time_s < 2.090e-3 / 0.8);
}

// Nothing lost: the roofline of every op is what the prediction gave before it had an
// expected time. The figures were recorded with `hloroof predict FILE --device D --json`
// built from the commit before the expected time was added (d7a0fb9); each follows from the
// formulas checked above (e.g. a GEMM: 2^40 FLOP / 9.89e14 FLOP/s + 1 us = 1.11274 ms). Since then
// the h100 collective latency went from XLA's 5 us to 2 us (its shortest measured collective):
// the all-reduce and the step are 3 us shorter (2.09283134 - 0.003 = 2.08983134 ms; 8.886517522
// - 0.003 = 8.883517522 ms). And a fusion's parameter that only a gather reads is read as the
// gathered rows, not whole: the v5e embedding lookup gather_fusion.1 moves 67,174,400 bytes,
// not 100,728,832, and its roofline is 83.02 us, not 123.99 (0.1461012968834525 - 0.00012399003
// + 0.00008302002 = 0.1460603268810105 s).
//
// Those figures were each op's largest term plus the 1 us overhead. The roofline is now the
// floor: the larger of the largest term and the launch floor (1 us on v5e; the 0.9 us on the
// H100 is below every h100 op's term here), and on the H100 up to L2's 5e7 B of an op's reads
// at L2's 6.5e12 B/s beside the rest at HBM's 3.35e12 B/s. Every h100 op below reads more
// than 5e7 B and is HBM bound, so its floor is (old - 1 us) - 5e7 / 3.35e12 (14.93 us); a GEMM's
// is old - 1 us; the collective's is unchanged. The step: 13 ops lose 1 us, 8 of them 14.93 us
// more: 8.883517522 - 0.013 - 0.119402985 = 8.751114537 ms.
TEST_CASE("roofline times are the predictions from before the expected time") {
  auto h100 = testing::predict(read_example("h100_gemm_step.hlo"), "h100");
  const double l2 = 5e7 / 3.35e12;
  CHECK(h100->roofline_step_time_s ==
        Approx(0.008883517522472872 - 13e-6 - 8 * l2).epsilon(1e-12));
  const std::vector<std::pair<std::string, double>> h100_ops = {
      {"all-reduce-done", 0.00208983134},
      {"custom-call.1", 0.00111274077631547},
      {"triton_gemm_dot.1", 0.00111274077631547},
      {"custom-call.2", 0.00111274077631547},
      {"custom-call.3", 0.00111274077631547},
      {"custom-call.4", 0.00111274077631547},
      {"loop_multiply_fusion", 0.0002413899605970149},
      {"loop_subtract_fusion.1", 0.0002413899605970149},
      {"loop_subtract_fusion.2", 0.0002413899605970149},
      {"loop_gelu_fusion", 0.00016125997373134327},
      {"wrapped_convert", 0.00012119498029850745},
      {"wrapped_convert.1", 0.00012119498029850745},
      {"loop_subtract_fusion", 6.109749014925373e-05},
      {"input_reduce_fusion", 4.106499462686567e-05},
      {"all-reduce-start", 0.0}};
  CHECK(h100->ops.size() == h100_ops.size());
  for (const auto& [name, seconds] : h100_ops) {
    INFO(name);
    const bool gemm = absl::StrContains(name, "custom-call") || absl::StrContains(name, "gemm");
    const bool collective = absl::StrContains(name, "all-reduce");
    const double floor = collective ? seconds : gemm ? seconds - 1e-6 : seconds - 1e-6 - l2;
    CHECK(h100.op(name).roofline_time_s == Approx(floor).epsilon(1e-12));
  }

  auto v5e = testing::predict(read_example("tpu_v5e_train_step.hlo"), "tpu_v5e:2x2");
  // v5e: of the 304 op runs the step's ops make (loops counted), 251 have a term past the 1 us
  // launch and lose 1 us, 53 keep 1 us and lose their terms (0.66 us together): 251.66 us; the
  // clock hides 5.2 us of that under the async collectives, whose waits grow by as much:
  // 0.14606033 - 0.00024646 = 0.14581389 s.
  CHECK(v5e->roofline_step_time_s == Approx(0.1458138893).epsilon(1e-9));
  CHECK(v5e->ops.size() == 136);
  CHECK(v5e.op("dot_add_fusion.1").roofline_time_s ==
        Approx(0.0052758884395604395 - 1e-6).epsilon(1e-12));
  CHECK(v5e.op("exponential_reduce_fusion.1").roofline_time_s ==
        Approx(0.00196884042979243 - 1e-6).epsilon(1e-12));
  // The expected time borrows the TPU7x measurements (docs/prediction-model.md, "Measured
  // models (TPUs)"): above the roofline op by op, and a model named for every op that works.
  CHECK(v5e->step_time_s > v5e->roofline_step_time_s);
  for (const OpPrediction& op : v5e->ops) {
    INFO(op.name());
    CHECK(op.time_s >= op.roofline_time_s);
    CHECK(op.model() != "roofline (no measured model for TPUs)");
  }
}

}  // namespace
}  // namespace hloroof
