// Ops of unknown cost grouped by what they run: a custom call's target (`__cudnn$fmha...`,
// `tpu_custom_call`, `__triton`...), else the opcode.
#ifndef HLOROOF_LIB_REPORT_UNKNOWN_WORK_H_
#define HLOROOF_LIB_REPORT_UNKNOWN_WORK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hloroof/predict.h"

namespace hloroof::report_internal {

struct UnknownWork {
  std::string target;
  int64_t count = 0;      // ops (not executions)
  double time_s = 0;      // the time the prediction gives them per step: a floor
  double step_share = 0;  // time_s / step time
};

// Largest time first.
std::vector<UnknownWork> unknown_work(const Prediction& prediction);

}  // namespace hloroof::report_internal

#endif  // HLOROOF_LIB_REPORT_UNKNOWN_WORK_H_
