#include "hloroof/metadata.h"

namespace hloroof {

std::vector<SourceFrame> StackFrameTables::stack(int64_t frame_id) const {
  std::vector<SourceFrame> out;
  // Parent ids strictly decrease in well-formed tables; the bound guards against cycles.
  for (size_t steps = 0; steps <= frames.size(); ++steps) {
    if (frame_id < 1 || frame_id > static_cast<int64_t>(frames.size())) break;
    const StackFrame& frame = frames[static_cast<size_t>(frame_id - 1)];
    SourceFrame resolved;
    int64_t location_id = frame.file_location_id;
    if (location_id >= 1 && location_id <= static_cast<int64_t>(file_locations.size())) {
      const FileLocation& loc = file_locations[static_cast<size_t>(location_id - 1)];
      auto name_at = [](const std::vector<std::string_view>& table, int64_t id) {
        return id >= 1 && id <= static_cast<int64_t>(table.size())
                   ? table[static_cast<size_t>(id - 1)]
                   : std::string_view();
      };
      resolved.file = name_at(file_names, loc.file_name_id);
      resolved.function = name_at(function_names, loc.function_name_id);
      resolved.line = loc.line;
      resolved.column = loc.column;
    }
    out.push_back(resolved);
    frame_id = frame.parent_frame_id - 1;  // the text stores parent id + 1 (syntax 2.3)
  }
  return out;
}

}  // namespace hloroof
