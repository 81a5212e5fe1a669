// The platform a module was compiled for, and the device it is predicted on when none is named.
#ifndef HLOROOF_PLATFORM_H_
#define HLOROOF_PLATFORM_H_

#include <string>
#include <string_view>

#include "hloroof/device_target.h"
#include "hloroof/module.h"

namespace hloroof {

// What the compiler left in a module that only one platform's compiler leaves (every marker is
// listed in docs/prediction-model.md, "Which platform a module is for"): custom-call targets and
// backend-config keys of one platform, TPU tiled layouts and memory spaces.

// A custom-call target or backend config decides at once (GPU before TPU where a module holds
// both); TPU tiled layouts and memory spaces decide when no marker does.
PlatformInference infer_platform_of(const Module& module);
// infer_platform_of(module).platform.
std::string infer_platform(const Module& module);

// The platform an XLA dump's file name names ("module_0001.jit_f.cpu_after_optimizations.txt":
// cpu; "...sm_9.0_gpu_after_optimizations.txt": gpu; "...tpu_after_optimizations.txt": tpu),
// the marker saying so; empty for any other name.
PlatformInference platform_of_file_name(std::string_view path);

// The device a module is predicted on when none is named (the command's --device, Python's
// device=): h100 for a GPU module, tpu_v5e otherwise.
inline constexpr std::string_view kDefaultGpuDevice = "h100";
inline constexpr std::string_view kDefaultTpuDevice = "tpu_v5e";

// The device picked for a module when none is named, and why.
struct DefaultDevice {
  std::string device;  // kDefaultGpuDevice or kDefaultTpuDevice
  // True when a marker of a platform that has built-in devices (GPU, TPU) decided it; false
  // when it is a guess, which reports say above their figures.
  bool decided = false;
  // One sentence: what decided, or that nothing did and what to give instead. `option` is how
  // the caller names the device ("--device", "device=").
  std::string note;
};
DefaultDevice default_device(const Module& module, std::string_view option = "--device");

// device_for_kind (the built-in device of a JAX device kind) is declared in device_target.h.

}  // namespace hloroof

#endif  // HLOROOF_PLATFORM_H_
