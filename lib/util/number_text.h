// Numbers as printf's "%.Ng" and "%.Nf" write them, without printf: std::to_chars with a
// precision is specified to give exactly that text ([charconv.to.chars]: "as if by printf in
// the C locale"), and costs a fraction of a format call. For text written once per op.
#ifndef HLOROOF_LIB_UTIL_NUMBER_TEXT_H_
#define HLOROOF_LIB_UTIL_NUMBER_TEXT_H_

#include <charconv>
#include <string>

namespace hloroof::util {

inline std::string number_text(double value, std::chars_format format, int precision) {
  char buffer[64];
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), value, format, precision);
  if (r.ec == std::errc()) return std::string(buffer, r.ptr);
  // Longer than a short buffer (fixed notation beyond 1e40, or a large precision): the
  // longest a double can need in either notation, 309 integer digits and the fraction.
  std::string out(static_cast<size_t>(330 + (precision > 0 ? precision : 0)), '\0');
  const std::to_chars_result l =
      std::to_chars(out.data(), out.data() + out.size(), value, format, precision);
  out.resize(l.ec == std::errc() ? static_cast<size_t>(l.ptr - out.data()) : 0);
  return out;
}

// printf("%.*g", precision, value).
inline std::string general_text(double value, int precision) {
  return number_text(value, std::chars_format::general, precision);
}

// printf("%.*f", precision, value).
inline std::string fixed_text(double value, int precision) {
  return number_text(value, std::chars_format::fixed, precision);
}

}  // namespace hloroof::util

#endif  // HLOROOF_LIB_UTIL_NUMBER_TEXT_H_
