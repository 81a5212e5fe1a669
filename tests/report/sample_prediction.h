// A hand-made prediction of a small train step on tpu_v5e (bf16 peak P = 1.97e14 FLOP/s, HBM
// W = 8.19e11 B/s, data/hardware/tpu_v5e.json), with numbers chosen so that every figure of the
// reports can be derived by hand. Test-only.
//
//   op                  category            x   one run  FLOPs      HBM bytes  bound
//   fusion.embed        input fusion        1   1.5 ms   0          1.2285e9   HBM (W: 1.5 ms)
//   all-gather-start.1  all-gather          1   0        0          0          its 2 ms on a
//                                                                              stream, 1.5 hidden
//   all-gather-done.1   all-gather          1   0.5 ms   0          0          the wait
//   convolution.1       convolution fusion  4   1 ms     1.97e11    4.095e8    matrix (P: 1 ms)
//   fusion.add          loop fusion         4   1.25 ms  1e8        8.19e8     HBM (W: 1 ms)
//   fusion.tanh         loop fusion         4   0.25 ms  4.1e8      2.0475e8   HBM (W: 0.25 ms)
//   copy.3              data formatting     1   2 us     0          8.19e5     overhead (W: 1 us)
//
// Step: 4 (compute) + 1.5 + 5 + 1 (memory) + 0.5 (exposed) + 0.002 (overhead) = 12.002 ms.
#ifndef HLOROOF_TESTS_REPORT_SAMPLE_PREDICTION_H_
#define HLOROOF_TESTS_REPORT_SAMPLE_PREDICTION_H_

#include <memory>
#include <string>

#include "hloroof/predict.h"

