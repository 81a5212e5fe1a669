// JSON text written field by field as it is produced, exactly as nlohmann's
// ordered_json::dump(2, ' ', false, error_handler_t::replace) writes the same document: two
// spaces of indentation per level, `"key": value`, empty objects and arrays as {} and [],
// doubles through nlohmann's own to_chars (grisu2) and strings beyond plain ASCII through its
// serializer (so doubles, escapes and replaced invalid UTF-8 read the same). Large reports are
// written without first building the document; with a sink, at most about 64 KiB of text (and
// a piece being written) is held at a time.
#ifndef HLOROOF_LIB_REPORT_JSON_WRITER_H_
#define HLOROOF_LIB_REPORT_JSON_WRITER_H_

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

inline uint64_t load8(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline uint32_t load4(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

#ifdef __SSE2__
// Which of the sixteen bytes of `v` are not written as they are: one bit each.
inline int special_json_bytes(__m128i v) {
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i space = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
  // Compared as signed bytes, 0x80-0xff read negative: below 0x20 with the control bytes.
  const __m128i special =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                   _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)));
  return _mm_movemask_epi8(special);
}

#endif

// The number of bytes from `p` on, up to `end`, written as they are (class 0): sixteen at a
// time where SSE2 is there (every x86-64), and a tail of 4 to 15 bytes as two loads that
// overlap (its first and last 8 or 4 bytes: never a byte past `end`); else one at a time.
inline size_t plain_json_run(const char* p, const char* end) {
  const char* const start = p;
#ifdef __SSE2__
  while (end - p >= 16) {
    const int mask = special_json_bytes(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    if (mask != 0) return static_cast<size_t>(p - start) + __builtin_ctz(mask);
    p += 16;
  }
  const auto left = static_cast<size_t>(end - p);
  if (left >= 4) {
    // Lanes 0-7 (0-3) hold the tail's first bytes, lanes 8-15 (4-7) its last.
    const size_t half = left >= 8 ? 8 : 4;
    const __m128i v =
        half == 8 ? _mm_set_epi64x(static_cast<int64_t>(load8(end - 8)),
                                   static_cast<int64_t>(load8(p)))
                  : _mm_set_epi32(0, 0, static_cast<int32_t>(load4(end - 4)),
                                  static_cast<int32_t>(load4(p)));
    const int mask = special_json_bytes(v) & (half == 8 ? 0xffff : 0xff);
    if (mask == 0) return static_cast<size_t>(end - start);
    const int first = __builtin_ctz(mask);
    // A lane of the second half is byte left - 2 half + lane (the first half had none).
    return static_cast<size_t>(p - start) +
           (first < static_cast<int>(half) ? static_cast<size_t>(first) : left - 2 * half + first);
  }
#endif
  while (p != end && kJsonByteClass[static_cast<unsigned char>(*p)] == 0) ++p;
  return static_cast<size_t>(p - start);
}

// Copies `n` bytes as memcpy does, inline for the short runs strings are made of: up to 32
// bytes as two copies that overlap.
inline void copy_bytes(char* o, const char* p, size_t n) {
  if (n >= 16) {
    if (n > 32) {
      std::memcpy(o, p, n);
      return;
    }
    char a[16], b[16];
    std::memcpy(a, p, 16);
    std::memcpy(b, p + n - 16, 16);
    std::memcpy(o, a, 16);
    std::memcpy(o + n - 16, b, 16);
  } else if (n >= 8) {
    const uint64_t a = load8(p), b = load8(p + n - 8);
    std::memcpy(o, &a, 8);
    std::memcpy(o + n - 8, &b, 8);
  } else if (n >= 4) {
    const uint32_t a = load4(p), b = load4(p + n - 4);
    std::memcpy(o, &a, 4);
    std::memcpy(o + n - 4, &b, 4);
  } else if (n > 0) {
    o[0] = p[0];
    o[n / 2] = p[n / 2];
    o[n - 1] = p[n - 1];
  }
}

// Writes `text` at `o` as a quoted JSON string, as nlohmann's serializer writes it, when it
// holds only printable ASCII and the characters with a short escape, and returns the end of
// what it wrote (at most 2 * size + 2 bytes); returns null when it holds anything else, which
// is the serializer's to write. One pass, runs of plain bytes copied whole.
inline char* plain_json_string(char* o, std::string_view text) {
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  *o++ = '"';
  for (;;) {
    const size_t run = plain_json_run(p, end);
    copy_bytes(o, p, run);
    o += run;
    p += run;
    if (p == end) break;
    if (kJsonByteClass[static_cast<unsigned char>(*p)] == 2) return nullptr;
    o[0] = '\\';
    switch (*p) {
      case '\b': o[1] = 'b'; break;
      case '\t': o[1] = 't'; break;
      case '\n': o[1] = 'n'; break;
      case '\f': o[1] = 'f'; break;
      case '\r': o[1] = 'r'; break;
      default: o[1] = *p; break;  // quote, backslash
    }
    o += 2;
    ++p;
  }
  *o++ = '"';
  return o;
}

// "00" "01" ... "99": two digits at a time.
inline constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> d{};
  for (int k = 0; k < 100; ++k) {
    d[2 * k] = static_cast<char>('0' + k / 10);
    d[2 * k + 1] = static_cast<char>('0' + k % 10);
  }
  return d;
}();

