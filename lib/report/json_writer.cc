#include "report/json_writer.h"

#include <cstring>

namespace hloroof::report_internal {
namespace {

// No double has these bits in the table: NaN is written as null, never looked up.
constexpr uint64_t kNoDouble = 0x7ff8000000000001ull;

// What the serializer writes (strings beyond plain ASCII, values handed over whole), into
// the text at its cursor.
class TextAdapter final : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit TextAdapter(JsonText& text) : text_(text) {}
  void write_character(char c) override { text_.put(c); }
  void write_characters(const char* s, std::size_t length) override { text_.append(s, length); }

 private:
  JsonText& text_;
};

}  // namespace

JsonText::JsonText(std::string& out, std::ostream* sink, size_t buffer_bytes)
    : out_(out),
      sink_(sink),
      buffer_(new char[buffer_bytes]),
      begin_(buffer_.get()),
      cursor_(begin_),
      end_(begin_ + buffer_bytes) {}

JsonText::~JsonText() {
  if (sink_ == nullptr) hand_over();
}

void JsonText::hand_over() {
  if (sink_ != nullptr) {
    sink_->write(begin_, static_cast<std::streamsize>(held()));
  } else {
    out_.append(begin_, held());
  }
  cursor_ = begin_;
}

void JsonText::write_to(std::ostream& sink) {
  sink.write(out_.data(), static_cast<std::streamsize>(out_.size()));
  out_.clear();
  sink.write(begin_, static_cast<std::streamsize>(held()));
  cursor_ = begin_;
}

void JsonText::make_room(size_t n) {
  hand_over();
  const auto size = static_cast<size_t>(end_ - begin_);
  if (size >= n) return;
  buffer_.reset(new char[n]);
  begin_ = cursor_ = buffer_.get();
  end_ = begin_ + n;
}

void JsonText::string(std::string_view text) {
  if (char* end = plain_json_string(room(2 * text.size() + 2), text)) {
    cursor_ = end;
    return;
  }
  value(Json(std::string(text)), false, 0);
}

void JsonText::repeated_string(std::string_view text) {
  const std::pair<const char*, size_t> place(text.data(), text.size());
  if (auto it = repeated_.find(place); it != repeated_.end()) {
    append(repeated_text_.data() + it->second.first, it->second.second);
    return;
  }
  char* const o = room(2 * text.size() + 2);
  char* const end = plain_json_string(o, text);
  if (end == nullptr) {
    value(Json(std::string(text)), false, 0);
    return;
  }
  cursor_ = end;
  const auto size = static_cast<size_t>(end - o);
  if (repeated_.size() < kMaxRepeated && repeated_text_.size() + size <= kRepeatedBytes) {
    repeated_.emplace(place, std::pair(repeated_text_.size(), size));
    repeated_text_.append(o, size);
  }
}

std::string_view JsonText::number(double x) {
  if (!std::isfinite(x)) {
    append("null", 4);
    return {cursor_ - 4, 4};
  }
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  if (written_ == nullptr) {
    written_ = std::make_unique<Written[]>(size_t{1} << kWrittenBits);
    for (size_t i = 0; i < (size_t{1} << kWrittenBits); ++i) written_[i].bits = kNoDouble;
  }
  // Fibonacci hashing: the top bits of the bits times 2^64 / golden ratio.
  Written& w = written_[(bits * 0x9e3779b97f4a7c15ull) >> (64 - kWrittenBits)];
  if (w.bits != bits) {
    // What the serializer's dump_float writes for a finite double.
    char* end = whole_json_double(w.text, x);
    if (end == nullptr) end = nlohmann::detail::to_chars(w.text, w.text + sizeof(w.text), x);
    w.size = static_cast<uint8_t>(end - w.text);
    w.bits = bits;
  }
  char* o = room(sizeof(w.text));
  std::memcpy(o, w.text, sizeof(w.text));  // whole: a fixed size copies in two moves
  cursor_ = o + w.size;
  return {o, w.size};
}

void JsonText::value(const Json& j, bool pretty, unsigned indent, unsigned step) {
  if (serializer_ == nullptr) {
    serializer_ = std::make_unique<nlohmann::detail::serializer<Json>>(
        std::make_shared<TextAdapter>(*this), ' ', Json::error_handler_t::replace);
  }
  serializer_->dump(j, pretty, false, step, indent);
}

JsonWriter::JsonWriter(std::string& out, std::ostream* sink, unsigned indent_step)
    : text_(out, sink), indent_step_(indent_step) {}

JsonWriter::JsonWriter(std::string& out, size_t buffer_bytes)
    : text_(out, nullptr, buffer_bytes), indent_step_(2) {}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  text_.advance(new_line(level.count++ == 0, 0));
}

void JsonWriter::any_key(std::string_view name) {
  Level& level = levels_.back();
  const bool first = level.count++ == 0;
  after_key_ = true;
  if (plain_json_run(name.data(), name.data() + name.size()) == name.size()) {
    // `"name": ` written whole.
    char* o = new_line(first, name.size() + 4);
    *o++ = '"';
    copy_bytes(o, name.data(), name.size());
    o += name.size();
    std::memcpy(o, "\": ", 3);
    text_.advance(o + 3);
    return;
  }
  text_.advance(new_line(first, 0));
  text_.string(name);
  text_.append(": ", 2);
}

void JsonWriter::begin_object() {
  before_value();
  text_.put('{');
  levels_.push_back({true, 0});
}

void JsonWriter::begin_array() {
  before_value();
  text_.put('[');
  levels_.push_back({false, 0});
}

void JsonWriter::end_object() { close('}'); }

void JsonWriter::end_array() { close(']'); }

void JsonWriter::close(char bracket) {
  const size_t count = levels_.back().count;
  levels_.pop_back();
  if (count > 0) {
    char* o = new_line(true, 1);
    *o++ = bracket;
    text_.advance(o);
  } else {
    text_.put(bracket);
  }
  text_.flush_if_full();
}

void JsonWriter::value(const Json& j) {
  before_value();
  text_.value(j, true, indent(), indent_step_);
}

void JsonWriter::string(std::string_view text) {
  before_value();
  text_.string(text);
}

void JsonWriter::null() {
  before_value();
  text_.append("null", 4);
}

void JsonWriter::boolean(bool b) {
  before_value();
  if (b) {
    text_.append("true", 4);
  } else {
    text_.append("false", 5);
  }
}

void JsonWriter::strings_field(PlainKey name, const std::vector<std::string>& texts) {
  key(name);
  begin_array();
  for (const std::string& text : texts) string(text);
  end_array();
}

}  // namespace hloroof::report_internal
