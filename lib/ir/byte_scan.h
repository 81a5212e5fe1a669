// Finding the first of a few stop bytes in text, many bytes a step: where a string, a brace-
// balanced blob or a metadata value stops. Sixteen bytes a step where SSE2 is there, eight with
// word arithmetic elsewhere and for the last bytes, then one at a time.
#ifndef HLOROOF_IR_BYTE_SCAN_H_
#define HLOROOF_IR_BYTE_SCAN_H_

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hloroof::detail {

// The first byte of [p, end) equal to one of kStops, or end; eight bytes a step.
template <char... kStops>
const char* find_first_of_in_words(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    constexpr uint64_t kHighs = 0x8080808080808080u;
    // The high bit of each byte equal to `c`. A false hit (from the borrow) only ever sits
    // above a true one, for any of the stops, so the lowest hit of their union is exact.
    auto bytes_equal = [](uint64_t word, char c) {
      const uint64_t x = word ^ (kOnes * static_cast<unsigned char>(c));
      return (x - kOnes) & ~x & kHighs;
    };
    for (; end - p >= 8; p += 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      if (const uint64_t hit = (bytes_equal(word, kStops) | ...); hit != 0) {
        return p + std::countr_zero(hit) / 8;
      }
    }
  }
  for (; p < end; ++p) {
    if (((*p == kStops) || ...)) return p;
  }
  return end;
}

// The first byte of [p, end) equal to one of kStops, or end.
template <char... kStops>
[[gnu::always_inline]] inline const char* find_first_of(const char* p, const char* end) {
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hit = (_mm_cmpeq_epi8(v, _mm_set1_epi8(kStops)) | ...);
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit)); mask != 0) {
      return p + std::countr_zero(mask);
    }
  }
#endif
  return find_first_of_in_words<kStops...>(p, end);
}

// The first byte of [p, end) below kLimit (bytes of 0x80 and more are never below it), or end;
// sixteen bytes a step where SSE2 is there, else eight. Where a name or a shape text ends: at a
// space, a line break, a comma...
template <unsigned char kLimit>
const char* find_first_below(const char* p, const char* end) {
  static_assert(kLimit > 0 && kLimit <= 0x80, "the word step needs a limit of at most 0x80");
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Unsigned x < kLimit exactly when min(x, kLimit - 1) is x.
    const __m128i below =
        _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(static_cast<char>(kLimit - 1))), v);
    if (const auto mask = static_cast<unsigned>(_mm_movemask_epi8(below)); mask != 0) {
      return p + std::countr_zero(mask);
    }
  }
#endif
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    constexpr uint64_t kHighs = 0x8080808080808080u;
    for (; end - p >= 8; p += 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      // The high bit of each byte below the limit; a false hit (from the borrow) only ever sits
      // above a true one, so the lowest hit is exact.
      if (const uint64_t hit = (word - kOnes * kLimit) & ~word & kHighs; hit != 0) {
        return p + std::countr_zero(hit) / 8;
      }
    }
  }
  for (; p < end; ++p) {
    if (static_cast<unsigned char>(*p) < kLimit) return p;
  }
  return end;
}

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_BYTE_SCAN_H_
