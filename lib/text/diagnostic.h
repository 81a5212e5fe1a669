// Parse errors: where they are and how they read (`FILE:LINE:COLUMN: error: MESSAGE`).
#ifndef HLOROOF_TEXT_DIAGNOSTIC_H_
#define HLOROOF_TEXT_DIAGNOSTIC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace hloroof::text {

struct Diagnostic {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
  std::string message;
};

struct SourcePosition {
  uint32_t line = 1;    // 1-based
  uint32_t column = 1;  // 1-based, in bytes
};

// Where `at`, a pointer into `source`, is: lines end at '\n'. Scans the source up to `at`, so
// it is for diagnostics, not for every token. A null `at` is 1:1; a pointer outside the source
// is taken as its nearer end.
SourcePosition position_in(std::string_view source, const char* at);

// `LINE:COLUMN: error: MESSAGE`, with `FILE:` first when `file` is not empty, and then the
// source line and a caret under the column when `with_source_line`.
std::string format_diagnostic(const Diagnostic& d, std::string_view source, std::string_view file,
                              bool with_source_line);

// An InvalidArgument status whose message is format_diagnostic(...) and which carries `d` as a
// payload, so that callers can report the location in their own format.
absl::Status diagnostic_status(const Diagnostic& d, std::string_view source, std::string_view file,
                               bool with_source_line);

// The diagnostic carried by a status made by diagnostic_status, if any.
std::optional<Diagnostic> diagnostic_of(const absl::Status& status);

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_DIAGNOSTIC_H_
