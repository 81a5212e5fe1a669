// Views of a predicted step: JSON for programs, and for people the views XProf gives of a
// profiled one (Overview, HLO Op Stats, Trace Viewer, Roofline Model), so that a prediction can
// sit next to a real profile.
//
//   absl::StatusOr<Prediction> p = predict_step_time(module, "tpu_v5e");
//   std::string json = prediction_to_json(*p);
//   std::cout << *render_text_report(*p, spec, {.by = OpGrouping::kCategory});
//   write_file("step.trace.json", prediction_to_trace_json(*p));  // Perfetto, chrome://tracing
//   write_file("roofline.svg", render_roofline_svg(roofline_chart(*p, spec)));
//   std::cout << render_comparison({*on_v5e, *on_h100});
//
// Times are per step on one device, as the Prediction gives them.
#ifndef HLOROOF_REPORT_H_
#define HLOROOF_REPORT_H_

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/device.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/roofline_chart.h"

namespace hloroof {

// {"device", "topology", "warnings", "step_time_s", "breakdown": {...}, "flops", "hbm_bytes",
//  "hfu", "model_flops", "devices", "mfu" (null without model FLOPs), "peak_flop_rate",
//  "peak_flop_rate_type", "lower_bound", "unknown_ops", "assumptions",
//  "ops": [{"name", "opcode", "computation", "category", "op_name", "multiplier", "time_s",
//           "total_time_s", "bound", "flops", ..., "collective": {...} | null,
//           "async": {...} | null, "explanation"}]}.
// Times in seconds, sizes in bytes, rates per second. The timeline is left out (see
// prediction_to_trace_json).
std::string prediction_to_json(const Prediction& prediction);
// The same text written into `out` as it is produced (the ops one at a time), without holding
// the whole document; with `threads` > 1, the ops are made in pieces by that many threads at
// once (the caller's among them), each piece written in its turn (the same text).
void write_prediction_json(const Prediction& prediction, std::ostream& out, int threads = 1);

struct SummaryOptions {
  size_t top_ops = 10;  // rows of the op and collective tables; 0 leaves them out
};

// Device, topology, step time, its breakdown, HFU (and MFU with model FLOPs), unknown ops,
// assumptions, the collectives and the most expensive ops, every number with its unit.
// render_text_report is the full report.
std::string prediction_summary(const Prediction& prediction, const SummaryOptions& options = {});

// What one row of the op stats stands for.
enum class OpGrouping {
  kOp,        // one HLO instruction
  kCategory,  // every op of an XProf category ("loop fusion", "all-gather", ...)
  kScope,     // every op under a framework scope: the metadata op_name without its last part
};

struct OpStatsOptions {
  OpGrouping by = OpGrouping::kOp;
  size_t top = 20;     // rows kept; 0 keeps all
  std::string filter;  // RE2 pattern; keeps ops whose name, opcode or op_name it matches
  // kScope: the op_name components kept, e.g. 2 turns "jit(f)/layer_3/attention/dot" into
  // "jit(f)/layer_3". 0 keeps all but the last (the primitive), as the trace viewer nests them.
  int scope_depth = 0;
};

// One row of the op stats: an op or a group of ops. Sums are per step (time x occurrences).
struct OpStatsRow {
  int rank = 0;
  std::string name;      // op name, category or scope
  std::string category;  // the op's category; for a group, the category with the most time
  std::string op_name;   // kOp: the framework op name (metadata op_name)
  int ops = 0;           // HLO instructions in the row
  double occurrences = 0;
  // How long the ops' work runs, on the step's critical path or hidden behind it (an async
  // start's stream work that overlaps other ops; its done's wait holds the rest).
  double total_time_s = 0;
  double avg_time_s = 0;  // total / occurrences
  // The part of the step the row accounts for: its ops' critical-path time. Rows are ranked by
  // it; over every op it sums to the step time.
  double step_time_s = 0;
  double step_share = 0;        // step_time_s / step time
  double cumulative_share = 0;  // of this row and every row ranked above it
  double flops = 0;
  double hbm_bytes = 0;
  double flop_rate = 0;      // flops / total time
  double hbm_bandwidth = 0;  // HBM bytes / total time
  double intensity = 0;      // FLOP per HBM byte; 0 without HBM traffic
  std::string bound;         // "compute", "memory", "collective", "overhead": most of its time
  // The roofline's time for its work on the device's peaks, max(matrix FLOPs / matrix peak,
  // other FLOPs / vector rate, HBM bytes / HBM bandwidth), over its time (XProf's roofline
  // efficiency; below 100% where the per-op overhead, an efficiency factor or a
  // transcendental or on-chip term slows it). Absent for collectives, async ops (their time
  // is network time or a wait) and ops without time.
  std::optional<double> roofline_efficiency;
};

struct OpStats {
  std::vector<OpStatsRow> rows;  // ranked by step_time_s, largest first, at most `top`
  size_t matched = 0;            // rows before `top` was applied
  size_t total_ops = 0;          // ops in the prediction
  std::string filter;
  OpGrouping by = OpGrouping::kOp;
  // The roofline the efficiencies are measured against.
  double peak_flop_rate = 0;        // matrix FLOPs
  std::string peak_flop_rate_type;  // "bf16"
  double vector_flop_rate = 0;      // other FLOPs
  double hbm_bandwidth = 0;
};

// The op stats of `prediction`; roofline efficiency is measured against the prediction's
// matrix peak and `device`'s vector rate and HBM bandwidth. Errors: a filter RE2 cannot compile.
absl::StatusOr<OpStats> op_stats(const Prediction& prediction, const DeviceSpec& device,
                                 const OpStatsOptions& options = {});

// The name of a grouping as `hloroof predict --by` takes it: "op", "category", "scope".
std::string_view op_grouping_name(OpGrouping by);

// The step at a glance: device and topology, step time and its breakdown, HFU and MFU, the share of
// peak FLOP/s and HBM bandwidth used, unknown ops and assumptions.
std::string render_overview(const Prediction& prediction, const DeviceSpec& device);

// Two aligned tables sharing their rank column: HLO op stats (time) and roofline (rates).
// Fits 100 columns.
std::string render_op_stats(const OpStats& stats);

// The collectives among the ops `options` keep (filter, top; grouping aside), ranked by the time
// they account for: kind, group size, payload, and per execution their time, the part the step
// waits for and the part hidden behind other work. Empty when there are none.
absl::StatusOr<std::string> render_collectives(const Prediction& prediction,
                                               const OpStatsOptions& options = {});

// The overview, the op stats, then the collectives.
absl::StatusOr<std::string> render_text_report(const Prediction& prediction,
                                               const DeviceSpec& device,
                                               const OpStatsOptions& options = {});

// The predicted timeline as Chrome trace-event JSON: a Steps track, the compute stream and one
// track per async stream; slices named like the HLO ops with their cost record in `args`, while
// loops and their iterations as enclosing slices; counter tracks of cumulative FLOPs and HBM
// bytes.
// With `memory` (analyze_memory of the same module), the trace also gets a counter track of
// the live device-memory (HBM) bytes, sampled as each entry instruction starts.
std::string prediction_to_trace_json(const Prediction& prediction,
                                     const MemoryReport* memory = nullptr);
// The same text written to `out` as it is produced: a trace holds several times the bytes of
// its module, and only about 64 KiB of it is held in memory at a time. With `threads` > 1,
// that many threads make it at once, each a piece of about 256 KiB in turn, written in order
// (the same text). The caller checks `out`.
void write_prediction_trace_json(std::ostream& out, const Prediction& prediction,
                                 const MemoryReport* memory = nullptr, int threads = 1);

struct RooflineViewOptions {
  bool by_category = false;  // one point per category instead of one per op
  int labelled_points = 8;   // the largest points get a label
  size_t max_points = 1000;  // the ops with the most time, as XProf's op-level chart
};

// The roofline chart of a prediction: the device's compute roofs (one per distinct matrix peak,
// plus the vector rate), its HBM slope, and a point per op or category at its arithmetic
// intensity and predicted FLOP rate, sized by share of step time.
RooflineChart roofline_chart(const Prediction& prediction, const DeviceSpec& device,
                             const RooflineViewOptions& options = {});

// Predictions of one module on several devices side by side: step time (marked `*` where it is
// a lower bound: ops it could not cost), breakdown, HFU and MFU with the ratio to the first
// device, and, where `memory` holds a capacity check per device, whether the module fits (its
// peak as a share of HBM); then
// each device's top ops and what bounds them, and a footer of each device's warnings and first
// assumptions.
std::string render_comparison(absl::Span<const Prediction> predictions, size_t top = 5,
                              absl::Span<const std::optional<CapacityCheck>> memory = {});

}  // namespace hloroof

#endif  // HLOROOF_REPORT_H_
