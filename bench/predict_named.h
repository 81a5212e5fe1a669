// Predictions on a device named as the command's --device is: resolved, then predicted.
#ifndef HLOROOF_BENCH_PREDICT_NAMED_H_
#define HLOROOF_BENCH_PREDICT_NAMED_H_

#include <string>

#include "absl/status/statusor.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"

namespace hloroof::bench {

inline absl::StatusOr<Prediction> predict_named(const Module& module, const std::string& device) {
  absl::StatusOr<DeviceTarget> target = resolve_device(device, &module);
  if (!target.ok()) return target.status();
  return predict_step_time(module, *target);
}

// The same of a module's text, parsed here.
inline absl::StatusOr<Prediction> predict_text(const std::string& text,
                                               const std::string& device) {
  absl::StatusOr<Module> module = parse_module(text);
  if (!module.ok()) return module.status();
  return predict_named(*module, device);
}

}  // namespace hloroof::bench

#endif  // HLOROOF_BENCH_PREDICT_NAMED_H_
