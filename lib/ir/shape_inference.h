// Shape inference from an instruction's operands and attributes, for the opcodes whose shape
// XLA derives from them (ShapeInference in openxla/xla). The parser infers the shape of an
// instruction whose text omits it; verify() checks a written shape against it.
#ifndef HLOROOF_IR_SHAPE_INFERENCE_H_
#define HLOROOF_IR_SHAPE_INFERENCE_H_

#include <optional>

#include "hloroof/instruction.h"
#include "hloroof/shape.h"

namespace hloroof::detail {

// nullopt: the opcode is not one handled here. true: `*out` is the shape. false: the operands
// or attributes do not allow a shape.
std::optional<bool> infer_shape_from_operands(const Instruction& instruction, Shape* out);

// The shape the parser gives an instruction written without one: infer_shape_from_operands,
// then the opcodes whose shape is an operand's or the called computation's. False when the
// operands or attributes do not give one (the parser asks for the shape to be written). For
// broadcast it follows XLA's parser, which prepends the `dimensions` values as sizes.
bool infer_omitted_shape(const Instruction& instruction, Shape* out);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_SHAPE_INFERENCE_H_
