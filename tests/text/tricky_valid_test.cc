// The tricky-but-valid snippets of docs/hlo-text.md, "Conformance cases", each inside a minimal
// module: they parse, mean what the text says, and round-trip.
#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"

#include "hloroof/replica_groups.h"
#include "hloroof/sharding.h"
#include "module_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::find;
using testing::parse_ok;

constexpr std::string_view kAdd = R"(
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
)";

std::string with_add(std::string_view entry) {
  return std::string("HloModule m\n") + std::string(kAdd) + std::string(entry);
}

TEST_CASE("8.1-1 scalar layouts with tiles and memory spaces") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %p = f32[]{:T(128)S(1)} parameter(0)
  %flag = u32[]{:S(2)} parameter(1)
  ROOT %t = (f32[]{:T(128)S(1)}, u32[]{:S(2)}) tuple(%p, %flag)
})");
  const Shape& p = find(m, "e", "p").shape();
  REQUIRE(p.layout.has_value());
  CHECK(p.layout->memory_space == 1);
  CHECK(p.layout->tiles.at(0).dims == absl::InlinedVector<int64_t, 4>{128});
  CHECK(find(m, "e", "flag").shape().layout->memory_space == 2);
}

TEST_CASE("8.1-2 short profile: bare names, no signature, no ROOT, trailing comment") {
  Module m = parse_ok(R"(
ENTRY main.5 {
  Arg_0.1 = f32[8]{0} parameter(0)
  get-tuple-element.3 = f32[8]{0} negate(Arg_0.1)
} // main.5
)");
  CHECK(m.name() == "module_main.5");  // headerless: module_<entry> (syntax 2.1)
  const Computation* e = m.entry();
  REQUIRE(e != nullptr);
  CHECK(e->root()->name() == "get-tuple-element.3");  // the last instruction is the root
  CHECK(e->root()->opcode() == Opcode::kNegate);
}

TEST_CASE("8.1-3 long signature with a tuple parameter and an index comment") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e (p: (f32[], s32[]), q: f32[2]) -> (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) {
  %p = (f32[], s32[]) parameter(0)
  %q = f32[2] parameter(1)
  %a = f32[] get-tuple-element(%p), index=0
  ROOT %t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(%a, %a, %a, %a, %a, /*index=5*/%a)
})");
  CHECK(m.entry()->root()->operand_count() == 6);
  CHECK(m.entry()->parameters().size() == 2);
}

TEST_CASE("8.1-4 typed operands, including a tuple-typed one") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %p = (f32[], s32[]) parameter(0)
  %q = f32[2]{0} parameter(1)
  %gte = s32[] get-tuple-element((f32[], s32[]) %p), index=1
  ROOT %sum = f32[2]{0} add(f32[2]{0} %q, f32[2]{0} %q)
})");
  const Instruction& sum = find(m, "e", "sum");
  REQUIRE(sum.operand_count() == 2);
  CHECK(sum.operand(0)->name() == "q");
  // add(q, q): q has one user, listed once.
  CHECK(find(m, "e", "q").users().size() == 1);
}

TEST_CASE("8.1-5 compact GTE operands become get-tuple-element instructions") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %p0 = (f32[10], (f32[20], s32[])) parameter(0)
  ROOT %r = f32[20] add(f32[20] %p0#1#0, f32[20] %p0#1#0)
})");
  const Computation* e = m.entry();
  // p0, p0_1 (element 1), p0_1_0 (its element 0), r: each GTE created once.
  REQUIRE(e->instruction_count() == 4);
  const Instruction& outer = find(m, "e", "p0_1");
  const Instruction& inner = find(m, "e", "p0_1_0");
  CHECK(outer.opcode() == Opcode::kGetTupleElement);
  CHECK(outer.int_attribute(AttrId::kIndex) == 1);
  CHECK(inner.operand(0) == &outer);
  CHECK(inner.int_attribute(AttrId::kIndex) == 0);
  CHECK(to_string(inner.shape()) == "f32[20]");
  CHECK(e->root()->operand(0) == &inner);
  CHECK(e->root()->operand(1) == &inner);
}

