// JSON text written field by field as it is produced, exactly as nlohmann's
// ordered_json::dump(2, ' ', false, error_handler_t::replace) writes the same document: two
// spaces of indentation per level, `"key": value`, empty objects and arrays as {} and [],
// numbers and non-plain strings through nlohmann's own serializer (so doubles, escapes and
// replaced invalid UTF-8 read the same). Large reports are written without first building
// the document; with a sink, at most about 64 KiB of text is held at a time.
#ifndef HLOROOF_LIB_REPORT_JSON_WRITER_H_
#define HLOROOF_LIB_REPORT_JSON_WRITER_H_

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "nlohmann/json.hpp"

namespace hloroof::report_internal {

// Appends `text` as a quoted JSON string, as nlohmann's serializer writes it, when it holds
// only printable ASCII and the characters with a short escape (quote, backslash, \b \t \n \f
// \r); returns false and leaves `out` as it was when it holds anything else (another control
// character, DEL, UTF-8 or invalid UTF-8), which is the serializer's to write. One pass, runs
// of plain bytes appended whole.
inline bool append_plain_json_string(std::string& out, std::string_view text) {
  // 0: written as it is; 1: a short escape; 2: left to the serializer.
  static constexpr std::array<uint8_t, 256> kClass = [] {
    std::array<uint8_t, 256> c{};
    for (int b = 0; b < 256; ++b) c[b] = b < 0x20 || b >= 0x7f ? 2 : 0;
    for (const char b : {'"', '\\', '\b', '\t', '\n', '\f', '\r'}) {
      c[static_cast<unsigned char>(b)] = 1;
    }
    return c;
  }();
  if (text.empty()) {
    out += "\"\"";
    return true;
  }
  const size_t start = out.size();
  out += '"';
  const char* run = text.data();
  const char* const end = text.data() + text.size();
  for (const char* p = run; p != end; ++p) {
    const uint8_t kind = kClass[static_cast<unsigned char>(*p)];
    if (kind == 0) continue;
    if (kind == 2) {
      out.resize(start);
      return false;
    }
    out.append(run, static_cast<size_t>(p - run));
    out += '\\';
    switch (*p) {
      case '\b': out += 'b'; break;
      case '\t': out += 't'; break;
      case '\n': out += 'n'; break;
      case '\f': out += 'f'; break;
      case '\r': out += 'r'; break;
      default: out += *p; break;  // quote, backslash
    }
    run = p + 1;
  }
  out.append(run, static_cast<size_t>(end - run));
  out += '"';
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
