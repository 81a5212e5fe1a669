#include "hloroof/text_table.h"

#include <algorithm>

#include "util/text_safety.h"

namespace hloroof {
namespace {

std::string fit(const std::string& cell, size_t max_width) {
  if (max_width == 0 || cell.size() <= max_width) return cell;
  return cell.substr(0, max_width - 1) + "~";
}

}  // namespace

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
  std::vector<size_t> width(columns_.size());
  auto cell = [&](const std::vector<std::string>& row, size_t c) {
    return fit(c < row.size() ? row[c] : std::string(), columns_[c].max_width);
  };
  for (size_t c = 0; c < columns_.size(); ++c) {
    width[c] = fit(columns_[c].header, columns_[c].max_width).size();
    for (const auto& row : rows_) width[c] = std::max(width[c], cell(row, c).size());
  }
  std::string out;
  auto emit = [&](auto&& text_of) {
    std::string line;
    for (size_t c = 0; c < columns_.size(); ++c) {
      std::string text = text_of(c);
      std::string pad(width[c] - text.size(), ' ');
      if (c > 0) line += "  ";
      line += columns_[c].align == Align::kLeft ? text + pad : pad + text;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  emit([&](size_t c) { return fit(columns_[c].header, columns_[c].max_width); });
  emit([&](size_t c) { return std::string(width[c], '-'); });
  for (const auto& row : rows_) emit([&](size_t c) { return cell(row, c); });
  return out;
}

}  // namespace hloroof