TEST_CASE("8.1-6 iota and empty replica groups") {
  Module m = parse_ok(with_add(R"(
ENTRY %e {
  %x = f32[128,32]{0,1} parameter(0)
  %y = f32[8]{0} parameter(1)
  %ag = f32[128,320]{0,1} all-gather(%x), channel_id=1, replica_groups=[3,10]<=[6,5]T(1,0), dimensions={1}, use_global_device_ids=true
  ROOT %ar = f32[8]{0} all-reduce(%y), replica_groups={}, to_apply=%add
})"));
  const Instruction& ag = find(m, "e", "ag");
  const ReplicaGroups* groups = ag.replica_groups();
  REQUIRE(groups != nullptr);
  CHECK(groups->form == ReplicaGroups::Form::kIota);
  // [3,10]<=[6,5]T(1,0): iota(30) as 6x5 (row r = 5r..5r+4), transposed to 5x6 (row a =
  // a, 5+a, ..., 25+a), flattened and cut into 3 groups of 10.
  REQUIRE(groups->group_count() == 3);
  CHECK(groups->size_of_groups(30) == 10);
  CHECK(groups->group(0) == std::vector<int64_t>{0, 5, 10, 15, 20, 25, 1, 6, 11, 16});
  CHECK(groups->group(1) == std::vector<int64_t>{21, 26, 2, 7, 12, 17, 22, 27, 3, 8});
  CHECK(groups->group(2) == std::vector<int64_t>{13, 18, 23, 28, 4, 9, 14, 19, 24, 29});
  CHECK(groups->id_at(2, 9) == 29);
  absl::StatusOr<std::vector<std::vector<int64_t>>> listed = groups->expand();
  REQUIRE_OK(listed);
  CHECK(listed->size() == 3);
  CHECK((*listed)[1] == groups->group(1));
  CHECK_FALSE(groups->expand(29).ok());  // 30 ids
  CHECK(ag.channel_id() == 1);
  CHECK(ag.use_global_device_ids());
  CHECK(ag.dimensions() == IntList{1});

  const Instruction& ar = find(m, "e", "ar");
  REQUIRE(ar.replica_groups() != nullptr);
  CHECK(ar.replica_groups()->all_participants());  // one group of every participant
  CHECK(ar.replica_groups()->group_count() == 0);
  CHECK(ar.replica_groups()->size_of_groups(8) == 8);
  CHECK(ar.to_apply() == m.find_computation("add"));
  CHECK(m.find_computation("add")->callers().size() == 1);
}

TEST_CASE("8.1-7 mesh replica groups whose value contains a comma") {
  Module m = parse_ok(with_add(R"(
ENTRY %e {
  %y = f32[8]{0} parameter(0)
  ROOT %ar = f32[8]{0} all-reduce(%y), replica_groups=mesh['x'=2,'y'=2], device_ids=(0,2,1,3) {'x'}, to_apply=%add
})"));
  const ReplicaGroups* groups = find(m, "e", "ar").replica_groups();
  REQUIRE(groups != nullptr);
  CHECK(groups->form == ReplicaGroups::Form::kMesh);
  // Mesh [x=2,y=2] holds devices 0,2 / 1,3 (row-major); groups vary over x for each y:
  // y=0: devices at (0,0),(1,0) = 0,1; y=1: (0,1),(1,1) = 2,3.
  REQUIRE(groups->group_count() == 2);
  CHECK(groups->group(0) == std::vector<int64_t>{0, 1});
  CHECK(groups->group(1) == std::vector<int64_t>{2, 3});
}

TEST_CASE("8.1-8 tuple sharding with iota, subgroups, metadata and an index comment") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  ROOT %p = (f32[4], f32[4], f32[4], f32[4], f32[4], f32[4]) parameter(0), sharding={{replicated}, {devices=[2,1,2]<=[4] last_tile_dim_replicate}, {maximal device=0}, {manual}, {devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual} metadata={op_name="a"}}, /*index=5*/{unknown}}
})");
  const Sharding* s = m.entry()->root()->sharding();
  REQUIRE(s != nullptr);
  CHECK(s->type == Sharding::Type::kTuple);
  REQUIRE(s->elements.size() == 6);
  CHECK(s->elements[0].type == Sharding::Type::kReplicated);
  CHECK(s->elements[1].type == Sharding::Type::kTiled);
  CHECK(s->elements[1].tile_shape == std::vector<int64_t>{2, 1, 2});
  CHECK(s->elements[1].devices.expand() == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(s->elements[1].last_tile_dim_replicate);
  CHECK(s->elements[2].type == Sharding::Type::kMaximal);
  CHECK(s->elements[2].device == 0);
  CHECK(s->elements[3].type == Sharding::Type::kManual);
  // <=[2,2]T(1,0): 0,2,1,3.
  CHECK(s->elements[4].devices.expand() == std::vector<int64_t>{0, 2, 1, 3});
  CHECK(s->elements[4].last_tile_dims == std::vector<Sharding::Type>{Sharding::Type::kManual});
  CHECK(s->elements[5].type == Sharding::Type::kUnknown);
}

