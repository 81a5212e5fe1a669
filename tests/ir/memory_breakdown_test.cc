// The module's memory breakdown counts what the module holds.
#include "ir/memory_breakdown.h"

#include <catch2/catch.hpp>
#include <string>

#include "hloroof/hlo_text.h"
#include "hloroof/instruction.h"

namespace hloroof::detail {
namespace {

TEST_CASE("the memory breakdown counts instructions, attributes and metadata") {
  absl::StatusOr<Module> m = parse_module(R"(HloModule m
ENTRY %e (p: f32[4]) -> (f32[4], f32[4], f32[4]) {
  %p = f32[4] parameter(0), metadata={op_name="a"}
  %n = f32[4] negate(%p), metadata={op_name="b" source_line=3}
  ROOT %t = (f32[4], f32[4], f32[4]) tuple(%p, %n, %n), sharding={replicated}
}
)");
  REQUIRE(m.ok());
  const MemoryBreakdown b = memory_breakdown(*m);
  CHECK(b.instructions == 3);
  CHECK(b.attributes == 3);  // two metadata, one sharding
  CHECK(b.metadata_attributes == 2);
  CHECK(b.nodes == 3 * sizeof(Instruction));
  CHECK(b.attribute_records == 3 * sizeof(Attribute));
  CHECK(b.arena_used >= b.nodes + b.attribute_records + b.metadata_records + b.edge_lists);
  CHECK(b.arena_reserved >= b.arena_used);
  CHECK(b.arena_resident >= b.arena_used);
  CHECK(b.arena_resident <= b.arena_reserved);
  // A module this small fits the first block, which comes from malloc.
  CHECK(b.arena_heap_blocks == b.arena_reserved);
  // Three instructions: names are found by scanning the list, with no map.
  CHECK(b.name_maps == 0);
}

TEST_CASE("the memory breakdown counts the name map of a large computation") {
  // 20 instructions, over the 16 that a computation finds by scanning its list.
  std::string text = "HloModule m\nENTRY %e (p: f32[]) -> f32[] {\n  %n0 = f32[] parameter(0)\n";
  for (int k = 1; k < 20; ++k) {
    text += "  %n" + std::to_string(k) + " = f32[] negate(%n" + std::to_string(k - 1) + ")\n";
  }
  absl::StatusOr<Module> m = parse_module(text + "}\n");
  REQUIRE(m.ok());
  const MemoryBreakdown b = memory_breakdown(*m);
  CHECK(b.instructions == 20);
  // At least a slot of 8 bytes for each name.
  CHECK(b.name_maps >= 20 * sizeof(void*));
}

}  // namespace
}  // namespace hloroof::detail
