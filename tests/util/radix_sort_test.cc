// radix_sort gives std::sort's order: keys that differ in any of their bytes, few or many,
// with repeats, and keys packed as the memory analysis packs them.
#include "util/radix_sort.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <random>
#include <vector>

namespace hloroof::detail {
namespace {

std::vector<absl::uint128> sorted_by_std(std::vector<absl::uint128> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST_CASE("radix_sort orders keys as std::sort does") {
  std::mt19937_64 random(7);
  for (size_t n : {0, 1, 2, 100, 511, 512, 513, 5000, 40000}) {
    // Random bits everywhere; few distinct values (repeats); only some bytes varying, high
    // and low words both (a size in the high word, a length and an index in the low one).
    std::vector<absl::uint128> any(n), repeated(n), packed(n);
    for (size_t k = 0; k < n; ++k) {
      any[k] = absl::MakeUint128(random(), random());
      repeated[k] = absl::MakeUint128(random() % 3, random() % 5);
      const uint64_t bytes = uint64_t{1} << (random() % 40);
      packed[k] = absl::MakeUint128(~bytes >> 1, ((random() % 20000) << 31) | k);
    }
    for (std::vector<absl::uint128>* keys : {&any, &repeated, &packed}) {
      const std::vector<absl::uint128> expected = sorted_by_std(*keys);
      radix_sort(*keys);
      CHECK(*keys == expected);
    }
  }
}

}  // namespace
}  // namespace hloroof::detail
