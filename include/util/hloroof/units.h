// Numbers for people: durations, byte counts and rates scaled to a readable unit, always with
// the unit attached ("1.25 ms", "512 MiB", "197 TFLOP/s").
#ifndef HLOROOF_UNITS_H_
#define HLOROOF_UNITS_H_

#include <cstdint>
#include <string>

namespace hloroof {

std::string format_seconds(double seconds);           // 0 s, 850 ns, 12.5 us, 3.21 ms, 1.5 s
std::string format_bytes(double bytes);               // 512 B, 1.5 KiB, 256 MiB, 16 GiB
std::string format_flops(double flops);               // 3 kFLOP, 2.75 GFLOP, 1.2 PFLOP
std::string format_flop_rate(double flops_per_second);  // 850 GFLOP/s, 197 TFLOP/s
std::string format_byte_rate(double bytes_per_second);  // 819 GB/s, 1.64 TB/s (decimal)
std::string format_percent(double fraction);           // 0.4231 -> "42.3%"

}  // namespace hloroof

#endif  // HLOROOF_UNITS_H_
