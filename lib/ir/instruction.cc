#include "hloroof/instruction.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hloroof/computation.h"
#include "ir/metadata_scan.h"
#include "ir/module_state.h"
#include "hloroof/absl_compat.h"

namespace hloroof {

bool Instruction::is_root() const { return parent_ != nullptr && parent_->root() == this; }

const Instruction* Instruction::async_start() const {
  if (is_async_start(opcode_)) return nullptr;
  const Instruction* s = this;
  // async-update and every done name their start (through any updates) as operand 0.
  do {
    s = s->operands_.size > 0 ? s->operand(0) : nullptr;
  } while (s != nullptr && s->opcode_ == Opcode::kAsyncUpdate);
  return s != nullptr && is_async_start(s->opcode_) ? s : nullptr;
}

std::optional<Opcode> Instruction::async_wrapped_opcode() const {
  if (has_wrapped_opcode_) return wrapped_opcode_;
  if (opcode_ != Opcode::kAsyncUpdate && opcode_ != Opcode::kAsyncDone &&
      opcode_ != Opcode::kAsyncStart) {
    return std::nullopt;
  }
  const Instruction* start = opcode_ == Opcode::kAsyncStart ? this : async_start();
  if (start == nullptr || start->opcode_ != Opcode::kAsyncStart) return std::nullopt;
  if (start->has_wrapped_opcode_) return start->wrapped_opcode_;
  Computation* wrapped = start->computation_attribute(AttrId::kCalls);
  if (wrapped == nullptr || wrapped->root() == nullptr) return std::nullopt;
  return wrapped->root()->opcode();
}

absl::Span<Computation* const> Instruction::called_computations() const {
  if (rare_ != nullptr && rare_->has_called) return rare_->called.span();
  // Otherwise at most one attribute holds computations, each once (IrAccess::set_attributes).
  for (const Attribute& a : attributes()) {
    if (Computation* const* c = a.get<Computation*>()) return absl::Span<Computation* const>(c, 1);
    if (const ComputationList* list = a.get<ComputationList>()) return *list;
  }
  return {};
}

absl::Span<Instruction* const> Instruction::control_successors() const {
  return rare_ != nullptr ? rare_->control_successors.span() : absl::Span<Instruction* const>();
}

std::string_view Instruction::literal_text() const {
  return rare_ != nullptr ? rare_->literal : std::string_view();
}

absl::Span<Instruction* const> Instruction::control_predecessors() const {
  const Attribute* a = attribute(AttrId::kControlPredecessors);
  if (a == nullptr) return {};
  const InstructionList* list = a->get<InstructionList>();
  return list ? *list : absl::Span<Instruction* const>();
}

const Attribute* Instruction::attribute(AttrId id) const {
  for (const Attribute& a : attributes()) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

namespace {

template <typename T>
T value_or(const Instruction& i, AttrId id, T fallback) {
  const Attribute* a = i.attribute(id);
  if (a == nullptr) return fallback;
  const T* v = a->get<T>();
  return v ? *v : fallback;
}

}  // namespace

IntList Instruction::int_list(AttrId id) const { return value_or<IntList>(*this, id, {}); }

std::optional<int64_t> Instruction::int_attribute(AttrId id) const {
  const Attribute* a = attribute(id);
  if (a == nullptr) return std::nullopt;
  const int64_t* v = a->get<int64_t>();
  if (v == nullptr) return std::nullopt;
  return *v;
}

bool Instruction::bool_attribute(AttrId id) const { return value_or<bool>(*this, id, false); }

std::string_view Instruction::string_attribute(AttrId id) const {
  return value_or<std::string_view>(*this, id, {});
}

Computation* Instruction::computation_attribute(AttrId id) const {
  return value_or<Computation*>(*this, id, nullptr);
}

const Slice* Instruction::slice() const {
  return value_or<const Slice*>(*this, AttrId::kSlice, nullptr);
}
const Padding* Instruction::padding() const {
  return value_or<const Padding*>(*this, AttrId::kPadding, nullptr);
}
const Window* Instruction::window() const {
  return value_or<const Window*>(*this, AttrId::kWindow, nullptr);
}
const ConvDimLabels* Instruction::conv_dim_labels() const {
  return value_or<const ConvDimLabels*>(*this, AttrId::kDimLabels, nullptr);
}
int64_t Instruction::feature_group_count() const {
  return int_attribute(AttrId::kFeatureGroupCount).value_or(1);
}
int64_t Instruction::batch_group_count() const {
  return int_attribute(AttrId::kBatchGroupCount).value_or(1);
}
const WordList* Instruction::operand_precision() const {
  return value_or<const WordList*>(*this, AttrId::kOperandPrecision, nullptr);
}
const ReplicaGroups* Instruction::replica_groups() const {
  return value_or<const ReplicaGroups*>(*this, AttrId::kReplicaGroups, nullptr);
}
const IntListList* Instruction::source_target_pairs() const {
  return value_or<const IntListList*>(*this, AttrId::kSourceTargetPairs, nullptr);
}
const Sharding* Instruction::sharding() const {
  return value_or<const Sharding*>(*this, AttrId::kSharding, nullptr);
}
std::optional<OpMetadata> Instruction::metadata() const {
  return detail::decode_metadata(attribute(AttrId::kMetadata));
}
std::string_view Instruction::op_name() const {
  return detail::metadata_op_name(attribute(AttrId::kMetadata));
}
const FrontendAttributes* Instruction::frontend_attributes() const {
  return value_or<const FrontendAttributes*>(*this, AttrId::kFrontendAttributes, nullptr);
}

DotDimensionNumbers Instruction::dot_dimensions() const {
  DotDimensionNumbers d;
  d.lhs_batch = int_list(AttrId::kLhsBatchDims);
  d.lhs_contracting = int_list(AttrId::kLhsContractingDims);
  d.rhs_batch = int_list(AttrId::kRhsBatchDims);
  d.rhs_contracting = int_list(AttrId::kRhsContractingDims);
  d.lhs_ragged = int_list(AttrId::kLhsRaggedDims);
  d.rhs_group = int_list(AttrId::kRhsGroupDims);
  return d;
}

GatherDimensionNumbers Instruction::gather_dimensions() const {
  GatherDimensionNumbers d;
  d.offset_dims = int_list(AttrId::kOffsetDims);
  d.collapsed_slice_dims = int_list(AttrId::kCollapsedSliceDims);
  d.start_index_map = int_list(AttrId::kStartIndexMap);
  d.operand_batching_dims = int_list(AttrId::kOperandBatchingDims);
  d.start_indices_batching_dims = int_list(AttrId::kStartIndicesBatchingDims);
  d.slice_sizes = int_list(AttrId::kSliceSizes);
  d.index_vector_dim = int_attribute(AttrId::kIndexVectorDim).value_or(0);
  return d;
}

ScatterDimensionNumbers Instruction::scatter_dimensions() const {
  ScatterDimensionNumbers d;
  d.update_window_dims = int_list(AttrId::kUpdateWindowDims);
  d.inserted_window_dims = int_list(AttrId::kInsertedWindowDims);
  d.scatter_dims_to_operand_dims = int_list(AttrId::kScatterDimsToOperandDims);
  d.input_batching_dims = int_list(AttrId::kInputBatchingDims);
  d.scatter_indices_batching_dims = int_list(AttrId::kScatterIndicesBatchingDims);
  d.index_vector_dim = int_attribute(AttrId::kIndexVectorDim).value_or(0);
  return d;
}

// ---- Edits.

void Instruction::set_shape(const Shape& shape) {
  shape_ = detail::IrAccess::state(*parent_).shapes.intern(shape);
  detail::IrAccess::update_entry_layout(this);
}

void Instruction::remove_attribute(AttrId id) {
  detail::ModuleState& m = detail::IrAccess::state(*parent_);
  std::vector<Attribute> kept;
  for (const Attribute& a : attributes()) {
    if (a.id != id) kept.push_back(a);
  }
  detail::IrAccess::set_attributes(this, m.arena.copy<Attribute>(kept));
}

namespace {

// Whether `from` reaches `to` through operands.
bool depends_on(const Instruction& from, const Instruction& to) {
  std::vector<const Instruction*> stack = {&from};
  absl::flat_hash_set<const Instruction*> seen = {&from};
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    for (const Instruction* o : i->operands()) {
      if (o == &to) return true;
      if (seen.insert(o).second) stack.push_back(o);
    }
  }
  return false;
}

}  // namespace

absl::Status Instruction::replace_operand(size_t i, Instruction* operand) {
  if (i >= operands_.size) {
    return absl::OutOfRangeError(
        str_cat(name(), " has ", operands_.size, " operands; there is no operand ", i));
  }
  if (operand == nullptr || operand->parent_ != parent_) {
    return absl::InvalidArgumentError(
        str_cat("the new operand of ", name(), " must be in computation ", parent_->name()));
  }
  // An operand printed before this one cannot depend on it while operands come before their
  // users; one printed at or after it is searched for a path back here.
  if (operand == this || (operand->position_ >= position_ && depends_on(*operand, *this))) {
    return absl::InvalidArgumentError(
        str_cat(operand->name(), " cannot be operand ", i, " of ", name(), ": it ",
                operand == this ? "is that instruction" : "depends on it", ", a cycle"));
  }
  using detail::EdgeLists;
  Instruction* old = operands_.data()[i];
  EdgeLists::set(operands_, i, operand);
  const absl::Span<Instruction* const> now = operands();
  if (std::find(now.begin(), now.end(), old) == now.end()) EdgeLists::erase_one(old->users_, this);
  const absl::Span<Instruction* const> users = operand->users();
  if (std::find(users.begin(), users.end(), this) == users.end()) {
    EdgeLists::push_back(detail::IrAccess::state(*parent_).arena, operand->users_, this);
  }
  return absl::OkStatus();
}

absl::Status Instruction::replace_all_uses_with(Instruction* other) {
  if (other == nullptr || other->parent_ != parent_) {
    return absl::InvalidArgumentError(
        str_cat("the replacement of ", name(), " must be in computation ", parent_->name()));
  }
  if (other == this) return absl::OkStatus();
  std::vector<Instruction*> users(users_.span().begin(), users_.span().end());
  for (Instruction* user : users) {
    if (user == other) continue;  // other may itself use this (e.g. a copy inserted after it)
    for (size_t k = 0; k < user->operand_count(); ++k) {
      if (user->operand(k) == this) {
        if (absl::Status s = user->replace_operand(k, other); !s.ok()) return s;
      }
    }
  }
  if (is_root()) {
    detail::IrAccess::set_root(parent_, other);
    detail::IrAccess::update_entry_layout(other);
  }
  return absl::OkStatus();
}

std::string spelled_opcode(const Instruction& i) {
  if (!i.uses_async_sugar() || !i.async_wrapped_opcode()) {
    return std::string(opcode_name(i.opcode()));
  }
  const std::string_view suffix = i.opcode() == Opcode::kAsyncStart    ? "-start"
                                  : i.opcode() == Opcode::kAsyncUpdate ? "-update"
                                                                       : "-done";
  std::string s(opcode_name(*i.async_wrapped_opcode()));
  s += suffix;
  return s;
}

}  // namespace hloroof
