#include "hloroof/csv_text.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/strings/str_format.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace hloroof::report_internal {

namespace {

// A control character a CSV cell has no use for (not a tab or a line break): an escape
// sequence from a module's metadata would drive the terminal that shows the CSV.
bool stray_control(char c) {
  const auto b = static_cast<unsigned char>(c);
  return (b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f;
}

// What one pass over `cell` finds: a byte that makes it quoted (comma, quote, line break), and
// a stray control character. 16 bytes at a time where SSE2 is there (every x86-64).
struct CellScan {
  bool quoted = false;
  bool control = false;
};
CellScan scan(std::string_view cell) {
  CellScan found;
  size_t k = 0;
#ifdef __SSE2__
  const __m128i comma = _mm_set1_epi8(','), quote = _mm_set1_epi8('"');
  const __m128i cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
  const __m128i tab = _mm_set1_epi8('\t'), del = _mm_set1_epi8(0x7f);
  const __m128i below_space = _mm_set1_epi8(0x1f);
  for (; k + 16 <= cell.size() && !(found.quoted && found.control); k += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cell.data() + k));
    const __m128i breaks = _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf));
    const __m128i quoting =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, quote)), breaks);
    // v <= 0x1f (unsigned), less tab and line breaks; or DEL.
    const __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v);
    const __m128i control = _mm_or_si128(
        _mm_andnot_si128(_mm_or_si128(breaks, _mm_cmpeq_epi8(v, tab)), low),
        _mm_cmpeq_epi8(v, del));
    found.quoted = found.quoted || _mm_movemask_epi8(quoting) != 0;
    found.control = found.control || _mm_movemask_epi8(control) != 0;
  }
#endif
  for (; k < cell.size() && !(found.quoted && found.control); ++k) {
    const char c = cell[k];
    found.quoted = found.quoted || c == ',' || c == '"' || c == '\r' || c == '\n';
    found.control = found.control || stray_control(c);
  }
  return found;
}

// Whether a spreadsheet would read `cell` as a formula: it starts with = + - @, a tab or a
// carriage return, and is not a number ("-2", "+1e3"). OWASP's rule for CSV injection.
bool formula_like(std::string_view cell) {
  if (cell.empty()) return false;
  const char c = cell.front();
  if (c != '=' && c != '+' && c != '-' && c != '@' && c != '\t' && c != '\r') return false;
  double ignored = 0;
  const std::string_view digits = cell.substr(cell.front() == '+' ? 1 : 0);
  const std::from_chars_result r =
      std::from_chars(digits.data(), digits.data() + digits.size(), ignored);
  const bool number = r.ec == std::errc() && r.ptr == digits.data() + digits.size();
  return !number && cell != "-";
}

