// Figures for people always carry a unit and three significant digits.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "hloroof/units.h"

namespace hloroof {
namespace {

TEST_CASE("durations pick ns, us, ms or s") {
  CHECK(format_seconds(0) == "0 s");
  CHECK(format_seconds(850e-9) == "850 ns");
  CHECK(format_seconds(12.5e-6) == "12.5 us");
  CHECK(format_seconds(3.2149e-3) == "3.21 ms");
  CHECK(format_seconds(1.5) == "1.5 s");
  CHECK(format_seconds(120) == "120 s");
  CHECK(format_seconds(1e-12) == "0.001 ns");
}

TEST_CASE("absurd figures print in a few columns") {
  // 1e308 s was printed in full: 309 digits and " s".
  CHECK(format_seconds(1e308) == "1e+308 s");
  CHECK(format_seconds(123456) == "123456 s");    // whole below a million: %.0f
  CHECK(format_seconds(2.5e6) == "2.5e+06 s");
  CHECK(format_bytes(1e300) == "9.09e+287 TiB");  // 1e300 / 2^40 = 9.09e287
  // A relative error of an op measured at 0 s was printed "inf%".
  CHECK(format_percent(std::numeric_limits<double>::infinity()) == "-");
  CHECK(format_percent(std::nan("")) == "-");
  CHECK(format_percent(2e5) == "2e+07%");  // 2e5 x 100
  CHECK(format_percent(-0.5) == "-50.0%");
  // Not a number, whatever its sign bit (0 x infinity is a negative NaN on x86): "nan", as
  // `cost` printed "-nan FLOP" for ops run past a double's range.
  CHECK(format_flops(std::copysign(std::nan(""), -1.0)) == "nan FLOP");
  CHECK(format_bytes(std::nan("")) == "nan B");
  CHECK(format_seconds(-std::numeric_limits<double>::infinity()) == "-inf ns");
}

TEST_CASE("bytes use binary units") {
  CHECK(format_bytes(0) == "0 B");
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1536) == "1.5 KiB");           // 1536 / 1024
  CHECK(format_bytes(268435456) == "256 MiB");      // 2^28
  CHECK(format_bytes(17179869184.0) == "16 GiB");   // 2^34
  CHECK(format_bytes(1023) == "1023 B");            // %.3g would say 1.02e+03
}

TEST_CASE("FLOPs and rates use decimal units") {
  CHECK(format_flops(3000) == "3 kFLOP");
  CHECK(format_flops(1.7592e13) == "17.6 TFLOP");
  CHECK(format_flop_rate(1.97e14) == "197 TFLOP/s");
  CHECK(format_flop_rate(8.5e11) == "850 GFLOP/s");
  CHECK(format_byte_rate(8.19e11) == "819 GB/s");
  CHECK(format_byte_rate(1.638e12) == "1.64 TB/s");
  CHECK(format_percent(0.4231) == "42.3%");
}

}  // namespace
}  // namespace hloroof
