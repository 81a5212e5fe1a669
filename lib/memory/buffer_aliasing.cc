// The rules follow XLA's dataflow and alias analyses (hlo_dataflow_analysis.cc, alias_info.cc):
// which ops define new values, which forward their operands' values, and which must write in
// place.
#include "memory/buffer_aliasing.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "hloroof/computation.h"
#include "memory/shape_leaves.h"
#include "re2/re2.h"
#include "util/absl_compat.h"

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
void forward(const Instruction& instruction, const ShapeIndex& output_index, int64_t operand,
             const ShapeIndex& operand_index, std::vector<LeafSource>& sources) {
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
void forward_all_operands(const Instruction& instruction, const ShapeIndex& output_index,
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

// Where leaf `leaf` of `c`'s result comes from when it is a leaf of parameter 0 passed on
// unchanged (through tuples, get-tuple-elements and the like): that leaf's number; else -1.
int64_t parameter_leaf_of_root(const Computation& c, int64_t leaf) {
  const Instruction* i = c.root();
  std::vector<LeafSource> sources;
  for (size_t steps = 0; i != nullptr && steps <= c.instruction_count(); ++steps) {
    if (i->opcode() == Opcode::kParameter) return i->parameter_number() == 0 ? leaf : -1;
    if (!only_forwards_buffers(i->opcode())) return -1;
    leaf_sources(*i, sources);
    if (leaf < 0 || leaf >= static_cast<int64_t>(sources.size())) return -1;
    const LeafSource from = sources[static_cast<size_t>(leaf)];
    if (from.operand == LeafSource::kNewBuffer) return -1;
    i = i->operand(static_cast<size_t>(from.operand));
    leaf = from.leaf;
  }
  return -1;
}

// A conditional's result leaf that every branch passes on from its parameter, where every
// branch's parameter is the same leaf of the same instruction, is that leaf's buffer (XLA's
// dataflow: the union of the branches' values is one value, no new one).
void forward_common_branch_leaves(const Instruction& conditional,
                                  std::vector<LeafSource>& sources) {
  const std::vector<const Computation*> branches = conditional_branches(conditional);
  if (branches.empty() || branches.size() + 1 != conditional.operand_count()) return;
  for (size_t leaf = 0; leaf < sources.size(); ++leaf) {
    const Instruction* common = nullptr;
    int64_t common_leaf = -1;
    bool same = true;
    for (size_t b = 0; b < branches.size() && same; ++b) {
      const int64_t l = parameter_leaf_of_root(*branches[b], static_cast<int64_t>(leaf));
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

void leaf_sources(const Instruction& instruction, std::vector<LeafSource>& sources) {
  sources.assign(leaf_count(instruction.shape()), LeafSource());
  switch (instruction.opcode()) {
    case Opcode::kTuple:
      forward_all_operands(instruction, {}, sources);
      break;
    case Opcode::kGetTupleElement:
      if (std::optional<int64_t> index = instruction.int_attribute(AttrId::kIndex)) {
        forward(instruction, {}, 0, {*index}, sources);
      }
      break;
    // A loop's state lives in its operand's buffers for the whole loop (XLA colocates the
    // while operand, body parameter, body root and result).
    case Opcode::kWhile:
    case Opcode::kBitcast:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kAddDependency:
    case Opcode::kAllReduceDone:
      forward(instruction, {}, 0, {}, sources);
      break;
    // An update is its start's buffers. In the form libtpu writes for SparseCore offloads it
    // also takes operands after the start, which bind the async operation's next parameters:
    // element {0, n + k - 1} is operand k, where the chain before it (operand 0) bound n, whose
    // buffers it keeps (XLA's AliasInfo rule). Its other elements get buffers of their own
    // (its output_to_operand_aliasing is not read).
    case Opcode::kAsyncUpdate:
      if (instruction.operand_count() == 1) {
        forward(instruction, {}, 0, {}, sources);
      } else {
        const Shape* bound = subshape(instruction.operand(0)->shape(), {0});
        const int64_t n = bound != nullptr && bound->is_tuple()
                              ? static_cast<int64_t>(bound->elements.size())
                              : 0;
        for (int64_t i = 0; i < n; ++i) forward(instruction, {0, i}, 0, {0, i}, sources);
        for (size_t k = 1; k < instruction.operand_count(); ++k) {
          forward(instruction, {0, n + static_cast<int64_t>(k) - 1}, static_cast<int64_t>(k), {},
                  sources);
        }
      }
      break;
    // Asynchronous starts carry their operands in element {0} (copy-start: {1}) until the done.
    case Opcode::kAllGatherStart:
    case Opcode::kAsyncStart:
      forward_all_operands(instruction, {0}, sources);
      break;
    case Opcode::kCollectivePermuteStart:
    case Opcode::kSend:
      forward(instruction, {0}, 0, {}, sources);
      break;
    case Opcode::kCopyStart:
      forward(instruction, {1}, 0, {}, sources);
      break;
    // A done's result is the buffer its start allocated.
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAsyncDone:
      forward(instruction, {}, 0, {1}, sources);
      break;
    case Opcode::kCopyDone:
      forward(instruction, {}, 0, {0}, sources);
      break;
    case Opcode::kConditional:
      forward_common_branch_leaves(instruction, sources);
      break;
    case Opcode::kRecvDone:
      forward(instruction, {0}, 0, {0}, sources);
      break;
    default:
      break;
  }
  for (const InPlacePair& pair : in_place_pairs(instruction)) {
    forward(instruction, pair.output_index, pair.operand, pair.operand_index, sources);
  }
}

}  // namespace hloroof::detail
