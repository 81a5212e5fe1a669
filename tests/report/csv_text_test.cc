// The --csv tables' cells: quoted as RFC 4180 wants, and numbers as printf's %.15g, %.16g or
// %.17g writes them, the first that reads back (what the tables printed before they were
// written cell by cell).
#include "hloroof/csv_text.h"

#include <catch2/catch.hpp>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"

namespace hloroof::report_internal {
namespace {

std::string cell(std::string_view text) {
  std::string out;
  append_csv_cell(out, text);
  return out;
}

std::string number(double x) {
  std::string out;
  append_csv_number(out, x);
  return out;
}

// The definition: printf, read back by strtod.
std::string printed(double x) {
  for (int digits = 15; digits < 17; ++digits) {
    std::string text = absl::StrFormat("%.*g", digits, x);
    if (std::strtod(text.c_str(), nullptr) == x || !std::isfinite(x)) return text;
  }
  return absl::StrFormat("%.17g", x);
}

TEST_CASE("a CSV cell a spreadsheet would run as a formula is written as text") {
  // OWASP's CSV injection rule: = + - @, a tab or a carriage return first.
  CHECK(cell("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(cell("+cmd|' /C calc'!A0") == "'+cmd|' /C calc'!A0");
  CHECK(cell("-2+3+cmd|' /C calc'!A0") == "'-2+3+cmd|' /C calc'!A0");
  CHECK(cell("@SUM(A1)") == "'@SUM(A1)");
  CHECK(cell("\tx") == "'\tx");
  // Numbers, and the dash of an empty figure, are left as they are.
  CHECK(cell("-2") == "-2");
  CHECK(cell("+1e3") == "+1e3");
  CHECK(cell("-0.5") == "-0.5");
  CHECK(cell("-") == "-");
  CHECK(cell("fusion.12-x") == "fusion.12-x");
  // An escape sequence from a module's metadata: written as text, and the formula guarded after.
  CHECK(cell("\x1b[2J") == "\\x1b[2J");
  CHECK(cell("=\x07") == "'=\\x07");
  // Found at every place, in a block of 16 or in the tail; a tab stays a tab.
  for (size_t size : {15, 16, 17, 33}) {
    const std::string plain(size, 'x');
    for (size_t at = 1; at < size; ++at) {
      std::string text = plain;
      text[at] = '\x1b';
      CHECK(cell(text) == plain.substr(0, at) + "\\x1b" + plain.substr(at + 1));
      text[at] = '\t';
      CHECK(cell(text) == text);
    }
  }
}

TEST_CASE("a CSV cell is quoted when it holds a comma, a quote or a line break") {
  CHECK(cell("fusion.12") == "fusion.12");
  CHECK(cell("") == "");
  CHECK(cell("a,b") == "\"a,b\"");
  CHECK(cell("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(cell("\"") == "\"\"\"\"");
  CHECK(cell("line\nbreak\r") == "\"line\nbreak\r\"");
  // Long cells are looked at 16 bytes at a time: each special byte at each place, in a block
  // of 16 or in the tail after the blocks, makes the cell quoted; none leaves it as it is.
  for (size_t size : {15, 16, 17, 31, 32, 47, 100}) {
    const std::string plain(size, 'x');
    CHECK(cell(plain) == plain);
    for (size_t at = 0; at < size; ++at) {
      for (char c : {',', '"', '\r', '\n'}) {
        std::string text = plain;
        text[at] = c;
        std::string quoted = text;
        if (c == '"') quoted.insert(at, 1, '"');
        // A leading carriage return is a formula's start to a spreadsheet: a ' before it.
        if (c == '\r' && at == 0) quoted.insert(0, 1, '\'');
        CHECK(cell(text) == "\"" + quoted + "\"");
      }
    }
  }
}

TEST_CASE("CSV numbers: the fewest of 15, 16 or 17 digits that read back, laid out as %g") {
  CHECK(number(3) == "3");
  CHECK(number(0.1) == "0.1");
  CHECK(number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(number(1e-5) == "1e-05");  // %g: exponent below -4
  CHECK(number(0.0001) == "0.0001");
  CHECK(number(1e15) == "1e+15");  // exponent 15, not below the precision 15
  CHECK(number(123456789012345.0) == "123456789012345");
  CHECK(number(1234567890123456.0) == "1234567890123456");  // 16 digits: precision 16
  CHECK(number(999999999999999.0) == "999999999999999");  // the largest whole of 15 digits
  CHECK(number(-42) == "-42");
  CHECK(number(-0.0) == "-0");
  CHECK(number(-2.5) == "-2.5");
  CHECK(number(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(number(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(number(std::numeric_limits<double>::quiet_NaN()) == "nan");

  // The same text as the definition for every kind of double: random bits (subnormals among
  // them), times and byte counts as predictions hold them, each power of two and of ten and
  // their neighbours (where the ulp below differs from the one above).
  std::vector<double> values;
  std::mt19937_64 random(31);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 50000; ++i) {
    values.push_back(std::bit_cast<double>(random()));
    const double u = unit(random);
    for (double x : {u, u * 1e-6, u * 1e6, std::round(u * 1e12), -std::round(u * 1e15),
                     std::round(u * 1e17), 1 / (u + 1e-3)}) {
      values.push_back(x);
    }
  }
  for (int e = -1074; e < 1024; ++e) {
    const double p = std::ldexp(1.0, e);
    for (double x : {p, -p, std::nextafter(p, 0.0), std::nextafter(p, 2 * p), 3 * p, 10 * p}) {
      values.push_back(x);
    }
  }
  for (int e = -320; e < 309; ++e) {
    const double p = std::pow(10.0, e);
    for (double x : {p, std::nextafter(p, 0.0), std::nextafter(p, 2 * p), 1.5 * p}) {
      values.push_back(x);
    }
  }
  // Each value twice in a row and all of them twice over: the second writing of a value comes
  // from the numbers already written, where it has not been pushed out since.
  size_t differ = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (double x : values) {
      for (const std::string& made : {number(x), number(x)}) {
        if (made == printed(x)) continue;
        if (++differ <= 5) {
          UNSCOPED_INFO(absl::StrFormat("%a: %s, printf %s", x, made, printed(x)));
        }
      }
    }
  }
  CHECK(differ == 0);
}

}  // namespace
}  // namespace hloroof::report_internal
