// The module's memory breakdown counts what the module holds.
#include "ir/memory_breakdown.h"

#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>

#include "hloroof/hlo_text.h"
#include "hloroof/instruction.h"
#include "text/module_parser.h"
#include "require_ok.h"

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
  REQUIRE_OK(m);
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

// A module whose computations are chains of `sizes[k]` instructions (a parameter, then
// negates), one instruction a line as printers write them; the last one is the entry.
std::string chains(std::initializer_list<int> sizes) {
  std::string text = "HloModule m\n";
  int k = 0;
  for (int size : sizes) {
    text += ++k == static_cast<int>(sizes.size()) ? "\nENTRY " : "\n";
    text += "%c" + std::to_string(k) + " (p: f32[]) -> f32[] {\n  %n0 = f32[] parameter(0)\n";
    for (int i = 1; i < size; ++i) {
      text += "  %n" + std::to_string(i) + " = f32[] negate(%n" + std::to_string(i - 1) + ")\n";
    }
    text += "}\n";
  }
  return text;
}

TEST_CASE("the memory breakdown counts the name map of a large computation") {
  // 20 instructions, over the 16 that a computation finds by scanning its list.
  absl::StatusOr<Module> m = parse_module(chains({20}));
  REQUIRE_OK(m);
  const MemoryBreakdown b = memory_breakdown(*m);
  CHECK(b.instructions == 20);
  // At least a slot of 8 bytes for each name.
  CHECK(b.name_maps >= 20 * sizeof(void*));
}

TEST_CASE("each computation's instruction list is sized from its lines before it is filled") {
  // One computation of 40 instructions and 1 parameter: the list holds exactly 40 and the
  // parameter list 1 (grown one by one, it would hold 64: 1, 2, 4, ..., 64).
  absl::StatusOr<Module> one = parse_module(chains({40}));
  REQUIRE_OK(one);
  CHECK(memory_breakdown(*one).order_lists == (40 + 1) * sizeof(void*));
  // Three computations (20, 3 and 30 instructions, one parameter each) with text between them:
  // each is sized by its own lines, not by its neighbours'.
  absl::StatusOr<Module> three = parse_module(chains({20, 3, 30}));
  REQUIRE_OK(three);
  CHECK(memory_breakdown(*three).order_lists == (20 + 3 + 30 + 3) * sizeof(void*));
  // Laid out otherwise (a body that does not end on a line of its own), the lists still hold
  // every instruction; they grow as they go.
  std::string flat = chains({20});
  flat.replace(flat.rfind("\n}"), 2, " }");
  absl::StatusOr<Module> grown = parse_module(flat);
  REQUIRE_OK(grown);
  CHECK(grown->entry()->instruction_count() == 20);
  CHECK(memory_breakdown(*grown).order_lists >= (20 + 1) * sizeof(void*));
}

TEST_CASE("a computation's lists and name map are in the module's arena") {
  // 5,000 instructions of shape f32[] in one computation: its list (5,000 + 1 pointers) and
  // name map (at least a pointer a name) are in the arena, beside the nodes; what else the arena
  // holds here (one interned shape, the computation) is far smaller.
  absl::StatusOr<Module> m = parse_module(chains({5000}));
  REQUIRE_OK(m);
  const MemoryBreakdown b = memory_breakdown(*m);
  CHECK(b.order_lists == (5000 + 1) * sizeof(void*));
  CHECK(b.name_maps >= 5000 * sizeof(void*));
  const size_t elsewhere =
      b.nodes + b.attribute_records + b.metadata_records + b.edge_lists + b.rare_records;
  CHECK(b.arena_used >= elsewhere + b.order_lists + b.name_maps);
}

TEST_CASE("the lines counted before parsing: body ends, and at most 16 and one a 64 bytes") {
  // Newlines at 1, 5, 8, 11; the one at 11 is followed by `}`, after 3 newlines.
  const std::string_view text = "H\nc {\n a\n b\n}";
  const text::TextLines lines = text::count_lines(text);
  CHECK(lines.count == 4);
  REQUIRE(lines.body_ends.size() == 1);
  CHECK(lines.body_ends[0].newline == text.data() + 11);
  CHECK(lines.body_ends[0].line == 3);
  // 6,400 bytes of "}\n" lines: 3,199 newlines before a `}`, but only 16 + 6,400 / 64 = 116
  // are kept; each holds how many newlines came before it.
  std::string braces;
  for (int i = 0; i < 3200; ++i) braces += "}\n";
  const text::TextLines many = text::count_lines(braces);
  CHECK(many.count == 3200);
  REQUIRE(many.body_ends.size() == 116);
  CHECK(many.body_ends[115].line == 115);
  CHECK(many.body_ends[115].newline == braces.data() + 2 * 115 + 1);
  // Such a text still parses as before (and fails at its first line).
  CHECK_FALSE(parse_module(braces).ok());
}

}  // namespace
}  // namespace hloroof::detail
