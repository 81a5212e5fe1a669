// Appending the canonical text of shapes and layouts to a buffer (the module printer's building
// block; hloroof::to_string wraps these). In the ir layer, so that verify's messages can name
// shapes.
#ifndef HLOROOF_IR_SHAPE_PRINTER_H_
#define HLOROOF_IR_SHAPE_PRINTER_H_

#include <string>

#include "hloroof/shape.h"

namespace hloroof::detail {

void append_shape(std::string* out, const Shape& shape);
void append_layout(std::string* out, const Layout& layout);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_SHAPE_PRINTER_H_
