#include "hloroof/text_safety.h"

#include <cstdint>

namespace hloroof {
namespace {

uint8_t byte_at(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

bool is_continuation(std::string_view s, size_t i) {
  return i < s.size() && (byte_at(s, i) & 0xC0) == 0x80;
}

// Whether the character at the start of `s` (of `length` bytes, well-formed) is a control:
// C0 and DEL (one byte), C1 (U+0080..U+009F: 0xC2 0x80..0x9F).
bool is_control(std::string_view s, size_t length) {
  const uint8_t b = byte_at(s, 0);
  if (length == 1) return b < 0x20 || b == 0x7F;
  return length == 2 && b == 0xC2 && byte_at(s, 1) < 0xA0;
}

void append_hex(std::string& out, uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[b >> 4];
  out += kDigits[b & 0xF];
}

}  // namespace

size_t utf8_sequence_length(std::string_view s) {
  if (s.empty()) return 0;
  const uint8_t b = byte_at(s, 0);
  if (b < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // the range of the second byte (RFC 3629, section 4)
  if (b >= 0xC2 && b <= 0xDF) {
    length = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    length = 3;
    if (b == 0xE0) low = 0xA0;   // not overlong
    if (b == 0xED) high = 0x9F;  // not a surrogate
  } else if (b >= 0xF0 && b <= 0xF4) {
    length = 4;
    if (b == 0xF0) low = 0x90;   // not overlong
    if (b == 0xF4) high = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < length || byte_at(s, 1) < low || byte_at(s, 1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!is_continuation(s, i)) return 0;
  }
  return length;
}

std::string utf8_replaced(std::string_view s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    // Copy the longest valid run at once.
    size_t run = i;
    size_t n = 0;
    while (run < s.size() && (n = utf8_sequence_length(s.substr(run))) > 0) run += n;
    if (run == s.size() && i == 0) return std::string(s);
    out.append(s.data() + i, run - i);
    if (run == s.size()) break;
    out += "\xEF\xBF\xBD";
    i = run + 1;
  }
  return out;
}

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const std::string_view rest = s.substr(i);
    const size_t n = utf8_sequence_length(rest);
    if (n == 0) {
      append_hex(out, byte_at(rest, 0));
      ++i;
      continue;
    }
    if (!is_control(rest, n)) {
      out.append(rest.data(), n);
    } else if (rest[0] == '\n') {
      out += "\\n";
    } else if (rest[0] == '\r') {
      out += "\\r";
    } else if (rest[0] == '\t') {
      out += "\\t";
    } else {
      for (size_t k = 0; k < n; ++k) append_hex(out, byte_at(rest, k));
    }
    i += n;
  }
  return out;
}

}  // namespace hloroof
