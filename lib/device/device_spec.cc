#include <algorithm>

#include "hloroof/device.h"

namespace hloroof {

std::string_view device_kind_name(DeviceKind kind) {
  return kind == DeviceKind::kTpu ? "tpu" : "gpu";
}

std::string_view gpu_vendor_name(GpuVendor vendor) {
  return vendor == GpuVendor::kAmd ? "AMD" : "NVIDIA";
}

bool Wraparound::wraps(absl::Span<const int64_t> dims, size_t axis) const {
  if (axis >= dims.size() || dims[axis] <= 2) return false;
  switch (rule) {
    case Rule::kNone:
      return false;
    case Rule::kAxisSizes:
      return std::find(axis_sizes.begin(), axis_sizes.end(), dims[axis]) != axis_sizes.end();
    case Rule::kWholeCubes:
      return std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d % cube == 0; });
  }
  return false;
}

std::string_view matrix_class(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kBF16:
      return "bf16";
    case PrimitiveType::kF16:
      return "f16";
    case PrimitiveType::kF32:
      return "f32";
    case PrimitiveType::kF64:
      return "f64";
    case PrimitiveType::kS8:
    case PrimitiveType::kU8:
      return "int8";
    case PrimitiveType::kS4:
    case PrimitiveType::kU4:
      return "int4";
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E3M4:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E8M0FNU:
      return "fp8";
    case PrimitiveType::kF6E3M2FN:
    case PrimitiveType::kF6E2M3FN:
      return "fp6";
    case PrimitiveType::kF4E2M1FN:
      return "fp4";
    default:
      return "";
  }
}

std::optional<double> DeviceSpec::matrix_peak(PrimitiveType type) const {
  auto it = matrix_flops_per_s.find(matrix_class(type));
  if (it == matrix_flops_per_s.end()) return std::nullopt;
  return it->second;
}

const DeviceFigure* DeviceSpec::figure(std::string_view path) const {
  for (const DeviceFigure& f : figures) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

}  // namespace hloroof
