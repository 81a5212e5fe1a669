// Units a device JSON may write its figures in, and their factors to base units.
#ifndef HLOROOF_LIB_DEVICE_SPEC_UNITS_H_
#define HLOROOF_LIB_DEVICE_SPEC_UNITS_H_

#include <optional>
#include <string>
#include <string_view>

namespace hloroof::internal {

enum class Quantity {
  kBytes,      // base B
  kBandwidth,  // base B/s
  kFlopRate,   // base FLOP/s (OP/s accepted for integer matrix rates)
  kOpRate,     // base op/s (transcendentals)
  kTime,       // base s
};

// The factor that turns a value in `unit` into the base unit of `q`; nullopt when `unit` is not
// a unit of `q`. Units are case-sensitive: "GB" is 1e9 B, "GiB" 2^30 B, "Gb/s" 1.25e8 B/s.
std::optional<double> unit_factor(Quantity q, std::string_view unit);

std::string_view base_unit(Quantity q);

// The physical sanity range of a figure of `q`, in its base unit (data/hardware/README.md,
// "Sanity ranges"): a spec outside it is refused, since no real device is there and the models
// and charts are only exact for finite, moderate figures.
struct SanityRange {
  double min, max;
};
SanityRange sanity_range(Quantity q);

// The smallest efficiency a device spec may give (matmul_efficiency, hbm_efficiency,
// collective_bandwidth_efficiency): a thousandth of the peak. Below it a figure says the device
// is not doing the work the model describes, and at 5e-324 an op's time is no longer finite.
inline constexpr double kMinEfficiency = 1e-3;

// "B, KB, MB, ..." for error messages.
std::string accepted_units(Quantity q);

}  // namespace hloroof::internal

#endif  // HLOROOF_LIB_DEVICE_SPEC_UNITS_H_
