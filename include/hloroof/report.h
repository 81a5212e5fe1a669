// Renderings of a Prediction: one JSON object for programs, a short text summary for people,
// and a Chrome / Perfetto trace of the predicted timeline.
//
//   absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(text, "tpu_v5e:2x2");
//   std::cout << hloroof::prediction_summary(*p, {.top_ops = 10});
//   std::string json = hloroof::prediction_to_json(*p);
#ifndef HLOROOF_REPORT_H_
#define HLOROOF_REPORT_H_

#include <cstddef>
#include <string>

#include "hloroof/predict.h"

namespace hloroof {

// {"device", "topology", "step_time_s", "breakdown": {...}, "flops", "hbm_bytes", "mfu",
//  "peak_flop_rate", "peak_flop_rate_type", "lower_bound", "unknown_ops", "assumptions",
//  "ops": [{"name", "opcode", "computation", "category", "op_name", "multiplier", "time_s",
//           "total_time_s", "bound", "flops", ..., "collective": {...} | null,
//           "async": {...} | null, "explanation"}]}.
// Times in seconds, sizes in bytes, rates per second. The timeline is left out (see
// prediction_to_trace_json).
std::string prediction_to_json(const Prediction& prediction);

struct SummaryOptions {
  size_t top_ops = 10;  // rows of the op and collective tables; 0 leaves them out
};

// Device, topology, step time, its breakdown, MFU, unknown ops, assumptions, the collectives
// and the most expensive ops, every number with its unit.
std::string prediction_summary(const Prediction& prediction, const SummaryOptions& options = {});

// The predicted timeline as Chrome trace-event JSON (Perfetto, chrome://tracing): a compute
// track and one track per async stream.
std::string prediction_to_trace_json(const Prediction& prediction);

}  // namespace hloroof

#endif  // HLOROOF_REPORT_H_
