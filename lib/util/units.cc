#include "hloroof/units.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hloroof {
namespace {

// Three significant digits, trailing zeros dropped: 1.50 -> "1.5", 512 -> "512"; whole numbers
// up to a million in full ("1234"), beyond it and below 0.001 in exponent form ("1e+308", not
// a 309-digit number).
std::string three_digits(double v) {
  std::string s = absl::StrFormat("%.3g", v);
  if (s.find('e') != std::string::npos && std::fabs(v) >= 1 && std::fabs(v) < 1e6) {
    s = absl::StrFormat("%.0f", v);
  }
  return s;
}

struct Unit {
  double scale;
  const char* name;
};

// Picks the largest unit not above |v| (the first one when none is).
template <size_t N>
std::string scaled(double v, const Unit (&units)[N]) {
  // "inf s"; a NaN's sign means nothing (0 FLOPs x runs past a double's range is -nan).
  if (std::isnan(v)) return absl::StrCat("nan ", units[0].name);
  if (!std::isfinite(v)) return absl::StrFormat("%f %s", v, units[0].name);
  const Unit* pick = &units[0];
  for (const Unit& u : units) {
    if (std::fabs(v) >= u.scale) pick = &u;
  }
  return absl::StrCat(three_digits(v / pick->scale), " ", pick->name);
}

}  // namespace

std::string format_seconds(double seconds) {
  if (seconds == 0) return "0 s";
  static const Unit kUnits[] = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
  return scaled(seconds, kUnits);
}

std::string format_bytes(double bytes) {
  static const Unit kUnits[] = {{1, "B"},
                                {1024.0, "KiB"},
                                {1024.0 * 1024, "MiB"},
                                {1024.0 * 1024 * 1024, "GiB"},
                                {1024.0 * 1024 * 1024 * 1024, "TiB"}};
  return scaled(bytes, kUnits);
}

std::string format_flops(double flops) {
  static const Unit kUnits[] = {{1, "FLOP"},   {1e3, "kFLOP"},  {1e6, "MFLOP"},
                                {1e9, "GFLOP"}, {1e12, "TFLOP"}, {1e15, "PFLOP"}};
  return scaled(flops, kUnits);
}

std::string format_flop_rate(double flops_per_second) {
  static const Unit kUnits[] = {{1, "FLOP/s"},    {1e3, "kFLOP/s"},  {1e6, "MFLOP/s"},
                                {1e9, "GFLOP/s"}, {1e12, "TFLOP/s"}, {1e15, "PFLOP/s"}};
  return scaled(flops_per_second, kUnits);
}

std::string format_byte_rate(double bytes_per_second) {
  static const Unit kUnits[] = {{1, "B/s"}, {1e3, "kB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"},
                                {1e12, "TB/s"}};
  return scaled(bytes_per_second, kUnits);
}

std::string format_percent(double fraction) {
  const double percent = 100.0 * fraction;
  // Not a number a reader can use ("inf%"): a dash. Beyond a million percent, three digits.
  if (!std::isfinite(percent)) return "-";
  if (std::fabs(percent) >= 1e6) return absl::StrFormat("%.3g%%", percent);
  return absl::StrFormat("%.1f%%", percent);
}

}  // namespace hloroof
