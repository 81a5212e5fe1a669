// write_hlo_proto's buffer assignment: hloroof's MemoryReport in the fields of XLA's
// BufferAssignmentProto (xla/service/hlo.proto at the commit lib/proto/hlo.proto cites) that
// XProf's memory viewer reads (openxla/xprof, xprof/convert/
// hlo_proto_to_memory_visualization_utils.cc at 117a9db7601e7d4c25dcc1c331266930bb47deea):
//  - logical buffers by id, each defined at an instruction id of the module and assigned to
//    exactly one allocation (a buffer or instruction it cannot find is dropped, with an error
//    in its log);
//  - allocations: parameters, constants and live-out ones are "indefinite" (live the whole
//    program); the others are plotted by a heap simulator trace whose first event's buffer
//    names the allocation, and every event of one trace must belong to that one allocation;
//  - ALLOC adds a buffer's size to the heap, SHARE_WITH adds nothing while its canonical
//    buffer still holds the bytes, FREE takes them off when the last holder goes.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "export/hlo_proto_buffers.h"
#include "export/wire_writer.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"

namespace hloroof::proto_internal {
namespace {

namespace pb = ::hloroof::xla_proto;

// One event of a heap trace, before it is written: when (program position), then allocations
// before frees at the same position (both buffers are live there), a shared buffer after the
// one it shares (`depth`: how many shares lead to an allocated buffer), then by buffer id.
// 24 bytes: a module's every temporary has two.
struct TraceEvent {
  int64_t time = 0;
  const BufferPlacement* b = nullptr;
  int32_t depth = 0;  // 0 for a FREE
  uint8_t phase = 0;  // 0: ALLOC or SHARE_WITH (depth > 0), 1: FREE
};

// The buffers of a report that has no placements, as placements: views of its
// largest_buffers (valid while the report lives) at the module's instructions, found by name
// (a buffer whose instruction the module lacks has none); their tuple indices appended to
// `shape_indices`.
std::vector<BufferPlacement> placements_of(const MemoryReport& memory, const Module& module,
                                           std::vector<int64_t>& shape_indices) {
  std::vector<BufferPlacement> placed;
  placed.reserve(memory.largest_buffers.size());
  for (const MemoryBuffer& b : memory.largest_buffers) {
    BufferPlacement& p = placed.emplace_back();
    const Computation* c = module.find_computation(b.computation);
    p.instruction = c != nullptr ? c->find_instruction(b.instruction) : nullptr;
    p.computation = b.computation;
    p.live_to = b.live_to;
    p.padded_bytes = b.padded_bytes;
    p.allocation_offset = b.allocation_offset;
    p.program_from = b.program_from;
    p.program_to = b.program_to;
    p.id = b.id;
    p.shares_with = b.shares_with;
    p.allocation = static_cast<int32_t>(std::clamp<int64_t>(b.allocation, -1, INT32_MAX));
    p.memory_space = static_cast<int32_t>(b.memory_space);
    p.shape_index_at = static_cast<uint32_t>(shape_indices.size());
    p.shape_index_size = static_cast<uint32_t>(b.shape_index.size());
    shape_indices.insert(shape_indices.end(), b.shape_index.begin(), b.shape_index.end());
  }
  return placed;
}

}  // namespace

void write_buffer_assignment(const MemoryReport& memory, const InstructionIds& ids,
                             const Module& module, WireWriter& out, WirePieces* pieces) {
  // The report's placements, or its largest buffers taken as such.
  std::vector<BufferPlacement> taken;
  std::vector<int64_t> taken_indices;
  if (memory.placements.empty() && !memory.largest_buffers.empty()) {
    taken = placements_of(memory, module, taken_indices);
  }
  const bool own = taken.empty();
  const std::vector<BufferPlacement>& placements = own ? memory.placements : taken;
  const std::vector<int64_t>& shape_indices = own ? memory.placement_shape_indices : taken_indices;
  auto shape_index = [&](const BufferPlacement& b) {
    const size_t at = std::min<size_t>(b.shape_index_at, shape_indices.size());
    const size_t size = std::min<size_t>(b.shape_index_size, shape_indices.size() - at);
    return absl::MakeConstSpan(shape_indices).subspan(at, size);
  };

  // BufferAssignmentProto: logical_buffers (1), buffer_allocations (3), heap_simulator_traces
  // (4), each message written field by field in order of their numbers, as protobuf would.
  const int64_t allocations = static_cast<int64_t>(memory.allocations.size());
  // Buffers with an allocation of their own whose instruction the module has, by allocation.
  std::vector<std::vector<const BufferPlacement*>> held(memory.allocations.size());
  absl::flat_hash_set<int64_t> written;
  for (const BufferPlacement& b : placements) {
    if (b.allocation < 0 || b.allocation >= allocations) continue;
    const int64_t id = ids.find(b.instruction);
    if (id < 0 || !written.insert(b.id).second) continue;
    // LogicalBufferProto: id (1), size (2), defined_at (3): {instruction_name (2, deprecated in
    // XLA, still read by older tools), shape_index (3), instruction_id (4)}, color (4).
    const size_t buffer = out.open(1);
    out.integer(1, b.id);
    out.integer(2, b.padded_bytes);
    const size_t at = out.open(3);
    out.bytes(2, b.instruction->name());
    out.packed(3, shape_index(b));
    out.integer(4, id);
    out.close(at);
    out.integer(4, b.memory_space);
    out.close(buffer);
    maybe_flush(pieces);
    held[b.allocation].push_back(&b);
  }

  for (const MemoryAllocation& a : memory.allocations) {
    if (a.index < 0 || a.index >= allocations) continue;
    // BufferAllocationProto: index (1), size (2), is_entry_computation_parameter (5),
    // parameter_number (6), maybe_live_out (7), color (8), assigned (9): {logical_buffer_id
    // (1), offset (2), size (3)}, parameter_shape_index (10), is_constant (12).
    const bool parameter = a.kind == AllocationKind::kParameter;
    const size_t allocation = out.open(3);
    out.integer(1, a.index);
    out.integer(2, a.bytes);
    if (parameter) {
      out.integer(5, 1);
      out.integer(6, a.parameter_number);
    }
    out.integer(7, a.maybe_live_out ? 1 : 0);
    out.integer(8, a.memory_space);
    const BufferPlacement* indexed = nullptr;  // the first held buffer with a tuple index
    for (const BufferPlacement* b : held[a.index]) {
      if (parameter && (indexed == nullptr || shape_index(*indexed).empty())) indexed = b;
      const size_t assigned = out.open(9);
      out.integer(1, b->id);
      out.integer(2, b->allocation_offset);
      out.integer(3, b->padded_bytes);
      out.close(assigned);
    }
    if (indexed != nullptr) out.packed(10, shape_index(*indexed));
    out.integer(12, a.kind == AllocationKind::kConstant ? 1 : 0);
    out.close(allocation);
    maybe_flush(pieces);
  }

  // A trace misses the temporaries the report left out; then none is written.
  if (static_cast<int64_t>(placements.size()) < memory.buffer_count) return;
  for (const MemoryAllocation& a : memory.allocations) {
    if (a.kind != AllocationKind::kTemp || a.index < 0 || a.index >= allocations) continue;
    const std::vector<const BufferPlacement*>& in = held[a.index];
    if (in.empty()) continue;
    absl::flat_hash_map<int64_t, const BufferPlacement*> here;
    for (const BufferPlacement* b : in) here.emplace(b->id, b);
    // How many shares lead from a buffer to the allocated one, each buffer's once (a cycle,
    // which the assignment never makes, is cut where it closes).
    absl::flat_hash_map<int64_t, int64_t> depth;
    auto depth_of = [&](const BufferPlacement* b) {
      std::vector<int64_t> chain;
      int64_t base = 0;
      for (const BufferPlacement* at = b;;) {
        if (auto known = depth.find(at->id); known != depth.end()) {
          base = known->second + 1;
          break;
        }
        depth.emplace(at->id, 0);  // on the chain: a cycle stops here
        chain.push_back(at->id);
        auto next = here.find(at->shares_with);
        if (next == here.end()) break;
        at = next->second;
      }
      // chain[k] is k shares above chain's end.
      const int64_t n = static_cast<int64_t>(chain.size());
      for (int64_t k = 0; k < n; ++k) depth[chain[k]] = base + (n - 1 - k);
      return depth[b->id];
    };
    std::vector<TraceEvent> events;
    events.reserve(2 * in.size());
    for (const BufferPlacement* b : in) {
      events.push_back({.time = b->program_from,
                        .b = b,
                        .depth = static_cast<int32_t>(
                            std::min<int64_t>(depth_of(b), std::numeric_limits<int32_t>::max())),
                        .phase = 0});
      events.push_back({.time = std::max(b->program_from, b->program_to), .b = b, .phase = 1});
    }
    std::sort(events.begin(), events.end(), [](const TraceEvent& x, const TraceEvent& y) {
      return std::tie(x.time, x.phase, x.depth, x.b->id) <
             std::tie(y.time, y.phase, y.depth, y.b->id);
    });
    // HeapSimulatorTrace: events (1), whole_module_simulation (2), buffer_allocation_index (3).
    // (In pieces, the trace of an allocation of many buffers spans several.)
    const WirePieces::Open trace = open_field(out, pieces, 4);
    for (const TraceEvent& e : events) {
      // Event: kind (1), buffer_id (2), computation_name (3), instruction_name (4),
      // share_with_canonical_id (5).
      const bool shared = e.phase == 0 && e.depth > 0;
      const size_t event = out.open(1);
      out.integer(1, e.phase == 1 ? pb::HeapSimulatorTrace::Event::FREE
                     : shared     ? pb::HeapSimulatorTrace::Event::SHARE_WITH
                                  : pb::HeapSimulatorTrace::Event::ALLOC);
      out.integer(2, e.b->id);
      out.bytes(3, e.b->computation);
      // The instruction the heap simulator was at: the definition, or the last use.
      out.bytes(4, e.phase == 0 ? e.b->instruction->name() : e.b->live_to);
      if (shared) out.integer(5, e.b->shares_with);
      out.close(event);
      maybe_flush(pieces);
    }
    out.integer(2, 1);
    out.integer(3, a.index);
    close_field(out, pieces, trace);
  }
}

}  // namespace hloroof::proto_internal
