// Edits of edit.h beyond the basic ones of computation.cc and instruction.cc: typed attribute
// setters, computations added, cloned and removed, shape inference for callers, and the module
// header kept in step with the entry computation.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hloroof/edit.h"
#include "hloroof/replica_groups.h"
#include "ir/module_state.h"
#include "ir/shape_inference.h"
#include "hloroof/absl_compat.h"

namespace hloroof {

using detail::IrAccess;
using detail::ModuleState;

// ---- The graph's upkeep.

namespace detail {

void IrAccess::put_attribute(Instruction* i, const Attribute& attribute) {
  std::vector<Attribute> attributes;
  bool replaced = false;
  for (const Attribute& a : i->attributes()) {
    if (a.id == attribute.id) {
      attributes.push_back(attribute);
      replaced = true;
    } else {
      attributes.push_back(a);
    }
  }
  if (!replaced) {
    auto pos = std::find_if(attributes.begin(), attributes.end(), [&](const Attribute& a) {
      return attribute_print_group(a.id) > attribute_print_group(attribute.id);
    });
    attributes.insert(pos, attribute);
  }
  set_attributes(i, state(*i->parent_).arena.copy<Attribute>(attributes));
}

void IrAccess::order_callees_first(ModuleState& m) {
  std::vector<Computation*> order;
  order.reserve(m.computations.size());
  absl::flat_hash_set<Computation*> placed;
  absl::flat_hash_set<Computation*> visiting;  // a call cycle is left for verify to report
  std::function<void(Computation*)> place = [&](Computation* c) {
    if (placed.contains(c) || !visiting.insert(c).second) return;
    for (Instruction* i : IrAccess::node(c).instructions) {
      for (Computation* callee : i->called_computations()) place(callee);
    }
    placed.insert(c);
    order.push_back(c);
  };
  for (Computation* c : m.computations) place(c);
  m.computations = std::move(order);
}

void IrAccess::update_entry_layout(Instruction* i) {
  Computation* c = i->parent_;
  if (c == nullptr || !c->is_entry_) return;
  ModuleAttributes& a = c->module_->attributes;
  if (!a.has_entry_computation_layout) return;
  if (i->opcode_ == Opcode::kParameter && i->parameter_number_ >= 0) {
    const auto n = static_cast<size_t>(i->parameter_number_);
    if (a.entry_parameter_layouts.size() <= n) a.entry_parameter_layouts.resize(n + 1, i->shape_);
    a.entry_parameter_layouts[n] = i->shape_;
  }
  if (c->root_ == i) a.entry_result_layout = i->shape_;
}

}  // namespace detail

namespace {

// Where in the module's printed order `c` is.
size_t position_of(const ModuleState& m, const Computation* c) {
  return static_cast<size_t>(std::find(m.computations.begin(), m.computations.end(), c) -
                             m.computations.begin());
}

// After `caller` was made to call `callees`: callees first again.
void keep_callees_first(Instruction* caller, ComputationList callees) {
  ModuleState& m = IrAccess::state(*caller->parent());
  const size_t at = position_of(m, caller->parent());
  for (const Computation* callee : callees) {
    if (position_of(m, callee) > at) {
      IrAccess::order_callees_first(m);
      return;
    }
  }
}

absl::Status check_kind(const Instruction& i, AttrId id, std::string_view setter,
                        std::initializer_list<AttrKind> kinds) {
  if (i.parent() == nullptr) {
    return absl::FailedPreconditionError(
        str_cat(i.name(), " is not in a computation: its attributes cannot be set"));
  }
  if (std::find(kinds.begin(), kinds.end(), attribute_kind(id)) == kinds.end()) {
    return absl::InvalidArgumentError(str_cat("attribute '", attribute_name(id), "' of ",
                                              i.name(), " is not set with ", setter));
  }
  return absl::OkStatus();
}

absl::Status check_callee(const Instruction& i, const Computation* c) {
  if (c == nullptr || &IrAccess::state(*c) != &IrAccess::state(*i.parent())) {
    return absl::InvalidArgumentError(
        str_cat(i.name(), " can only call computations of its own module"));
  }
  if (c == i.parent()) {
    return absl::InvalidArgumentError(str_cat(i.name(), " cannot call its own computation"));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status put(Instruction& i, AttrId id, const T& value) {
  IrAccess::put_attribute(&i, Attribute(id, std::string_view(), value));
  return absl::OkStatus();
}

ModuleState& state_of(Instruction& i) { return IrAccess::state(*i.parent()); }

}  // namespace

// ---- Typed attribute setters.

absl::Status Instruction::set_bool_attribute(AttrId id, bool value) {
  if (absl::Status s = check_kind(*this, id, "set_bool_attribute", {AttrKind::kBool}); !s.ok()) {
    return s;
  }
  return put(*this, id, value);
}

absl::Status Instruction::set_int_attribute(AttrId id, int64_t value) {
  if (absl::Status s = check_kind(*this, id, "set_int_attribute", {AttrKind::kInt}); !s.ok()) {
    return s;
  }
  return put(*this, id, value);
}

absl::Status Instruction::set_float_attribute(AttrId id, double value) {
  if (absl::Status s = check_kind(*this, id, "set_float_attribute", {AttrKind::kFloat});
      !s.ok()) {
    return s;
  }
  return put(*this, id, value);
}

absl::Status Instruction::set_int_list(AttrId id, IntList values) {
  if (absl::Status s =
          check_kind(*this, id, "set_int_list", {AttrKind::kIntList, AttrKind::kSliceSizes});
      !s.ok()) {
    return s;
  }
  // Every list attribute holds dimension numbers or sizes, none negative (a negative one was
  // kept, printed as nothing, and predicted from).
  for (int64_t v : values) {
    if (v < 0) {
      return absl::InvalidArgumentError(str_cat("attribute '", attribute_name(id), "' of ", name(),
                                                " holds ", v, "; its entries are dimension "
                                                "numbers or sizes, 0 or more"));
    }
  }
  return put(*this, id, IntList(state_of(*this).arena.copy<int64_t>(values)));
}

absl::Status Instruction::set_int_list_list(AttrId id, const IntListList& values) {
  if (absl::Status s = check_kind(*this, id, "set_int_list_list",
                                  {AttrKind::kIntListList, AttrKind::kSliceSizes});
      !s.ok()) {
    return s;
  }
  const IntListList* copy = state_of(*this).arena.create<IntListList>(values);
  return put(*this, id, copy);
}

absl::Status Instruction::set_string_attribute(AttrId id, std::string_view value) {
  if (absl::Status s =
          check_kind(*this, id, "set_string_attribute",
                     {AttrKind::kString, AttrKind::kWord, AttrKind::kBackendConfig});
      !s.ok()) {
    return s;
  }
  if (value.size() >= (size_t{1} << 32) - 1) {
    return absl::InvalidArgumentError("an attribute value must be shorter than 4 GiB");
  }
  return put(*this, id, state_of(*this).arena.save(value));
}

absl::Status Instruction::set_computation_attribute(AttrId id, Computation* computation) {
  if (absl::Status s =
          check_kind(*this, id, "set_computation_attribute", {AttrKind::kComputation});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = check_callee(*this, computation); !s.ok()) return s;
  if (absl::Status s = put(*this, id, computation); !s.ok()) return s;
  keep_callees_first(this, ComputationList(&computation, 1));
  return absl::OkStatus();
}

absl::Status Instruction::set_computation_list(AttrId id, ComputationList computations) {
  if (absl::Status s =
          check_kind(*this, id, "set_computation_list", {AttrKind::kComputationList});
      !s.ok()) {
    return s;
  }
  for (const Computation* c : computations) {
    if (absl::Status s = check_callee(*this, c); !s.ok()) return s;
  }
  ComputationList copy = state_of(*this).arena.copy<Computation*>(computations);
  if (absl::Status s = put(*this, id, copy); !s.ok()) return s;
  keep_callees_first(this, copy);
  return absl::OkStatus();
}

absl::Status Instruction::set_control_predecessors(InstructionList predecessors) {
  if (parent_ == nullptr) {
    return absl::FailedPreconditionError(str_cat(name(), " is not in a computation"));
  }
  for (const Instruction* p : predecessors) {
    if (p == nullptr || p->parent_ != parent_ || p == this) {
      return absl::InvalidArgumentError(str_cat("the control predecessors of ", name(),
                                                " must be other instructions of ",
                                                parent_->name()));
    }
  }
  if (predecessors.empty()) {
    remove_attribute(AttrId::kControlPredecessors);
    return absl::OkStatus();
  }
  InstructionList copy = state_of(*this).arena.copy<Instruction*>(predecessors);
  return put(*this, AttrId::kControlPredecessors, copy);
}

absl::Status Instruction::copy_attributes_from(const Instruction& other) {
  if (parent_ == nullptr || other.parent_ == nullptr) {
    return absl::FailedPreconditionError(str_cat("cannot copy the attributes of ", other.name(),
                                                 " to ", name(),
                                                 ": both must be in a computation"));
  }
  if (&state_of(*this) != &IrAccess::state(*other.parent_)) {
    return absl::InvalidArgumentError(str_cat("cannot copy the attributes of ", other.name(),
                                              " to ", name(), ": it is in another module"));
  }
  for (const Computation* c : other.called_computations()) {
    if (absl::Status s = check_callee(*this, c); !s.ok()) return s;
  }
  std::optional<Attribute> own_predecessors;
  if (const Attribute* a = attribute(AttrId::kControlPredecessors)) own_predecessors = *a;
  std::vector<Attribute> attributes;
  for (const Attribute& a : other.attributes()) {
    if (a.id != AttrId::kControlPredecessors) attributes.push_back(a);
  }
  IrAccess::set_attributes(this, state_of(*this).arena.copy<Attribute>(attributes));
  if (own_predecessors) IrAccess::put_attribute(this, *own_predecessors);
  keep_callees_first(this, called_computations());
  return absl::OkStatus();
}

absl::Status Instruction::set_replica_groups(const ReplicaGroups& groups) {
  if (parent_ == nullptr) {
    return absl::FailedPreconditionError(str_cat(name(), " is not in a computation"));
  }
  if (groups.form == ReplicaGroups::Form::kMesh) {
    return absl::InvalidArgumentError(
        "mesh replica groups are set from their text (set_attribute_from_text)");
  }
  const ReplicaGroups* copy = state_of(*this).arena.create<ReplicaGroups>(groups);
  return put(*this, AttrId::kReplicaGroups, copy);
}

absl::Status Instruction::set_slice(const Slice& slice) {
  if (parent_ == nullptr) {
    return absl::FailedPreconditionError(str_cat(name(), " is not in a computation"));
  }
  const Slice* copy = state_of(*this).arena.create<Slice>(slice);
  return put(*this, AttrId::kSlice, copy);
}

absl::Status Instruction::set_padding(const Padding& padding) {
  if (parent_ == nullptr) {
    return absl::FailedPreconditionError(str_cat(name(), " is not in a computation"));
  }
  const Padding* copy = state_of(*this).arena.create<Padding>(padding);
  return put(*this, AttrId::kPadding, copy);
}

absl::Status Instruction::set_window(const Window& window) {
  if (parent_ == nullptr) {
    return absl::FailedPreconditionError(str_cat(name(), " is not in a computation"));
  }
  const Window* copy = state_of(*this).arena.create<Window>(window);
  return put(*this, AttrId::kWindow, copy);
}

absl::Status Instruction::set_dot_dimensions(const DotDimensionNumbers& d) {
  const std::pair<AttrId, IntList> lists[] = {
      {AttrId::kLhsBatchDims, d.lhs_batch},
      {AttrId::kLhsContractingDims, d.lhs_contracting},
      {AttrId::kRhsBatchDims, d.rhs_batch},
      {AttrId::kRhsContractingDims, d.rhs_contracting},
  };
  for (const auto& [id, list] : lists) {
    if (list.empty()) {
      remove_attribute(id);
    } else if (absl::Status s = set_int_list(id, list); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// ---- Computations.

absl::Status Module::set_name(std::string_view name) {
  if (name.empty() || name.size() >= (size_t{1} << 32)) {
    return absl::InvalidArgumentError("a module name must be 1 byte to 4 GiB long");
  }
  state_->name = state_->arena.save(name);
  return absl::OkStatus();
}

absl::StatusOr<Computation*> Module::add_computation(std::string_view name) {
  if (name.empty() || name.size() >= (size_t{1} << 32) - 32) {
    return absl::InvalidArgumentError("a computation name must be 1 byte to 4 GiB long");
  }
  if (find_computation(name) != nullptr) {
    return absl::AlreadyExistsError(str_cat("computation already exists: ", name));
  }
  ModuleState& m = *state_;
  Computation* c = IrAccess::new_computation(m, m.arena.save(name));
  if (m.entry == nullptr) {
    // The first computation of a module built from nothing is its entry.
    IrAccess::set_entry(c, true);
    m.entry = c;
    m.computations.push_back(c);
    if (m.name.empty()) m.name = m.arena.save(str_cat("module_", name));
  } else {
    m.computations.insert(m.computations.begin() + static_cast<ptrdiff_t>(position_of(m, m.entry)),
                          c);
  }
  m.computations_by_name.emplace(c->name(), c);
  return c;
}

absl::StatusOr<Computation*> Module::clone_computation(const Computation& original,
                                                       std::string_view name) {
  ModuleState& m = *state_;
  if (&IrAccess::state(original) != &m) {
    return absl::InvalidArgumentError(
        str_cat("computation ", original.name(), " is not in module ", this->name()));
  }
  absl::StatusOr<Computation*> made = add_computation(name);
  if (!made.ok()) return made.status();
  Computation* c = *made;
  // Printed just before the original, after everything it calls.
  m.computations.erase(m.computations.begin() + static_cast<ptrdiff_t>(position_of(m, c)));
  m.computations.insert(
      m.computations.begin() + static_cast<ptrdiff_t>(position_of(m, &original)), c);
  IrAccess::set_execution_thread(c, original.execution_thread() == "main"
                                        ? std::string_view()
                                        : original.execution_thread());
  IrAccess::reserve_instructions(c, original.instruction_count());
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  for (const Instruction* i : original.instructions()) {
    Instruction* copy = IrAccess::new_instruction(m, i->opcode(), i->name(), &i->shape());
    IrAccess::add_to_computation(c, copy);
    IrAccess::copy_async_form(copy, i);
    if (i->opcode() == Opcode::kParameter) {
      IrAccess::set_parameter_number(copy, i->parameter_number());
    }
    if (!i->literal_text().empty()) IrAccess::set_literal(m, copy, i->literal_text());
    copies.emplace(i, copy);
  }
  for (const Instruction* p : original.parameters()) {
    IrAccess::parameters(c).push_back(copies.at(p));
  }
  for (const Instruction* i : original.instructions()) {
    Instruction* copy = copies.at(i);
    std::vector<Instruction*> operands;
    for (const Instruction* operand : i->operands()) operands.push_back(copies.at(operand));
    IrAccess::set_operands(m, copy, operands);
    std::vector<Attribute> attributes(i->attributes().begin(), i->attributes().end());
    for (Attribute& a : attributes) {
      if (const InstructionList* list = a.get<InstructionList>()) {
        std::vector<Instruction*> mapped;
        for (const Instruction* p : *list) mapped.push_back(copies.at(p));
        a.set_value(InstructionList(m.arena.copy<Instruction*>(mapped)));
      }
    }
    IrAccess::set_attributes(copy, m.arena.copy<Attribute>(attributes));
  }
  IrAccess::set_root(c, copies.at(original.root()));
  return c;
}

absl::Status Module::remove_computation(Computation* computation) {
  ModuleState& m = *state_;
  if (computation == nullptr || find_computation(computation->name()) != computation) {
    return absl::InvalidArgumentError("no such computation in the module");
  }
  if (computation == m.entry) {
    return absl::FailedPreconditionError(
        str_cat("cannot remove ", computation->name(), ": it is the entry computation"));
  }
  if (!computation->callers().empty()) {
    return absl::FailedPreconditionError(
        str_cat("cannot remove ", computation->name(), ": ", computation->callers()[0]->name(),
                " calls it"));
  }
  for (Instruction* i : computation->instructions()) IrAccess::detach(i);
  m.computations.erase(m.computations.begin() +
                       static_cast<ptrdiff_t>(position_of(m, computation)));
  m.computations_by_name.erase(computation->name());
  return absl::OkStatus();
}

absl::Status Computation::replace_instruction(Instruction* old_instruction,
                                              Instruction* new_instruction) {
  if (old_instruction == nullptr || old_instruction->parent() != this) {
    return absl::InvalidArgumentError(str_cat("no such instruction in computation ", name_));
  }
  if (absl::Status s = old_instruction->replace_all_uses_with(new_instruction); !s.ok()) return s;
  return remove_instruction(old_instruction);
}

// ---- Shape inference.

namespace {

// Slice: ceil((limit - start) / stride) elements per dimension.
absl::StatusOr<Shape> slice_shape(const Instruction& i) {
  const Slice* slice = i.slice();
  const Shape& from = i.operand(0)->shape();
  if (slice == nullptr || !from.is_array() ||
      static_cast<int64_t>(slice->dims.size()) != from.rank()) {
    return absl::InvalidArgumentError(
        str_cat("cannot infer the shape of ", i.name(), " (slice): slice={...} needs one ",
                "[start:limit:stride] per dimension of ", i.operand(0)->name()));
  }
  Shape out = from;
  out.layout.reset();
  for (size_t d = 0; d < slice->dims.size(); ++d) {
    const SliceDim& s = slice->dims[d];
    if (s.start < 0 || s.limit < s.start || s.limit > from.dims[d].size || s.stride < 1) {
      return absl::InvalidArgumentError(
          str_cat("cannot infer the shape of ", i.name(), " (slice): [", s.start, ":", s.limit,
                  ":", s.stride, "] does not fit dimension ", d, " of size ",
                  from.dims[d].size));
    }
    const int64_t size = (s.limit - s.start + s.stride - 1) / s.stride;
    out.dims[d] = Dimension{Dimension::Kind::kStatic, size};
  }
  return out;
}

}  // namespace

absl::StatusOr<Shape> infer_shape(const Instruction& i) {
  const Opcode op = i.opcode();
  auto cannot = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        str_cat("cannot infer the shape of ", i.name(), " (", opcode_name(op), "): ", why));
  };
  for (const Instruction* operand : i.operands()) {
    if (operand == nullptr || !IrAccess::has_shape(operand)) return cannot("an operand has none");
  }
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kDynamicReshape:
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
    case Opcode::kStochasticConvert:
    case Opcode::kBitcast:
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kCustomCall:
      return cannot("its operands do not give its shape; write it");
    case Opcode::kSlice:
      if (i.operand_count() != 1) return cannot("slice takes 1 operand");
      return slice_shape(i);
    case Opcode::kFusion: {
      const Computation* called = i.computation_attribute(AttrId::kCalls);
      if (called == nullptr || called->root() == nullptr) {
        return cannot("it calls no computation with a root");
      }
      return called->root()->shape();
    }
    default:
      break;
  }
  Shape out;
  if (!detail::infer_omitted_shape(i, &out)) {
    return cannot("its operands and attributes do not give a shape, or the opcode's shape is "
                  "not one inferred from them");
  }
  return out;
}

absl::Status set_inferred_shape(Instruction& instruction) {
  absl::StatusOr<Shape> shape = infer_shape(instruction);
  if (!shape.ok()) return shape.status();
  instruction.set_shape(*shape);
  return absl::OkStatus();
}

}  // namespace hloroof