TEST_CASE("8.1-9 raw backend_config with braces and escaped quotes inside strings") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  ROOT %p = f32[] parameter(0), backend_config={"a":"}{","b":{"c":"\"x\""},"n":[1,{}]}
})");
  BackendConfig config = m.entry()->root()->backend_config();
  CHECK(config.text() == R"({"a":"}{","b":{"c":"\"x\""},"n":[1,{}]})");
  CHECK(config.is_json());
  CHECK(config.find_string("/a") == "}{");
  CHECK(config.find_string("/b/c") == "\"x\"");
  CHECK(config.find_int("/n/0") == 1);
  CHECK(config.find_int("/missing") == std::nullopt);
}

TEST_CASE("8.1-10 constants: elided, 2-D, pred as 0/1, NaN payload, complex, -inf") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %w = f32[1024,1024]{1,0} constant({...})
  %m = s32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })
  %b = pred[3]{0} constant({1, 0, 1})
  %n = f32[2]{0} constant({nan(0x1), -inf})
  ROOT %z = c64[] constant((1, -2.5))
})");
  CHECK(find(m, "e", "w").literal_text() == "{...}");
  CHECK(find(m, "e", "m").literal_text() == "{ { 1, 2 }, { 3, 4 } }");
  CHECK(find(m, "e", "z").literal_text() == "(1, -2.5)");
}

TEST_CASE("8.1-11 dynamic and unbounded dimensions with a layout") {
  Module m = parse_ok("HloModule m\nENTRY %e {\n  ROOT %p = f32[<=8,?]{1,0} parameter(0)\n}");
  const Shape& s = m.entry()->root()->shape();
  CHECK(s.dims[0].kind == Dimension::Kind::kBounded);
  CHECK(s.dims[1].kind == Dimension::Kind::kUnbounded);
}

TEST_CASE("8.1-12 async syntax sugar") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %p0 = f32[10]{0} parameter(0)
  %s = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(%p0), custom_call_target="foo"
  %u = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-update(%s)
  ROOT %d = f32[20]{0} custom-call-done(%u)
})");
  const Instruction& s = find(m, "e", "s");
  CHECK(s.opcode() == Opcode::kAsyncStart);
  CHECK(s.uses_async_sugar());
  CHECK(s.async_wrapped_opcode() == Opcode::kCustomCall);
  CHECK(s.custom_call_target() == "foo");
  CHECK(find(m, "e", "u").opcode() == Opcode::kAsyncUpdate);
  CHECK(find(m, "e", "d").async_wrapped_opcode() == Opcode::kCustomCall);
  CHECK(print(m).find("custom-call-done(%u)") != std::string::npos);
}

TEST_CASE("8.1-13 full layout property chain in grammar order") {
  Module m = parse_ok(
      "HloModule m\nENTRY %e {\n  ROOT %t = "
      "s4[256,1024]{1,0:T(8,128)(2,1)L(2048)E(4)S(1)SC(0:128)M(64)} parameter(0)\n}");
  CHECK(to_string(m.entry()->root()->shape()) ==
        "s4[256,1024]{1,0:T(8,128)(2,1)L(2048)E(4)S(1)SC(0:128)M(64)}");
}

TEST_CASE("8.1-14 a non-main execution thread and a %-name equal to a keyword") {
  Module m = parse_ok(R"(HloModule m
%host_comp (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  ROOT %replicated = f32[] copy(%p)
}, execution_thread="host"

ENTRY %e {
  %a = f32[] parameter(0)
  ROOT %c = f32[] call(%a), to_apply=%host_comp
})");
  const Computation* host = m.find_computation("host_comp");
  REQUIRE(host != nullptr);
  CHECK(host->execution_thread() == "host");
  CHECK(host->root()->name() == "replicated");
  CHECK(m.entry()->execution_thread() == "main");
}

