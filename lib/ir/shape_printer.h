// Appending the canonical text of shapes and layouts to a buffer (the module printer's building
// block; hloroof::to_string wraps these). In the ir layer, so that verify's messages can name
// shapes.
#ifndef HLOROOF_IR_SHAPE_PRINTER_H_
#define HLOROOF_IR_SHAPE_PRINTER_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "hloroof/shape.h"

namespace hloroof::detail {

void append_shape(std::string* out, const Shape& shape);
void append_layout(std::string* out, const Layout& layout);

// Shapes' texts (to_string), each made once for every use of the same shape object: a module's
// thousands of instructions and buffers share a few hundred or thousand shapes.
class ShapeTexts {
 public:
  // Valid until the next call.
  const std::string& text(const Shape& shape) {
    auto [it, made] = texts_.try_emplace(&shape);
    if (made) append_shape(&it->second, shape);
    return it->second;
  }

 private:
  absl::flat_hash_map<const Shape*, std::string> texts_;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_SHAPE_PRINTER_H_
