// IrAccess: building the graph, with both directions of every edge kept in step.
#include <algorithm>

#include "ir/module_state.h"
#include "ir/strings.h"

namespace hloroof::detail {
namespace {

template <typename Vec, typename T>
void push_unique(Vec& v, T* item) {
  if (std::find(v.begin(), v.end(), item) == v.end()) v.push_back(item);
}

template <typename Vec, typename T>
void erase_one(Vec& v, T* item) {
  auto it = std::find(v.begin(), v.end(), item);
  if (it != v.end()) v.erase(it);
}

// Calls fn(Computation*) / fn(Instruction*) for each reference an attribute holds.
template <typename CompFn, typename InstFn>
void for_each_reference(absl::Span<const Attribute> attributes, CompFn&& on_computation,
                        InstFn&& on_control_predecessor) {
  for (const Attribute& a : attributes) {
    if (auto* c = a.get<Computation*>()) on_computation(*c);
    if (auto* list = a.get<ComputationList>()) {
      for (Computation* c : *list) on_computation(c);
    }
    if (auto* list = a.get<InstructionList>()) {
      for (Instruction* i : *list) on_control_predecessor(i);
    }
  }
}

}  // namespace

Computation* IrAccess::new_computation(ModuleState& m, std::string_view name) {
  Computation* c = m.arena.create<Computation>();
  c->module_ = &m;
  c->name_ = name;
  return c;
}

Instruction* IrAccess::new_instruction(ModuleState& m, Opcode opcode, std::string_view name,
                                       const Shape* shape) {
  Instruction* i = m.arena.create<Instruction>();
  i->opcode_ = opcode;
  i->name_ = name;
  i->shape_ = shape;
  return i;
}

bool IrAccess::add_to_computation(Computation* c, Instruction* i, Instruction* before) {
  if (!c->by_name_.try_emplace(i->name_, i).second) return false;
  i->parent_ = c;
  if (before == nullptr) {
    c->instructions_.push_back(i);
  } else {
    auto it = std::find(c->instructions_.begin(), c->instructions_.end(), before);
    c->instructions_.insert(it, i);
  }
  return true;
}

void IrAccess::add_operand(Instruction* user, Instruction* operand) {
  user->operands_.push_back(operand);
  // A user's operands are all added before any other instruction's, so a repeated operand
  // (add(x, x)) finds its user at the back of the list.
  if (operand->users_.empty() || operand->users_.back() != user) {
    operand->users_.push_back(user);
  }
}

void IrAccess::set_attributes(Instruction* i, absl::Span<Attribute> attributes) {
  for_each_reference(
      i->attributes_, [&](Computation* c) { erase_one(c->callers_, i); },
      [&](Instruction* pred) { erase_one(pred->control_successors_, i); });
  i->called_.clear();
  i->attributes_ = attributes;
  // An instruction adds itself to a callee's callers (and a predecessor's successors) only
  // here, all at once, so a repeat (branch_computations={%a, %a}) is always the last entry:
  // checking the back keeps this linear for computations called from thousands of places.
  for_each_reference(
      i->attributes_,
      [&](Computation* c) {
        push_unique(i->called_, c);
        if (c->callers_.empty() || c->callers_.back() != i) c->callers_.push_back(i);
      },
      [&](Instruction* pred) {
        if (pred->control_successors_.empty() || pred->control_successors_.back() != i) {
          pred->control_successors_.push_back(i);
        }
      });
}

void IrAccess::detach(Instruction* i) {
  set_attributes(i, {});
  for (Instruction* operand : i->operands_) erase_one(operand->users_, i);
  i->operands_.clear();
  i->removed_ = true;
}

std::string_view IrAccess::unique_name(Computation* c, std::string_view base) {
  if (!c->by_name_.contains(base)) return c->module_->arena.save(base);
  for (int n = 1;; ++n) {
    std::string candidate = str_cat(base, ".", n);
    if (!c->by_name_.contains(candidate)) return c->module_->arena.save(candidate);
  }
}

}  // namespace hloroof::detail