TEST_CASE("8.1-15 stack-frame tables and metadata with escapes") {
  Module m = parse_ok(R"(HloModule m

FileNames
1 "/home/u/proj/model.py"

FunctionNames
1 "<module>"
2 "loss"

FileLocations
1 {file_name_id=1 function_name_id=1 line=19 end_line=19 column=6 end_column=42}
2 {file_name_id=1 function_name_id=2 line=7 end_line=7 column=11 end_column=20}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}

ENTRY %e {
  %a = f32[] parameter(0)
  ROOT %b = f32[] add(%a, %a), metadata={op_type="add" op_name="jit(f)/caf\303\251" stack_frame_id=2}
})");
  const StackFrameTables& t = m.stack_frames();
  CHECK(t.present);
  CHECK(t.function_names.size() == 2);
  std::optional<OpMetadata> md = m.entry()->root()->metadata();
  REQUIRE(md.has_value());
  CHECK(md->op_type == "add");
  CHECK(md->op_name == "jit(f)/caf\xc3\xa9");  // octal escapes decoded to UTF-8
  CHECK(md->stack_frame_id == 2);
  // Frame 2 (loss, line 7) has parent_frame_id=2, i.e. frame 1 (<module>, line 19).
  std::vector<SourceFrame> stack = t.stack(md->stack_frame_id);
  REQUIRE(stack.size() == 2);
  CHECK(stack[0].function == "loss");
  CHECK(stack[0].line == 7);
  CHECK(stack[1].function == "<module>");
  CHECK(stack[1].file == "/home/u/proj/model.py");
}

TEST_CASE("8.1-16 windows and dim labels with negative padding, reversal, 1-D forms") {
  Module m = parse_ok(R"(HloModule m
%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

ENTRY %e {
  %x = f32[1,2,1]{2,1,0} parameter(0)
  %k = f32[3,1,1]{2,1,0} parameter(1)
  %a = f32[8,8]{1,0} parameter(2)
  %i = f32[] parameter(3)
  %c = f32[1,2,1]{2,1,0} convolution(%x, %k), window={size=3 pad=-1_1 rhs_reversal=1}, dim_labels=b0f_0io->b0f
  ROOT %r = f32[4,4]{1,0} reduce-window(%a, %i), window={size=2x2 stride=2x2 pad=0_1x0_1}, to_apply=%max
})");
  const Window* conv = find(m, "e", "c").window();
  REQUIRE(conv != nullptr);
  REQUIRE(conv->dims.size() == 1);
  CHECK(conv->dims[0].size == 3);
  CHECK(conv->dims[0].pad_low == -1);
  CHECK(conv->dims[0].pad_high == 1);
  CHECK(conv->dims[0].reversal);
  const ConvDimLabels* labels = find(m, "e", "c").conv_dim_labels();
  REQUIRE(labels != nullptr);
  // b0f_0io->b0f: input batch 0, spatial 1, feature 2; kernel spatial 0, input 1, output 2.
  CHECK(labels->input_batch == 0);
  CHECK(labels->input_feature == 2);
  CHECK(labels->input_spatial == absl::InlinedVector<int64_t, 3>{1});
  CHECK(labels->kernel_input_feature == 1);
  CHECK(labels->kernel_output_feature == 2);
  const Window* rw = find(m, "e", "r").window();
  REQUIRE(rw->dims.size() == 2);
  CHECK(rw->dims[1].stride == 2);
  CHECK(rw->dims[1].pad_high == 1);
}

TEST_CASE("8.1-17 pad with interior padding and negative edges") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %a = f32[5]{0} parameter(0)
  %zero = f32[] constant(0)
  ROOT %q = f32[10]{0} pad(%a, %zero), padding=-1_2_1
})");
  const Padding* p = m.entry()->root()->padding();
  REQUIRE(p != nullptr);
  REQUIRE(p->dims.size() == 1);
  CHECK(p->dims[0] == PaddingDim{-1, 2, 1});
}

