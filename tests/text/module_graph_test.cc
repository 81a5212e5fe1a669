// The module graph: opcode table, edges in both directions, lookups, moves and edits.
#include <catch2/catch.hpp>
#include <utility>

#include "hloroof/hloroof.h"
#include "module_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::find;
using testing::parse_ok;

constexpr std::string_view kModule = R"(HloModule m, is_scheduled=true

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

%fused (p0: f32[8], p1: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  %p1 = f32[8]{0} parameter(1)
  ROOT %m = f32[8]{0} multiply(%p0, %p1)
}

ENTRY %main (a: f32[8], b: f32[8]) -> (f32[], f32[8]) {
  %a = f32[8]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %f = f32[8]{0} fusion(%a, %b), kind=kLoop, calls=%fused
  %zero = f32[] constant(0)
  %r = f32[] reduce(%f, %zero), dimensions={0}, to_apply=%add, control-predecessors={%a}
  ROOT %t = (f32[], f32[8]{0}) tuple(%r, %f)
}
)";

TEST_CASE("the opcode table has the 133 spellings XLA prints") {
  CHECK(kOpcodeCount == 133);
  for (int k = 0; k < kOpcodeCount; ++k) {
    auto op = static_cast<Opcode>(k);
    CHECK(opcode_from_name(opcode_name(op)) == op);
  }
  CHECK(opcode_name(Opcode::kGetTupleElement) == "get-tuple-element");
  CHECK(opcode_from_name("cross-replica-sum") == std::nullopt);  // renamed in 2018
  CHECK(opcode_category(Opcode::kExp) == OpCategory::kTranscendental);
  CHECK(opcode_category(Opcode::kAllGatherStart) == OpCategory::kCollective);
  CHECK(opcode_category(Opcode::kFusion) == OpCategory::kFusion);
  CHECK(is_elementwise(Opcode::kAdd));
  CHECK_FALSE(is_elementwise(Opcode::kDot));
  // Fixed operand counts (section 6): 0, 1, 2, 3, 4, 5, 6; variadic -1.
  CHECK(opcode_arity(Opcode::kIota) == 0);
  CHECK(opcode_arity(Opcode::kCopyStart) == 1);
  CHECK(opcode_arity(Opcode::kSetDimensionSize) == 2);
  CHECK(opcode_arity(Opcode::kRaggedDot) == 3);
  CHECK(opcode_arity(Opcode::kScaledDot) == 4);
  CHECK(opcode_arity(Opcode::kBatchNormGrad) == 5);
  CHECK(opcode_arity(Opcode::kRaggedAllToAll) == 6);
  CHECK(opcode_arity(Opcode::kReduce) == -1);
  CHECK(has_native_async_forms(Opcode::kAllReduce));
  CHECK_FALSE(has_native_async_forms(Opcode::kAllToAll));
  CHECK(is_async_start(Opcode::kCollectivePermuteStart));
  CHECK(is_async_done(Opcode::kRecvDone));
}

TEST_CASE("operands and users, callees and callers, control edges go both ways") {
  Module m = parse_ok(kModule);
  const Computation* main = m.entry();
  REQUIRE(main != nullptr);
  CHECK(main->name() == "main");
  CHECK(m.attributes().is_scheduled);
  const Instruction& a = find(m, "main", "a");
  const Instruction& f = find(m, "main", "f");
  const Instruction& r = find(m, "main", "r");
  const Instruction& t = find(m, "main", "t");

  CHECK(f.operands() == absl::Span<Instruction* const>{main->parameters()});
  REQUIRE(a.users().size() == 1);
  CHECK(a.users()[0] == &f);
  REQUIRE(f.users().size() == 2);  // r, then t
  CHECK(f.users()[0] == &r);
  CHECK(f.users()[1] == &t);
  CHECK(t.is_root());
  CHECK(main->root() == &t);

  const Computation* fused = m.find_computation("fused");
  REQUIRE(fused != nullptr);
  REQUIRE(f.called_computations().size() == 1);
  CHECK(f.called_computations()[0] == fused);
  REQUIRE(fused->callers().size() == 1);
  CHECK(fused->callers()[0] == &f);
  CHECK(f.fusion_kind() == "kLoop");

  REQUIRE(r.control_predecessors().size() == 1);
  CHECK(r.control_predecessors()[0] == &a);
  REQUIRE(a.control_successors().size() == 1);
  CHECK(a.control_successors()[0] == &r);
  CHECK(r.dimensions() == IntList{0});

  // Instruction names are scoped to their computation; computations are module-wide.
  CHECK(main->find_instruction("x") == nullptr);
  CHECK(m.find_computation("add")->find_instruction("x") != nullptr);
  CHECK(m.find_computation("nope") == nullptr);
  // Printed order: callees before callers, instructions in schedule order.
  REQUIRE(m.computations().size() == 3);
  CHECK(m.computations()[2] == main);
  CHECK(main->instructions()[2] == &f);
  CHECK(m.instruction_count() == 3 + 3 + 6);
}

