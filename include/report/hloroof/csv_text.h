// CSV (RFC 4180) cells as the commands' --csv tables write them, appended to a text one at a
// time (a table of thousands of rows is not first made into a string per cell).
#ifndef HLOROOF_CSV_TEXT_H_
#define HLOROOF_CSV_TEXT_H_

#include <string>
#include <string_view>

namespace hloroof::report_internal {

// `cell` as it is, or quoted (its quotes doubled) when it holds a comma, a quote or a line
// break. A cell that starts with = + - @, a tab or a carriage return and is not a number gets
// a leading ' so that a spreadsheet shows it as text instead of running it as a formula. Control
// characters other than a tab and line breaks (an escape sequence in a module's metadata) are
// written as \xHH, so that the CSV cannot drive the terminal that shows it.
void append_csv_cell(std::string& out, std::string_view cell);

// `value` as printf's %.15g writes it, else %.16g, else %.17g: the first that reads back as
// the same double ("3", "0.1", "0.30000000000000004", "1e-05"); "inf", "-inf", "nan" for the
// others. Made from the shortest digits that read back (std::to_chars), laid out as %g lays
// them out, without printing and reading back three times.
void append_csv_number(std::string& out, double value);

}  // namespace hloroof::report_internal

#endif  // HLOROOF_CSV_TEXT_H_
