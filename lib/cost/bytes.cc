// Bytes read and written by operations (docs/cost-conventions.md, "Where hloroof follows XLA"), and
// hloroof's rules for asynchronous pairs: the start moves the data, the -done moves none (same
// file, "Where hloroof departs from XLA, and why").
#include "cost/cost_internal.h"

namespace hloroof::cost {
namespace {

// Element `index` of a tuple result, or the result itself when it is not such a tuple.
const Shape& tuple_element_or_self(const Shape& shape, size_t index) {
  if (shape.is_tuple() && shape.elements.size() > index) return shape.elements[index];
  return shape;
}

int64_t operand_space(const OpView& op, size_t i) {
  const Shape* s = op.operand_shape(i);
  return s != nullptr ? memory_space(*s) : kDefaultMemorySpace;
}

// XLA charges the default rule; hloroof charges `ours` instead.
template <typename Ours>
void differ_from_default(const OpView& op, ByteTally& tally, Ours ours) {
  add_default_bytes(op, tally, Model::kXla);
  ours();
}

// An async start: the operands are read and only the real result (not the aliased operands
// or the context scalars the start's tuple also holds) is written.
void async_start_bytes(const OpView& op, ByteTally& tally, const Shape& result) {
  differ_from_default(op, tally, [&] {
    for (size_t i = 0; i < op.operand_count(); ++i) {
      tally.read(*op.operand_shape(i), Model::kOurs);
    }
    tally.write_leaves(result, Model::kOurs);
  });
}

}  // namespace

void add_default_bytes(const OpView& op, ByteTally& tally, Model model) {
  for (size_t i = 0; i < op.operand_count(); ++i) tally.read(*op.operand_shape(i), model);
  tally.write_leaves(*op.result, model);
}

bool transpose_is_bitcast(const Shape& operand, const Shape& result, IntList permutation) {
  if (!operand.is_array() || !result.is_array() || operand.element_type != result.element_type ||
      static_cast<int64_t>(permutation.size()) != result.rank()) {
    return false;
  }
  bool identity = true;
  for (size_t i = 0; i < permutation.size(); ++i) identity &= permutation[i] == int64_t(i);
  if (identity) return true;
  if (!operand.layout || !result.layout || operand.layout->tiles != result.layout->tiles) {
    return false;
  }
  // Result dim d is operand dim permutation[d]: the bytes are the same when walking both
  // layouts from minor to major visits corresponding dims.
  const auto& in = operand.layout->minor_to_major;
  const auto& out = result.layout->minor_to_major;
  if (in.size() != out.size() || static_cast<int64_t>(in.size()) != result.rank()) return false;
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t d = out[k];
    if (d < 0 || d >= result.rank() || permutation[d] != in[k]) return false;
  }
  return true;
}

void add_bytes(const OpView& op, ByteTally& tally) {
  const Shape& out = *op.result;
  switch (op.opcode) {
    // Pointer forwarding and compile-time ordering move no data.
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kDomain:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
      return;
    case Opcode::kTuple:
      return tally.write(out);  // the pointer table
    case Opcode::kTranspose: {
      const Shape* in = op.operand_shape(0);
      if (in != nullptr && transpose_is_bitcast(*in, out, op.instruction->dimensions())) return;
      return add_default_bytes(op, tally);
    }
    case Opcode::kSlice:
      // Only the kept part is read, from the operand's memory.
      tally.read_in(out, operand_space(op, 0));
      return tally.write(out);
    case Opcode::kDynamicSlice:
      // XLA counts the first start index only, also when there is one per dimension.
      tally.read_in(out, operand_space(op, 0));
      if (const Shape* index = op.operand_shape(1)) tally.read(*index);
      return tally.write(out);
    case Opcode::kDynamicUpdateSlice: {
      // The buffer (operand 0) is updated in place: only the update moves.
      const Shape* update = op.operand_shape(1);
      if (update == nullptr) return add_default_bytes(op, tally);
      tally.read(*update);
      if (const Shape* index = op.operand_shape(2)) tally.read(*index);
      return tally.write_in(*update, memory_space(out));
    }
    case Opcode::kGather:
      tally.read_in(out, operand_space(op, 0));
      if (const Shape* indices = op.operand_shape(1)) tally.read(*indices);
      return tally.write(out);
    case Opcode::kScatter: {
      // Per input: read the updated region, read the updates, write the region.
      const size_t n = (op.operand_count() - 1) / 2;
      if (n == 0 || op.operand_count() != 2 * n + 1) return add_default_bytes(op, tally);
      for (size_t k = 0; k < n; ++k) {
        const Shape& update = *op.operand_shape(n + 1 + k);
        tally.read_in(update, operand_space(op, k));
        tally.read(update);
        tally.write_in(update, memory_space(tuple_element_or_self(out, k)));
      }
      return tally.read(*op.operand_shape(n));
    }
    case Opcode::kTriangularSolve:
      // Only the referenced triangle of `a` is read.
      tally.write(out);
      if (const Shape* a = op.operand_shape(0)) tally.read(*a, Model::kBoth, 0.5);
      if (const Shape* b = op.operand_shape(1)) tally.read(*b);
      return;
    case Opcode::kCholesky:
      if (const Shape* a = op.operand_shape(0)) {
        tally.read(*a, Model::kBoth, 0.5);
        tally.write_in(*a, memory_space(out), Model::kBoth, 0.5);
      }
      return;
    case Opcode::kInfeed:
      return tally.write_leaves(out);
    case Opcode::kOutfeed:
      for (size_t i = 0; i < op.operand_count(); ++i) tally.read_leaves(*op.operand_shape(i));
      return;
    case Opcode::kOptimizationBarrier:
      // No code: XLA charges it like a copy, hloroof charges nothing.
      return add_default_bytes(op, tally, Model::kXla);
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCopyDone:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      // The start moved the data; XLA charges the result again (docs/cost-conventions.md, "Where
      // hloroof departs from XLA, and why").
      return add_default_bytes(op, tally, Model::kXla);
    case Opcode::kAllGatherStart:
    case Opcode::kCollectivePermuteStart:
      return async_start_bytes(op, tally, tuple_element_or_self(out, 1));
    case Opcode::kCopyStart:
      // (destination, source, context): the destination is written.
      return async_start_bytes(op, tally, tuple_element_or_self(out, 0));
    case Opcode::kSend:
      // (data, context, token): the data is read, nothing is written.
      return differ_from_default(op, tally, [&] {
        if (const Shape* data = op.operand_shape(0)) tally.read(*data, Model::kOurs);
      });
    case Opcode::kRecv:
      return differ_from_default(
          op, tally, [&] { tally.write_leaves(tuple_element_or_self(out, 0), Model::kOurs); });
    default:
      return add_default_bytes(op, tally);
  }
}

}  // namespace hloroof::cost
