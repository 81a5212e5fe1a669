// How every report names what bounds an op and counts its part of the step, so that the text
// report, the trace and the comparison agree.
#ifndef HLOROOF_LIB_REPORT_OP_TERMS_H_
#define HLOROOF_LIB_REPORT_OP_TERMS_H_

#include <string>

#include "hloroof/predict.h"

namespace hloroof::report_internal {

// XProf's "bound by": the roofline term ("matrix", "HBM", "overhead", ...) or "collective".
inline std::string bound_label(const OpPrediction& op) {
  if (op.bound == BoundBy::kCollective || op.collective) return "collective";
  return std::string(bound_name(op.resource));
}

// The part of an op's time per step that the step waits for: async collectives hide the rest.
inline double step_contribution(const OpPrediction& op) {
  if (op.collective && op.collective->is_async) return op.collective->exposed_s * op.multiplier;
  return op.total_time_s;
}

}  // namespace hloroof::report_internal

#endif  // HLOROOF_LIB_REPORT_OP_TERMS_H_
