// What the spec reader (device_spec_json.cc) asks of the built-in specs (device_registry.cc).
#ifndef HLOROOF_LIB_DEVICE_REGISTRY_H_
#define HLOROOF_LIB_DEVICE_REGISTRY_H_

#include "absl/status/statusor.h"
#include "hloroof/device.h"

namespace hloroof::internal {

// The `measured_on` of a spec whose file gives none (data/hardware/README.md): its `base`'s,
// else the closest built-in device's (the same kind and, for a GPU, maker; the highest compute
// capability not above its own; the first by name among equals), else none. An error for a
// built-in file: each one names its own.
absl::StatusOr<MeasuredOn> inherited_measured_on(const DeviceSpec& spec);

}  // namespace hloroof::internal

#endif  // HLOROOF_LIB_DEVICE_REGISTRY_H_
