// A model of XLA's buffer assignment (docs/memory.md, "What XLA allocates"): which allocations
// a compiled program holds, which buffers share one, and the size of the temp allocation.
// It runs on the buffers and live ranges of memory_liveness.h.
#ifndef HLOROOF_PREDICT_BUFFER_ASSIGNMENT_H_
#define HLOROOF_PREDICT_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "memory/memory_liveness.h"

namespace hloroof::detail {

struct Allocation {
  AllocationKind kind = AllocationKind::kTemp;
  int64_t memory_space = 0;
  int64_t bytes = 0;
  bool maybe_live_out = false;     // an output, or a parameter donated to one
  int64_t parameter_number = -1;   // entry parameter allocations
  std::vector<int32_t> buffers;    // liveness buffer ids, in assignment order
};

struct ModuleAssignment {
  std::vector<Allocation> allocations;
  std::vector<int32_t> allocation_of;  // per liveness buffer id; -1: no allocation of its own
  std::vector<int64_t> offset_of;      // per liveness buffer id, inside its allocation
  // Per liveness buffer id: its life in global time (the schedule with bodies flattened in,
  // both ends inclusive) as its allocation holds it; -1 without an allocation.
  std::vector<int64_t> start_of;
  std::vector<int64_t> end_of;
  // Per liveness buffer id: the operand whose bytes a temporary takes over at that operand's
  // last use (XLA's heap simulator shares them), or -1.
  std::vector<int32_t> shares_with;
  int64_t temps_in_live_out = 0;       // temporaries placed in output or donated allocations
  int64_t shared_with_operand = 0;     // results written over a dying operand's bytes
  // The work done: values tested for interference, allocations tried, and the merged byte
  // ranges of placed temporaries read while packing (each read by a walk down a tree of
  // logarithmic depth). It grows with the buffers times the values each one meets in time
  // (while packing: the merged ranges beside it, however many temporaries they hold), never
  // with the square of the buffer count (tests hold it to that).
  int64_t steps = 0;
};

// Follows the order and rules of XLA's BufferAssigner for a module with a schedule:
// parameters and constants get allocations of their own; buffers are taken largest first
// (outputs first among equals, then by definition order); an output gets an allocation of its
// own unless an output or donated-parameter allocation of exactly its size is free for its
// whole life; a temporary first tries those allocations (any size up to theirs), and the rest
// are packed, per memory space, into one temp allocation by a best-fit heap over their live
// ranges, where a result may take over the bytes of an operand whose last use it is
// (elementwise, same shape).
ModuleAssignment assign_buffers(const ModuleLiveness& liveness);

}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_BUFFER_ASSIGNMENT_H_
