// Appending the canonical text of shapes and layouts to a buffer (the printer's building block;
// hloroof::to_string wraps these).
#ifndef HLOROOF_TEXT_SHAPE_PRINTER_H_
#define HLOROOF_TEXT_SHAPE_PRINTER_H_

#include <string>

#include "hloroof/shape.h"

namespace hloroof::text {

void append_shape(std::string* out, const Shape& shape);
void append_layout(std::string* out, const Layout& layout);

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_SHAPE_PRINTER_H_
