// Aligned plain-text tables for terminal reports.
#ifndef HLOROOF_TEXT_TABLE_H_
#define HLOROOF_TEXT_TABLE_H_

#include <string>
#include <vector>

namespace hloroof {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kRight;
    size_t max_width = 0;  // 0: unlimited; longer cells are cut with "~" at the end
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
