// The canonical printer: exact output for canonical input, and the normalizations it applies.
#include <catch2/catch.hpp>

#include "hloroof/replica_groups.h"
#include "module_test_util.h"

namespace hloroof {
namespace {

using testing::parse_ok;

// Canonical text (the current dump profile) exercising most value syntaxes of section 5.
constexpr std::string_view kCanonical =
    R"(HloModule jit_step, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {0}, must-alias) }, buffer_donor={ (2, {}) }, entry_computation_layout={(f32[8,128]{1,0:T(8,128)}, (f32[4]{0}, s32[]), f32[4]{0}, f32[], f32[], /*index=5*/f32[])->(f32[8,128]{1,0:T(8,128)}, f32[4]{0})}, allow_spmd_sharding_propagation_to_output={true}, replica_count=2, num_partitions=4, frontend_attributes={fingerprint="abc"}

FileNames
1 "model.py"

FunctionNames
1 "step"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y), metadata={op_name="add" stack_frame_id=1}
}

%host (h: f32[]) -> f32[] {
  %h = f32[] parameter(0)
  ROOT %n = f32[] negate(%h)
}, execution_thread="host"

ENTRY %main (p0: f32[8,128], p1: (f32[4], s32[]), p2: f32[4], p3: f32[], p4: f32[], p5: f32[]) -> (f32[8,128], f32[4]) {
  %p0 = f32[8,128]{1,0:T(8,128)} parameter(0), sharding={devices=[2,2]<=[4]}
  %p1 = (f32[4]{0}, s32[]) parameter(1), parameter_replication={false,true}
  %p2 = f32[4]{0} parameter(2)
  %p3 = f32[] parameter(3)
  %p4 = f32[] parameter(4)
  %p5 = f32[] parameter(5)
  %gte = f32[4]{0} get-tuple-element(%p1), index=0
  %t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(%p3, %p4, %p5, %p3, %p4, /*index=5*/%p5)
  %sl = f32[4,64]{1,0} slice(%p0), slice={[0:8:2], [0:128:2]}
  %pd = f32[12,130]{1,0} pad(%sl, %p3), padding=1_1_2x1_1_0
  %rw = f32[4,32]{1,0} reduce-window(%sl, %p3), window={size=1x4 stride=1x2 pad=0_0x1_1 rhs_dilate=1x2 rhs_reversal=0x1}, to_apply=%add
  %ar = f32[4]{0} all-reduce(%gte), channel_id=3, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add
  %ag = f32[8]{0} all-gather(%p2), channel_id=4, replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}
  %cp = f32[4]{0} collective-permute(%p2), channel_id=5, source_target_pairs={{0,1},{1,0}}
  %bn = f32[8,128]{1,0:T(8,128)} batch-norm-inference(%p0, %p2, %p2, %p2, %p2), epsilon=0.001, feature_index=1
  %cc = f32[4]{0} custom-call(%p2), custom_call_target="my\"target", api_version=API_VERSION_TYPED_FFI, backend_config={"x":[1,2]}
  %h = f32[] call(%p3), to_apply=%host, frontend_attributes={_xla_compute_type="host",a="1"}
  ROOT %out = (f32[8,128]{1,0:T(8,128)}, f32[4]{0}) tuple(%bn, %ar), metadata={op_type="tuple" op_name="jit(step)/tuple" source_file="model.py" source_line=3}
}
)";

TEST_CASE("canonical text prints back byte for byte") {
  Module m = parse_ok(kCanonical);
  CHECK(print(m) == kCanonical);
}

TEST_CASE("decoded attribute values of the canonical module") {
  Module m = parse_ok(kCanonical);
  const Computation* main = m.entry();
  const Instruction* rw = main->find_instruction("rw");
  REQUIRE(rw->window()->dims.size() == 2);
  CHECK(rw->window()->dims[1] == WindowDim{4, 2, 1, 1, 1, 2, true});
  const Instruction* sl = main->find_instruction("sl");
  CHECK(sl->slice()->dims[1] == SliceDim{0, 128, 2});
  const Instruction* ag = main->find_instruction("ag");
  // [2,2]<=[2,2]T(1,0): {0,2},{1,3}.
  REQUIRE(ag->replica_groups()->group_count() == 2);
  CHECK(ag->replica_groups()->group(0) == std::vector<int64_t>{0, 2});
  CHECK(ag->replica_groups()->group(1) == std::vector<int64_t>{1, 3});
  const Instruction* cp = main->find_instruction("cp");
  REQUIRE(cp->source_target_pairs() != nullptr);
  CHECK(*cp->source_target_pairs() == IntListList{{0, 1}, {1, 0}});
  const Instruction* bn = main->find_instruction("bn");
  CHECK(bn->attribute(AttrId::kEpsilon)->get<double>() != nullptr);
  CHECK(*bn->attribute(AttrId::kEpsilon)->get<double>() == 0.001);
  const Instruction* cc = main->find_instruction("cc");
  CHECK(cc->custom_call_target() == "my\"target");
  CHECK(cc->backend_config().find_int("/x/1") == 2);
  const ModuleAttributes& a = m.attributes();
  CHECK(a.replica_count == 2);
  REQUIRE(a.input_output_alias.size() == 2);
  CHECK(a.input_output_alias[1] == InputOutputAlias{{1}, 1, {0}, true});
  REQUIRE(a.buffer_donor.size() == 1);
  CHECK(a.buffer_donor[0].parameter_number == 2);
  CHECK(a.entry_parameter_layouts.size() == 6);
}

