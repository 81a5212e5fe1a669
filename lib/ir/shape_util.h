// Small shape helpers shared by the parser's checks and shape inference.
#ifndef HLOROOF_IR_SHAPE_UTIL_H_
#define HLOROOF_IR_SHAPE_UTIL_H_

#include <cstdint>

#include "hloroof/shape.h"

namespace hloroof::detail {

// Same kind, element types and dimensions, recursively; layouts ignored (syntax 3.2: operand
// and signature shapes are compared this way).
bool same_ignoring_layout(const Shape& a, const Shape& b);

// XLA's ShapeUtil::Compatible: same kind, element types and dimension sizes, recursively,
// ignoring layouts and whether a dimension is dynamic (`s32[3]` and `s32[<=3]` are compatible;
// an unbounded `?` dimension is compatible with any size).
bool compatible(const Shape& a, const Shape& b);

// Product of the static dims (bounds for bounded dims); -1 for unbounded dims or overflow.
int64_t element_count(const Shape& array);

// The shape without layouts anywhere (computation signatures print this way).
Shape without_layout(const Shape& shape);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_SHAPE_UTIL_H_
