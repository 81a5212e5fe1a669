// The storage behind a Module, and the one door (IrAccess) through which the library builds and
// edits the graph. The state lives on the heap so that moving a Module moves one pointer and
// every pointer into the graph stays valid.
#ifndef HLOROOF_IR_MODULE_STATE_H_
#define HLOROOF_IR_MODULE_STATE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "hloroof/computation.h"
#include "hloroof/input_file.h"
#include "hloroof/instruction.h"
#include "hloroof/module.h"
#include "ir/arena.h"
#include "ir/arena_allocator.h"
#include "ir/edge_list.h"
#include "ir/memory_breakdown.h"
#include "ir/shape_table.h"
#include "util/prefetch.h"
#include "util/string_view_hash.h"

namespace hloroof {

// What few instructions have, out of line.
struct Instruction::Rare {
  std::string_view literal;  // kConstant
  detail::EdgeList<Instruction> control_successors;
  // The called computations when they are not one attribute's own storage (see
  // called_computations()): several attributes call computations, or a list repeats one.
  detail::EdgeList<Computation> called;
  bool has_called = false;
};

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

// A computation as the module holds it: the public Computation (name, root, flags) and its
// containers. Every Computation is one of these.
struct ComputationNode final : Computation {
  // Its lists and name map take their memory from `arena`, the module's.
  explicit ComputationNode(Arena* arena)
      : instructions(ArenaAllocator<Instruction*>(arena)),
        parameters(ArenaAllocator<Instruction*>(arena)),
        by_name(0, InstructionNameHash(), InstructionNameEq(),
                ArenaAllocator<Instruction*>(arena)) {}

  InstructionVector instructions;
  InstructionVector parameters;
  // Empty while the computation has at most kNameScanLimit instructions and its names are
  // looked up by scanning instructions; from then on, every instruction by name.
  InstructionsByName by_name;
  absl::InlinedVector<Instruction*, 1> callers;
};

struct ModuleState {
  ModuleState() : shapes(&arena) {}

  // The parsed text, followed by a NUL byte; names and attribute text point into it. It lives in
  // `owned_source` or in `input` (a mapped file).
  std::string_view source;
  std::string owned_source;
  InputFile input;
  Arena arena;         // instructions, computations, attribute values, edited names
  ShapeTable shapes;
  std::string_view name;
  ModuleAttributes attributes;
  StackFrameTables stack_frames;
  std::vector<Computation*> computations;  // printed order
  detail::StringViewMap<Computation*> computations_by_name;
  Computation* entry = nullptr;
  bool entry_marked = true;  // false: no computation was marked ENTRY (the last one is taken)
};

// Build and edit operations that keep both directions of every edge in step: operands and
// users, called computations and callers, control predecessors and successors.
struct IrAccess {
  static ModuleState& state(Module& m) { return *m.state_; }
  static const ModuleState& state(const Module& m) { return *m.state_; }
  static void set_state(Module& m, std::unique_ptr<ModuleState> s) { m.state_ = std::move(s); }
  static ModuleState& state(const Computation& c) { return *c.module_; }
  static ComputationNode& node(Computation* c) { return static_cast<ComputationNode&>(*c); }
  static const ComputationNode& node(const Computation* c) {
    return static_cast<const ComputationNode&>(*c);
  }

  static Computation* new_computation(ModuleState& m, std::string_view name);
  static Instruction* new_instruction(ModuleState& m, Opcode opcode, std::string_view name,
                                      const Shape* shape);

