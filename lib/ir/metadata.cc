#include "hloroof/metadata.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/strings/escaping.h"
#include "ir/arena.h"
#include "ir/byte_scan.h"
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

namespace {

// True when [p, end) starts with `literal` (its terminating NUL left out).
template <size_t N>
bool starts_with(const char* p, const char* end, const char (&literal)[N]) {
  return end - p >= static_cast<ptrdiff_t>(N - 1) && std::memcmp(p, literal, N - 1) == 0;
}

// -?[0-9]+ at `p` into *out, as std::from_chars reads it; the end of the number, or null when
// there is none or it does not fit. Up to 18 digits cannot overflow; longer ones (never
// printed) take from_chars.
[[gnu::always_inline]] inline const char* read_int(const char* p, const char* end, int64_t* out) {
  const char* start = p;
  if (p != end && *p == '-') ++p;
  const char* digits = p;
  const char* stop = end - p > 18 ? p + 18 : end;
  int64_t value = 0;
  for (; p != stop && static_cast<unsigned char>(*p - '0') < 10; ++p)
    value = value * 10 + (*p - '0');
  if (p == digits) return nullptr;
  if (p != end && static_cast<unsigned char>(*p - '0') < 10) {
    auto [after, ec] = std::from_chars(start, end, *out);
    return ec == std::errc() ? after : nullptr;
  }
  *out = digits != start ? -value : value;
  return p;
}

// What a metadata scan does with the fields it reads.
enum class ScanMode {
  kCheck,   // only checks the form (the parser, for plain metadata)
  kStore,   // stores views into the text (strings without escapes only)
  kDecode,  // stores strings with escapes decoded into an arena
};

// scan_plain_metadata (kCheck, kStore) and scan_escaped_metadata (kDecode).
template <ScanMode kMode>
size_t scan_plain(std::string_view text, OpMetadata* out, Arena* arena = nullptr) {
  constexpr bool kStore = kMode != ScanMode::kCheck;
  const char* p = text.data();
  const char* end = p + text.size();
  if (p == end || *p != '{') return 0;
  ++p;
  uint32_t seen = 0;
  struct Empty {};
  std::conditional_t<kStore, OpMetadata, Empty> m;
  std::string_view unused_string;
  int64_t unused_number;
  for (bool first = true;; first = false) {
    if (p == end) return 0;
    if (*p == '}') break;
    if (!first) {
      if (*p != ' ') return 0;
      ++p;
      if (p == end) return 0;
    }
    // The field, told by its first letters and then compared whole with its `=`.
    std::string_view* string = nullptr;
    int64_t* number = nullptr;
    uint32_t bit = 0;
    size_t length = 0;
    auto field = [&](const auto& name, auto OpMetadata::*member, uint32_t b) {
      if (!starts_with(p, end, name)) return;
      length = sizeof(name) - 1;
      bit = b;
      if constexpr (std::is_same_v<decltype(member), std::string_view OpMetadata::*>) {
        if constexpr (kStore) {
          string = &(m.*member);
        } else {
          string = &unused_string;
        }
      } else if constexpr (kStore) {
        number = &(m.*member);
      } else {
        number = &unused_number;
      }
    };
    switch (*p) {
      case 'o':  // op_name, op_type
        if (end - p > 3 && p[3] == 'n') {
          field("op_name=", &OpMetadata::op_name, 1);
        } else {
          field("op_type=", &OpMetadata::op_type, 2);
        }
        break;
      case 's':
        if (end - p < 12) break;
        if (p[1] == 't') {
          field("stack_frame_id=", &OpMetadata::stack_frame_id, 128);
        } else if (p[1] == 'c') {
          field("scheduling_name=", &OpMetadata::scheduling_name, 512);
        } else if (p[7] == 'f') {
          field("source_file=", &OpMetadata::source_file, 4);
        } else if (p[7] == 'l') {
          field("source_line=", &OpMetadata::source_line, 8);
        } else if (p[7] == 'c') {
          field("source_column=", &OpMetadata::source_column, 32);
        } else if (p[11] == 'l') {
          field("source_end_line=", &OpMetadata::source_end_line, 16);
        } else {
          field("source_end_column=", &OpMetadata::source_end_column, 64);
        }
        break;
      case 'd':
        field("deduplicated_name=", &OpMetadata::deduplicated_name, 256);
        break;
      default:
        break;
    }
    if (length == 0 || (seen & bit)) return 0;
    seen |= bit;
    p += length;
    if (string != nullptr) {
      if (p == end || *p != '"') return 0;
      ++p;
      // The closing quote, or where the value turns out not to be plain (an escape, a line
      // break). Metadata strings are long (op names, file paths): many bytes a step.
      const char* close = find_first_of<'"', '\\', '\n'>(p, end);
      bool escapes = false;
      if constexpr (kMode == ScanMode::kDecode) {
        // An escaped byte, which may be a quote, does not end the string (as the lexer reads
        // it).
        while (close != end && *close == '\\' && end - close > 1) {
          escapes = true;
          close = find_first_of<'"', '\\', '\n'>(close + 2, end);
        }
      }
      if (close == end || *close != '"') return 0;
      *string = std::string_view(p, static_cast<size_t>(close - p));
      if (escapes) {
        // Decoded as the token path decodes it.
        std::string decoded;
        if (!absl::CUnescape(absl::string_view(string->data(), string->size()), &decoded)) {
          return 0;
        }
        *string = arena->save(decoded);
      }
      p = close + 1;
    } else {
      p = read_int(p, end, number);
      if (p == nullptr) return 0;
    }
  }
  if constexpr (kStore) *out = m;
  return static_cast<size_t>(p + 1 - text.data());
}

}  // namespace

