// The platform a module was compiled for, and the device it is predicted on when none is named.
#ifndef HLOROOF_PLATFORM_H_
#define HLOROOF_PLATFORM_H_

#include <string>
#include <string_view>

#include "hloroof/module.h"

namespace hloroof {

// The platform a module was compiled for, from what the compiler left in it: "gpu" (cuBLAS,
// cuDNN, Triton or other GPU custom calls; GPU backend-config keys), "tpu" (tiled layouts
// `T(...)`, memory spaces `S(n)`), or "" when nothing tells.
std::string infer_platform(const Module& module);

// The device a module is predicted on when none is named (the command's --device, Python's
// device=): h100 for a GPU module, tpu_v5e otherwise.
inline constexpr std::string_view kDefaultGpuDevice = "h100";
inline constexpr std::string_view kDefaultTpuDevice = "tpu_v5e";

}  // namespace hloroof

#endif  // HLOROOF_PLATFORM_H_
