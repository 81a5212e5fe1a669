// Predictions the tests ask for by a device's name or spec: the name (with its slice, as
// "tpu_v5e:2x2") resolved as the command's --device is (resolve_device) and what resolving it
// said added to the prediction (predict_step_time on a name); a spec on a slice as make_topology
// reads it (spec_on: any shape the model can time), or on none (the slice inferred).
#ifndef HLOROOF_TESTS_PREDICT_ON_H_
#define HLOROOF_TESTS_PREDICT_ON_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "hloroof/device.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/topology.h"

namespace hloroof::testing {

inline absl::StatusOr<Prediction> predict_on(const Module& module, std::string_view device,
                                             const PredictOptions& options = {}) {
  return predict_step_time(module, device, options);
}

inline absl::StatusOr<DeviceTarget> spec_on(const DeviceSpec& spec, std::string_view topology) {
  DeviceTarget target{.spec = spec};
  if (topology.empty()) return target;
  absl::StatusOr<Topology> slice = make_topology(spec, topology);
  if (!slice.ok()) return slice.status();
  target.slice = *std::move(slice);
  return target;
}

// A spec on a slice made by hand: predicted as it is (the target's diagnostics are empty).
inline absl::StatusOr<Prediction> predict_on(const Module& module, const DeviceTarget& target,
                                             const PredictOptions& options = {}) {
  return predict_step_time(module, target, options);
}

// A spec without a slice: the slice inferred from the module.
inline absl::StatusOr<Prediction> predict_on(const Module& module, const DeviceSpec& spec,
                                             const PredictOptions& options = {}) {
  return predict_step_time(module, DeviceTarget{.spec = spec}, options);
}

inline absl::StatusOr<Prediction> predict_on(const Module& module, const DeviceSpec& spec,
                                             const PredictOptions& options,
                                             const ModuleCost& cost) {
  return predict_step_time(module, DeviceTarget{.spec = spec}, options, cost);
}

// The text parsed by the prediction, which holds the module (Prediction::module).
inline absl::StatusOr<Prediction> predict_text(std::string_view text, std::string_view device,
                                               const PredictOptions& options = {}) {
  return predict_step_time(text, device, options);
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_PREDICT_ON_H_