size_t scan_plain_metadata(std::string_view text, OpMetadata* out) {
  return out != nullptr ? scan_plain<ScanMode::kStore>(text, out)
                        : scan_plain<ScanMode::kCheck>(text, nullptr);
}

size_t scan_escaped_metadata(std::string_view text, Arena& arena, OpMetadata* out) {
  return scan_plain<ScanMode::kDecode>(text, out, &arena);
}

std::optional<OpMetadata> decode_metadata(const Attribute* metadata) {
  if (metadata == nullptr) return std::nullopt;
  if (const auto* decoded = metadata->get<const OpMetadata*>(); decoded && *decoded) {
    return **decoded;
  }
  OpMetadata m;
  if (scan_plain_metadata(metadata->text(), &m) == 0) return std::nullopt;
  return m;
}

std::string_view metadata_op_name(const Attribute* metadata) {
  if (metadata == nullptr) return {};
  if (const auto* decoded = metadata->get<const OpMetadata*>(); decoded && *decoded) {
    return (*decoded)->op_name;
  }
  // Text kept is in scan_plain_metadata's form (the parser checked it): fields of one space,
  // strings without escapes. Each field's value is skipped up to op_name's; anything else seen
  // leaves it to the full scan.
  const std::string_view text = metadata->text();
  const char* p = text.data();
  const char* const end = p + text.size();
  if (p == end || *p != '{') return {};
  ++p;
  constexpr std::string_view kField = "op_name=\"";
  while (p != end && *p != '}') {
    if (static_cast<size_t>(end - p) > kField.size() &&
        std::memcmp(p, kField.data(), kField.size()) == 0) {
      const char* value = p + kField.size();
      const char* close = find_first_of<'"', '\\', '\n'>(value, end);
      if (close == end || *close != '"') break;
      return {value, static_cast<size_t>(close - value)};
    }
    const auto* equals =
        static_cast<const char*>(std::memchr(p, '=', static_cast<size_t>(end - p)));
    if (equals == nullptr || equals + 1 == end) break;
    p = equals + 1;
    if (*p == '"') {
      p = find_first_of<'"', '\\', '\n'>(p + 1, end);
      if (p == end || *p != '"') break;
      ++p;
    } else {
      while (p != end && *p != ' ' && *p != '}') ++p;
    }
    if (p != end && *p == ' ') ++p;
  }
  std::optional<OpMetadata> m = decode_metadata(metadata);
  return m ? m->op_name : std::string_view();
}

}  // namespace hloroof::detail