TEST_CASE("the short profile prints in the current dump profile") {
  Module m = parse_ok(R"(HloModule short
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
} // add

ENTRY main {
  a = f32[4]{0} parameter(0)
  b = (f32[4]{0}, s32[]) parameter(1)
  g = f32[4]{0} get-tuple-element(b), index=0
  ROOT r = f32[4]{0} add(f32[4]{0} a, g)
}
)");
  CHECK(print(m) == R"(HloModule short

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (a: f32[4], b: (f32[4], s32[])) -> f32[4] {
  %a = f32[4]{0} parameter(0)
  %b = (f32[4]{0}, s32[]) parameter(1)
  %g = f32[4]{0} get-tuple-element(%b), index=0
  ROOT %r = f32[4]{0} add(%a, %g)
}
)");
}

TEST_CASE("normalizations: attribute order, spacing, escaped configs, names") {
  Module m = parse_ok(R"(
ENTRY e {
  p = f32[4]{0} parameter(0), metadata={op_name="p"}, sharding={replicated}
  ROOT r = f32[4]{0} transpose(p), dimensions={ 0 }, backend_config="{\"a\": 1}", frontend_attributes={z="1", a="2"}
}
)");
  // Common attributes print in the fixed order of syntax 2.8 after the opcode-specific ones;
  // an escaped JSON backend_config prints raw; frontend attributes sorted by key; a
  // headerless module is named module_<entry>.
  CHECK(print(m) == R"(HloModule module_e

ENTRY %e (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0), sharding={replicated}, metadata={op_name="p"}
  ROOT %r = f32[4]{0} transpose(%p), dimensions={0}, frontend_attributes={a="2",z="1"}, backend_config={"a": 1}
}
)");
}

TEST_CASE("a backend_config that is not a balanced blob prints as an escaped string") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  ROOT %p = f32[] parameter(0), backend_config="tab\there }{"
})");
  CHECK(m.entry()->root()->backend_config().text() == "tab\there }{");
  CHECK(print(m).find(R"(backend_config="tab\there }{")") != std::string::npos);
  CHECK_FALSE(m.entry()->root()->backend_config().is_json());
}

TEST_CASE("iota and mesh replica groups keep their form; mesh groups over sub-axes") {
  Module m = parse_ok(R"(HloModule m
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %e {
  %a = f32[8]{0} parameter(0)
  %r1 = f32[8]{0} all-reduce(%a), replica_groups=[2,4]<=[8], to_apply=%add
  ROOT %r2 = f32[8]{0} all-reduce(%r1), replica_groups=mesh['x'=4,'y'=2] {'x':(2)2}, to_apply=%add
})");
  const Computation* e = m.entry();
  const ReplicaGroups* iota = e->find_instruction("r1")->replica_groups();
  CHECK(iota->groups.empty());  // kept in iota form
  CHECK(iota->expand().value() ==
        std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}});  // [2,4]<=[8]
  // Mesh x=4 (split as 2 x 2), y=2; devices 0..7 row-major over (x, y), so device = 2x + y.
  // 'x':(2)2 is the minor factor of x: x = 2*a + b varies b. Groups for (a, y):
  // a=0,y=0: x=0,1 -> 0,2; a=0,y=1: 1,3; a=1,y=0: x=2,3 -> 4,6; a=1,y=1: 5,7.
  const ReplicaGroups* mesh = e->find_instruction("r2")->replica_groups();
  CHECK(mesh->groups.empty());  // kept compact, as the iota form
  CHECK(mesh->expand().value() ==
        std::vector<std::vector<int64_t>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  std::string printed = print(m);
  CHECK(printed.find("replica_groups=[2,4]<=[8], ") != std::string::npos);
  CHECK(printed.find("replica_groups=mesh['x'=4,'y'=2] {'x':(2)2}, ") != std::string::npos);
}

TEST_CASE("named shardings decode their mesh and axes") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  ROOT %p = f32[8,8]{1,0} parameter(0), sharding={mesh['x'=2,'y'=2,'z'=2], device_ids=(7,6,5,4,3,2,1,0), [{'x'}, {'y', ?}], replicated={'z'}}
})");
  const Sharding* s = m.entry()->root()->sharding();
  REQUIRE(s != nullptr);
  CHECK(s->type == Sharding::Type::kNamed);
  REQUIRE(s->mesh.size() == 3);
  CHECK(s->mesh[2].name == "z");
  CHECK(s->mesh_device_ids.at(0) == 7);
  REQUIRE(s->dim_axes.size() == 2);
  CHECK(s->dim_axes[0].axes == std::vector<std::string_view>{"x"});
  CHECK(s->dim_axes[1].open);
  CHECK(s->replicated_axes == std::vector<std::string_view>{"z"});
  CHECK(testing::parse_error("HloModule m\nENTRY %e {\n  ROOT %p = f32[8]{0} parameter(0), "
                             "sharding={mesh['x'=2], [{'q'}]}\n}") ==
        "3:62: error: 'q' is not an axis of the mesh");
}

}  // namespace
}  // namespace hloroof
