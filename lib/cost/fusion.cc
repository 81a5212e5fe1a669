// Bytes at a fusion's boundary (docs/cost-conventions.md, "Where hloroof follows XLA", XLA's
// FusionParameterReadBytes): the intermediates stay on chip; each result leaf is written once (only
// the update when the root is an in-place dynamic-update-slice); each parameter is read as its
// users read it.
#include "cost/cost_internal.h"
#include "ir/shape_util.h"

namespace hloroof::cost {

namespace {

// The fraction of `i`'s elements its users need, from theirs (`used`, users first).
double used_by_users(const Instruction& i,
                     const absl::flat_hash_map<const Instruction*, double>& used) {
  if (i.is_root() || i.users().empty()) return 1;
  const double elements = leaf_elements(i.shape());
  if (elements <= 0) return 1;
  double most = 0;
  for (const Instruction* user : i.users()) {
    auto found = used.find(user);
    const double user_used = found == used.end() ? 1 : found->second;
    double part = 1;
    switch (user->opcode()) {
      case Opcode::kGather:
      case Opcode::kSlice:
      case Opcode::kDynamicSlice:
        if (user->operand(0) == &i) {
          part = leaf_elements(user->shape()) * user_used / elements;
        }
        break;
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kConvert:
      case Opcode::kCopy:
        part = user_used;
        break;
      default:
        if (is_elementwise(user->opcode()) && leaf_elements(user->shape()) == elements) {
          part = user_used;
        }
    }
    most = std::max(most, std::min(1.0, part));
    if (most >= 1) break;
  }
  return most;
}

}  // namespace

absl::flat_hash_map<const Instruction*, double> element_utilization(const Computation& fused) {
  absl::flat_hash_map<const Instruction*, double> used;
  const auto instructions = fused.instructions();
  used.reserve(instructions.size());
  for (size_t k = instructions.size(); k > 0; --k) {
    const Instruction* i = instructions[k - 1];
    used[i] = used_by_users(*i, used);
  }
  return used;
}

namespace {

using ShapePath = absl::InlinedVector<int64_t, 2>;

template <typename Fn>
void for_each_leaf_path(const Shape& shape, ShapePath& path, Fn&& fn) {
  if (shape.is_tuple()) {
    for (size_t i = 0; i < shape.elements.size(); ++i) {
      path.push_back(static_cast<int64_t>(i));
      for_each_leaf_path(shape.elements[i], path, fn);
      path.pop_back();
    }
  } else if (shape.kind != Shape::Kind::kToken) {
    fn(path, shape);
  }
}

// A single-operand scatter whose operand is a fused parameter and whose result is the fused
// computation's (its root, or an element of a root tuple): XLA's GPU runs it in place on that
// parameter's buffer.
bool in_place_scatter(const Instruction& scatter) {
  if (scatter.opcode() != Opcode::kScatter || scatter.operand_count() != 3) return false;
  if (scatter.operand(0)->opcode() != Opcode::kParameter) return false;
  if (scatter.is_root()) return true;
  const auto users = scatter.users();
  return users.size() == 1 && users[0]->is_root() && users[0]->opcode() == Opcode::kTuple;
}

// The in-place scatter that produces the root's leaf at `path`, if any.
const Instruction* in_place_scatter(const Instruction* root, const ShapePath& path) {
  if (root == nullptr) return nullptr;
  const Instruction* leaf = root;
  if (path.size() == 1 && root->opcode() == Opcode::kTuple &&
      path[0] < static_cast<int64_t>(root->operand_count())) {
    leaf = root->operand(static_cast<size_t>(path[0]));
  } else if (!path.empty()) {
    return nullptr;
  }
  return in_place_scatter(*leaf) ? leaf : nullptr;
}

class ParameterReads {
 public:
  explicit ParameterReads(Context& context) : context_(context) {}