// Writes `x` at `o` as nlohmann's serializer writes a double when it is a whole number below
// 1e15 in magnitude: its digits and ".0" ("880.0", "-0.0"; to_chars in nlohmann/detail/
// conversions/to_chars.hpp, 3.11.2: a value whose digits end at or before the decimal point,
// at most digits10 = 15 of them, is written as digits, zeros, ".0"; a whole number below 1e15
// is exact, and no shorter digits come within half its spacing); returns the end of what it
// wrote (at most 19 bytes), or null for any other value (fractions, larger, NaN, infinities),
// which is the serializer's to write.
inline char* whole_json_double(char* o, double x) {
  if (!(std::fabs(x) < 1e15) || x != std::trunc(x)) return nullptr;
  if (std::signbit(x)) *o++ = '-';
  auto v = static_cast<uint64_t>(std::fabs(x));
  // Its digits (at most 15), written from the last, two at a time.
  int digits = 1;
  for (uint64_t power = 10; digits < 15 && v >= power; power *= 10) ++digits;
  char* p = o + digits;
  while (v >= 100) {
    const uint64_t pair = v % 100;
    v /= 100;
    p -= 2;
    std::memcpy(p, &kDigitPairs[2 * pair], 2);
  }
  if (v >= 10) {
    std::memcpy(p - 2, &kDigitPairs[2 * v], 2);
  } else {
    p[-1] = static_cast<char>('0' + v);
  }
  o += digits;
  o[0] = '.';
  o[1] = '0';
  return o + 2;
}

// whole_json_double, appended to `out`; false (and `out` as it was) for other values.
inline bool append_whole_json_double(std::string& out, double x) {
  char text[24];
  const char* const end = whole_json_double(text, x);
  if (end == nullptr) return false;
  out.append(text, static_cast<size_t>(end - text));
  return true;
}

// Text of a JSON document as it is written: held in a buffer of its own and written through a
// cursor (no string growth per piece), then handed over in pieces: with a sink, to it once it
// holds 64 KiB (at flush_if_full()) and at finish(); without, appended to `out` whenever the
// buffer fills, at finish() and at the latest when this is destroyed.
class JsonText {
 public:
  using Json = nlohmann::ordered_json;

  // The buffer's size when none is given: a flush's worth and as much again.
  static constexpr size_t kBufferBytes = 128 << 10;

  JsonText(std::string& out, std::ostream* sink, size_t buffer_bytes = kBufferBytes);
  ~JsonText();
  JsonText(const JsonText&) = delete;
  JsonText& operator=(const JsonText&) = delete;

  // Room for `n` more bytes at the cursor; write them, then advance(that many).
  char* room(size_t n) {
    if (static_cast<size_t>(end_ - cursor_) < n) make_room(n);
    return cursor_;
  }
  void advance(char* to) { cursor_ = to; }
  void append(const char* text, size_t n) {
    char* o = room(n);
    std::memcpy(o, text, n);
    cursor_ = o + n;
  }
  void append(std::string_view text) { append(text.data(), text.size()); }
  void put(char c) { *room(1) = c, ++cursor_; }

