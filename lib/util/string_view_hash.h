// Hashing and comparing short texts (instruction names, shape texts, computation names) as
// std::string_view keys. Names are mostly 8 to 24 bytes: the hash reads them eight bytes at a
// time and mixes with one 64x64->128-bit multiply a step, and the comparison reads the same
// words, so neither calls out of line for a typical name.
#ifndef HLOROOF_UTIL_STRING_VIEW_HASH_H_
#define HLOROOF_UTIL_STRING_VIEW_HASH_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"

namespace hloroof::detail {

namespace text_hash_internal {

// Odd constants with bytes outside printable ASCII, so that no name xors a word to zero.
constexpr uint64_t kSeed0 = 0xa0761d6478bd642full;
constexpr uint64_t kSeed1 = 0xe7037ed1a0b428dbull;
constexpr uint64_t kSeed2 = 0x8ebc6af09c88c6e3ull;

// The two halves of a*b, xored: every bit of either input reaches the result's low and high
// bits.
inline uint64_t fold(uint64_t a, uint64_t b) {
  const absl::uint128 r = absl::uint128(a) * b;
  return absl::Uint128Low64(r) ^ absl::Uint128High64(r);
}
inline uint64_t read8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t read4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace text_hash_internal

// A hash of `s` for hash tables (not stable across versions, not for files). Reads only the
// bytes of `s`: short texts are read as two possibly overlapping words, longer ones 16 bytes a
// step. The words and the length go through separate multiplies: texts that differ only in
// their length (`p1220`, `p12220` read as overlapping words) cannot cancel out.
inline size_t hash_text(std::string_view s) {
  using namespace text_hash_internal;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t seed = kSeed0;
  uint64_t a;
  uint64_t b;
  if (n > 16) {
    // The last 1 to 16 bytes are read as the final (overlapping) 16.
    const char* last = p + n - 16;
    for (; p < last; p += 16) seed = fold(read8(p) ^ kSeed1, read8(p + 8) ^ seed);
    a = read8(last);
    b = read8(last + 8);
  } else if (n >= 8) {
    a = read8(p);
    b = read8(p + n - 8);
  } else if (n >= 4) {
    a = read4(p);
    b = read4(p + n - 4);
  } else if (n > 0) {
    a = (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
        (uint64_t{static_cast<uint8_t>(p[n / 2])} << 8) | static_cast<uint8_t>(p[n - 1]);
    b = 0;
  } else {
    a = 0;
    b = 0;
  }
  return static_cast<size_t>(fold(fold(a ^ kSeed1, b ^ seed) ^ kSeed2, n ^ kSeed1));
}

// a == b, comparing eight bytes at a time (inline for texts up to 32 bytes).
inline bool same_text(std::string_view a, std::string_view b) {
  using text_hash_internal::read4;
  using text_hash_internal::read8;
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n >= 8) {
    if (n > 32) return std::memcmp(x, y, n) == 0;
    // Whole words from the front, then the last word (overlapping what was compared).
    for (size_t k = 0; k + 8 < n; k += 8) {
      if (read8(x + k) != read8(y + k)) return false;
    }
    return read8(x + n - 8) == read8(y + n - 8);
  }
  if (n >= 4) return read4(x) == read4(y) && read4(x + n - 4) == read4(y + n - 4);
  for (size_t k = 0; k < n; ++k) {
    if (x[k] != y[k]) return false;
  }
  return true;
}

// Transparent: a map of std::string keys finds a string_view without making a string.
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return hash_text(s); }
};
struct StringViewEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return same_text(a, b); }
};

template <typename Value>
using StringViewMap = absl::flat_hash_map<std::string_view, Value, StringViewHash, StringViewEq>;

}  // namespace hloroof::detail

#endif  // HLOROOF_UTIL_STRING_VIEW_HASH_H_
