// diff: what changed between two versions of a program on one device, op by op and per step.
//
//   absl::StatusOr<hloroof::Prediction> before = hloroof::predict_step_time(a, "h100");
//   absl::StatusOr<hloroof::Prediction> after = hloroof::predict_step_time(b, "h100");
//   hloroof::PredictionDiff d = hloroof::diff_predictions(*before, *after);
//   d.after.step_time_s - d.before.step_time_s;  // what the change bought (negative: faster)
//   d.ops.front();                               // the op whose time changed most
//
// Ops are matched by computation and instruction name; those left over, by computation,
// opcode and metadata op_name, in order (a pass that renames `fusion.3` to `fusion.7` keeps
// the op_name JAX gave it). What matches nothing was added or removed.
#ifndef HLOROOF_DIFF_H_
#define HLOROOF_DIFF_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hloroof/predict.h"

namespace hloroof {

// One side of the diff: the step's figures.
struct DiffSide {
  std::string device;               // the device and slice it was predicted on ("tpu_v5e:2x2")
  double step_time_s = 0;           // expected
  double roofline_step_time_s = 0;  // at the roofline
  double flops = 0;                 // per step, one device
  double hbm_bytes = 0;             // per step, one device
  int64_t op_count = 0;
  std::optional<int64_t> peak_bytes;  // device-memory peak, when the caller gave it
  // What the prediction of this side says beside its figures (Prediction::diagnostics): what
  // to know first (a module of another platform, a guessed device) and the assumptions.
  std::vector<std::string> warnings;
  std::vector<std::string> assumptions;
};

enum class OpChange { kChanged, kUnchanged, kAdded, kRemoved };
std::string_view op_change_name(OpChange change);  // "changed", "unchanged", "added", ...

// One op in either version, with its per-step figures on each side (0 on the side it is
// absent from).
struct OpDelta {
  std::string name;         // the name after the change; the name before for a removed op
  std::string before_name;  // the name before, when it differs (a renamed op), else empty
  std::string computation;
  std::string opcode;
  OpChange change = OpChange::kChanged;
  double before_time_s = 0;  // time x executions per step, expected
  double after_time_s = 0;
  double before_flops = 0;  // per step
  double after_flops = 0;
  double before_hbm_bytes = 0;  // per step
  double after_hbm_bytes = 0;

  double delta_time_s() const { return after_time_s - before_time_s; }
};

struct PredictionDiff {
  // The device both were predicted on, e.g. "h100:1x8"; "BEFORE -> AFTER" when the sides were
  // predicted on two (two slices: modules of two device counts, each slice inferred).
  std::string device;
  DiffSide before;
  DiffSide after;
  // Every op of either version, the largest change of time first (ties: by name).
  std::vector<OpDelta> ops;
  int64_t changed = 0;    // matched, some figure differs
  int64_t unchanged = 0;  // matched, same time, FLOPs and bytes
  int64_t added = 0;
  int64_t removed = 0;
  int64_t renamed = 0;  // matched by opcode and op_name, not by name
};

// The diff of two predictions of one device. `before_peak_bytes`/`after_peak_bytes` (e.g.
// MemoryReport::peak_bytes) are carried into the sides when given.
PredictionDiff diff_predictions(const Prediction& before, const Prediction& after,
                                std::optional<int64_t> before_peak_bytes = std::nullopt,
                                std::optional<int64_t> after_peak_bytes = std::nullopt);

// The diff as text (the warnings, a header of step figures, the `top` ops whose time changed
// most, then the assumptions; what both sides say is said once; fits 100 columns) and as JSON
// (every op; the keys of docs/reports.md, "diff").
std::string render_diff(const PredictionDiff& diff, size_t top = 10);
std::string diff_to_json(const PredictionDiff& diff);
// The same text written to `out` as it is produced (the ops one at a time).
void write_diff_json(const PredictionDiff& diff, std::ostream& out);
// Both predicted timelines in one Perfetto trace (Chrome trace-event JSON), each from 0: the
// tracks of `before` named "before: TRACK", then those of `after` "after: TRACK". Each op's
// slice carries `side`, `change` (op_change_name) and `delta_time_s` (after - before, per
// step) from `diff`, which must be diff_predictions(before, after).
std::string diff_to_trace_json(const PredictionDiff& diff, const Prediction& before,
                               const Prediction& after);

}  // namespace hloroof

#endif  // HLOROOF_DIFF_H_