  // Appends (or inserts before `before`) and registers the name; false if the name is taken.
  static bool add_to_computation(Computation* c, Instruction* i, Instruction* before = nullptr);
  // Sets the operands of an instruction that has none yet, and adds it to their users.
  static void set_operands(ModuleState& m, Instruction* user,
                           absl::Span<Instruction* const> operands);
  // Drops an instruction's operand, attribute and control edges (before removing it).
  static void detach(Instruction* i);
  // Up to this many instructions, a computation finds a name by scanning its instruction
  // list: a fused computation of a few instructions then costs no table (an allocation and a
  // hash per instruction, 7% of the parse of a module of many small computations).
  static constexpr size_t kNameScanLimit = 16;
  // Room for about `n` instructions, so that the list and the name map do not grow in steps.
  static void reserve_instructions(Computation* c, size_t n) {
    node(c).instructions.reserve(n);
    if (n > kNameScanLimit) node(c).by_name.reserve(n);
  }
  static void set_root(Computation* c, Instruction* root) { c->root_ = root; }
  static void set_entry(Computation* c, bool entry) { c->is_entry_ = entry; }
  static void set_execution_thread(Computation* c, std::string_view t) { c->execution_thread_ = t; }
  // Installs the attribute list and links what it references (called computations, control
  // predecessors). Unlinks the previous list's references first.
  static void set_attributes(Instruction* i, absl::Span<Attribute> attributes);
  // set_attributes when there are references to unlink or link.
  [[gnu::noinline]] static void relink_attributes(Instruction* i,
                                                  absl::Span<Attribute> attributes);
  static absl::Span<Attribute> attributes(Instruction* i) {
    return absl::Span<Attribute>(i->attributes_, i->attribute_count_);
  }
  // False only while the parser has not yet inferred an omitted shape.
  static bool has_shape(const Instruction* i) { return i->shape_ != nullptr; }
  // 0 <= n < 2^31.
  static void set_parameter_number(Instruction* i, int64_t n) {
    i->parameter_number_ = static_cast<int32_t>(n);
  }
  static void set_literal(ModuleState& m, Instruction* i, std::string_view text);
  // The instruction's rare fields, created on first use.
  static Instruction::Rare& rare(ModuleState& m, Instruction* i);
  static void set_async_sugar(Instruction* i, Opcode wrapped) {
    i->async_sugar_ = true;
    i->has_wrapped_opcode_ = true;
    i->wrapped_opcode_ = wrapped;
  }
  static void set_wrapped_opcode(Instruction* i, Opcode wrapped) {
    i->has_wrapped_opcode_ = true;
    i->wrapped_opcode_ = wrapped;
  }
  static InstructionVector& parameters(Computation* c) { return node(c).parameters; }
  // Sets the position of `c`'s instructions from `first` on to their index in its list.
  static void renumber_from(Computation* c, size_t first) {
    InstructionVector& instructions = node(c).instructions;
    for (size_t k = first; k < instructions.size(); ++k) {
      instructions[k]->position_ = static_cast<uint32_t>(k);
    }
  }
  // Whether the computation's name map has grown past a core's cache (64k slots: 512 KB) so
  // that a look-up misses: the parser then prefetches the slots of the names it is about to
  // add (an instruction's, added once its operands are read) or look up (a long operand list).
  static bool large_name_map(const Computation* c) {
    return node(c).by_name.capacity() >= (size_t{1} << 16);
  }
  // Starts loading the slots where `name` is looked for in the computation's name map.
  static void prefetch_name(const Computation* c, std::string_view name) {
    prefetch_slots(node(c).by_name, name);
  }
  static Instruction* find(const Computation* c, std::string_view name) {
    const InstructionsByName& by_name = node(c).by_name;
    if (by_name.empty()) return scan_for_name(c, name);
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : *it;
  }
  // The instruction of a computation without a name map named `name`, or null. From the back:
  // an operand is mostly an instruction defined just before its user.
  static Instruction* scan_for_name(const Computation* c, std::string_view name) {
    const InstructionVector& instructions = node(c).instructions;
    for (auto it = instructions.rbegin(); it != instructions.rend(); ++it) {
      if ((*it)->name_size_ == name.size() && same_text((*it)->name(), name)) return *it;
    }
    return nullptr;
  }
  static MemoryBreakdown memory_breakdown(const Module& module);
  // Sets or replaces one attribute (kept in print-group order), linking what it references.
  static void put_attribute(Instruction* i, const Attribute& attribute);
  // Reorders the module's computations, stably, so that every callee comes before its callers
  // (after an edit made an earlier computation call a later one).
  static void order_callees_first(ModuleState& m);
  // After an edit of an entry parameter's or the entry root's shape (or a new parameter or
  // root): entry_computation_layout names that shape (when the header has one).
  static void update_entry_layout(Instruction* i);
  // The async sugar and wrapped opcode of `from`, on `to` (cloning).
  static void copy_async_form(Instruction* to, const Instruction* from) {
    to->async_sugar_ = from->async_sugar_;
    to->has_wrapped_opcode_ = from->has_wrapped_opcode_;
    to->wrapped_opcode_ = from->wrapped_opcode_;
  }
  // A name not yet used in `c`: `base`, else `base.1`, `base.2`, ... (saved in the arena).
  static std::string_view unique_name(Computation* c, std::string_view base);
};

}  // namespace detail
}  // namespace hloroof

#endif  // HLOROOF_IR_MODULE_STATE_H_
