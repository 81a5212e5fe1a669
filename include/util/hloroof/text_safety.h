// Text from outside (names in profiles, file names, strings in protobufs) made safe to keep and
// to print: bytes that are not UTF-8 replaced, control characters escaped for terminals.
#ifndef HLOROOF_UTIL_TEXT_SAFETY_H_
#define HLOROOF_UTIL_TEXT_SAFETY_H_

#include <string>
#include <string_view>

namespace hloroof {

// The length of the well-formed UTF-8 sequence at the start of `s` (1 to 4), or 0 when `s`
// starts with a byte that begins none (a stray continuation byte, an overlong form, a surrogate,
// a code point past U+10FFFF, a sequence cut short).
size_t utf8_sequence_length(std::string_view s);

// `s` with each byte that is not part of well-formed UTF-8 replaced by U+FFFD, as JSON
// serializers and terminals show it. Valid text comes back unchanged.
std::string utf8_replaced(std::string_view s);

// `s` for a terminal or a one-line table cell: control characters (C0, DEL, and C1 U+0080 to
// U+009F, which some terminals obey) written as escapes (`\n`, `\r`, `\t`, else `\xHH`, the
// bytes of its UTF-8 form), bytes that are not UTF-8 as `\xHH`. A name holding
// `\e[2J` prints as the text `\x1b[2J`, so it can neither clear the screen nor break a line.
// Text without such characters comes back unchanged.
std::string printable(std::string_view s);

}  // namespace hloroof

#endif  // HLOROOF_UTIL_TEXT_SAFETY_H_
