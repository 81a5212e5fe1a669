#include "report/json_writer.h"

#include <cstring>

namespace hloroof::report_internal {
namespace {

constexpr size_t kFlushBytes = 64 << 10;

}  // namespace

JsonWriter::JsonWriter(std::string& out, std::ostream* sink)
    : out_(out),
      sink_(sink),
      serializer_(nlohmann::detail::output_adapter<char>(out), ' ',
                  Json::error_handler_t::replace) {}

// Appends ",\n" (or "\n" for the first) and the indentation, then `more` bytes for the caller
// to fill; returns where those start.
char* JsonWriter::new_line(bool first, size_t more) {
  const size_t at = out_.size();
  const size_t pad = indent();
  out_.resize(at + (first ? 1 : 2) + pad + more);
  char* o = out_.data() + at;
  if (!first) *o++ = ',';
  *o++ = '\n';
  std::memset(o, ' ', pad);
  return o + pad;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  new_line(level.count++ == 0, 0);
}

void JsonWriter::key(std::string_view name) {
  Level& level = levels_.back();
  const bool first = level.count++ == 0;
  after_key_ = true;
  if (plain_json_run(name.data(), name.data() + name.size()) == name.size()) {
    // `"name": ` written whole.
    char* o = new_line(first, name.size() + 4);
    *o++ = '"';
    if (!name.empty()) std::memcpy(o, name.data(), name.size());
    o += name.size();
    std::memcpy(o, "\": ", 3);
    return;
  }
  new_line(first, 0);
  write_string(name);
  out_ += ": ";
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  levels_.push_back({true, 0});
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  levels_.push_back({false, 0});
}

void JsonWriter::end_object() { close('}'); }

void JsonWriter::end_array() { close(']'); }

void JsonWriter::close(char bracket) {
  const size_t count = levels_.back().count;
  levels_.pop_back();
  if (count > 0) {
    out_ += '\n';
    out_.append(indent(), ' ');
  }
  out_ += bracket;
  maybe_flush();
}

void JsonWriter::value(const Json& j) {
  before_value();
  serializer_.dump(j, true, false, 2, indent());
}

void JsonWriter::string(std::string_view text) {
  before_value();
  write_string(text);
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::boolean(bool b) {
  before_value();
  out_ += b ? "true" : "false";
}

void JsonWriter::strings_field(std::string_view name, const std::vector<std::string>& texts) {
  key(name);
  begin_array();
  for (const std::string& text : texts) string(text);
  end_array();
}

void JsonWriter::write_string(std::string_view text) {
  if (append_plain_json_string(out_, text)) return;
  serializer_.dump(Json(std::string(text)), true, false, 2, indent());
}

void JsonWriter::finish() {
  if (sink_ == nullptr) return;
  sink_->write(out_.data(), static_cast<std::streamsize>(out_.size()));
  out_.clear();
}

void JsonWriter::maybe_flush() {
  if (sink_ == nullptr || out_.size() < kFlushBytes) return;
  sink_->write(out_.data(), static_cast<std::streamsize>(out_.size()));
  out_.clear();
}

}  // namespace hloroof::report_internal
