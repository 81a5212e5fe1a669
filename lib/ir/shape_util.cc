#include "ir/shape_util.h"

namespace hloroof::detail {

bool same_ignoring_layout(const Shape& a, const Shape& b) {
  if (a.kind != b.kind || a.elements.size() != b.elements.size()) return false;
  if (a.kind == Shape::Kind::kArray && (a.element_type != b.element_type || a.dims != b.dims)) {
    return false;
  }
  for (size_t i = 0; i < a.elements.size(); ++i) {
    if (!same_ignoring_layout(a.elements[i], b.elements[i])) return false;
  }
  return true;
}

bool compatible(const Shape& a, const Shape& b) {
  if (a.kind != b.kind || a.elements.size() != b.elements.size()) return false;
  if (a.kind == Shape::Kind::kArray) {
    if (a.element_type != b.element_type || a.dims.size() != b.dims.size()) return false;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const Dimension& x = a.dims[d];
      const Dimension& y = b.dims[d];
      if (x.kind == Dimension::Kind::kUnbounded || y.kind == Dimension::Kind::kUnbounded) continue;
      if (x.size != y.size) return false;
    }
  }
  for (size_t i = 0; i < a.elements.size(); ++i) {
    if (!compatible(a.elements[i], b.elements[i])) return false;
  }
  return true;
}

int64_t element_count(const Shape& array) {
  int64_t n = 1;
  for (const Dimension& d : array.dims) {
    if (d.kind == Dimension::Kind::kUnbounded) return -1;
    if (d.size != 0 && n > INT64_MAX / d.size) return -1;
    n *= d.size;
  }
  return n;
}

Shape without_layout(const Shape& shape) {
  Shape out = shape;
  out.layout.reset();
  for (Shape& e : out.elements) e = without_layout(e);
  return out;
}

}  // namespace hloroof::detail
