#include "hloroof/text_table.h"

#include <algorithm>

#include "hloroof/wrap.h"
#include "hloroof/text_safety.h"

namespace hloroof {
namespace {

bool is_separator(char c) { return c == '.' || c == '_' || c == '-' || c == '/'; }

// A cell in lines of at most `max_width` columns: as it is when it fits; text of several words
// wrapped at its spaces, a word longer than a line shortened as a name (shorten_name); one word
// shortened.
std::vector<std::string> fit(const std::string& cell, size_t max_width) {
  if (cell.size() <= max_width) return {cell};
  if (cell.find(' ') == std::string::npos) return {shorten_name(cell, max_width)};
  std::vector<std::string> lines(1);
  size_t at = 0;
  while (at < cell.size()) {
    size_t end = cell.find(' ', at);
    if (end == std::string::npos) end = cell.size();
    std::string word = cell.substr(at, end - at);
    if (word.size() > max_width) word = shorten_name(word, max_width);
    std::string& line = lines.back();
    if (line.empty()) {
      line = std::move(word);
    } else if (line.size() + 1 + word.size() <= max_width) {
      line += " " + word;
    } else {
      lines.push_back(std::move(word));
    }
    at = end + 1;
  }
  return lines;
}

}  // namespace

std::string shorten_name(std::string_view name, size_t width) {
  constexpr size_t kTail = 8;
  if (name.size() <= width) return std::string(name);
  if (width <= kTail + 1) {
    return width == 0 ? std::string() : std::string(name.substr(0, width - 1)) + "~";
  }
  // The tail: from the first separator whose suffix fits half the width, else the last kTail.
  size_t tail = name.size() - kTail;
  for (size_t k = name.size() - width / 2; k < name.size(); ++k) {
    if (is_separator(name[k]) && k + 1 < name.size()) {
      tail = is_separator(name[k - 1]) ? k : k + 1;
      break;
    }
  }
  // The head: up to the last separator that leaves room for the tail, else cut at the room.
  const size_t room = width - 1 - (name.size() - tail);
  size_t head = room;
  for (size_t k = room; k > 0; --k) {
    if (is_separator(name[k])) {
      head = k;
      break;
    }
  }
  return std::string(name.substr(0, head)) + "~" + std::string(name.substr(tail));
}

void TextTable::add_row(std::vector<std::string> cells) {
  for (std::string& cell : cells) {
    for (const char c : cell) {
      const auto b = static_cast<unsigned char>(c);
      if (b < 0x20 || b >= 0x7F) {  // a control, or not ASCII: escape what must be
        cell = printable(cell);
        break;
      }
    }
  }
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  const size_t n = columns_.size();
  // Each column's width with nothing cut, and the width it keeps: its max_width, grown into
  // what the table leaves of the terminal's width (left to right) where its cells are wider.
  std::vector<size_t> natural(n), limit(n);
  for (size_t c = 0; c < n; ++c) {
    natural[c] = columns_[c].header.size();
    for (const auto& row : rows_) {
      if (c < row.size()) natural[c] = std::max(natural[c], row[c].size());
    }
    const size_t cap = columns_[c].max_width;
    limit[c] = cap == 0 ? natural[c] : std::min(natural[c], cap);
  }
  size_t total = 2 * (n > 0 ? n - 1 : 0);
  for (size_t c = 0; c < n; ++c) total += limit[c];
  for (size_t c = 0; c < n && total < report_internal::kTerminalWidth; ++c) {
    const size_t grow = std::min(natural[c] - limit[c], report_internal::kTerminalWidth - total);
    limit[c] += grow;
    total += grow;
  }
  // Each row's cells, each in its lines.
  std::vector<std::vector<std::vector<std::string>>> rows;
  rows.reserve(rows_.size());
  for (const auto& row : rows_) {
    std::vector<std::vector<std::string>>& cells = rows.emplace_back();
    for (size_t c = 0; c < n; ++c) {
      cells.push_back(fit(c < row.size() ? row[c] : std::string(), limit[c]));
    }
  }
  std::vector<size_t> width(n);
  std::vector<std::string> headers(n);
  for (size_t c = 0; c < n; ++c) {
    headers[c] = shorten_name(columns_[c].header, limit[c]);
    width[c] = headers[c].size();
    for (const auto& cells : rows) {
      for (const std::string& line : cells[c]) width[c] = std::max(width[c], line.size());
    }
  }
  std::string out;
  auto emit = [&](auto&& text_of) {
    std::string line;
    for (size_t c = 0; c < n; ++c) {
      std::string text = text_of(c);
      std::string pad(width[c] - text.size(), ' ');
      if (c > 0) line += "  ";
      line += columns_[c].align == Align::kLeft ? text + pad : pad + text;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  emit([&](size_t c) { return headers[c]; });
  emit([&](size_t c) { return std::string(width[c], '-'); });
  for (const auto& cells : rows) {
    size_t height = 1;
    for (const auto& lines : cells) height = std::max(height, lines.size());
    for (size_t k = 0; k < height; ++k) {
      emit([&](size_t c) { return k < cells[c].size() ? cells[c][k] : std::string(); });
    }
  }
  return out;
}

}  // namespace hloroof
