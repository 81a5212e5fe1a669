// The rules follow XLA's dataflow and alias analyses (hlo_dataflow_analysis.cc, alias_info.cc):
// which ops define new values, which forward their operands' values, and which must write in
// place.
#include "memory/buffer_aliasing.h"

#include <numeric>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "hloroof/computation.h"
#include "memory/shape_leaves.h"
#include "re2/re2.h"
#include "hloroof/absl_compat.h"

namespace hloroof::detail {
namespace {

using ShapeIndex = std::vector<int64_t>;

// Fusions nest fusions; a malformed module could nest them without end.
constexpr int kMaxFusionDepth = 32;

ShapeIndex parse_index(const std::string& text) {
  ShapeIndex index;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int64_t v = 0;
    if (absl::SimpleAtoi(part, &v)) index.push_back(v);
  }
  return index;
}

// `output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {0})}` (docs/hlo-text.md, "Attributes").
std::vector<InPlacePair> declared_aliasing(const Instruction& instruction) {
  std::vector<InPlacePair> pairs;
  const Attribute* attribute = instruction.attribute(AttrId::kOutputToOperandAliasing);
  if (attribute == nullptr) return pairs;
  static const RE2 kEntry(R"(\{([0-9,\s]*)\}\s*:\s*\(\s*(\d+)\s*,\s*\{([0-9,\s]*)\}\s*\))");
  re2::StringPiece text(attribute->text().data(), attribute->text().size());
  std::string output, operand, operand_index;
  while (RE2::FindAndConsume(&text, kEntry, &output, &operand, &operand_index)) {
    InPlacePair pair;
    if (!absl::SimpleAtoi(operand, &pair.operand)) continue;
    pair.output_index = parse_index(output);
    pair.operand_index = parse_index(operand_index);
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

// Follows tuple, get-tuple-element and bitcast back to the instruction that defines the value
// at `index` of `instruction` (XLA's FollowTupleIndirection and FollowNoOpIndirection).
const Instruction* follow_indirections(const Instruction* instruction, ShapeIndex& index) {
  while (instruction->opcode() == Opcode::kTuple && !index.empty()) {
    if (index.front() < 0 || index.front() >= static_cast<int64_t>(instruction->operand_count())) {
      return instruction;
    }
    instruction = instruction->operand(index.front());
    index.erase(index.begin());
  }
  while (instruction->opcode() == Opcode::kGetTupleElement && instruction->operand_count() == 1) {
    index.insert(index.begin(), instruction->int_attribute(AttrId::kIndex).value_or(0));
    instruction = instruction->operand(0);
  }
  while (index.empty() && instruction->opcode() == Opcode::kBitcast &&
         instruction->operand_count() == 1) {
    instruction = instruction->operand(0);
  }
  return instruction;
}

std::vector<InPlacePair> pairs_at_depth(const Instruction& instruction, int depth);

// The subshape of `shape` at `index`, or nullptr when there is none.
const Shape* subshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* at = &shape;
  for (int64_t i : index) {
    if (!at->is_tuple() || i < 0 || static_cast<size_t>(i) >= at->elements.size()) return nullptr;
    at = &at->elements[static_cast<size_t>(i)];
  }
  return at;
}

// A called computation's result is written in place when, followed back from its root, it
// comes from an in-place op whose overwritten operand is (through indirections) one of its
// parameters: a fusion's (its result: `prefix` {}), or, with `host_only`, an asynchronous
// computation's whose result is in host memory (the start's element {1}: the
// dynamic-update-slice a TPU program offloads activations with; XLA's own aliasing rules give
// an async-start no such pair, the TPU compiler's buffer assignment makes it one buffer).
std::vector<InPlacePair> called_pairs(const Instruction& caller, const ShapeIndex& prefix,
                                      int depth, bool host_only = false) {
  std::vector<InPlacePair> pairs;
  Computation* called = caller.computation_attribute(AttrId::kCalls);
  if (called == nullptr || called->root() == nullptr || depth > kMaxFusionDepth) return pairs;
  const Shape& result = called->root()->shape();
  const int64_t leaves = leaf_count(result);
  LeafIndexer indexer;
  for (int64_t leaf = 0; leaf < leaves; ++leaf) {
    const ShapeIndex root_index = indexer.index(result, leaf);
    ShapeIndex output_index = prefix;
    output_index.insert(output_index.end(), root_index.begin(), root_index.end());
    ShapeIndex source_index = root_index;
    if (host_only) {
      const Shape* leaf_shape = subshape(result, root_index);
      if (leaf_shape == nullptr || !leaf_shape->layout ||
          leaf_shape->layout->memory_space != kHostMemorySpace) {
        continue;
      }
    }
    const Instruction* source = follow_indirections(called->root(), source_index);
    for (const InPlacePair& inner : pairs_at_depth(*source, depth + 1)) {
      if (inner.output_index != source_index ||
          inner.operand >= static_cast<int64_t>(source->operand_count())) {
        continue;
      }
      ShapeIndex input_index = inner.operand_index;
      const Instruction* input = follow_indirections(source->operand(inner.operand), input_index);
      if (input->opcode() == Opcode::kParameter && input->parameter_number() >= 0) {
        pairs.push_back({input->parameter_number(), input_index, output_index});
      }
      break;
    }
  }
  return pairs;
}

// Operand i overwritten into result {i}, or operand 0 into the whole result when there is one.
std::vector<InPlacePair> leading_operands_in_place(int64_t count) {
  if (count == 1) return {{0, {}, {}}};
  std::vector<InPlacePair> pairs;
  for (int64_t i = 0; i < count; ++i) pairs.push_back({i, {}, {i}});
  return pairs;
}

std::vector<InPlacePair> pairs_at_depth(const Instruction& instruction, int depth) {
  const int64_t operands = static_cast<int64_t>(instruction.operand_count());
  switch (instruction.opcode()) {
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kSetDimensionSize:
      return {{0, {}, {}}};
    case Opcode::kScatter:  // N inputs, one indices operand, N updates
      return leading_operands_in_place((operands - 1) / 2);
    case Opcode::kAllReduceStart:
      // XLA gives NVSHMEM all-reduces separate input and output buffers.
      if (absl::StrContains(
              absl::AsciiStrToLower(sv(instruction.string_attribute(AttrId::kBackendConfig))),
              "nvshmem")) {
        return {};
      }
      return leading_operands_in_place(operands);
    case Opcode::kCollectivePermute:
    case Opcode::kRaggedAllToAll:
      // The combined collective-permute form writes into its second operand.
      if (instruction.opcode() == Opcode::kCollectivePermute && operands != 4) return {};
      return {{1, {}, {}}};
    case Opcode::kCollectivePermuteStart:
      if (operands != 4) return {};
      return {{1, {}, {1}}};
    case Opcode::kCustomCall:
      return declared_aliasing(instruction);
    case Opcode::kAsyncStart: {
      std::vector<InPlacePair> pairs = called_pairs(instruction, {1}, depth, /*host_only=*/true);
      for (InPlacePair& p : declared_aliasing(instruction)) pairs.push_back(std::move(p));
      return pairs;
    }
    case Opcode::kFusion: {
      std::vector<InPlacePair> pairs = called_pairs(instruction, {}, depth);
      for (InPlacePair& p : declared_aliasing(instruction)) pairs.push_back(std::move(p));
      return pairs;
    }
    default:
      return {};
  }
}

// Makes the leaves of result subshape `output_index` those of operand `operand`'s subshape
// `operand_index`, when both exist and hold the same number of leaves.
void forward(const Instruction& instruction, absl::Span<const int64_t> output_index,
             int64_t operand, absl::Span<const int64_t> operand_index,
             std::vector<LeafSource>& sources) {
  if (operand < 0 || operand >= static_cast<int64_t>(instruction.operand_count())) return;
  std::optional<LeafRange> out = leaf_range(instruction.shape(), output_index);
  std::optional<LeafRange> in = leaf_range(instruction.operand(operand)->shape(), operand_index);
  if (!out || !in || out->count != in->count) return;
  for (int64_t k = 0; k < out->count; ++k) {
    sources[out->first + k] = {static_cast<int32_t>(operand), in->first + k};
  }
}

// Makes the leaves of result subshape `output_index` the leaves of all operands, in order
// (a tuple, or the operand tuple of an async start), when the counts agree.
void forward_all_operands(const Instruction& instruction, absl::Span<const int64_t> output_index,
                          std::vector<LeafSource>& sources) {
  std::optional<LeafRange> out = leaf_range(instruction.shape(), output_index);
  if (!out) return;
  int64_t total = 0;
  for (const Instruction* o : instruction.operands()) total += leaf_count(o->shape());
  if (total != out->count) return;
  int64_t k = out->first;
  for (size_t i = 0; i < instruction.operand_count(); ++i) {
    const int64_t n = leaf_count(instruction.operand(i)->shape());
    for (int64_t j = 0; j < n; ++j) sources[k++] = {static_cast<int32_t>(i), j};
  }
}

// For each leaf of `c`'s result, the leaf of its parameter 0 it passes on unchanged (through
// ops that only pass buffers on: tuples, get-tuple-elements and the like), or -1. One walk in
// order: operands come before their users.
std::vector<int64_t> root_parameter_leaves(const Computation& c) {
  absl::flat_hash_map<const Instruction*, std::vector<int64_t>> of;
  std::vector<LeafSource> sources;
  for (const Instruction* i : c.instructions()) {
    std::vector<int64_t> leaves;
    if (i->opcode() == Opcode::kParameter) {
      if (i->parameter_number() != 0) continue;
      leaves.resize(static_cast<size_t>(leaf_count(i->shape())));
      std::iota(leaves.begin(), leaves.end(), int64_t{0});
    } else if (only_forwards_buffers(i->opcode())) {
      leaf_sources(*i, sources);
      leaves.assign(sources.size(), -1);
      bool any = false;
      for (size_t k = 0; k < sources.size(); ++k) {
        if (sources[k].operand == LeafSource::kNewBuffer) continue;
        auto it = of.find(i->operand(static_cast<size_t>(sources[k].operand)));
        if (it == of.end() || sources[k].leaf >= static_cast<int64_t>(it->second.size())) continue;
        leaves[k] = it->second[static_cast<size_t>(sources[k].leaf)];
        any = any || leaves[k] >= 0;
      }
      if (!any) continue;
    } else {
      continue;
    }
    of[i] = std::move(leaves);
  }
  auto it = c.root() != nullptr ? of.find(c.root()) : of.end();
  return it != of.end() ? std::move(it->second) : std::vector<int64_t>();
}

// A conditional's result leaf that every branch passes on from its parameter, where every
// branch's parameter is the same leaf of the same instruction, is that leaf's buffer (XLA's
// dataflow: the union of the branches' values is one value, no new one).
void forward_common_branch_leaves(const Instruction& conditional,
                                  std::vector<LeafSource>& sources) {
  const std::vector<const Computation*> branches = conditional_branches(conditional);
  if (branches.empty() || branches.size() + 1 != conditional.operand_count()) return;
  std::vector<std::vector<int64_t>> passed_on(branches.size());
  for (size_t b = 0; b < branches.size(); ++b) passed_on[b] = root_parameter_leaves(*branches[b]);
  for (size_t leaf = 0; leaf < sources.size(); ++leaf) {
    const Instruction* common = nullptr;
    int64_t common_leaf = -1;
    bool same = true;
    for (size_t b = 0; b < branches.size() && same; ++b) {
      const int64_t l = leaf < passed_on[b].size() ? passed_on[b][leaf] : -1;
      const Instruction* operand = conditional.operand(b + 1);
      same = l >= 0 && (common == nullptr || (operand == common && l == common_leaf));
      common = operand;
      common_leaf = l;
    }
    if (same && common != nullptr) sources[leaf] = {1, common_leaf};
  }
}

}  // namespace

std::vector<const Computation*> conditional_branches(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kConditional) return {};
  if (const Attribute* list = instruction.attribute(AttrId::kBranchComputations)) {
    if (const ComputationList* branches = list->get<ComputationList>()) {
      return {branches->begin(), branches->end()};
    }
    return {};
  }
  const Computation* t = instruction.computation_attribute(AttrId::kTrueComputation);
  const Computation* f = instruction.computation_attribute(AttrId::kFalseComputation);
  if (t == nullptr || f == nullptr) return {};
  return {t, f};
}