  // Charges to `into` the reads of `value`, a fused parameter or a get-tuple-element of one,
  // whose data lives in memory space `space`. Each (value, space, model) is walked once and
  // its figures reused: a chain of nested fusions costs time linear in its length (the parser
  // bounds its depth, and so this recursion).
  void charge(const Instruction& value, int64_t space, Model model, ByteTally& into) {
    const auto key = std::make_tuple(&value, space, model);
    if (auto it = context_.fused_reads.find(key); it != context_.fused_reads.end()) {
      into.add(it->second);
      return;
    }
    ByteTally reads(context_.sizes);
    charge_uncached(value, space, model, reads);
    into.add(reads);
    context_.fused_reads.try_emplace(key, reads);
  }

 private:
  void charge_uncached(const Instruction& value, int64_t space, Model model, ByteTally& tally) {
    // Ordinary users share one read ("reads can be shared"). Our own figure reads only the
    // part of the value that reaches the fusion's result (a gather or slice at the end of an
    // elementwise chain picks a few elements); XLA's reads it whole.
    bool shared_ours = model == Model::kXla, shared_xla = model == Model::kOurs;
    auto read_shared = [&](Model only = Model::kBoth) {
      const bool ours = !shared_ours && only != Model::kXla;
      const bool xla = !shared_xla && only != Model::kOurs;
      shared_ours = shared_ours || ours;
      shared_xla = shared_xla || xla;
      const double used = ours ? utilization(value) : 1.0;
      if (ours && xla && used >= 1) {
        tally.read_in(value.shape(), space, Model::kBoth);
        return;
      }
      if (ours) tally.read_in(value.shape(), space, Model::kOurs, used);
      if (xla) tally.read_in(value.shape(), space, Model::kXla);
    };
    for (const Instruction* user : value.users()) {
      switch (user->opcode()) {
        case Opcode::kFusion:
          for (size_t slot = 0; slot < user->operand_count(); ++slot) {
            if (user->operand(slot) == &value) charge_nested(*user, slot, space, model, tally);
          }
          break;
        case Opcode::kSlice:
          tally.read_in(user->shape(), space, model);
          break;
        case Opcode::kDynamicSlice:
          if (user->operand(0) == &value) {
            tally.read_in(user->shape(), space, model);
          } else {
            read_shared();
          }
          break;
        case Opcode::kDynamicUpdateSlice:
          // As the buffer (operand 0) the parameter is aliased to the result: not read.
          if (user->operand(0) != &value) read_shared();
          break;
        case Opcode::kScatter:
          // A scatter at the root updates its operand in place (XLA's GPU scatter shares
          // operand 0's buffer with the result): our figure does not read it; XLA's does.
          read_shared(user->operand(0) == &value && value.opcode() == Opcode::kParameter &&
                              in_place_scatter(*user)
                          ? Model::kXla
                          : Model::kBoth);
          break;
        case Opcode::kBroadcast:
        case Opcode::kReshape:
          tally.read_in(value.shape(), space, model);
          break;
        default:
          read_shared();
      }
    }
  }

  // `value` fills `slot` of nested fusion `nested`. When the nested fusion merely forwards that
  // parameter (its root has no operands or reads the parameter first), slicing users of the
  // nested fusion read only their slice; any other use reads the nested parameter, once.
  void charge_nested(const Instruction& nested, size_t slot, int64_t space, Model model,
                     ByteTally& tally) {
    const Computation* body = nested.computation_attribute(AttrId::kCalls);
    if (body == nullptr || slot >= body->parameters().size()) return;
    const Instruction& parameter = *body->parameters()[slot];
    const Instruction* root = body->root();
    const bool forwards =
        root != nullptr && (root->operand_count() == 0 || root->operand(0) == &parameter);
    if (nested.users().empty()) {
      // XLA charges nothing here (it looks only at the nested fusion's users); the data is
      // read all the same.
      if (model != Model::kXla) charge(parameter, space, Model::kOurs, tally);
      return;
    }
    bool recursed = false;
    for (const Instruction* user : nested.users()) {
      const bool sliced_here = user->operand_count() > 0 && user->operand(0) == &nested;
      if (forwards && user->opcode() == Opcode::kSlice) {
        tally.read_in(user->shape(), space, model);
      } else if (forwards && sliced_here && user->opcode() == Opcode::kDynamicSlice) {
        tally.read_in(user->shape(), space, model);
      } else if (forwards && sliced_here && user->opcode() == Opcode::kDynamicUpdateSlice) {
        // aliased
      } else if (!recursed) {
        recursed = true;
        charge(parameter, space, model, tally);
      }
    }
  }

