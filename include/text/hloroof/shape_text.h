// Reading and writing shapes as HLO text: `bf16[8,128]{1,0:T(8,128)(2,1)}`, `(f32[], s32[])`.
#ifndef HLOROOF_SHAPE_TEXT_H_
#define HLOROOF_SHAPE_TEXT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hloroof/shape.h"

namespace hloroof {

// Parses one shape; the whole text must be that shape (surrounding whitespace and comments
// allowed). Errors say `LINE:COLUMN: error: MESSAGE` for the offending token, e.g.
// `1:1: error: unknown element type 'f33'`.
absl::StatusOr<Shape> parse_shape(std::string_view text);

// (to_string(shape), the canonical text, is in shape.h.)

}  // namespace hloroof

#endif  // HLOROOF_SHAPE_TEXT_H_
