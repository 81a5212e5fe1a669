// Word wrapping for the text reports, which fit a 100-column terminal.
#ifndef HLOROOF_WRAP_H_
#define HLOROOF_WRAP_H_

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "hloroof/text_safety.h"

namespace hloroof::report_internal {

inline constexpr size_t kTerminalWidth = 100;

// Word-wraps `text` to kTerminalWidth columns; lines after the first start with `indent`. A
// word longer than a line (a generated module name) is cut at the right edge. Control
// characters in a word (a custom-call target from a module) print escaped (`printable`), all
// but the unit separator (0x1f) that wrap_figures joins figures with.
inline std::string wrap(std::string_view text, std::string_view first, std::string_view indent) {
  std::string out(first), word;
  size_t column = first.size();
  bool line_empty = true;
  auto flush = [&] {
    if (word.empty()) return;
    // (Each piece between the unit separators wrap_figures keeps figures together with.) A
    // word of printable ASCII, nearly every one, is kept as it is.
    const bool plain = std::all_of(word.begin(), word.end(), [](char c) {
      const auto b = static_cast<unsigned char>(c);
      return (b >= 0x20 && b < 0x7f) || b == 0x1f;
    });
    if (!plain) {
      std::string safe;
      for (size_t at = 0;;) {
        const size_t end = word.find('\x1f', at);
        safe += printable(std::string_view(word).substr(at, end - at));
        if (end == std::string::npos) break;
        safe += '\x1f';
        at = end + 1;
      }
      word = std::move(safe);
    }
    // A word no line can hold starts where it is and is cut; others move to a new line.
    const bool too_long = indent.size() + word.size() > kTerminalWidth;
    if (!line_empty && !too_long && column + 1 + word.size() > kTerminalWidth) {
      out += '\n';
      out += indent;
      column = indent.size();
    } else if (!line_empty) {
      out += ' ';
      ++column;
    }
    std::string_view rest = word;
    while (column + rest.size() > kTerminalWidth && column < kTerminalWidth) {
      const size_t room = kTerminalWidth - column;
      out.append(rest.substr(0, room));
      rest.remove_prefix(room);
      out += '\n';
      out += indent;
      column = indent.size();
    }
    out += rest;
    column += rest.size();
    line_empty = false;
    word.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '\n') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out + "\n";
}

}  // namespace hloroof::report_internal

#endif  // HLOROOF_WRAP_H_
