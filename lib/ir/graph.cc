// IrAccess: building the graph, with both directions of every edge kept in step.
#include <algorithm>
#include <type_traits>

#include "ir/instruction_rules.h"
#include "ir/module_state.h"
#include "hloroof/absl_compat.h"

namespace hloroof::detail {

static_assert(rules::kAttrIdCount < 256, "Instruction::attribute_count_ is one byte");
namespace {

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
  Computation* c = m.arena.create<ComputationNode>(&m.arena);
  c->module_ = &m;
  c->name_ = name;
  return c;
}

Instruction* IrAccess::new_instruction(ModuleState& m, Opcode opcode, std::string_view name,
                                       const Shape* shape) {
  static_assert(std::is_trivially_destructible_v<Instruction>,
                "the arena would record a destructor for every instruction");
  Instruction* i = m.arena.create<Instruction>();
  i->opcode_ = opcode;
  i->name_ = name.data();
  i->name_size_ = static_cast<uint32_t>(name.size());  // callers check the length
  i->shape_ = shape;
  return i;
}

Instruction::Rare& IrAccess::rare(ModuleState& m, Instruction* i) {
  static_assert(std::is_trivially_destructible_v<Instruction::Rare>);
  if (i->rare_ == nullptr) i->rare_ = m.arena.create<Instruction::Rare>();
  return *i->rare_;
}

void IrAccess::set_literal(ModuleState& m, Instruction* i, std::string_view text) {
  rare(m, i).literal = text;
}

bool IrAccess::add_to_computation(Computation* c, Instruction* i, Instruction* before) {
  InstructionVector& instructions = node(c).instructions;
  InstructionsByName& by_name = node(c).by_name;
  if (by_name.empty() && instructions.size() < kNameScanLimit) {
    if (scan_for_name(c, i->name()) != nullptr) return false;
  } else {
    if (by_name.empty()) {
      // The computation outgrows scanning: every instruction goes into the map.
      by_name.reserve(instructions.size() * 2);
      by_name.insert(instructions.begin(), instructions.end());
    }
    if (!by_name.insert(i).second) return false;
  }
  i->parent_ = c;
  if (before == nullptr || before->parent_ != c) {
    i->position_ = static_cast<uint32_t>(instructions.size());
    instructions.push_back(i);
  } else {
    // Inserting moves the later instructions by one: renumbering them costs as much again.
    instructions.insert(instructions.begin() + before->position_, i);
    renumber_from(c, i->position_ = before->position_);
  }
  return true;
}

void IrAccess::set_operands(ModuleState& m, Instruction* user,
                            absl::Span<Instruction* const> operands) {
  EdgeLists::assign(m.arena, user->operands_, operands);
  // A user's operands are all added before any other instruction's, so a repeated operand
  // (add(x, x)) finds its user at the back of the list.
  for (Instruction* operand : operands) {
    if (operand->users_.size == 0 || EdgeLists::back(operand->users_) != user) {
      EdgeLists::push_back(m.arena, operand->users_, user);
    }
  }
}

void IrAccess::set_attributes(Instruction* i, absl::Span<Attribute> attributes) {
  // The usual case, as the parser has it: a first list, on an instruction without rare fields,
  // that references nothing, so that there is nothing to unlink or link.
  if (i->attribute_count_ == 0 && i->rare_ == nullptr &&
      std::none_of(attributes.begin(), attributes.end(), [](const Attribute& a) {
        return a.get<Computation*>() != nullptr || a.get<ComputationList>() != nullptr ||
               a.get<InstructionList>() != nullptr;
      })) {
    i->attributes_ = attributes.data();
    i->attribute_count_ = static_cast<uint8_t>(attributes.size());
    return;
  }
  relink_attributes(i, attributes);
}

void IrAccess::relink_attributes(Instruction* i, absl::Span<Attribute> attributes) {
  ModuleState& m = state(*i->parent_);
  if (i->attribute_count_ > 0) {
    for_each_reference(
        i->attributes(), [&](Computation* c) { erase_one(node(c).callers, i); },
        [&](Instruction* pred) {
          if (pred->rare_ != nullptr) EdgeLists::erase_one(pred->rare_->control_successors, i);
        });
  }
  if (i->rare_ != nullptr) {
    EdgeLists::clear(i->rare_->called);
    i->rare_->has_called = false;
  }
  i->attributes_ = attributes.data();
  i->attribute_count_ = static_cast<uint8_t>(attributes.size());  // one of each AttrId at most
  // called_computations() reads the computations from the attribute that holds them when one
  // attribute does and it names each once; otherwise they are listed in the rare fields.
  const auto holders = std::count_if(attributes.begin(), attributes.end(), [](const Attribute& a) {
    return a.get<Computation*>() != nullptr || a.get<ComputationList>() != nullptr;
  });
  bool repeats = false;
  absl::InlinedVector<Computation*, 4> called;
  // An instruction adds itself to a callee's callers (and a predecessor's successors) only
  // here, all at once, so a repeat (branch_computations={%a, %a}) is always the last entry:
  // checking the back keeps this linear for computations called from thousands of places.
  for_each_reference(
      attributes,
      [&](Computation* c) {
        if (std::find(called.begin(), called.end(), c) == called.end()) {
          called.push_back(c);
        } else {
          repeats = true;
        }
        absl::InlinedVector<Instruction*, 1>& callers = node(c).callers;
        if (callers.empty() || callers.back() != i) callers.push_back(i);
      },
      [&](Instruction* pred) {
        EdgeList<Instruction>& successors = rare(m, pred).control_successors;
        if (successors.size == 0 || EdgeLists::back(successors) != i) {
          EdgeLists::push_back(m.arena, successors, i);
        }
      });
  if (holders > 1 || repeats) {
    Instruction::Rare& r = rare(m, i);
    EdgeLists::assign(m.arena, r.called, absl::Span<Computation* const>(called));
    r.has_called = true;
  }
}

void IrAccess::detach(Instruction* i) {
  set_attributes(i, {});
  for (Instruction* operand : i->operands_.span()) EdgeLists::erase_one(operand->users_, i);
  EdgeLists::clear(i->operands_);
}

std::string_view IrAccess::unique_name(Computation* c, std::string_view base) {
  if (find(c, base) == nullptr) return c->module_->arena.save(base);
  for (int n = 1;; ++n) {
    std::string candidate = str_cat(base, ".", n);
    if (find(c, candidate) == nullptr) {
      return c->module_->arena.save(candidate);
    }
  }
}

}  // namespace hloroof::detail
