// Pieces of the module printer that other printers reuse.
#ifndef HLOROOF_TEXT_PRINTER_H_
#define HLOROOF_TEXT_PRINTER_H_

#include <string>

#include "hloroof/attributes.h"

namespace hloroof::text {

// The canonical text of an attribute's value (what follows `name=`).
void append_attribute_value(std::string* out, const Attribute& attribute);

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_PRINTER_H_
