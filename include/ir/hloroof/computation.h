// A computation: a named list of instructions, in schedule (printed) order, with one root.
#ifndef HLOROOF_COMPUTATION_H_
#define HLOROOF_COMPUTATION_H_

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/instruction.h"
#include "hloroof/opcode.h"
#include "hloroof/shape.h"

namespace hloroof {

class Module;
namespace detail {
struct ModuleState;
struct IrAccess;
struct ComputationNode;
}  // namespace detail

class Computation {
 public:
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  std::string_view name() const { return name_; }
  bool is_entry() const { return is_entry_; }
  // "main" unless the text said `}, execution_thread="..."`.
  std::string_view execution_thread() const;

  // Every instruction in schedule order, which is the printed order (is_scheduled=true makes
  // it the execution order outside fusions).
  absl::Span<Instruction* const> instructions() const;
  size_t instruction_count() const;
  Instruction* root() const { return root_; }
  // Parameter instructions, indexed by parameter number.
  absl::Span<Instruction* const> parameters() const;
  Instruction* find_instruction(std::string_view name) const;
  // Instructions that call this computation (fusion, while, reduce, ...).
  absl::Span<Instruction* const> callers() const;
  // The while loop whose body this computation is, or null (a loop's condition is not its body).
  Instruction* while_loop() const;

  // ---- Edits.
  // Adds `opcode(operands...)` with `shape` before `before` (at the end when null); the order is
  // the schedule, so place it after its operands and before its future users. The name
  // is made unique within the computation by a `.N` suffix when taken. Attributes can then be
  // set with the typed setters of Instruction, and the shape inferred (edit.h). A kParameter
  // instruction takes the next free number (on the entry computation, the module header's
  // entry_computation_layout gains it).
  absl::StatusOr<Instruction*> add_instruction(Opcode opcode, std::string_view name,
                                               const Shape& shape,
                                               absl::Span<Instruction* const> operands,
                                               Instruction* before = nullptr);
  // Removes an instruction that has no users and is not the root.
  absl::Status remove_instruction(Instruction* instruction);
  // Makes every user of `old_instruction` use `new_instruction` (and it the root where the old
  // one was), then removes the old one.
  absl::Status replace_instruction(Instruction* old_instruction, Instruction* new_instruction);
  // On the entry computation, also updates the result in the module header's
  // entry_computation_layout.
  absl::Status set_root(Instruction* instruction);

 private:
  friend struct detail::IrAccess;
  friend struct detail::ComputationNode;
  // Made only as a detail::ComputationNode (lib/ir/module_state.h), which adds the instruction
  // and parameter lists, the name map and the callers.
  Computation() = default;

  detail::ModuleState* module_ = nullptr;
  std::string_view name_;
  std::string_view execution_thread_;
  bool is_entry_ = false;
  Instruction* root_ = nullptr;
};

}  // namespace hloroof

#endif  // HLOROOF_COMPUTATION_H_
