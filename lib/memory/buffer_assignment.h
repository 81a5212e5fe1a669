// A model of XLA's buffer assignment (docs/memory.md, "What XLA allocates"): which allocations
// a compiled program holds, which buffers share one, and the size of the temp allocation.
// It runs on the buffers and live ranges of memory_liveness.h.
#ifndef HLOROOF_PREDICT_BUFFER_ASSIGNMENT_H_
#define HLOROOF_PREDICT_BUFFER_ASSIGNMENT_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"

#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "memory/memory_liveness.h"

namespace hloroof::detail {

// One allocation, or a run of `count` alike: the read-only leaves of one parameter that are
// alike (size, memory space) get consecutive allocations, one buffer each, and a parameter of a
// million leaves needs one record for them rather than a million.
struct Allocation {
  int64_t memory_space = 0;
  int64_t bytes = 0;
  int64_t parameter_number = -1;  // entry parameter allocations
  int32_t index = 0;  // its number (MemoryReport::allocations); of a run, the first one's
  int32_t count = 1;  // allocations it stands for: allocation index + k holds first_buffer + k
  // Its buffers (liveness buffer ids) in assignment order: a list through
  // ModuleAssignment::next_in_allocation, from `first_buffer` (-1: none) to `last_buffer`.
  // (Of a run: each allocation's one buffer.)
  int32_t first_buffer = -1;
  int32_t last_buffer = -1;
  int32_t buffer_count = 0;
  AllocationKind kind = AllocationKind::kTemp;
  bool maybe_live_out = false;  // an output, or a parameter donated to one
};

// Per buffer, what a wide tuple makes many of is kept small: an allocation index and a link;
// offsets and shared operands only once one is not the default; lives only where asked.
struct ModuleAssignment {
  std::vector<Allocation> allocations;  // in order of their index
  int32_t allocation_count = 0;         // allocations, each of a run counted
  std::vector<int32_t> allocation_of;  // per liveness buffer id; -1: no allocation of its own
  // Per liveness buffer id: the next buffer of its allocation, or -1 (empty while every
  // allocation holds one buffer).
  std::vector<int32_t> next_in_allocation;

  // The allocation numbered `index`, or the run holding it.
  const Allocation& allocation(int32_t index) const {
    if (allocations.size() == static_cast<size_t>(allocation_count)) return allocations[index];
    auto it = std::upper_bound(allocations.begin(), allocations.end(), index,
                               [](int32_t i, const Allocation& a) { return i < a.index; });
    return *(it - 1);
  }
  // The buffer after `id` in its allocation, or -1.
  int32_t next(int32_t id) const {
    return next_in_allocation.empty() ? -1 : next_in_allocation[id];
  }
  // Inside its allocation.
  int64_t offset_of(int32_t id) const { return offsets.empty() ? 0 : offsets[id]; }
  // The operand whose bytes a temporary takes over at that operand's last use (XLA's heap
  // simulator shares them), or -1.
  int32_t shares_with(int32_t id) const { return shared.empty() ? -1 : shared[id]; }
  // Its life in global time (the schedule with bodies flattened in, both ends inclusive) as its
  // allocation holds it, for the buffers assign_buffers was asked about; else {-1, -1}.
  std::pair<int64_t, int64_t> life_of(int32_t id) const {
    auto it = lives.find(id);
    return it == lives.end() ? std::make_pair(int64_t{-1}, int64_t{-1}) : it->second;
  }
  std::vector<int64_t> offsets;  // per buffer id; empty while every offset is 0
  std::vector<int32_t> shared;   // per buffer id; empty while none shares
  absl::flat_hash_map<int32_t, std::pair<int64_t, int64_t>> lives;
  int64_t temps_in_live_out = 0;    // temporaries placed in output or donated allocations
  int64_t shared_with_operand = 0;  // results written over a dying operand's bytes
  // The work done: values tested for interference, allocations tried, and the merged byte
  // ranges of placed temporaries read while packing (each read by a walk down a tree of
  // logarithmic depth). It grows with the buffers times the values each one meets in time
  // (while packing: the merged ranges beside it, however many temporaries they hold), never
  // with the square of the buffer count (tests hold it to that).
  int64_t steps = 0;
};

// Where the allocators of XLA's backends differ (docs/memory.md, "On TPU"). The defaults are
// the open-source BufferAssigner's (GPU, CPU); tpu() gives the rules the TPU compiler's
// buffer-assignment dumps show.
struct AssignmentRules {
  // A temporary may go into an output or donated-parameter allocation it does not overlap.
  bool temporaries_in_live_out = true;
  // An output fusion (kOutput) may write over a dying operand it reads only elementwise, as a
  // loop or input fusion may.
  bool output_fusions_share = false;
  // A result may write over a dying operand that an asynchronous copy (copy-done) delivered.
  bool share_copied_operands = true;
  // An all-reduce may write its result over its operand where it dies (same shape, layout and
  // memory space): the reduction runs in place; an all-reduce of several operands, each result
  // over its own operand.
  bool all_reduce_in_place = false;
  // The stacks of SparseCore offloads of one size share one place: element {2,0} of an
  // async-start on thread "sparsecore" (and of the async-updates of its chain), in device
  // memory, whose bytes are the offload's stack_size_high_watermark. Every call's stack of that
  // size takes one offset, though the calls overlap in time; each call holds it from its start
  // to its done, and other temporaries may use the place between calls.
  bool sparse_core_stacks_share = false;
  // The heap places the temporaries in order of their first use (best fit; of those that begin
  // together, the longest-lived first), rather than largest first or longest-lived first,
  // whichever needs less.
  bool program_order_heap = false;
  // Every temporary's offset in the device-memory heap, and that heap's size, are multiples of
  // this.
  int64_t alignment = 1;
  // A device-memory heap of integer and predicate scalars only (loop counters, predicates)
  // takes no bytes of the temp allocation.
  bool control_scalars_free = false;
  // An output allocation of this many bytes for the entry root's tuple pointer tables (0:
  // none); it holds no buffer.
  int64_t root_tables_bytes = 0;
  // Bytes the pointer tables of tuple-shaped temporaries add to a device-memory heap that
  // holds more than control scalars (tuple_tables.h); no buffer of the liveness holds them.
  int64_t temp_tables_bytes = 0;

  static AssignmentRules tpu() {
    AssignmentRules r;
    r.temporaries_in_live_out = false;
    r.output_fusions_share = true;
    r.share_copied_operands = false;
    r.all_reduce_in_place = true;
    r.sparse_core_stacks_share = true;
    r.program_order_heap = true;
    r.alignment = int64_t{16} << 10;
    r.control_scalars_free = true;
    return r;
  }
};

// Follows the order and rules of XLA's BufferAssigner for a module with a schedule:
// parameters and constants get allocations of their own; buffers are taken largest first
// (outputs first among equals, then by definition order); an output gets an allocation of its
// own unless an output or donated-parameter allocation of exactly its size is free for its
// whole life; a temporary first tries those allocations (any size up to theirs), and the rest
// are packed, per memory space, into one temp allocation by a best-fit heap over their live
// ranges, where a result may take over the bytes of an operand whose last use it is
// (elementwise, same shape).
// The lives of the buffers `lives_of` names are kept (ModuleAssignment::life_of).
// `rules` changes what the backend's allocator does differently.
ModuleAssignment assign_buffers(const ModuleLiveness& liveness,
                                absl::Span<const int32_t> lives_of = {},
                                const AssignmentRules& rules = {});

}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_BUFFER_ASSIGNMENT_H_
