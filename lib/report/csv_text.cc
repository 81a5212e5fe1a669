#include "report/csv_text.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_format.h"

namespace hloroof::report_internal {

void append_csv_cell(std::string& out, std::string_view cell) {
  const auto special = [](char c) { return c == ',' || c == '"' || c == '\r' || c == '\n'; };
  if (std::none_of(cell.begin(), cell.end(), special)) {
    out.append(cell);
    return;
  }
  out += '"';
  // Runs up to each quote copied whole, the quote written twice.
  for (size_t at = 0;;) {
    const size_t quote = cell.find('"', at);
    if (quote == std::string_view::npos) {
      out.append(cell.substr(at));
      break;
    }
    out.append(cell.substr(at, quote + 1 - at));
    out += '"';
    at = quote + 1;
  }
  out += '"';
}

namespace {

// printf's %.15g, %.16g, %.17g in turn until one reads back as `value`.
void append_by_trying(std::string& out, double value) {
  char text[32];
  for (int digits = 15;; ++digits) {
    const std::to_chars_result made =
        std::to_chars(text, text + sizeof text, value, std::chars_format::general, digits);
    double back = 0;
    std::from_chars(text, made.ptr, back);
    if (back == value || digits == 17) {
      out.append(text, made.ptr);
      return;
    }
  }
}

}  // namespace

void append_csv_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    absl::StrAppendFormat(&out, "%.15g", value);
    return;
  }
  if (value == 0) {
    out += std::signbit(value) ? "-0" : "0";
    return;
  }
  // The shortest digits that read back, d.ddde±XX: n of them, and the exponent X. Where n <= 15
  // they are %.15g's digits: the double nearest them lies within half an ulp (at most 2^-53 of
  // the value) of `value`, closer than half the spacing of 15-digit decimals (at least 5e-16
  // of it). Where n is 16 or 17, %.15g does not read back (shorter digits would) and the
  // digits are %.ng's (the nearest n-digit decimal reads back, to_chars takes the nearest),
  // but for 16 digits next to a power of two, whose ulp below is half the one above (the
  // nearest may fall below and not read back). Subnormals have fewer digits than 15 that
  // read back more than once: both tried as printf would be.
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  if (std::fabs(value) < std::numeric_limits<double>::min()) {
    append_by_trying(out, value);
    return;
  }
  char scientific[32];
  char* const end =
      std::to_chars(scientific, scientific + sizeof scientific, value,
                    std::chars_format::scientific)
          .ptr;
  const char* p = scientific + (value < 0 ? 1 : 0);
  char digits[20];
  int n = 0;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits[n++] = *p;
  }
  int exponent = 0;
  std::from_chars(p + 2, end, exponent);  // after "e+" or "e-"
  if (p[1] == '-') exponent = -exponent;
  const bool power_of_two = (bits & ((uint64_t{1} << 52) - 1)) == 0;
  if (n == 16 && power_of_two) {
    append_by_trying(out, value);
    return;
  }
  // %.Pg: scientific when X < -4 or X >= P, else fixed, trailing zeros dropped either way.
  const int precision = std::max(n, 15);
  if (exponent < -4 || exponent >= precision) {
    out.append(scientific, end);
    return;
  }
  if (value < 0) out += '-';
  const auto count = [](int k) { return static_cast<size_t>(k); };
  if (exponent < 0) {
    out += "0.";
    out.append(count(-exponent - 1), '0');
    out.append(digits, count(n));
  } else if (n <= exponent + 1) {
    out.append(digits, count(n));
    out.append(count(exponent + 1 - n), '0');
  } else {
    out.append(digits, count(exponent + 1));
    out += '.';
    out.append(digits + exponent + 1, count(n - exponent - 1));
  }
}

}  // namespace hloroof::report_internal
