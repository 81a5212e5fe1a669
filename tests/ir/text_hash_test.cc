// The hash and comparison behind every name map: equal texts hash equal, the comparison agrees
// with std::string_view's at every length and wherever the texts differ, nothing outside a
// text is read, and real instruction names spread over a table's buckets.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "util/string_view_hash.h"

namespace hloroof::detail {
namespace {

// Every length from 0 to 80 covers each branch of hash_text (0, 1-3, 4-7, 8-16, over 16 with
// one or more 16-byte steps) and of same_text (under 8, 8-32 word by word, over 32).
constexpr size_t kMaxLength = 80;

TEST_CASE("same_text agrees with == for a difference at any position and any length") {
  for (size_t n = 0; n <= kMaxLength; ++n) {
    std::string a(n, 'a');
    for (size_t k = 0; k < n; ++k) a[k] = static_cast<char>('a' + k % 26);
    CHECK(same_text(a, std::string(a)));
    for (size_t k = 0; k < n; ++k) {
      std::string b = a;
      b[k] = '.';
      INFO("length " << n << ", differing at " << k);
      CHECK_FALSE(same_text(a, b));
      CHECK(hash_text(a) != hash_text(b));
    }
    // A prefix is not equal, whatever bytes follow it in memory.
    if (n > 0) CHECK_FALSE(same_text(std::string_view(a).substr(0, n - 1), a));
  }
}

TEST_CASE("hash_text and same_text read only the bytes of the text") {
  // Each text is copied to the very end of its own allocation: a read past it would be seen by
  // AddressSanitizer, and the bytes before it differ between the two copies.
  for (size_t n = 0; n <= kMaxLength; ++n) {
    std::string text;
    for (size_t k = 0; k < n; ++k) text.push_back(static_cast<char>('A' + k % 26));
    auto a = std::make_unique<char[]>(n + 1);
    auto b = std::make_unique<char[]>(n + 8);
    std::memset(a.get(), 'x', n + 1);
    std::memset(b.get(), 'y', n + 8);
    std::memcpy(a.get() + 1, text.data(), n);
    std::memcpy(b.get() + 8, text.data(), n);
    std::string_view va(a.get() + 1, n);
    std::string_view vb(b.get() + 8, n);
    INFO("length " << n);
    CHECK(same_text(va, vb));
    CHECK(hash_text(va) == hash_text(vb));
    CHECK(hash_text(va) == hash_text(text));
  }
}

TEST_CASE("names that differ only late, or only in length, hash apart") {
  // XLA numbers instructions: the names of a module differ mostly in their last digits.
  std::set<size_t> hashes;
  std::set<size_t> low_bits;  // the 7 bits a Swiss table keeps per slot
  std::vector<std::string> names;
  for (int k = 0; k < 20000; ++k) names.push_back("get-tuple-element." + std::to_string(k));
  for (int k = 0; k < 20000; ++k) names.push_back("add." + std::to_string(k));
  for (int k = 0; k < 20000; ++k) names.push_back("p" + std::to_string(k));
  for (const std::string& name : names) hashes.insert(hash_text(name));
  CHECK(hashes.size() == names.size());
  // Repeating one letter: texts that differ only in their length.
  std::set<size_t> by_length;
  for (size_t n = 0; n <= kMaxLength; ++n) by_length.insert(hash_text(std::string(n, 'x')));
  CHECK(by_length.size() == kMaxLength + 1);
  // The low 7 bits take all 128 values over the 20000 `add.N` names, each about 20000 / 128 =
  // 156 times; a count under half that would mean poorly mixed low bits.
  std::vector<int> counts(128, 0);
  for (int k = 0; k < 20000; ++k) ++counts[hash_text("add." + std::to_string(k)) & 127];
  for (int c : counts) CHECK(c > 78);
}

TEST_CASE("StringViewMap finds keys by content, not by address") {
  StringViewMap<int> map;
  std::vector<std::string> keys;
  for (int k = 0; k < 1000; ++k) keys.push_back("f32[" + std::to_string(k) + ",128]{1,0}");
  for (int k = 0; k < 1000; ++k) map.emplace(keys[static_cast<size_t>(k)], k);
  for (int k = 0; k < 1000; ++k) {
    std::string copy = "f32[" + std::to_string(k) + ",128]{1,0}";
    auto it = map.find(copy);
    REQUIRE(it != map.end());
    CHECK(it->second == k);
  }
  CHECK(map.find("f32[1000,128]{1,0}") == map.end());
  CHECK(map.find("f32[1,128]{1,0} ") == map.end());
}

}  // namespace
}  // namespace hloroof::detail
