// A computation: a named list of instructions, in schedule (printed) order, with one root.
#ifndef HLOROOF_COMPUTATION_H_
#define HLOROOF_COMPUTATION_H_

#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/detail/arena_allocator.h"
#include "hloroof/detail/string_view_hash.h"
#include "hloroof/instruction.h"

namespace hloroof {

class Module;
namespace detail {
struct ModuleState;
class Arena;
}  // namespace detail

namespace detail {
// A computation's instructions by name: the set holds the instruction pointers (8 bytes a
// slot) and hashes and compares their names, so a name can be looked up directly. Small
// computations (most fused computations) have none: their names are looked up by scanning
// the instruction list (IrAccess::find).
struct InstructionNameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const { return hash_text(name); }
  size_t operator()(const Instruction* i) const { return hash_text(i->name()); }
};
struct InstructionNameEq {
  using is_transparent = void;
  bool operator()(const Instruction* a, const Instruction* b) const {
    return same_text(a->name(), b->name());
  }
  bool operator()(const Instruction* a, std::string_view b) const {
    return same_text(a->name(), b);
  }
  bool operator()(std::string_view a, const Instruction* b) const {
    return same_text(a, b->name());
  }
};
using InstructionsByName = absl::flat_hash_set<Instruction*, InstructionNameHash,
                                               InstructionNameEq, ArenaAllocator<Instruction*>>;
using InstructionVector = std::vector<Instruction*, ArenaAllocator<Instruction*>>;
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
  absl::Span<Instruction* const> instructions() const { return instructions_; }
  size_t instruction_count() const { return instructions_.size(); }
  Instruction* root() const { return root_; }
  // Parameter instructions, indexed by parameter number.
  absl::Span<Instruction* const> parameters() const { return parameters_; }
  Instruction* find_instruction(std::string_view name) const;
  // Instructions that call this computation (fusion, while, reduce, ...).
  absl::Span<Instruction* const> callers() const { return callers_; }

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
  friend class detail::Arena;
  // Its lists and name map take their memory from `arena`, the module's.
  explicit Computation(detail::Arena* arena)
      : instructions_(detail::ArenaAllocator<Instruction*>(arena)),
        parameters_(detail::ArenaAllocator<Instruction*>(arena)),
        by_name_(0, detail::InstructionNameHash(), detail::InstructionNameEq(),
                 detail::ArenaAllocator<Instruction*>(arena)) {}

  detail::ModuleState* module_ = nullptr;
  std::string_view name_;
  std::string_view execution_thread_;
  bool is_entry_ = false;
  Instruction* root_ = nullptr;
  detail::InstructionVector instructions_;
  detail::InstructionVector parameters_;
  // Empty while the computation has at most kNameScanLimit instructions and its names are
  // looked up by scanning instructions_; from then on, every instruction by name.
  detail::InstructionsByName by_name_;
  absl::InlinedVector<Instruction*, 1> callers_;
};

}  // namespace hloroof

#endif  // HLOROOF_COMPUTATION_H_
