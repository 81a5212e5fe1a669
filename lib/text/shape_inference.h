// Shape inference for instructions whose text omits the shape, for the opcodes whose shape
// XLA's parser derives from operands and attributes (ShapeInference in openxla/xla).
#ifndef HLOROOF_LIB_TEXT_SHAPE_INFERENCE_H_
#define HLOROOF_LIB_TEXT_SHAPE_INFERENCE_H_

#include <optional>

#include "hloroof/instruction.h"
#include "hloroof/shape.h"

namespace hloroof::text {

// nullopt: the opcode is not one handled here. true: `*out` is the shape. false: the operands
// or attributes do not allow a shape (the caller reports the error).
std::optional<bool> infer_shape_from_operands(const Instruction& instruction, Shape* out);

}  // namespace hloroof::text

#endif  // HLOROOF_LIB_TEXT_SHAPE_INFERENCE_H_
