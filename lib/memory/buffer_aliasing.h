// Which buffers an instruction's result reuses instead of allocating: the buffer-level
// semantics of every opcode that forwards, wraps or updates in place (docs/memory.md).
#ifndef HLOROOF_PREDICT_BUFFER_ALIASING_H_
#define HLOROOF_PREDICT_BUFFER_ALIASING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/opcode.h"

namespace hloroof::detail {

// Where one array leaf of a result lives.
struct LeafSource {
  static constexpr int32_t kNewBuffer = -1;
  int32_t operand = kNewBuffer;  // the operand whose buffer it is, or kNewBuffer
  int64_t leaf = 0;              // the leaf of that operand (shape_leaves.h numbering)
};

// One entry per array leaf of instruction.shape(), written over `sources` (whose room a caller
// going through many instructions keeps).
void leaf_sources(const Instruction& instruction, std::vector<LeafSource>& sources);

// The subshapes of an instruction's result that are an operand's (XLA's dataflow defines no
// new value there), each as fn(output_index, operand, operand_index); operand kAllOperands:
// output_index holds every operand in order, operand k as its element k. Not among them: what
// the bodies of loops, calls and branches return, and in-place writes (in_place_pairs).
// (A template, defined below: liveness calls it once per instruction.)
inline constexpr int64_t kAllOperands = -1;
template <typename Fn>
void for_each_forwarded(const Instruction& instruction, Fn&& fn);

// How many operands the chain before an async-update (its operand 0) bound: the size of that
// operand's element {0}.
int64_t bound_by_update_chain(const Instruction& update);

// A conditional's branches in the order of their operands (operand b + 1 is branch b's):
// true_computation and false_computation, or branch_computations (a computation may be more
// than one branch); empty for any other instruction.
std::vector<const Computation*> conditional_branches(const Instruction& instruction);

// True for ops that only pass buffers on (tuple, get-tuple-element, bitcast, ...): they read
// no operand memory, so they do not keep an operand alive by themselves.
bool only_forwards_buffers(Opcode op);

// An operand (sub)buffer that an op overwrites to produce a result (sub)buffer: XLA's in-place
// input/output pairs (dynamic-update-slice, scatter, all-reduce-start, in-place fusions and
// declared output_to_operand_aliasing).
struct InPlacePair {
  int64_t operand = 0;
  std::vector<int64_t> operand_index;
  std::vector<int64_t> output_index;
};
std::vector<InPlacePair> in_place_pairs(const Instruction& instruction);

template <typename Fn>
void for_each_forwarded(const Instruction& instruction, Fn&& fn) {
  const int64_t operands = static_cast<int64_t>(instruction.operand_count());
  switch (instruction.opcode()) {
    case Opcode::kTuple:
      fn({}, kAllOperands, {});
      break;
    case Opcode::kGetTupleElement:
      if (std::optional<int64_t> index = instruction.int_attribute(AttrId::kIndex)) {
        fn({}, 0, {*index});
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
      fn({}, 0, {});
      break;
    // An update is its start's buffers. In the form libtpu writes for SparseCore offloads it
    // also takes operands after the start, which bind the async operation's next parameters:
    // element {0, n + k - 1} is operand k, where the chain before it (operand 0) bound n, whose
    // buffers it keeps (XLA's AliasInfo rule). Its other elements are values of their own
    // (its output_to_operand_aliasing is not read).
    case Opcode::kAsyncUpdate:
      if (operands == 1) {
        fn({}, 0, {});
      } else {
        const int64_t n = bound_by_update_chain(instruction);
        for (int64_t i = 0; i < n; ++i) fn({0, i}, 0, {0, i});
        for (int64_t k = 1; k < operands; ++k) fn({0, n + k - 1}, k, {});
      }
      break;
    // Asynchronous starts carry their operands in element {0} (copy-start: {1}) until the done.
    case Opcode::kAllGatherStart:
    case Opcode::kAsyncStart:
      fn({0}, kAllOperands, {});
      break;
    case Opcode::kCollectivePermuteStart:
    case Opcode::kSend:
      fn({0}, 0, {});
      break;
    case Opcode::kCopyStart:
      fn({1}, 0, {});
      break;
    // A done's result is the buffer its start allocated.
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAsyncDone:
      fn({}, 0, {1});
      break;
    case Opcode::kCopyDone:
      fn({}, 0, {0});
      break;
    case Opcode::kRecvDone:
      fn({0}, 0, {0});
      break;
    default:
      break;
  }
}

}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_BUFFER_ALIASING_H_
