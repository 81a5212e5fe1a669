// Op metadata (docs/hlo-text.md, "Attributes") and the module's stack-frame tables ("Stack-frame
// tables").
#include <array>

#include "absl/container/flat_hash_map.h"
#include "ir/metadata_scan.h"
#include "hloroof/absl_compat.h"
#include "text/module_parser.h"
#include "util/string_view_hash.h"

namespace hloroof::text {
namespace {

enum class MetadataField {
  kOpType,
  kOpName,
  kSourceFile,
  kSourceLine,
  kSourceEndLine,
  kSourceColumn,
  kSourceEndColumn,
  kProfileType,
  kDeduplicatedName,
  kSchedulingName,
  kStackFrameId,
  kMetadataPayload,
  kCount,
};

constexpr std::array<std::string_view, static_cast<size_t>(MetadataField::kCount)> kMetadataFields =
    {"op_type",           "op_name",         "source_file",       "source_line",
     "source_end_line",   "source_column",   "source_end_column", "profile_type",
     "deduplicated_name", "scheduling_name", "stack_frame_id",    "metadata_payload"};

}  // namespace

// Metadata as printers write it, `{op_name="..." source_line=3}` with plain strings, is read by
// one scanner straight from the text (ir/metadata_scan.h): it is on most instructions of real
// dumps, and going token by token costs a fifth of the parse. Anything else (escapes, commas,
// profile_type, errors) makes it return false having consumed nothing, and parse_metadata takes
// over. A null `out` only checks the form.
bool ModuleParser::scan_metadata(OpMetadata* out) {
  const char* begin = tok_.begin();
  const char* end = lexer_.source().data() + lexer_.source().size();
  const size_t length =
      detail::scan_plain_metadata(std::string_view(begin, static_cast<size_t>(end - begin)), out);
  if (length == 0) return false;
  skip_to(begin + length);
  return true;
}

// op_metadata ::= '{' (','? md_field)* '}'   (no comma before the closing brace)
bool ModuleParser::parse_metadata(OpMetadata* out) {
  if (at(TokenKind::kLBrace) && scan_metadata(out)) return true;
  if (!expect(TokenKind::kLBrace, "to open metadata")) return false;
  std::array<bool, kMetadataFields.size()> seen{};
  bool first = true;
  while (!consume_if(TokenKind::kRBrace)) {
    if (!first && consume_if(TokenKind::kComma) && at(TokenKind::kRBrace)) {
      return error_here("unexpected '}' after ',' in metadata");
    }
    first = false;
    if (!at(TokenKind::kAttr)) return expected("a metadata field (op_name=..., ...) or '}'");
    Token field_token = tok_;
    static const auto* const kFieldIndex = [] {
      auto* index = new detail::StringViewMap<size_t>();
      for (size_t f = 0; f < kMetadataFields.size(); ++f) index->emplace(kMetadataFields[f], f);
      return index;
    }();
    auto found = kFieldIndex->find(tok_.name());
    size_t field = found == kFieldIndex->end() ? kMetadataFields.size() : found->second;
    if (field == kMetadataFields.size()) {
      return error_here(str_cat("unknown metadata field '", tok_.name(), "'"));
    }
    if (seen[field]) return error_here(str_cat("metadata field '", tok_.name(), "' repeated"));
    seen[field] = true;
    advance();
    std::string_view what = kMetadataFields[field];
    bool ok = true;
    switch (static_cast<MetadataField>(field)) {
      case MetadataField::kOpType:
        ok = parse_decoded_string(&out->op_type, what);
        break;
      case MetadataField::kOpName:
        ok = parse_decoded_string(&out->op_name, what);
        break;
      case MetadataField::kSourceFile:
        ok = parse_decoded_string(&out->source_file, what);
        break;
      case MetadataField::kSourceLine:
        ok = parse_int(&out->source_line, what);
        break;
      case MetadataField::kSourceEndLine:
        ok = parse_int(&out->source_end_line, what);
        break;
      case MetadataField::kSourceColumn:
        ok = parse_int(&out->source_column, what);
        break;
      case MetadataField::kSourceEndColumn:
        ok = parse_int(&out->source_end_column, what);
        break;
      case MetadataField::kProfileType: {
        Token list = tok_;
        ok = parse_int_list_value(&out->profile_type, "profile_type");
        for (int64_t t : out->profile_type) {
          if (ok && (t < 0 || t > 3)) {
            return error(list, str_cat("profile_type ", t,
                                       " is not one of 0 (invalid), "
                                       "1 (window), 2 (flag), 3 (integer)"));
          }
        }
        break;
      }
      case MetadataField::kDeduplicatedName:
        ok = parse_decoded_string(&out->deduplicated_name, what);
        break;
      case MetadataField::kSchedulingName:
        ok = parse_decoded_string(&out->scheduling_name, what);
        break;
      case MetadataField::kStackFrameId:
        ok = parse_int(&out->stack_frame_id, what);
        break;
      case MetadataField::kMetadataPayload:
        ok = parse_decoded_string(&out->metadata_payload, what);
        break;
      case MetadataField::kCount:
        break;
    }
    if (!ok) return false;
    (void)field_token;
  }
  return true;
}

// stack_frames ::= 'FileNames' (INT STRING)* 'FunctionNames' (INT STRING)*
//                  'FileLocations' (INT file_location)* 'StackFrames' (INT frame)*
bool ModuleParser::parse_stack_frames() {
  StackFrameTables& tables = state_->stack_frames;
  tables.present = true;

  auto parse_names = [&](std::vector<std::string_view>* out) {
    while (at(TokenKind::kInt)) {
      advance();  // row number; upstream takes rows in order and ignores it
      std::string_view name;
      if (!parse_decoded_string(&name, "a file or function name")) return false;
      out->push_back(name);
    }
    return true;
  };
  // '{' (','? ATTR INT)* '}' with the given fields, each at most once, in any order (absent
  // ones stay 0).
  auto parse_row = [&](std::initializer_list<std::pair<std::string_view, int64_t*>> fields) {
    if (!expect(TokenKind::kLBrace, "to open a table row")) return false;
    std::vector<bool> seen(fields.size(), false);
    bool first = true;
    while (!consume_if(TokenKind::kRBrace)) {
      if (!first && consume_if(TokenKind::kComma) && at(TokenKind::kRBrace)) {
        return error_here("unexpected '}' after ','");
      }
      first = false;
      if (!at(TokenKind::kAttr)) return expected("a field (name=value) or '}'");
      size_t index = 0;
      for (const auto& [name, target] : fields) {
        if (name == tok_.name()) break;
        ++index;
      }
      if (index == fields.size()) return error_here(str_cat("unknown field '", tok_.name(), "'"));
      if (seen[index]) return error_here(str_cat("field '", tok_.name(), "' repeated"));
      seen[index] = true;
      advance();
      const auto& [name, target] = *(fields.begin() + static_cast<ptrdiff_t>(index));
      if (!parse_int(target, name)) return false;
    }
    return true;
  };

  advance();  // FileNames
  if (!parse_names(&tables.file_names)) return false;
  if (!expect(TokenKind::kw_FunctionNames, "after the FileNames table")) return false;
  if (!parse_names(&tables.function_names)) return false;
  if (!expect(TokenKind::kw_FileLocations, "after the FunctionNames table")) return false;
  while (at(TokenKind::kInt)) {
    advance();
    FileLocation& loc = tables.file_locations.emplace_back();
    if (!parse_row({{"file_name_id", &loc.file_name_id},
                    {"function_name_id", &loc.function_name_id},
                    {"line", &loc.line},
                    {"end_line", &loc.end_line},
                    {"column", &loc.column},
                    {"end_column", &loc.end_column}})) {
      return false;
    }
  }
  if (!expect(TokenKind::kw_StackFrames, "after the FileLocations table")) return false;
  while (at(TokenKind::kInt)) {
    advance();
    StackFrame& frame = tables.frames.emplace_back();
    if (!parse_row({{"file_location_id", &frame.file_location_id},
                    {"parent_frame_id", &frame.parent_frame_id}})) {
      return false;
    }
  }
  return true;
}

}  // namespace hloroof::text