TEST_CASE("a module can be moved and keeps its graph") {
  absl::StatusOr<Module> parsed = parse_module(kModule);
  REQUIRE_OK(parsed);
  const Instruction* root = parsed->entry()->root();
  Module moved = *std::move(parsed);
  Module assigned;
  assigned = std::move(moved);
  CHECK(assigned.entry()->root() == root);
  CHECK(root->operand(0)->name() == "r");
  CHECK(assigned.source().find("HloModule m") == 0);
}

TEST_CASE("the module says whether its text marked a computation ENTRY") {
  CHECK(parse_ok(kModule).entry_marked());
  // Cut off before its ENTRY: the last computation is taken as the entry, as XLA does. The
  // word ENTRY at the start of a line inside a comment marks nothing.
  Module cut = parse_ok(R"(HloModule cut
/*
ENTRY main {
*/
fused {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
)");
  CHECK_FALSE(cut.entry_marked());
  REQUIRE(cut.entry() != nullptr);
  CHECK(cut.entry()->name() == "fused");
}

TEST_CASE("set_entry takes a named computation as the entry, as if the text marked it") {
  Module cut = parse_ok(R"(HloModule cut
fused_a {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
fused_b {
  p = f32[8] parameter(0)
  ROOT e = f32[8] exponential(p)
}
)");
  REQUIRE_FALSE(cut.entry_marked());
  REQUIRE_OK(cut.set_entry("fused_a"));
  CHECK(cut.entry_marked());
  CHECK(cut.entry()->name() == "fused_a");
  CHECK(cut.entry()->is_entry());
  // The one taken before is no longer the entry: one ENTRY, as printed text has.
  CHECK_FALSE(cut.find_computation("fused_b")->is_entry());
  CHECK(print(cut).find("ENTRY %fused_a") != std::string::npos);
  const absl::Status missing = cut.set_entry("fused_c");
  CHECK(missing.code() == absl::StatusCode::kNotFound);
  // The names there are, the last first.
  CHECK(std::string(missing.message()).find("fused_b, fused_a") != std::string::npos);
  CHECK(cut.entry()->name() == "fused_a");
}

TEST_CASE("edits: add, replace uses, change a layout and an attribute, remove, print again") {
  Module m = parse_ok(kModule);
  Computation* main = m.entry();
  Instruction* f = main->find_instruction("f");
  Instruction* t = main->find_instruction("t");

  // Put a copy of %f in memory space 1 and let every user read the copy.
  Shape on_chip = f->shape();
  on_chip.layout->memory_space = 1;
  // Placed before %zero, i.e. after %f and before every user of %f: the printed order is the
  // schedule, so definitions must come before uses.
  absl::StatusOr<Instruction*> copy =
      main->add_instruction(Opcode::kCopy, "f", on_chip, {f}, main->find_instruction("zero"));
  REQUIRE_OK(copy);
  CHECK((*copy)->name() == "f.1");  // "f" is taken
  REQUIRE_OK(f->replace_all_uses_with(*copy));
  // The copy keeps reading %f: replace_all_uses_with skips the replacement itself.
  CHECK((*copy)->operand(0) == f);
  REQUIRE(f->users().size() == 1);
  CHECK(f->users()[0] == *copy);
  CHECK(main->find_instruction("r")->operand(0) == *copy);

  // Reduce over nothing instead, with a different reducer.
  Instruction* r = main->find_instruction("r");
  REQUIRE_OK(set_attribute_from_text(*r, "dimensions", "{}"));
  CHECK(r->dimensions().empty());
  CHECK(set_attribute_from_text(*r, "to_apply", "%nope")
            .message()
            .find("computation does not exist: nope") != std::string_view::npos);
  CHECK_FALSE(set_attribute_from_text(*r, "no_such_attribute", "1").ok());

  std::string printed = print(m);
  CHECK(printed.find("  %f.1 = f32[8]{0:S(1)} copy(%f)\n") != std::string::npos);
  CHECK(printed.find("reduce(%f.1, %zero), dimensions={}, to_apply=%add") != std::string::npos);
  testing::parse_ok(printed);

  // Removing needs no users and not the root.
  Instruction* zero = main->find_instruction("zero");
  CHECK(main->remove_instruction(zero).code() == absl::StatusCode::kFailedPrecondition);
  CHECK(main->remove_instruction(t).code() == absl::StatusCode::kFailedPrecondition);
  REQUIRE_OK(t->replace_operand(0, zero));
  REQUIRE(r->users().empty());
  r->remove_attribute(AttrId::kControlPredecessors);
  CHECK(main->find_instruction("a")->control_successors().empty());
  REQUIRE_OK(main->remove_instruction(r));
  CHECK(main->find_instruction("r") == nullptr);
  CHECK(m.find_computation("add")->callers().empty());
  CHECK(print(m).find("reduce") == std::string::npos);
  testing::parse_ok(print(m));
}

TEST_CASE("edits reject instructions from another computation") {
  Module m = parse_ok(kModule);
  Computation* main = m.entry();
  Instruction* x = m.find_computation("add")->find_instruction("x");
  CHECK_FALSE(main->add_instruction(Opcode::kNegate, "n", x->shape(), {x}).ok());
  CHECK_FALSE(main->find_instruction("a")->replace_all_uses_with(x).ok());
  CHECK_FALSE(main->root()->replace_operand(5, x).ok());
}

TEST_CASE("async wrappers know the operation they wrap") {
  Module m = parse_ok(R"(HloModule m
%wrapped (p: f32[10]) -> f32[20] {
  %p = f32[10]{0} parameter(0)
  ROOT %cc = f32[20]{0} custom-call(%p), custom_call_target="foo"
}

ENTRY %e {
  %p0 = f32[10]{0} parameter(0)
  %s = ((f32[10]{0}), f32[20]{0}, s32[]) async-start(%p0), calls=%wrapped, async_execution_thread="sparsecore"
  %u = ((f32[10]{0}), f32[20]{0}, s32[]) async-update(%s)
  ROOT %d = f32[20]{0} async-done(%u)
})");
  CHECK(find(m, "e", "s").async_wrapped_opcode() == Opcode::kCustomCall);
  CHECK(find(m, "e", "d").async_wrapped_opcode() == Opcode::kCustomCall);
  CHECK_FALSE(find(m, "e", "d").uses_async_sugar());
  CHECK(find(m, "e", "s").string_attribute(AttrId::kAsyncExecutionThread) == "sparsecore");
  // The done and the update reach their start through the update; the start has none.
  CHECK(find(m, "e", "d").async_start() == &find(m, "e", "s"));
  CHECK(find(m, "e", "u").async_start() == &find(m, "e", "s"));
  CHECK(find(m, "e", "s").async_start() == nullptr);
  CHECK(find(m, "e", "p0").async_start() == nullptr);
}

TEST_CASE("a collective's done reaches its start; other ops reach none") {
  Module m = parse_ok(R"(HloModule m
ENTRY %e {
  %p0 = f32[8]{0} parameter(0)
  %ags = (f32[8]{0}, f32[32]{0}) all-gather-start(%p0), replica_groups={{0,1,2,3}}, dimensions={0}
  %agd = f32[32]{0} all-gather-done(%ags)
  %t = (f32[8]{0}, f32[32]{0}) tuple(%p0, %agd)
  %gte = f32[32]{0} get-tuple-element(%t), index=1
  ROOT %r = (f32[32]{0}, f32[32]{0}) tuple(%agd, %gte)
})");
  CHECK(find(m, "e", "agd").async_start() == &find(m, "e", "ags"));
  CHECK(find(m, "e", "agd").async_wrapped_opcode() == std::nullopt);
  CHECK(find(m, "e", "gte").async_start() == nullptr);
}

TEST_CASE("a while loop's body knows its loop; its condition and other callees do not") {
  Module m = parse_ok(R"(HloModule m
%body (s: (s32[], f32[8])) -> (s32[], f32[8]) {
  %s = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[8]{0} get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  ROOT %t = (s32[], f32[8]{0}) tuple(%n, %v)
}
%cond (s: (s32[], f32[8])) -> pred[] {
  %s = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %k = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %a = f32[] add(%x, %y)
}
ENTRY %e (p: (s32[], f32[8])) -> f32[] {
  %p = (s32[], f32[8]{0}) parameter(0)
  %w = (s32[], f32[8]{0}) while(%p), condition=%cond, body=%body
  %v = f32[8]{0} get-tuple-element(%w), index=1
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%v, %z), dimensions={0}, to_apply=%add
})");
  CHECK(m.find_computation("body")->while_loop() == &find(m, "e", "w"));
  CHECK(m.find_computation("cond")->while_loop() == nullptr);
  CHECK(m.find_computation("add")->while_loop() == nullptr);
  CHECK(m.entry()->while_loop() == nullptr);
}

TEST_CASE("nested instruction operands become instructions named <opcode>.anon") {
  Module m = parse_ok(R"(HloModule test
ENTRY test {
  add = add(f32[10] parameter(0), f32[10] parameter(1))
  ROOT add2 = add(add, add(add, add))
})");
  const Computation* e = m.entry();
  // parameter.anon, parameter.anon.1, add, add.anon, add2.
  REQUIRE(e->instruction_count() == 5);
  CHECK(e->instructions()[1]->name() == "parameter.anon.1");
  CHECK(e->instructions()[1]->parameter_number() == 1);
  CHECK(e->instructions()[3]->name() == "add.anon");
  // Shapes omitted in the text are inferred: add of two f32[10] is f32[10].
  CHECK(to_string(e->root()->shape()) == "f32[10]");
}

TEST_CASE("shapes the text leaves out are inferred for the usual opcodes") {
  Module m = parse_ok(R"(HloModule m
ENTRY e {
  p = (f32[2,3], s32[]) parameter(0)
  a = f32[2,3] get-tuple-element(p), index=0
  b = get-tuple-element(p), index=1
  c = compare(a, a), direction=LT
  d = dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  z = f32[] constant(0)
  q = pad(a, z), padding=1_1x0_2_1
  tok = after-all()
  ROOT t = tuple(b, c, d, q, tok)
})");
  CHECK(to_string(find(m, "e", "b").shape()) == "s32[]");
  CHECK(to_string(find(m, "e", "c").shape()) == "pred[2,3]");
  CHECK(to_string(find(m, "e", "d").shape()) == "f32[2,2]");  // [2,3] x [2,3]^T
  // Each dim: low + high + size + (size - 1) * interior: 1+1+2 = 4; 0+2+3+2*1 = 7.
  CHECK(to_string(find(m, "e", "q").shape()) == "f32[4,7]");
  CHECK(find(m, "e", "tok").shape().kind == Shape::Kind::kToken);
  CHECK(to_string(m.entry()->root()->shape()) == "(s32[], pred[2,3], f32[2,2], f32[4,7], token[])");
}

}  // namespace
}  // namespace hloroof