// `cell` with its stray control characters written as \xHH.
std::string without_stray_controls(std::string_view cell) {
  std::string out;
  out.reserve(cell.size() + 8);
  for (char c : cell) {
    if (stray_control(c)) {
      out += absl::StrFormat("\\x%02x", static_cast<unsigned char>(c));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

void append_csv_cell(std::string& out, std::string_view raw) {
  // One pass finds both; escaping a control character adds no byte that needs quotes.
  const CellScan found = scan(raw);
  std::string escaped;
  std::string_view cell = raw;
  if (found.control) {
    escaped = without_stray_controls(raw);
    cell = escaped;
  }
  // A cell a spreadsheet would run as a formula is written as text: after a quote mark.
  const bool formula = formula_like(cell);
  if (!found.quoted) {
    if (formula) out += '\'';
    out.append(cell);
    return;
  }
  out += '"';
  if (formula) out += '\'';
  // Runs up to each quote copied whole, the quote written twice.
  for (size_t at = 0;;) {
    const size_t quote = cell.find('"', at);
    if (quote == std::string_view::npos) {
      out.append(cell.substr(at));
      break;
    }
    out.append(cell.substr(at, quote + 1 - at));
    out += '"';
    at = quote + 1;
  }
  out += '"';
}

namespace {

// printf's %.15g, %.16g, %.17g in turn until one reads back as `value`, into `o` (32 chars).
char* write_by_trying(char* o, double value) {
  for (int digits = 15;; ++digits) {
    const std::to_chars_result made =
        std::to_chars(o, o + 32, value, std::chars_format::general, digits);
    double back = 0;
    std::from_chars(o, made.ptr, back);
    if (back == value || digits == 17) return made.ptr;
  }
}

// A finite, nonzero `value` as append_csv_number writes it, into `o` (32 chars); returns the
// end.
char* write_number(char* o, double value) {
  // The shortest digits that read back, d.ddde±XX: n of them, and the exponent X. Where n <= 15
  // they are %.15g's digits: the double nearest them lies within half an ulp (at most 2^-53 of
  // the value) of `value`, closer than half the spacing of 15-digit decimals (at least 5e-16
  // of it). Where n is 16 or 17, %.15g does not read back (shorter digits would) and the
  // digits are %.ng's (the nearest n-digit decimal reads back, to_chars takes the nearest),
  // but for 16 digits next to a power of two, whose ulp below is half the one above (the
  // nearest may fall below and not read back). Subnormals have fewer digits than 15 that
  // read back more than once: both tried as printf would be.
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  if (std::fabs(value) < std::numeric_limits<double>::min()) return write_by_trying(o, value);
  char scientific[32];
  char* const end =
      std::to_chars(scientific, scientific + sizeof scientific, value,
                    std::chars_format::scientific)
          .ptr;
  const char* p = scientific + (value < 0 ? 1 : 0);
  char digits[20];
  int n = 0;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits[n++] = *p;
  }
  int exponent = 0;
  std::from_chars(p + 2, end, exponent);  // after "e+" or "e-"
  if (p[1] == '-') exponent = -exponent;
  const bool power_of_two = (bits & ((uint64_t{1} << 52) - 1)) == 0;
  if (n == 16 && power_of_two) return write_by_trying(o, value);
  // %.Pg: scientific when X < -4 or X >= P, else fixed, trailing zeros dropped either way.
  const int precision = std::max(n, 15);
  if (exponent < -4 || exponent >= precision) return std::copy(scientific, end, o);
  if (value < 0) *o++ = '-';
  if (exponent < 0) {
    *o++ = '0';
    *o++ = '.';
    o = std::fill_n(o, -exponent - 1, '0');
    return std::copy_n(digits, n, o);
  }
  if (n <= exponent + 1) return std::fill_n(std::copy_n(digits, n, o), exponent + 1 - n, '0');
  o = std::copy_n(digits, exponent + 1, o);
  *o++ = '.';
  return std::copy(digits + exponent + 1, digits + n, o);
}

// The numbers each thread wrote last, by the hash of their bits: a table's columns hold few
// distinct values (gemma3's three devices: 1,478 among 375,614 times), each made once.
struct Written {
  uint64_t bits = 0;  // 0 is +0.0, which never comes here
  uint8_t size = 0;
  char text[32];
};
constexpr int kWrittenBits = 10;

}  // namespace

void append_csv_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    absl::StrAppendFormat(&out, "%.15g", value);
    return;
  }
  if (value == 0) {
    out += std::signbit(value) ? "-0" : "0";
    return;
  }
  // A whole number under 10^15 in magnitude: %.15g writes its digits, the integer's.
  if (std::fabs(value) < 1e15 && std::trunc(value) == value) {
    char text[24];
    out.append(text, std::to_chars(text, text + sizeof text, static_cast<int64_t>(value)).ptr);
    return;
  }
  thread_local std::array<Written, size_t{1} << kWrittenBits> written;
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  // Fibonacci hashing: the top bits of the bits times 2^64 / golden ratio.
  Written& w = written[(bits * 0x9e3779b97f4a7c15ull) >> (64 - kWrittenBits)];
  if (w.bits != bits) {
    w.size = static_cast<uint8_t>(write_number(w.text, value) - w.text);
    w.bits = bits;
  }
  out.append(w.text, w.size);
}

}  // namespace hloroof::report_internal
