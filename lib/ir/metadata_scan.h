// Metadata as printers write it, `{op_name="..." source_line=3}`, read straight from the text.
// The parser keeps such metadata only as text and Instruction::metadata() reads it again on
// each call: most instructions of real dumps carry metadata with a different op_name, and a
// decoded record for each would be the largest object of a parsed module.
#ifndef HLOROOF_IR_METADATA_SCAN_H_
#define HLOROOF_IR_METADATA_SCAN_H_

#include <cstddef>
#include <optional>
#include <string_view>

#include "hloroof/attributes.h"
#include "hloroof/metadata.h"

namespace hloroof::detail {

class Arena;

// Reads `{field=value ...}` at the start of `text`: fields separated by one space, strings
// without escapes or newlines, integers, each field at most once, no profile_type or
// metadata_payload. Returns the length read (through the closing brace), or 0 when the text is
// not in that form (the caller then parses it in full) and leaves *out unchanged. With a null
// `out` the text is only checked.
size_t scan_plain_metadata(std::string_view text, OpMetadata* out);

// scan_plain_metadata for metadata whose strings may hold escapes (`op_name="p[\'w\']"`, as
// JAX names parameters): such strings are decoded into `arena` as the token path decodes them.
// Returns the length read, or 0 (an invalid escape included) leaving *out unchanged.
size_t scan_escaped_metadata(std::string_view text, Arena& arena, OpMetadata* out);

// The op_name of a `metadata` attribute (decode_metadata's, empty where that has none), read
// from text the parser checked without decoding its other fields.
std::string_view metadata_op_name(const Attribute* metadata);

// The value of a `metadata` attribute: its decoded record where the parser kept one, else read
// from its text. nullopt for a null attribute.
std::optional<OpMetadata> decode_metadata(const Attribute* metadata);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_METADATA_SCAN_H_
