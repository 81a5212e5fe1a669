// The stop-byte searches behind the parser's direct readings: sixteen bytes a step (SSE2), eight
// (word arithmetic) and one at a time must all find what a byte-by-byte loop finds, wherever
// the stop byte falls relative to the steps, with bytes of 0x80 and more around it, and nothing
// at or after `end` may count.
#include "ir/byte_scan.h"

#include <catch2/catch.hpp>
#include <string>

namespace hloroof::detail {
namespace {

// Lengths past two 16-byte steps, so that each step and each tail is reached.
constexpr size_t kMaxLength = 48;

template <unsigned char kLimit>
const char* first_below_one_by_one(const char* p, const char* end) {
  for (; p < end; ++p) {
    if (static_cast<unsigned char>(*p) < kLimit) return p;
  }
  return end;
}

template <unsigned char kLimit>
void check_below(const std::string& text, size_t length) {
  const char* p = text.data();
  CHECK(find_first_below<kLimit>(p, p + length) == first_below_one_by_one<kLimit>(p, p + length));
}

TEST_CASE("find_first_below finds the first byte under the limit at every position") {
  // Filler bytes: name bytes ('a', '-', '.') and bytes of 0x80 and more (never below a limit).
  for (char filler : {'a', '-', '.', static_cast<char>(0x80), static_cast<char>(0xff)}) {
    for (size_t n = 0; n <= kMaxLength; ++n) {
      for (size_t k = 0; k <= n; ++k) {
        // A stop byte at k (k == n: none in the text); a stop byte right after the end must
        // not be found.
        for (char stop : {' ', ',', '\n', '\0', '\t'}) {
          std::string text(n + 1, filler);
          if (k < n) text[k] = stop;
          text[n] = ',';  // after the end
          INFO("length " << n << ", stop " << static_cast<int>(stop) << " at " << k);
          check_below<'-'>(text, n);
          check_below<' ' + 1>(text, n);
        }
      }
    }
  }
  // The limit itself and the byte under it, for each limit in use.
  const std::string dash = std::string(20, 'x') + "-" + std::string(20, 'x') + ",";
  CHECK(find_first_below<'-'>(dash.data(), dash.data() + dash.size()) == dash.data() + 41);
  const std::string space = std::string(17, 'f') + "!" + " ";
  CHECK(find_first_below<' ' + 1>(space.data(), space.data() + space.size()) == space.data() + 18);
}

TEST_CASE("find_first_of finds the first of its stop bytes at every position") {
  for (size_t n = 0; n <= kMaxLength; ++n) {
    for (size_t k = 0; k <= n; ++k) {
      for (char stop : {'"', '\\', '\n'}) {
        std::string text(n + 1, static_cast<char>(0xe2));
        if (k < n) text[k] = stop;
        text[n] = '"';  // after the end
        const char* p = text.data();
        INFO("length " << n << ", stop " << static_cast<int>(stop) << " at " << k);
        CHECK(find_first_of<'"', '\\', '\n'>(p, p + n) == p + k);
      }
    }
  }
}

}  // namespace
}  // namespace hloroof::detail
