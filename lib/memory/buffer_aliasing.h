// Which buffers an instruction's result reuses instead of allocating: the buffer-level
// semantics of every opcode that forwards, wraps or updates in place (docs/memory.md).
#ifndef HLOROOF_PREDICT_BUFFER_ALIASING_H_
#define HLOROOF_PREDICT_BUFFER_ALIASING_H_

#include <cstdint>
#include <vector>

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

}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_BUFFER_ALIASING_H_
