// How every report tells how long an op's work runs and which ops it keeps, so that the text
// report, the trace and the comparison agree (what bounds an op: op_bound_name, resource_name).
#ifndef HLOROOF_LIB_REPORT_OP_TERMS_H_
#define HLOROOF_LIB_REPORT_OP_TERMS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "hloroof/predict.h"
#include "re2/re2.h"

namespace hloroof::report_internal {

inline bool is_async_start(const OpPrediction& op) {
  return op.async && op.async->start == op.name();
}

// How long the op's work runs per step, on the step's critical path (total_time_s) or hidden
// behind it: an async start's stream work overlaps other ops, and its done's wait holds the
// rest, so a pair adds up to its latency.
inline double run_time(const OpPrediction& op) {
  return op.total_time_s() + (is_async_start(op) ? op.async->hidden_s * op.multiplier : 0);
}

// Ops whose time is network time or a wait: the FLOP/byte roofline does not describe them.
inline bool off_roofline(const OpPrediction& op) {
  return op.bound == BoundBy::kCollective || op.collective || op.async;
}

// The ops a report keeps: an RE2 pattern partly matching the op's name, opcode or op_name.
class OpFilter {
 public:
  // An empty pattern keeps every op. Errors: a pattern RE2 cannot compile.
  static absl::StatusOr<OpFilter> compile(const std::string& pattern);
  bool keeps(const OpPrediction& op) const;

 private:
  std::shared_ptr<const RE2> re_;  // null: keep all
};

}  // namespace hloroof::report_internal

#endif  // HLOROOF_LIB_REPORT_OP_TERMS_H_