  // `text` quoted and escaped as nlohmann's serializer writes a string (invalid UTF-8
  // replaced): the common text here, anything else through the serializer.
  void string(std::string_view text);
  // string(text), for a text that repeats and stays where it lies while this lives (a text of
  // a prediction's pool, an explanation): its quoted text is kept by where it lies, and copied
  // when it comes again (the first kMaxRepeated texts, of at most kRepeatedBytes in all).
  void repeated_string(std::string_view text);
  // `x` as nlohmann's serializer writes a double: null when not finite, else its to_chars
  // (grisu2; a value seen before is copied from a small table of the last ones written, since
  // reports repeat the same few hundred values thousands of times). Returns the text written,
  // valid until the next write.
  std::string_view number(double x);
  // An integer as nlohmann writes it: its decimal digits.
  template <typename T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  void number(T n) {
    char* o = room(24);
    cursor_ = std::to_chars(o, o + 24, n).ptr;
  }
  // `j` as dump(j, pretty, false, step, indent) writes it.
  void value(const Json& j, bool pretty, unsigned indent, unsigned step = 2);

  // The bytes not yet handed over.
  size_t held() const { return static_cast<size_t>(cursor_ - begin_); }
  // With a sink, hands the text over once it holds 64 KiB.
  void flush_if_full() {
    if (sink_ != nullptr && held() >= kFlushBytes) hand_over();
  }
  // Hands what is held to the sink or `out`.
  void hand_over();
  // Without a sink: writes to `sink` what `out` was given, then what is held, and empties both
  // (a piece of a document made apart from the rest, written in its turn).
  void write_to(std::ostream& sink);

 private:
  static constexpr size_t kFlushBytes = 64 << 10;
  static constexpr size_t kMaxRepeated = 4096;
  static constexpr size_t kRepeatedBytes = 1 << 20;
  // The last doubles written, by a hash of their bits: the bits and the text.
  struct Written {
    uint64_t bits;
    uint8_t size;
    char text[31];
  };
  static constexpr int kWrittenBits = 12;

  void make_room(size_t n);

  std::string& out_;
  std::ostream* sink_;
  std::unique_ptr<char[]> buffer_;
  char* begin_;
  char* cursor_;
  char* end_;
  std::unique_ptr<Written[]> written_;  // made at the first double
  std::unique_ptr<nlohmann::detail::serializer<Json>> serializer_;  // made when needed
  // repeated_string's: where each text lies (and its size) -> where its quoted text lies in
  // repeated_text_ (and its size).
  absl::flat_hash_map<std::pair<const char*, size_t>, std::pair<size_t, size_t>> repeated_;
  std::string repeated_text_;
};

// An object's key written as a string literal: plain ASCII (nothing to escape), checked as
// the program is compiled (a literal that is not fails to compile: pass it as a string_view),
// and its size known where it is written, so that its line is written without reading it.
class PlainKey {
 public:
  template <size_t N>
  consteval PlainKey(const char (&name)[N])  // implicit: a literal converts to it
      : data_(name), size_(N - 1) {
    for (size_t k = 0; k + 1 < N; ++k) {
      if (kJsonByteClass[static_cast<unsigned char>(name[k])] != 0) {
        throw "a PlainKey holds printable ASCII other than quote and backslash";
      }
    }
  }
  constexpr const char* data() const { return data_; }
  constexpr size_t size() const { return size_; }

 private:
  const char* data_;
  size_t size_;
};

class JsonWriter {
 public:
  using Json = nlohmann::ordered_json;

