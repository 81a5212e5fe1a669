// Word wrapping for the text reports, which fit a 100-column terminal.
#ifndef HLOROOF_LIB_REPORT_WRAP_H_
#define HLOROOF_LIB_REPORT_WRAP_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace hloroof::report_internal {

inline constexpr size_t kTerminalWidth = 100;

// Word-wraps `text` to kTerminalWidth columns; lines after the first start with `indent`. A
// word longer than a line (a generated module name) is cut at the right edge.
inline std::string wrap(std::string_view text, std::string_view first, std::string_view indent) {
  std::string out(first), word;
  size_t column = first.size();
  bool line_empty = true;
  auto flush = [&] {
    if (word.empty()) return;
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

#endif  // HLOROOF_LIB_REPORT_WRAP_H_