namespace hloroof::testing {

// An op whose texts are saved in `texts`, which it holds (as predict_step_time's records do).
// The record with one of its texts replaced (its texts then in a pool of their own).
inline void set_text(OpPrediction& op, std::string_view OpTexts::*field, std::string_view text) {
  OpTexts texts = op.all_texts();
  texts.*field = text;
  op.set_texts(std::make_shared<TextPool>(), texts);
}

inline OpPrediction sample_op(const std::shared_ptr<TextPool>& texts, const std::string& name,
                              const std::string& category, const std::string& op_name,
                              double multiplier, double time_s, double flops, double hbm_bytes,
                              BoundBy bound, Bound resource) {
  OpPrediction op;
  op.set_texts(texts, {.name = name,
                       .opcode = std::string_view(name).substr(0, name.find('.')),
                       .computation = "main",
                       .category = category,
                       .op_name = op_name});
  op.multiplier = multiplier;
  op.time_s = time_s;
  op.flops = flops;
  op.hbm_bytes = hbm_bytes;
  op.bound = bound;
  op.resource = resource;
  return op;
}

inline Prediction sample_prediction() {
  Prediction p;
  p.device = "tpu_v5e";
  p.topology = "2x2";
  p.step_time_s = 12.002e-3;
  p.breakdown = {.compute_s = 4e-3,
                 .memory_s = 7.5e-3,
                 .collective_exposed_s = 0.5e-3,
                 .collective_hidden_s = 1.5e-3,
                 .overhead_s = 2e-6};
  p.flops = 4 * (1.97e11 + 1e8 + 4.1e8);  // 7.9004e11
  p.matrix_flops = 4 * 1.97e11;
  p.hbm_bytes = 1.2285e9 + 4 * (4.095e8 + 8.19e8 + 2.0475e8) + 8.19e5;  // 6.962319e9
  p.peak_flop_rate = 1.97e14;
  p.peak_flop_rate_type = "bf16";
  p.hfu = p.flops / (p.step_time_s * p.peak_flop_rate);

  const std::string layer = "jit(train_step)/layer_0/";
  const auto texts = std::make_shared<TextPool>();
  const AsyncPrediction pair = {.stream = "async all-gather",
                                .start = "all-gather-start.1",
                                .done = "all-gather-done.1",
                                .latency_s = 2e-3,
                                .hidden_s = 1.5e-3,
                                .exposed_s = 0.5e-3};
  OpPrediction start =
      sample_op(texts, "all-gather-start.1", "all-gather", layer + "attention/all_gather", 1, 0,
                0, 0, BoundBy::kCollective, Bound::kOverhead);
  set_text(start, &OpTexts::opcode, "all-gather-start");
  start.collective = CollectivePrediction{.kind = "all-gather",
                                          .payload_bytes = 3.2e7,
                                          .group_size = 4,
                                          .formula = "line: V (N-1) / (N W)",
                                          .time_s = 2e-3,
                                          .exposed_s = 0.5e-3,
                                          .hidden_s = 1.5e-3,
                                          .is_async = true};
  start.async = pair;
  OpPrediction done =
      sample_op(texts, "all-gather-done.1", "all-gather", layer + "attention/all_gather", 1,
                0.5e-3, 0, 0, BoundBy::kCollective, Bound::kOverhead);
  set_text(done, &OpTexts::opcode, "all-gather-done");
  done.async = pair;
  OpPrediction conv =
      sample_op(texts, "convolution.1", "convolution fusion", layer + "attention/dot_general", 4,
                1e-3, 1.97e11, 4.095e8, BoundBy::kCompute, Bound::kMatrix);
  conv.matrix_flops = conv.flops;
  set_text(conv, &OpTexts::explanation,
           "max(matrix 1.97e11 FLOP / 1.97e14 FLOP/s, HBM 4.095e8 B / 8.19e11 B/s)");
  // Sorted by total time, as predict_step_time sorts them.
  p.ops = {sample_op(texts, "fusion.add", "loop fusion", layer + "mlp/add", 4, 1.25e-3, 1e8,
                     8.19e8, BoundBy::kMemory, Bound::kHbm),
           conv,
           sample_op(texts, "fusion.embed", "input fusion", "jit(train_step)/embed/gather", 1,
                     1.5e-3, 0, 1.2285e9, BoundBy::kMemory, Bound::kHbm),
           sample_op(texts, "fusion.tanh", "loop fusion", layer + "mlp/tanh", 4, 0.25e-3, 4.1e8,
                     2.0475e8, BoundBy::kMemory, Bound::kHbm),
           done,
           sample_op(texts, "copy.3", "data formatting", "", 1, 2e-6, 0, 8.19e5,
                     BoundBy::kOverhead, Bound::kOverhead),
           start};

  // Timeline: the all-gather runs on its stream from 0 to 2 ms, behind fusion.embed (1.5 ms);
  // its done waits the other 0.5 ms. The while loop then runs 4 iterations of convolution
  // (1 ms), fusion.add (1.25 ms) and fusion.tanh (0.25 ms): 2.5 ms each, from 2 ms to 12 ms;
  // then copy.3 (2 us).
  p.timeline = {{"all-gather-start.1", "async all-gather", 0, 2e-3, 0, nullptr},
                {"fusion.embed", "compute", 0, 1.5e-3, 0, nullptr},
                {"all-gather-done.1", "compute", 1.5e-3, 0.5e-3, 0, nullptr},
                {"while.1", "compute", 2e-3, 10e-3, 0, nullptr}};
  double t = 2e-3;
  for (int i = 0; i < 4; ++i) {
    p.timeline.push_back(
        {"while.1 iteration " + std::to_string(i + 1), "compute", t, 2.5e-3, 1, nullptr});
    p.timeline.push_back({"convolution.1", "compute", t, 1e-3, 2, nullptr});
    p.timeline.push_back({"fusion.add", "compute", t + 1e-3, 1.25e-3, 2, nullptr});
    p.timeline.push_back({"fusion.tanh", "compute", t + 2.25e-3, 0.25e-3, 2, nullptr});
    t += 2.5e-3;
  }
  p.timeline.push_back({"copy.3", "compute", 12e-3, 2e-6, 0, nullptr});

  p.unknown_ops = {"custom-call.9"};
  p.diagnostics.notes = {"topology 2x2 inferred from num_partitions=4"};
  p.is_lower_bound = true;
  return p;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_REPORT_SAMPLE_PREDICTION_H_
