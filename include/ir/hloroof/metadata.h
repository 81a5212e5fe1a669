// Source metadata of instructions (docs/hlo-text.md, "Attributes") and the module's stack-frame
// tables (2.3).
#ifndef HLOROOF_METADATA_H_
#define HLOROOF_METADATA_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace hloroof {

// `metadata={op_type="dot" op_name="jit(f)/dot_general" source_file="m.py" source_line=7}`.
// Absent fields are empty or 0. Strings are decoded (escapes resolved). Views point into the
// module, which owns the text.
struct OpMetadata {
  std::string_view op_type;
  std::string_view op_name;
  std::string_view source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  absl::Span<const int64_t> profile_type;
  std::string_view deduplicated_name;
  std::string_view scheduling_name;
  int64_t stack_frame_id = 0;  // 1-based row of the StackFrames table; 0 = none
  std::string_view metadata_payload;
  friend bool operator==(const OpMetadata&, const OpMetadata&) = default;
};

// One row of FileLocations; ids are 1-based rows of the name tables.
struct FileLocation {
  int64_t file_name_id = 0;
  int64_t function_name_id = 0;
  int64_t line = 0;
  int64_t end_line = 0;
  int64_t column = 0;
  int64_t end_column = 0;
  friend bool operator==(const FileLocation&, const FileLocation&) = default;
};

// One row of StackFrames. `parent_frame_id` is as written: 1 means no parent, k >= 2 means
// frame k-1 (the text stores the id plus one; docs/hlo-text.md, "Stack-frame tables").
struct StackFrame {
  int64_t file_location_id = 0;
  int64_t parent_frame_id = 0;
  friend bool operator==(const StackFrame&, const StackFrame&) = default;
};

// A resolved frame of a stack, innermost first.
struct SourceFrame {
  std::string_view file;
  std::string_view function;
  int64_t line = 0;
  int64_t column = 0;
};

struct StackFrameTables {
  bool present = false;  // the text had the tables (possibly empty)
  std::vector<std::string_view> file_names;
  std::vector<std::string_view> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<StackFrame> frames;

  // The stack of frame `frame_id` (1-based), innermost first; empty when out of range.
  std::vector<SourceFrame> stack(int64_t frame_id) const;
  friend bool operator==(const StackFrameTables&, const StackFrameTables&) = default;
};

}  // namespace hloroof

#endif  // HLOROOF_METADATA_H_