TEST_CASE("8.1-18 a header spread over several lines, with aliasing") {
  Module m = parse_ok(R"(HloModule m, input_output_alias={ {}: (0, {}, may-alias) },
  entry_computation_layout={(f32[8]{0})->f32[8]{0}},
  num_partitions=4

ENTRY %e {
  ROOT %p = f32[8]{0} parameter(0)
})");
  const ModuleAttributes& a = m.attributes();
  CHECK(a.num_partitions == 4);
  REQUIRE(a.input_output_alias.size() == 1);
  CHECK(a.input_output_alias[0].output_index.empty());
  CHECK_FALSE(a.input_output_alias[0].must_alias);
  CHECK(a.has_entry_computation_layout);
  REQUIRE(a.entry_result_layout != nullptr);
  CHECK(to_string(*a.entry_result_layout) == "f32[8]{0}");
}

TEST_CASE("8.1-18b an entry of many parameters: layouts and parameters in order") {
  // 300 parameters, shapes cycling through three ranks, numbered backwards: the header's layout
  // list and the computation's parameter list each hold all 300 in order.
  std::string layouts, signature, body;
  const char* shapes[] = {"f32[8]{0}", "bf16[2,3]{1,0}", "s32[4,5,6,7,8]{4,3,2,1,0}"};
  for (int k = 0; k < 300; ++k) {
    const std::string shape = shapes[k % 3];
    absl::StrAppend(&layouts, k ? ", " : "", shape);
    absl::StrAppend(&signature, k ? ", " : "", "p", k, ": ", shape);
    absl::StrAppend(&body, "  p", k, " = ", shape, " parameter(", 299 - k, ")\n");
  }
  Module m = parse_ok(absl::StrCat("HloModule m, entry_computation_layout={(", layouts,
                                   ")->f32[8]{0}}\n\nENTRY e (", signature, ") -> f32[8] {\n", body,
                                   "  ROOT r = f32[8]{0} copy(p0)\n}\n"));
  const ModuleAttributes& a = m.attributes();
  REQUIRE(a.entry_parameter_layouts.size() == 300);
  for (int k : {0, 1, 2, 298, 299}) {
    CHECK(to_string(*a.entry_parameter_layouts[k]) == shapes[k % 3]);
  }
  // Parameter k of the text is parameter number 299 - k; parameters() is indexed by number.
  REQUIRE(m.entry()->parameters().size() == 300);
  CHECK(m.entry()->parameters()[299]->name() == "p0");
  CHECK(m.entry()->parameters()[0]->name() == "p299");
}

TEST_CASE("8.1-19 frontend attribute whose value is a raw non-JSON blob") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  ROOT %p = f32[] parameter(0), frontend_attributes={composite.attributes={n = 1 : i32},composite.name="foo.bar",composite.version="1"}
})");
  const FrontendAttributes* f = m.entry()->root()->frontend_attributes();
  REQUIRE(f != nullptr);
  CHECK(f->find("composite.attributes") == "{n = 1 : i32}");
  CHECK(f->find("composite.name") == "foo.bar");
  CHECK(f->find("composite.version") == "1");
}

TEST_CASE("8.1-20 conditional with a branch list; while with a trip-count config") {
  Module m = parse_ok(R"(HloModule m
%br0 (a: f32[]) -> f32[] {
  ROOT %a = f32[] parameter(0)
}

%br1 (b: f32[]) -> f32[] {
  %b = f32[] parameter(0)
  ROOT %n = f32[] negate(%b)
}

%cond (s: (s32[], f32[8])) -> pred[] {
  %s = (s32[], f32[8]{0}) parameter(0)
  ROOT %t = pred[] constant(true)
}

%body (s: (s32[], f32[8])) -> (s32[], f32[8]) {
  ROOT %s = (s32[], f32[8]{0}) parameter(0)
}

ENTRY %e {
  %idx = s32[] parameter(0)
  %a = f32[] parameter(1)
  %b = f32[] parameter(2)
  %init = (s32[], f32[8]{0}) parameter(3)
  %c = f32[] conditional(%idx, %a, %b), branch_computations={%br0, %br1}
  ROOT %w = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"8"}}
})");
  const Instruction& c = find(m, "e", "c");
  REQUIRE(c.called_computations().size() == 2);
  CHECK(c.called_computations()[1]->name() == "br1");
  const Instruction& w = find(m, "e", "w");
  CHECK(w.computation_attribute(AttrId::kCondition)->name() == "cond");
  CHECK(w.computation_attribute(AttrId::kBody)->name() == "body");
  // "n":"8": XLA writes 64-bit integers as JSON strings.
  CHECK(w.backend_config().find_int("/known_trip_count/n") == 8);
}

}  // namespace
}  // namespace hloroof
