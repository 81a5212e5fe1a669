#include "hloroof/computation.h"

#include <algorithm>

#include "ir/module_state.h"
#include "hloroof/absl_compat.h"

namespace hloroof {

std::string_view Computation::execution_thread() const {
  return execution_thread_.empty() ? std::string_view("main") : execution_thread_;
}

absl::Span<Instruction* const> Computation::instructions() const {
  return detail::IrAccess::node(this).instructions;
}

size_t Computation::instruction_count() const {
  return detail::IrAccess::node(this).instructions.size();
}

absl::Span<Instruction* const> Computation::parameters() const {
  return detail::IrAccess::node(this).parameters;
}

absl::Span<Instruction* const> Computation::callers() const {
  return detail::IrAccess::node(this).callers;
}

Instruction* Computation::while_loop() const {
  for (Instruction* caller : callers()) {
    if (caller->opcode() == Opcode::kWhile &&
        caller->computation_attribute(AttrId::kBody) == this) {
      return caller;
    }
  }
  return nullptr;
}

Instruction* Computation::find_instruction(std::string_view name) const {
  return detail::IrAccess::find(this, name);
}

absl::StatusOr<Instruction*> Computation::add_instruction(Opcode opcode, std::string_view name,
                                                          const Shape& shape,
                                                          absl::Span<Instruction* const> operands,
                                                          Instruction* before) {
  using detail::IrAccess;
  for (Instruction* operand : operands) {
    if (operand == nullptr || operand->parent() != this) {
      return absl::InvalidArgumentError(
          str_cat("every operand of a new instruction must be in computation ", name_));
    }
  }
  if (before != nullptr && before->parent() != this) {
    return absl::InvalidArgumentError(str_cat(before->name(), " is not in computation ", name_));
  }
  // Instruction names, like inputs, are shorter than 4 GiB (with room for a `.N` suffix).
  if (name.size() >= (size_t{1} << 32) - 32) {
    return absl::InvalidArgumentError("an instruction name must be shorter than 4 GiB");
  }
  detail::ModuleState& m = *module_;
  Instruction* i = IrAccess::new_instruction(m, opcode, IrAccess::unique_name(this, name),
                                             m.shapes.intern(shape));
  IrAccess::add_to_computation(this, i, before);
  IrAccess::set_operands(m, i, operands);
  if (opcode == Opcode::kParameter) {
    detail::InstructionVector& parameters = IrAccess::node(this).parameters;
    IrAccess::set_parameter_number(i, static_cast<int64_t>(parameters.size()));
    parameters.push_back(i);
  }
  if (root_ == nullptr) root_ = i;
  IrAccess::update_entry_layout(i);
  return i;
}

absl::Status Computation::remove_instruction(Instruction* instruction) {
  if (instruction == nullptr || instruction->parent() != this) {
    return absl::InvalidArgumentError(str_cat("no such instruction in computation ", name_));
  }
  if (!instruction->users().empty()) {
    return absl::FailedPreconditionError(str_cat("cannot remove ", instruction->name(), ": it has ",
                                                 instruction->users().size(),
                                                 " users (replace its uses first)"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(
        str_cat("cannot remove ", instruction->name(), ": it is the root of ", name_));
  }
  if (!instruction->control_successors().empty()) {
    return absl::FailedPreconditionError(str_cat("cannot remove ", instruction->name(),
                                                 ": other instructions are ordered after it"));
  }
  if (instruction->opcode() == Opcode::kParameter) {
    return absl::FailedPreconditionError(
        str_cat("cannot remove parameter ", instruction->name(), " of ", name_));
  }
  detail::IrAccess::detach(instruction);
  detail::ComputationNode& node = detail::IrAccess::node(this);
  node.instructions.erase(node.instructions.begin() + instruction->position());
  detail::IrAccess::renumber_from(this, static_cast<size_t>(instruction->position()));
  node.by_name.erase(instruction->name());
  return absl::OkStatus();
}

absl::Status Computation::set_root(Instruction* instruction) {
  if (instruction == nullptr || instruction->parent() != this) {
    return absl::InvalidArgumentError(str_cat("the root of ", name_, " must be one of its own"));
  }
  root_ = instruction;
  detail::IrAccess::update_entry_layout(instruction);
  return absl::OkStatus();
}

}  // namespace hloroof
