// Pieces of the module printer that other printers reuse.
#ifndef HLOROOF_TEXT_PRINTER_H_
#define HLOROOF_TEXT_PRINTER_H_

#include <string>
#include <string_view>

#include "hloroof/attributes.h"

namespace hloroof::text {

// The canonical text of an attribute's value (what follows `name=`).
void append_attribute_value(std::string* out, const Attribute& attribute);
// An instruction's line of the module without its indentation, ROOT and line end: what
// print(instruction) returns (a caller printing many keeps one string's room).
void append_instruction_text(std::string* out, const Instruction& instruction);
// The same with the text of the instruction's shape given (to_string(instruction.shape())),
// where the caller keeps the texts of shapes many instructions share.
void append_instruction_text(std::string* out, const Instruction& instruction,
                             std::string_view shape_text);

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_PRINTER_H_
