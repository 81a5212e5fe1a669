#include "hloroof/metadata.h"

#include <charconv>
#include <cstdint>
#include <cstring>

#include "ir/metadata_scan.h"

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

namespace hloroof::detail {

size_t scan_plain_metadata(std::string_view text, OpMetadata* out) {
  const char* p = text.data();
  const char* end = p + text.size();
  if (p == end || *p != '{') return 0;
  ++p;
  uint32_t seen = 0;
  OpMetadata m;
  for (bool first = true;; first = false) {
    if (p == end) return 0;
    if (*p == '}') break;
    if (!first) {
      if (*p != ' ') return 0;
      ++p;
    }
    const char* name = p;
    while (p != end && ((*p >= 'a' && *p <= 'z') || *p == '_')) ++p;
    if (p == end || *p != '=' || p == name) return 0;
    std::string_view field(name, static_cast<size_t>(p - name));
    ++p;
    std::string_view* string = nullptr;
    int64_t* number = nullptr;
    uint32_t bit = 0;
    if (field == "op_name") {
      string = &m.op_name, bit = 1;
    } else if (field == "op_type") {
      string = &m.op_type, bit = 2;
    } else if (field == "source_file") {
      string = &m.source_file, bit = 4;
    } else if (field == "source_line") {
      number = &m.source_line, bit = 8;
    } else if (field == "source_end_line") {
      number = &m.source_end_line, bit = 16;
    } else if (field == "source_column") {
      number = &m.source_column, bit = 32;
    } else if (field == "source_end_column") {
      number = &m.source_end_column, bit = 64;
    } else if (field == "stack_frame_id") {
      number = &m.stack_frame_id, bit = 128;
    } else if (field == "deduplicated_name") {
      string = &m.deduplicated_name, bit = 256;
    } else if (field == "scheduling_name") {
      string = &m.scheduling_name, bit = 512;
    } else {
      return 0;
    }
    if (seen & bit) return 0;
    seen |= bit;
    if (string != nullptr) {
      if (p == end || *p != '"') return 0;
      ++p;
      const auto* close =
          static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
      if (close == nullptr) return 0;
      std::string_view value(p, static_cast<size_t>(close - p));
      if (std::memchr(value.data(), '\\', value.size()) != nullptr ||
          std::memchr(value.data(), '\n', value.size()) != nullptr) {
        return 0;
      }
      *string = value;
      p = close + 1;
    } else {
      auto [after, ec] = std::from_chars(p, end, *number);
      if (ec != std::errc() || after == p) return 0;
      p = after;
    }
  }
  *out = m;
  return static_cast<size_t>(p + 1 - text.data());
}

std::optional<OpMetadata> decode_metadata(const Attribute* metadata) {
  if (metadata == nullptr) return std::nullopt;
  if (const auto* decoded = metadata->get<const OpMetadata*>(); decoded && *decoded) {
    return **decoded;
  }
  OpMetadata m;
  if (scan_plain_metadata(metadata->text, &m) == 0) return std::nullopt;
  return m;
}

}  // namespace hloroof::detail
