// Integer arithmetic on values read from text (sizes, paddings, strides, counts): hostile input
// may put any int64 there, so every sum, difference and product of such values goes through
// these helpers, which never overflow (signed overflow is undefined behaviour).
#ifndef HLOROOF_LIB_UTIL_CHECKED_MATH_H_
#define HLOROOF_LIB_UTIL_CHECKED_MATH_H_

#include <cstdint>
#include <limits>
#include <optional>

namespace hloroof {

// a + b, a - b, a * b; nullopt when the exact result does not fit in int64.
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b and a * b clamped to [INT64_MIN, INT64_MAX]: for figures where "enormous" is the honest
// answer and a bound is enough.
inline int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}
inline int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? std::numeric_limits<int64_t>::min()
                            : std::numeric_limits<int64_t>::max();
}

}  // namespace hloroof

#endif  // HLOROOF_LIB_UTIL_CHECKED_MATH_H_
