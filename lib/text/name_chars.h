// The bytes of the lexer's identifiers and %names, for the parser's readings straight from the
// text: [A-Za-z_] start one, [A-Za-z0-9_.-] continue it.
#ifndef HLOROOF_TEXT_NAME_CHARS_H_
#define HLOROOF_TEXT_NAME_CHARS_H_

#include <array>
#include <cstdint>

namespace hloroof::text {

namespace name_chars_internal {

enum NameChar : uint8_t { kNameStart = 1, kNameChar = 2 };

constexpr std::array<uint8_t, 256> make_name_chars() {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kNameStart | kNameChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kNameStart | kNameChar;
  t['_'] = kNameStart | kNameChar;
  for (int c = '0'; c <= '9'; ++c) t[c] = kNameChar;
  t['.'] = kNameChar;
  t['-'] = kNameChar;
  return t;
}
inline constexpr std::array<uint8_t, 256> kNameChars = make_name_chars();

}  // namespace name_chars_internal

inline bool is_name_start(char c) {
  using namespace name_chars_internal;
  return kNameChars[static_cast<uint8_t>(c)] & kNameStart;
}

inline bool is_name_char(char c) {
  using namespace name_chars_internal;
  return kNameChars[static_cast<uint8_t>(c)] & kNameChar;
}

// The end of the name bytes from `p`; the NUL after the source stops it.
inline const char* skip_name_chars(const char* p) {
  while (is_name_char(*p)) ++p;
  return p;
}

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_NAME_CHARS_H_