  // Writes to `out`; with a `sink`, hands the text to it in pieces of about 64 KiB (once a
  // container closes past that), and at finish(). The text reaches `out` (without a sink) at
  // finish().
  // `indent_step`: the spaces of indentation per level (dump(indent_step, ...)).
  explicit JsonWriter(std::string& out, std::ostream* sink = nullptr, unsigned indent_step = 2);
  // A writer of pieces (continue_at, below) that holds up to `buffer_bytes` of text before
  // it gives any to `out`: a piece that fits is written from where it was made.
  JsonWriter(std::string& out, size_t buffer_bytes);

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
      text_.number(static_cast<double>(n));
    } else {
      text_.number(n);
    }
  }

  // The key of an object's next field: a literal (PlainKey), or any text (plain ASCII is
  // written as it is, anything else as the serializer writes it).
  void key(PlainKey name) {
    Level& level = levels_.back();
    const bool first = level.count++ == 0;
    after_key_ = true;
    // `"name": ` after the line's start; the name's size is known where it is written.
    char* o = new_line(first, name.size() + 4);
    *o++ = '"';
    std::memcpy(o, name.data(), name.size());
    o += name.size();
    std::memcpy(o, "\": ", 3);
    text_.advance(o + 3);
  }
  template <typename S>
    requires(std::is_convertible_v<const S&, std::string_view> && !std::is_array_v<S>)
  void key(const S& name) {
    any_key(std::string_view(name));
  }
  // key + value, for the common cases (dynamic keys: key(), then the value).
  void field(PlainKey name, const Json& j) {
    key(name);
    value(j);
  }
  void text_field(PlainKey name, std::string_view text) {
    key(name);
    string(text);
  }
  // text_field for a text that repeats and stays where it lies while this writer lives (a
  // text of a prediction's pool, an explanation): JsonText::repeated_string.
  void repeated_text_field(PlainKey name, std::string_view text) {
    key(name);
    before_value();
    text_.repeated_string(text);
  }
  template <typename T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  void number_field(PlainKey name, T n) {
    key(name);
    number(n);
  }
  void bool_field(PlainKey name, bool b) {
    key(name);
    boolean(b);
  }
  // An array of strings, as a std::vector<std::string> converts to JSON.
  void strings_field(PlainKey name, const std::vector<std::string>& texts);
  // Text after the document (a final newline), written as it is.
  void raw(std::string_view text) { text_.append(text); }

  // Hands what is left to the sink, or to `out` (call once the document is closed).
  void finish() { text_.hand_over(); }

  // Pieces of one container's values made apart (on several threads) and written in turn:
  // the writer of the whole hands what it holds to its sink first (finish()), each piece's
  // writer (without a sink, room for a piece) continues_at() it, writes its values, then
  // write_to() the sink in the piece's turn; the writer of the whole then counts_values() the
  // pieces wrote.
  // Makes this writer write where `whole` stands, inside the same containers, the innermost
  // holding `values` values before the piece (its caches of numbers and texts kept).
  void continue_at(const JsonWriter& whole, size_t values) {
    indent_step_ = whole.indent_step_;
    levels_ = whole.levels_;
    levels_.back().count = values;
    after_key_ = false;
  }
  void write_to(std::ostream& sink) { text_.write_to(sink); }
  void count_values(size_t n) { levels_.back().count += n; }
  // The bytes held and not yet handed over.
  size_t held() const { return text_.held(); }

 private:
  struct Level {
    bool object = false;
    size_t count = 0;
  };
  static constexpr char kSpaces[17] = "                ";

  unsigned indent() const { return static_cast<unsigned>(indent_step_ * levels_.size()); }
  void before_value();
  // Writes ",\n" (or "\n" for the first) and the indentation, with room for `more` bytes
  // after it; returns where those go (the caller writes them and advances the text past them).
  char* new_line(bool first, size_t more) {
    const size_t pad = indent();
    char* o = text_.room(2 + pad + sizeof(kSpaces) + more);
    *o = ',';
    o += first ? 0 : 1;
    *o++ = '\n';
    if (pad < sizeof(kSpaces)) {
      std::memcpy(o, kSpaces, sizeof(kSpaces) - 1);  // a fixed size; the rest is overwritten
    } else {
      std::memset(o, ' ', pad);
    }
    return o + pad;
  }
  void any_key(std::string_view name);
  void close(char bracket);

  JsonText text_;
  unsigned indent_step_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace hloroof::report_internal

#endif  // HLOROOF_LIB_REPORT_JSON_WRITER_H_
