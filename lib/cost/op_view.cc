// The operation an instruction performs, seen through async sugar (docs/hlo-text.md, "Attributes":
// async wrappers).
#include "cost/cost_internal.h"

namespace hloroof::cost {

const Shape* OpView::operand_shape(size_t i) const {
  if (i >= instruction->operand_count()) return nullptr;
  return &instruction->operand(i)->shape();
}

OpView view_of(const Instruction& instruction) {
  OpView view{instruction.opcode(), &instruction, &instruction.shape()};
  if (instruction.opcode() == Opcode::kAsyncStart && instruction.uses_async_sugar()) {
    if (std::optional<Opcode> wrapped = instruction.async_wrapped_opcode()) {
      view.opcode = *wrapped;
      // The start's shape is ((operands...), result, context...).
      const Shape& shape = instruction.shape();
      if (shape.is_tuple() && shape.elements.size() >= 2) view.result = &shape.elements[1];
    }
  }
  return view;
}

}  // namespace hloroof::cost