  // The fraction of `value`'s elements the fusion's result depends on (element_utilization),
  // for the value's computation, computed once for all its instructions.
  double utilization(const Instruction& value) {
    const Computation* fused = value.parent();
    if (fused == nullptr) return 1;
    if (fused != utilized_in_) {
      utilized_in_ = fused;
      used_ = element_utilization(*fused);
    }
    auto it = used_.find(&value);
    return it == used_.end() ? 1 : it->second;
  }

  Context& context_;
  const Computation* utilized_in_ = nullptr;
  absl::flat_hash_map<const Instruction*, double> used_;
};

// The instruction a tuple parameter's leaf at `path` is read through: XLA follows the
// get-tuple-element users down and stops where none matches.
const Instruction& leaf_reader(const Instruction& parameter, const ShapePath& path) {
  const Instruction* node = &parameter;
  for (int64_t index : path) {
    for (const Instruction* user : node->users()) {
      if (user->opcode() == Opcode::kGetTupleElement &&
          user->int_attribute(AttrId::kIndex) == index) {
        node = user;
        break;
      }
    }
  }
  return *node;
}

const Instruction* in_place_update(const Instruction* root, const ShapePath& path) {
  if (root == nullptr) return nullptr;
  if (path.empty() && root->opcode() == Opcode::kDynamicUpdateSlice) return root;
  if (path.size() == 1 && root->opcode() == Opcode::kTuple &&
      path[0] < static_cast<int64_t>(root->operand_count())) {
    const Instruction* element = root->operand(static_cast<size_t>(path[0]));
    if (element->opcode() == Opcode::kDynamicUpdateSlice) return element;
  }
  return nullptr;
}

}  // namespace

void add_fusion_bytes(const OpView& fusion, const Computation& fused, Context& context,
                      ByteTally& tally) {
  const Instruction* root = fused.root();
  ShapePath path;
  for_each_leaf_path(*fusion.result, path, [&](const ShapePath& at, const Shape& leaf) {
    const Instruction* update = in_place_update(root, at);
    if (update != nullptr && update->operand_count() > 1) {
      tally.write_in(update->operand(1)->shape(), memory_space(leaf));
    } else if (const Instruction* scatter = in_place_scatter(root, at)) {
      // Only the updated elements are written, at most the whole result: updates to one
      // element combine (XLA's figure: the whole result).
      const Shape& updates = scatter->operand(scatter->operand_count() - 1)->shape();
      if (detail::element_count(updates) < detail::element_count(leaf)) {
        tally.write_in(updates, memory_space(leaf), Model::kOurs);
        tally.write(leaf, Model::kXla);
      } else {
        tally.write(leaf);
      }
    } else {
      tally.write(leaf);
    }
  });

  // Constants of more than one element are read from memory; scalars are immediates.
  for (const Instruction* i : fused.instructions()) {
    if (i->opcode() == Opcode::kConstant && leaf_elements(i->shape()) > 1) tally.read(i->shape());
  }

  ParameterReads reads(context);
  for (const Instruction* parameter : fused.parameters()) {
    if (parameter == nullptr) continue;
    if (!parameter->shape().is_tuple()) {
      reads.charge(*parameter, memory_space(parameter->shape()), Model::kBoth, tally);
      continue;
    }
    for_each_leaf_path(parameter->shape(), path, [&](const ShapePath& at, const Shape& leaf) {
      reads.charge(leaf_reader(*parameter, at), memory_space(leaf), Model::kBoth, tally);
    });
  }
}

const Instruction* custom_fusion_stand_in(const OpView& fusion, const Computation& fused) {
  if (fusion.instruction->fusion_kind() != "kCustom") return nullptr;
  for (const Instruction* i : fused.instructions()) {
    if (i->opcode() == Opcode::kGather || i->opcode() == Opcode::kScatter) return i;
  }
  return nullptr;
}

}  // namespace hloroof::cost
