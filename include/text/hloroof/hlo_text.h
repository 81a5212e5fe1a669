// Reading and writing whole HLO modules as text.
#ifndef HLOROOF_HLO_TEXT_H_
#define HLOROOF_HLO_TEXT_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hloroof/input_file.h"
#include "hloroof/module.h"
#include "hloroof/shape_text.h"

namespace hloroof {

struct ParseOptions {
  // Named at the start of error messages (`model.hlo:3:5: error: ...`); empty: no file part.
  std::string file_name;
  // Follow the error line with the offending source line and a caret under the column.
  bool show_source_line = true;
};

// Parses a module in any of the printer profiles of docs/hlo-text.md (with or
// without `%`, signatures, operand shapes, compact GTE operands; headerless modules too).
// Errors read `FILE:LINE:COLUMN: error: MESSAGE`, then the source line and a caret.
absl::StatusOr<Module> parse_module(std::string_view text, const ParseOptions& options = {});
// Same, taking ownership of the text without copying it.
absl::StatusOr<Module> parse_module(std::string&& text, const ParseOptions& options = {});
// Same, keeping the file (often a mapping) as the module's text: no copy at all.
absl::StatusOr<Module> parse_module(InputFile&& file, const ParseOptions& options = {});
inline absl::StatusOr<Module> parse_module(const char* text, const ParseOptions& options = {}) {
  return parse_module(std::string_view(text), options);
}

// Canonical text: the current dump profile (`%` names, computation signatures, `/*index=N*/`
// comments, explicit get-tuple-element lines). print(parse(print(m))) == print(m).
std::string print(const Module& module);
// One instruction as that text holds it, without indentation, ROOT or line end:
// `%fusion.3 = f32[8,128]{1,0} fusion(%p0, %p1), kind=kLoop, calls=%fused_computation`.
std::string print(const Instruction& instruction);

// Sets (or replaces) an attribute of `instruction` from its value text, read exactly as in a
// module: set_attribute_from_text(*i, "dimensions", "{0,1}"), (*i, "to_apply", "%add").
absl::Status set_attribute_from_text(Instruction& instruction, std::string_view name,
                                     std::string_view value_text);

// Where a parse_module error points, read back from its status.
struct ParseErrorLocation {
  int line = 0;
  int column = 0;
  std::string message;  // without the location prefix and the source line
};
std::optional<ParseErrorLocation> parse_error_location(const absl::Status& status);

}  // namespace hloroof

#endif  // HLOROOF_HLO_TEXT_H_