bool only_forwards_buffers(Opcode op) {
  switch (op) {
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kAsyncUpdate:
      return true;
    default:
      return false;
  }
}

std::vector<InPlacePair> in_place_pairs(const Instruction& instruction) {
  return pairs_at_depth(instruction, 0);
}

int64_t bound_by_update_chain(const Instruction& update) {
  const Shape* bound = subshape(update.operand(0)->shape(), {0});
  return bound != nullptr && bound->is_tuple() ? static_cast<int64_t>(bound->elements.size()) : 0;
}

void leaf_sources(const Instruction& instruction, std::vector<LeafSource>& sources) {
  sources.assign(leaf_count(instruction.shape()), LeafSource());
  for_each_forwarded(instruction, [&](absl::Span<const int64_t> output_index, int64_t operand,
                                      absl::Span<const int64_t> operand_index) {
    if (operand == kAllOperands) {
      forward_all_operands(instruction, output_index, sources);
    } else {
      forward(instruction, output_index, operand, operand_index, sources);
    }
  });
  if (instruction.opcode() == Opcode::kConditional) {
    forward_common_branch_leaves(instruction, sources);
  }
  for (const InPlacePair& pair : in_place_pairs(instruction)) {
    forward(instruction, pair.output_index, pair.operand, pair.operand_index, sources);
  }
}

}  // namespace hloroof::detail
