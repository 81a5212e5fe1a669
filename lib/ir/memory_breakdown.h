// Where a parsed module's memory goes, by kind of object, for benchmarks and tests that keep it
// small. Every figure is in bytes.
#ifndef HLOROOF_IR_MEMORY_BREAKDOWN_H_
#define HLOROOF_IR_MEMORY_BREAKDOWN_H_

#include <cstddef>
#include <cstdint>

#include "hloroof/module.h"

namespace hloroof::detail {

struct MemoryBreakdown {
  int64_t instructions = 0;
  int64_t attributes = 0;           // attribute records, every instruction's together
  int64_t metadata_attributes = 0;  // of which `metadata={...}`
  // In the arena.
  size_t nodes = 0;  // instruction nodes
  size_t computation_nodes = 0;
  size_t attribute_records = 0;  // attributes * sizeof(Attribute)
  size_t metadata_records = 0;   // decoded metadata kept beside the attribute text
  size_t edge_lists = 0;         // operand, user, called and control lists out of line
  size_t rare_records = 0;       // literals, control successors and called lists, out of line
  size_t name_maps = 0;          // each computation's name -> instruction map (when it has one)
  size_t order_lists = 0;        // each computation's instruction and parameter lists
  size_t arena_used = 0;         // all of the above, shapes, attribute values, saved strings
  size_t arena_reserved = 0;     // arena_used plus the unused ends of blocks
  size_t arena_resident = 0;     // the part of arena_reserved made resident
  size_t arena_heap_blocks = 0;  // the part of arena_reserved taken from malloc
  // On the heap, outside the arena.
  size_t edge_heap = 0;    // callers lists of computations spilled to the heap
  size_t shape_table = 0;  // the interned shapes' hash set (the shapes are in the arena)
};

MemoryBreakdown memory_breakdown(const Module& module);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_MEMORY_BREAKDOWN_H_
