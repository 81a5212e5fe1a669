// Aligned plain-text tables for terminal reports.
#ifndef HLOROOF_TEXT_TABLE_H_
#define HLOROOF_TEXT_TABLE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hloroof {

// `name` in at most `width` columns: as it is when it fits, else its start and its end joined
// by "~", each cut at a separator (. _ - /) where the name has one (XLA's names differ at the
// end: "gemm_fusion_dot.general.51" in 22 -> "gemm_fusion~general.51").
std::string shorten_name(std::string_view name, size_t width);

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kRight;
    // 0: unlimited. Otherwise the column's width where the table would be wider than 100
    // columns; where it is narrower, the column grows into what is left (the columns left to
    // right). A cell longer than its column's width wraps at its spaces onto the lines below
    // (the row's other cells empty there); one word (a name) is shortened (shorten_name).
    size_t max_width = 0;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // Missing cells print empty; extra cells are ignored. Control characters in a cell (a
  // newline, an escape sequence from a name in a profile) print escaped (`\n`, `\x1b`): a
  // cell never breaks its line or drives the terminal.
  void add_row(std::vector<std::string> cells);
  // Header, a rule, then the rows; columns separated by two spaces, no trailing spaces.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hloroof

#endif  // HLOROOF_TEXT_TABLE_H_
