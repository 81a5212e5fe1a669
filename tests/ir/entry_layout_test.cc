// The header's entry_computation_layout points at the module's interned shapes: a layout that
// many parameters share is held once, and modules compare by the shapes, not their addresses.
#include <catch2/catch.hpp>
#include <string>

#include "hloroof/hlo_text.h"
#include "hloroof/module.h"
#include "hloroof/shape_text.h"
#include "require_ok.h"

namespace hloroof {
namespace {

std::string module_text(std::string_view third_layout) {
  return "HloModule m, entry_computation_layout={(f32[8]{0}, f32[8]{0}, " +
         std::string(third_layout) + ")->f32[8]{0}}\n" + R"(
ENTRY %e (a: f32[8], b: f32[8], c: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %c = f32[8]{0} parameter(2)
  %s = f32[8]{0} add(%a, %b)
  ROOT %t = f32[8]{0} add(%s, %c)
}
)";
}

TEST_CASE("entry parameter layouts of equal shapes share one interned shape") {
  absl::StatusOr<Module> m = parse_module(module_text("f32[8]{0}"));
  REQUIRE_OK(m);
  const ModuleAttributes& a = m->attributes();
  REQUIRE(a.entry_parameter_layouts.size() == 3);
  CHECK(a.entry_parameter_layouts[0] == a.entry_parameter_layouts[1]);
  CHECK(a.entry_parameter_layouts[1] == a.entry_parameter_layouts[2]);
  // The result layout and the instructions' shapes are the same interned shape too.
  CHECK(a.entry_result_layout == a.entry_parameter_layouts[0]);
  CHECK(&m->entry()->root()->shape() == a.entry_result_layout);
  CHECK(to_string(*a.entry_parameter_layouts[2]) == "f32[8]{0}");
}

TEST_CASE("modules with equal entry layouts are equal; a different layout makes them differ") {
  absl::StatusOr<Module> a = parse_module(module_text("f32[8]{0}"));
  absl::StatusOr<Module> b = parse_module(module_text("f32[8]{0}"));
  absl::StatusOr<Module> c = parse_module(module_text("f32[8]{0:T(8)}"));
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE_OK(c);
  // Distinct modules hold distinct shapes: equality looks through the pointers.
  CHECK(a->attributes().entry_parameter_layouts[2] != b->attributes().entry_parameter_layouts[2]);
  CHECK(structurally_equal(*a, *b));
  std::string difference;
  CHECK_FALSE(structurally_equal(*a, *c, &difference));
  CHECK(difference == "module headers differ");
}

}  // namespace
}  // namespace hloroof
