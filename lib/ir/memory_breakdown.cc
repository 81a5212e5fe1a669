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

}  // namespace

MemoryBreakdown IrAccess::memory_breakdown(const Module& module) {
  const ModuleState& m = state(module);
  MemoryBreakdown b;
  b.arena_used = m.arena.used_bytes();
  b.arena_reserved = m.arena.reserved_bytes();
  b.shape_table = m.shapes.table_bytes();
  for (const Computation* c : m.computations) {
    b.computation_nodes += sizeof(Computation);
    b.name_maps += hash_table_bytes(c->by_name_);
    b.order_lists += (c->instructions_.capacity() + c->parameters_.capacity()) * sizeof(void*);
    b.edge_heap += spilled(c->callers_, 1);
    for (const Instruction* i : c->instructions_) {
      ++b.instructions;
      b.nodes += sizeof(Instruction);
      b.attributes += static_cast<int64_t>(i->attributes_.size());
      b.attribute_records += i->attributes_.size() * sizeof(Attribute);
      if (const Attribute* a = i->attribute(AttrId::kMetadata)) {
        ++b.metadata_attributes;
        if (const auto* decoded = a->get<const OpMetadata*>(); decoded && *decoded) {
          b.metadata_records += sizeof(OpMetadata);
        }
      }
      b.edge_heap += spilled(i->operands_, 2) + spilled(i->users_, 2) + spilled(i->called_, 1) +
                     i->control_successors_.capacity() * sizeof(Instruction*);
    }
  }
  return b;
}

MemoryBreakdown memory_breakdown(const Module& module) {
  return IrAccess::memory_breakdown(module);
}

}  // namespace hloroof::detail
