// JSON text written field by field as it is produced, exactly as nlohmann's
// ordered_json::dump(2, ' ', false, error_handler_t::replace) writes the same document: two
// spaces of indentation per level, `"key": value`, empty objects and arrays as {} and [],
// numbers and non-plain strings through nlohmann's own serializer (so doubles, escapes and
// replaced invalid UTF-8 read the same). Large reports are written without first building
// the document; with a sink, at most about 64 KiB of text is held at a time.
#ifndef HLOROOF_LIB_REPORT_JSON_WRITER_H_
#define HLOROOF_LIB_REPORT_JSON_WRITER_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nlohmann/json.hpp"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace hloroof::report_internal {

// How nlohmann's serializer writes each byte of a string: 0, as it is; 1, a short escape
// (quote, backslash, \b \t \n \f \r); 2, anything else (another control character, DEL,
// UTF-8 or invalid UTF-8), left to the serializer.
inline constexpr std::array<uint8_t, 256> kJsonByteClass = [] {
  std::array<uint8_t, 256> c{};
  for (int b = 0; b < 256; ++b) c[b] = b < 0x20 || b >= 0x7f ? 2 : 0;
  for (const char b : {'"', '\\', '\b', '\t', '\n', '\f', '\r'}) {
    c[static_cast<unsigned char>(b)] = 1;
  }
  return c;
}();

// The number of bytes from `p` on, up to `end`, written as they are (class 0): sixteen at a
// time where SSE2 is there (every x86-64), then one at a time.
inline size_t plain_json_run(const char* p, const char* end) {
  const char* const start = p;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Compared as signed bytes, 0x80-0xff read negative: below 0x20 with the control bytes.
    const __m128i special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                     _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)));
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0) return static_cast<size_t>(p - start) + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (p != end && kJsonByteClass[static_cast<unsigned char>(*p)] == 0) ++p;
  return static_cast<size_t>(p - start);
}

// Appends `text` as a quoted JSON string, as nlohmann's serializer writes it, when it holds
// only printable ASCII and the characters with a short escape; returns false and leaves `out`
// as it was when it holds anything else, which is the serializer's to write. One pass, runs of
// plain bytes appended whole.
inline bool append_plain_json_string(std::string& out, std::string_view text) {
  const size_t start = out.size();
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  size_t run = plain_json_run(p, end);
  if (run == text.size()) {  // the common case: nothing to escape
    out.resize(start + text.size() + 2);
    char* o = out.data() + start;
    *o = '"';
    if (!text.empty()) std::memcpy(o + 1, text.data(), text.size());
    o[text.size() + 1] = '"';
    return true;
  }
  out += '"';
  for (;;) {
    out.append(p, run);
    p += run;
    if (p == end) break;
    if (kJsonByteClass[static_cast<unsigned char>(*p)] == 2) {
      out.resize(start);
      return false;
    }
    char escape[2] = {'\\', *p};
    switch (*p) {
      case '\b': escape[1] = 'b'; break;
      case '\t': escape[1] = 't'; break;
      case '\n': escape[1] = 'n'; break;
      case '\f': escape[1] = 'f'; break;
      case '\r': escape[1] = 'r'; break;
      default: break;  // quote, backslash
    }
    out.append(escape, 2);
    ++p;
    run = plain_json_run(p, end);
  }
  out += '"';
  return true;
}

// Appends `x` as nlohmann's serializer writes a double when it is a whole number below 1e15 in
// magnitude: its digits and ".0" ("880.0", "-0.0"; to_chars in nlohmann/detail/conversions/
// to_chars.hpp, 3.11.2: a value whose digits end at or before the decimal point, at most
// digits10 = 15 of them, is written as digits, zeros, ".0"; a whole number below 1e15 is exact,
// and no shorter digits come within half its spacing); returns false for any other value
// (fractions, larger, NaN, infinities), which is the serializer's to write.
inline bool append_whole_json_double(std::string& out, double x) {
  if (!(std::fabs(x) < 1e15) || x != std::trunc(x)) return false;
  char text[24];
  char* const end = text + sizeof(text);
  char* p = end;
  *--p = '0';
  *--p = '.';
  auto v = static_cast<uint64_t>(std::fabs(x));
  do {
    *--p = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (std::signbit(x)) *--p = '-';
  out.append(p, static_cast<size_t>(end - p));
  return true;
}

class JsonWriter {
 public:
  using Json = nlohmann::ordered_json;

  // Appends to `out`; with a `sink`, moves what `out` holds into it once that passes 64 KiB,
  // and at finish().
  explicit JsonWriter(std::string& out, std::ostream* sink = nullptr);

  // Values: at the top, as an array's next element, or as the value of the key just written.
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void value(const Json& j);
  void string(std::string_view text);
  void null();
  void boolean(bool b);
  // A number as nlohmann writes a value of this C++ type (an integer, or a double's shortest
  // form that reads back: 3.0, 0.1, 1e-07).
  template <typename T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  void number(T n) {
    before_value();
    if constexpr (std::is_floating_point_v<T>) {
      if (append_whole_json_double(out_, static_cast<double>(n))) return;
    }
    serializer_.dump(Json(n), true, false, 2, indent());
  }

  // The key of an object's next field (any text; plain ASCII is written as it is).
  void key(std::string_view name);
  // key + value, for the common cases.
  void field(std::string_view name, const Json& j) {
    key(name);
    value(j);
  }
  void text_field(std::string_view name, std::string_view text) {
    key(name);
    string(text);
  }
  template <typename T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  void number_field(std::string_view name, T n) {
    key(name);
    number(n);
  }
  void bool_field(std::string_view name, bool b) {
    key(name);
    boolean(b);
  }
  // An array of strings, as a std::vector<std::string> converts to JSON.
  void strings_field(std::string_view name, const std::vector<std::string>& texts);

  // Hands what is left to the sink (call once the document is closed).
  void finish();

 private:
  struct Level {
    bool object = false;
    size_t count = 0;
  };
  unsigned indent() const { return static_cast<unsigned>(2 * levels_.size()); }
  void before_value();
  char* new_line(bool first, size_t more);
  void write_string(std::string_view text);
  void close(char bracket);
  void maybe_flush();

  std::string& out_;
  std::ostream* sink_;
  nlohmann::detail::serializer<Json> serializer_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace hloroof::report_internal

#endif  // HLOROOF_LIB_REPORT_JSON_WRITER_H_
