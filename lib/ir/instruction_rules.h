// The per-opcode rules an instruction must follow (operand counts, required attributes, a few
// shape rules XLA's parser enforces): one copy, which the parser runs on every instruction it
// reads and verify() on every instruction of an edited module. The shortcut is inline: the
// parser runs it on every instruction.
#ifndef HLOROOF_IR_INSTRUCTION_RULES_H_
#define HLOROOF_IR_INSTRUCTION_RULES_H_

#include <array>
#include <cstdint>
#include <string>

#include "hloroof/instruction.h"
#include "hloroof/opcode.h"
#include "ir/module_state.h"

namespace hloroof::detail {

namespace rules {

constexpr size_t kAttrIdCount = 0
#define HLOROOF_ATTRIBUTE(e, text, kind, group) +1
#include "hloroof/attributes.def"
#undef HLOROOF_ATTRIBUTE
    ;

// The attributes an instruction carries, one bit per AttrId.
class AttrSet {
 public:
  AttrSet() = default;
  explicit AttrSet(absl::Span<const Attribute> attributes) {
    for (const Attribute& a : attributes) add(a.id);
  }
  void add(AttrId id) {
    const auto k = static_cast<size_t>(id);
    words_[k / 64] |= uint64_t{1} << (k % 64);
  }
  bool has(AttrId id) const {
    const auto k = static_cast<size_t>(id);
    return (words_[k / 64] >> (k % 64)) & 1;
  }
  bool contains_all(const AttrSet& other) const {
    for (size_t w = 0; w < kWords; ++w) {
      if ((other.words_[w] & ~words_[w]) != 0) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kWords = (kAttrIdCount + 63) / 64;
  uint64_t words_[kWords] = {};
};

// required_attributes(op) as a set per opcode, to check them all at once; built when the
// program starts, so that a look-up is one load (no first-use guard).
extern const std::array<AttrSet, kOpcodeCount> kRequiredAttributeSets;

inline const AttrSet& required_attribute_set(Opcode op) {
  return kRequiredAttributeSets[static_cast<size_t>(op)];
}

// Operand counts by opcode, inline (opcode_arity() is a call).
constexpr std::array<int, kOpcodeCount> kArity = {
#define HLOROOF_OPCODE(e, text, category, arity) arity,
#include "hloroof/opcodes.def"
#undef HLOROOF_OPCODE
};

// The checks of check_instruction_in_full beyond the operand count, the required attributes
// and the two attribute conflicts: a rule on the operand count before the attributes are
// checked, and a rule on the shape after it is known. This table is the one list of opcodes
// with checks of their own; check_instruction_in_full and the shortcut both read it.
enum class CountRule {
  kNone,
  kInputsAndInits,  // at least 2, as many init values as inputs
  kAtLeastOne,
};
enum class ShapeRule {
  kNone,
  kTupleElement,       // get-tuple-element: the index and the element's shape
  kConditional,        // the branch index and the operands per branch
  kOneDimension,       // dimensions={d}; reduce-scatter's use_global_device_ids
  kTupleResult,        // infeed, recv
  kElementCount,       // reshape, which the shortcut repeats
  kDynamicReshape,     // one size operand per dimension, the (bounded) element count
  kAsyncStart,         // ((operand shapes), result, context...)
  kAsyncUpdateOrDone,  // the same asynchronous operation as its start
};
struct OwnChecks {
  CountRule count = CountRule::kNone;
  ShapeRule shape = ShapeRule::kNone;
};

constexpr OwnChecks own_checks(Opcode op) {
  using C = CountRule;
  using S = ShapeRule;
  switch (op) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
      return {C::kInputsAndInits, S::kNone};
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
    case Opcode::kSort:
      return {C::kAtLeastOne, S::kNone};
    case Opcode::kConditional:
      return {C::kAtLeastOne, S::kConditional};
    case Opcode::kDynamicReshape:
      return {C::kAtLeastOne, S::kDynamicReshape};
    case Opcode::kAsyncUpdate:
      return {C::kAtLeastOne, S::kAsyncUpdateOrDone};
    case Opcode::kAsyncDone:
      return {C::kNone, S::kAsyncUpdateOrDone};
    case Opcode::kAsyncStart:
      return {C::kNone, S::kAsyncStart};
    case Opcode::kGetTupleElement:
      return {C::kNone, S::kTupleElement};
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
      return {C::kNone, S::kOneDimension};
    case Opcode::kInfeed:
    case Opcode::kRecv:
      return {C::kNone, S::kTupleResult};
    case Opcode::kReshape:
      return {C::kNone, S::kElementCount};
    default:
      return {};
  }
}

constexpr std::array<OwnChecks, kOpcodeCount> kOwnChecks = [] {
  std::array<OwnChecks, kOpcodeCount> table{};
  for (int op = 0; op < kOpcodeCount; ++op) table[static_cast<size_t>(op)] = own_checks(Opcode(op));
  return table;
}();

// Whether the shortcut of check_instruction must leave `op` to check_instruction_in_full: any
// rule of its own but the element count, which the shortcut repeats.
constexpr std::array<bool, kOpcodeCount> kHasOwnChecks = [] {
  std::array<bool, kOpcodeCount> table{};
  for (size_t op = 0; op < table.size(); ++op) {
    table[op] = kOwnChecks[op].count != CountRule::kNone ||
                (kOwnChecks[op].shape != ShapeRule::kNone &&
                 kOwnChecks[op].shape != ShapeRule::kElementCount);
  }
  return table;
}();

// The reshape rule: the element count is kept (bounded dims at their bound).
bool reshape_keeps_count(const Instruction& i);

}  // namespace rules

// True for most instructions, cheaply: an opcode without rules of its own, written without the
// async sugar, with its shape, the right operand count, its required attributes and neither
// attribute conflict. False says only that the checks below must run (they report).

inline bool passes_rules_quickly(const Instruction& instruction) {
  const Instruction* i = &instruction;
  const Opcode op = i->opcode();
  const int arity = rules::kArity[static_cast<size_t>(op)];
  if (!rules::kHasOwnChecks[static_cast<size_t>(op)] && !i->uses_async_sugar() &&
      IrAccess::has_shape(i) &&
      (arity < 0 || i->operand_count() == static_cast<size_t>(arity))) {
    const rules::AttrSet present(i->attributes());
    if (present.contains_all(rules::required_attribute_set(op)) &&
        !present.has(AttrId::kResultAccuracy) &&
        !(present.has(AttrId::kToApply) && present.has(AttrId::kCalledComputations)) &&
        (rules::kOwnChecks[static_cast<size_t>(op)].shape != rules::ShapeRule::kElementCount ||
         rules::reshape_keeps_count(*i))) {
      return true;
    }
  }
  return false;
}

// The rules that do not need the result shape: operand counts, required attributes, attribute
// conflicts. False with `*message` saying which rule is broken and how.
bool check_operand_and_attribute_rules(const Instruction& instruction, std::string* message);

// The rules on the result shape (known by then): tuple indices, conditional branches, one
// dimension, tuple results, element counts, async start/update/done agreement.
bool check_shape_rules(const Instruction& instruction, std::string* message);

// The dimension checks of verify.cc that every reader runs on each instruction as well (the
// text parser, and so the HloProto reader; a broadcast's are verify()'s alone, as the parser
// reads its shorthand `broadcast(p), dimensions={2,4}`): dimension lists within the rank of the
// shape they index and none named twice (dot, gather, scatter, reduce, transpose, ...),
// iota_dimension, a pad's and a slice's entry per dimension (a slice within its operand),
// dynamic_slice_sizes, fft_length, topk's k. False with `*message` on the first broken.
bool check_dimension_lists(const Instruction& instruction, std::string* message);
// Dot: contracting and batch dimensions pair up with the same sizes.
bool check_dot(const Instruction& instruction, std::string* message);
// Broadcast: `dimensions` maps operand dimension k to a result dimension of its size.
bool check_broadcast(const Instruction& instruction, std::string* message);

// Whether check_collective_groups has anything to check on `op`.
bool takes_replica_groups(Opcode op);
// The collective whose replica groups `i` holds: its opcode, or for an async start written
// with sugar (`all-to-all-start`, `reduce-scatter-start`, ...) the opcode it wraps. An
// explicit `async-start(...), calls=%c` holds none: the collective in %c is checked itself.
Opcode collective_opcode(const Instruction& i);
// XLA's verifier's rules for the replica groups of a collective or its start (collective_opcode;
// hlo_verifier.cc, CheckReplicaGroups), against the module header's counts: groups non-empty,
// ids each once and together 0..n-1, n the replica count (no channel_id), the partition count
// (an all-to-all with a channel_id) or their product (use_global_device_ids), a count of 1 not
// checked; groups of one size except for all-reduce; flattened ids need groups written; and an
// all-to-all's split dimension divisible by the group size. False with `message` on the first
// rule broken.
bool check_collective_groups(const Instruction& instruction, int64_t replica_count,
                             int64_t num_partitions, std::string* message);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_INSTRUCTION_RULES_H_
