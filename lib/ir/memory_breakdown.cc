#include "ir/memory_breakdown.h"

#include "ir/module_state.h"

namespace hloroof::detail {
namespace {

// Heap bytes of an absl::flat_hash_map or _set: one slot and one control byte per bucket.
template <typename Map>
size_t hash_table_bytes(const Map& map) {
  if (map.capacity() == 0) return 0;
  return map.capacity() * (sizeof(typename Map::value_type) + 1);
}

template <typename Vec>
size_t spilled(const Vec& v, size_t inline_capacity) {
  return v.capacity() > inline_capacity ? v.capacity() * sizeof(typename Vec::value_type) : 0;
}

// Arena bytes of an edge list's array (outgrown arrays are not counted).
template <typename T>
size_t out_of_line(const EdgeList<T>& list) {
  return list.capacity > 1 ? list.capacity * sizeof(T*) : 0;
}

}  // namespace

MemoryBreakdown IrAccess::memory_breakdown(const Module& module) {
  const ModuleState& m = state(module);
  MemoryBreakdown b;
  b.arena_used = m.arena.used_bytes();
  b.arena_reserved = m.arena.reserved_bytes();
  b.arena_resident = m.arena.resident_bytes();
  b.arena_heap_blocks = m.arena.heap_block_bytes();
  b.shape_table = m.shapes.table_bytes();
  for (const Computation* c : m.computations) {
    const ComputationNode& node = IrAccess::node(c);
    b.computation_nodes += sizeof(ComputationNode);
    b.name_maps += hash_table_bytes(node.by_name);
    b.order_lists += (node.instructions.capacity() + node.parameters.capacity()) * sizeof(void*);
    b.edge_heap += spilled(node.callers, 1);
    for (const Instruction* i : node.instructions) {
      ++b.instructions;
      b.nodes += sizeof(Instruction);
      b.attributes += static_cast<int64_t>(i->attribute_count_);
      b.attribute_records += i->attribute_count_ * sizeof(Attribute);
      if (const Attribute* a = i->attribute(AttrId::kMetadata)) {
        ++b.metadata_attributes;
        if (const auto* decoded = a->get<const OpMetadata*>(); decoded && *decoded) {
          b.metadata_records += sizeof(OpMetadata);
        }
      }
      b.edge_lists += out_of_line(i->operands_) + out_of_line(i->users_);
      if (i->rare_ != nullptr) {
        b.rare_records += sizeof(Instruction::Rare);
        b.edge_lists += out_of_line(i->rare_->control_successors) + out_of_line(i->rare_->called);
      }
    }
  }
  return b;
}

MemoryBreakdown memory_breakdown(const Module& module) {
  return IrAccess::memory_breakdown(module);
}

}  // namespace hloroof::detail
