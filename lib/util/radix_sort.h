// Sorting many 128-bit keys (the memory analysis packs each buffer's order into one): a
// least-significant-digit radix sort, one pass over the keys for each byte in which they differ.
// Gives the order std::sort gives (ascending; equal keys are equal values), several times
// faster where there are thousands of keys.
#ifndef HLOROOF_UTIL_RADIX_SORT_H_
#define HLOROOF_UTIL_RADIX_SORT_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"

namespace hloroof::detail {

inline void radix_sort(std::vector<absl::uint128>& keys) {
  const size_t n = keys.size();
  if (n < 512) {  // a few passes over 256 counts would cost more than the comparisons
    std::sort(keys.begin(), keys.end());
    return;
  }
  uint64_t any_high = 0, any_low = 0, all_high = ~uint64_t{0}, all_low = ~uint64_t{0};
  for (const absl::uint128& k : keys) {
    any_high |= absl::Uint128High64(k);
    any_low |= absl::Uint128Low64(k);
    all_high &= absl::Uint128High64(k);
    all_low &= absl::Uint128Low64(k);
  }
  std::vector<absl::uint128> scratch(n);
  std::array<size_t, 256> at;
  for (int byte = 0; byte < 16; ++byte) {
    const bool high = byte >= 8;
    const int shift = 8 * (byte % 8);
    const uint64_t differ = high ? any_high ^ all_high : any_low ^ all_low;
    if (((differ >> shift) & 0xff) == 0) continue;  // every key has the same byte here
    auto digit = [high, shift](const absl::uint128& k) {
      return static_cast<size_t>(((high ? absl::Uint128High64(k) : absl::Uint128Low64(k)) >>
                                  shift) &
                                 0xff);
    };
    at.fill(0);
    for (const absl::uint128& k : keys) ++at[digit(k)];
    size_t first = 0;
    for (size_t& a : at) first += std::exchange(a, first);
    for (const absl::uint128& k : keys) scratch[at[digit(k)]++] = k;
    keys.swap(scratch);
  }
}

}  // namespace hloroof::detail

#endif  // HLOROOF_UTIL_RADIX_SORT_H_
