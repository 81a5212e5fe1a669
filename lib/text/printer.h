// Pieces of the module printer that other printers reuse.
#ifndef HLOROOF_TEXT_PRINTER_H_
#define HLOROOF_TEXT_PRINTER_H_

#include <string>
#include <string_view>

#include "hloroof/attributes.h"

namespace hloroof::detail {
class ShapeTexts;  // ir/shape_printer.h
}  // namespace hloroof::detail

namespace hloroof::text {

// The canonical text of an attribute's value (what follows `name=`).
void append_attribute_value(std::string* out, const Attribute& attribute);
// True when `text` is one brace-balanced blob `{...}` (strings skipped), so it can be printed
// raw (syntax 1.8): a backend config or frontend attribute value.
bool is_balanced_blob(std::string_view text);
// An instruction's line of the module without its indentation, ROOT and line end: what
// print(instruction) returns (a caller printing many keeps one string's room).
void append_instruction_text(std::string* out, const Instruction& instruction);

// An instruction as XLA names an op in a profile (the event metadata of an op on a TPU
// plane, its "long name"): its line with each operand's shape before the operand's name, and
// without its metadata and backend config, as a TPU v6e profile's ops read, e.g.
//   %fusion.2 = f32[8,128]{1,0} fusion(f32[8,128]{1,0} %copy), kind=kLoop, calls=%fused.2
// (XLA's default printing but for those two). `shapes` keeps the texts of shapes many
// instructions share.
void append_profile_op_text(std::string* out, const Instruction& instruction,
                            detail::ShapeTexts& shapes);

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_PRINTER_H_
