// The module's memory breakdown counts what the module holds.
#include "ir/memory_breakdown.h"

#include <catch2/catch.hpp>

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
  CHECK(b.name_maps > 0);  // one computation's map of three names
}

}  // namespace
}  // namespace hloroof::detail
