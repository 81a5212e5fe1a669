#include "text/diagnostic.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "hloroof/absl_compat.h"

namespace hloroof::text {
namespace {

constexpr absl::string_view kPayloadUrl = "type.hloroof/diagnostic";

}  // namespace

SourcePosition position_in(std::string_view source, const char* at) {
  SourcePosition pos;
  if (at == nullptr) return pos;
  const char* p = source.data();
  const char* end = std::clamp(at, p, source.data() + source.size(), std::less<>());
  const char* line_start = p;
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))))) {
    ++pos.line;
    line_start = ++p;
  }
  pos.column = static_cast<uint32_t>(end - line_start) + 1;
  return pos;
}

std::string format_diagnostic(const Diagnostic& d, std::string_view source, std::string_view file,
                              bool with_source_line) {
  std::string out;
  if (!file.empty()) str_append(&out, file, ":");
  str_append(&out, d.line, ":", d.column, ": error: ", d.message);
  if (!with_source_line || d.line == 0) return out;

  // Find the line: count newlines up to it.
  size_t begin = 0;
  for (uint32_t line = 1; line < d.line; ++line) {
    size_t nl = source.find('\n', begin);
    if (nl == std::string_view::npos) return out;
    begin = nl + 1;
  }
  size_t end = source.find('\n', begin);
  if (end == std::string_view::npos) end = source.size();
  std::string_view text = source.substr(begin, end - begin);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  // At the end of input after a final newline, the line is empty: no source line to show
  // (an empty line and a lone caret say nothing).
  if (text.empty() && begin >= source.size()) return out;
  size_t caret = std::min<size_t>(d.column > 0 ? d.column - 1 : 0, text.size());

  // Long lines (dumps have lines of many kilobytes) are cut to a window around the column
  // that fits a 100-column terminal, "..." marking each cut: up to 60 columns before the
  // caret, the rest after it.
  constexpr size_t kWidth = 100, kBefore = 60, kMark = 3;
  std::string prefix, suffix;
  if (caret > kBefore) {
    size_t cut = caret - kBefore;
    text.remove_prefix(cut);
    caret -= cut;
    prefix = "...";
  }
  if (prefix.size() + text.size() > kWidth) {
    text = text.substr(0, kWidth - prefix.size() - kMark);
    suffix = "...";
  }
  std::string pad;
  for (size_t i = 0; i < prefix.size(); ++i) pad.push_back(' ');
  for (size_t i = 0; i < caret; ++i) pad.push_back(text[i] == '\t' ? '\t' : ' ');
  str_append(&out, "\n", prefix, text, suffix, "\n", pad, "^");
  return out;
}

absl::Status diagnostic_status(const Diagnostic& d, std::string_view source, std::string_view file,
                               bool with_source_line) {
  absl::Status status =
      absl::InvalidArgumentError(format_diagnostic(d, source, file, with_source_line));
  status.SetPayload(kPayloadUrl, absl::Cord(str_cat(d.line, ":", d.column, ":", d.message)));
  return status;
}

std::optional<Diagnostic> diagnostic_of(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kPayloadUrl);
  if (!payload) return std::nullopt;
  std::vector<std::string> parts = absl::StrSplit(std::string(*payload), absl::MaxSplits(':', 2));
  Diagnostic d;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &d.line) ||
      !absl::SimpleAtoi(parts[1], &d.column)) {
    return std::nullopt;
  }
  d.message = std::move(parts[2]);
  return d;
}

}  // namespace hloroof::text
