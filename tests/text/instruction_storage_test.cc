// The compact instruction node: its size, and fields kept out of line (literal, control
// successors, called computations from several attributes) read back and follow edits.
#include <catch2/catch.hpp>
#include <string>
#include <type_traits>

#include "hloroof/hloroof.h"
#include "ir/edge_list.h"
#include "module_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::find;
using testing::parse_error;
using testing::parse_ok;

// One node per instruction: opcode, wrapped opcode and two flags (4 x 1 byte) and the
// parameter number (4) = 8; name length (4), attribute count (2) and padding (2) = 8; name,
// attributes, shape and parent pointers 4 x 8 = 32; operand and user lists 2 x 16 = 32 (each a
// pointer or one element in place, 8, plus size and capacity, 2 x 4); rare fields pointer 8:
// 8 + 8 + 32 + 32 + 8 = 88 bytes.
static_assert(sizeof(void*) != 8 || sizeof(Instruction) == 88);
static_assert(sizeof(void*) != 8 || sizeof(detail::EdgeList<Instruction>) == 16);
// Nothing to destroy: the module's arena records no destructor per instruction.
static_assert(std::is_trivially_destructible_v<Instruction>);

constexpr std::string_view kModule = R"(HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

%cond (c: (s32[], f32[])) -> pred[] {
  %c = (s32[], f32[]) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (b: (s32[], f32[])) -> (s32[], f32[]) {
  ROOT %b = (s32[], f32[]) parameter(0)
}

%branch (q: f32[]) -> f32[] {
  ROOT %q = f32[] parameter(0)
}

ENTRY %main (a: f32[], k: s32[]) -> f32[] {
  %a = f32[] parameter(0)
  %k = s32[] parameter(1)
  %one = f32[] constant(1.5)
  %sum = f32[] add(%a, %one)
  %many = (f32[], f32[], f32[], f32[], f32[]) tuple(%sum, %sum, %a, %one, %sum)
  %init = (s32[], f32[]) tuple(%k, %sum), control-predecessors={%sum, %one}
  %w = (s32[], f32[]) while(%init), condition=%cond, body=%body
  %r = f32[] get-tuple-element(%w), index=1
  %sel = f32[] conditional(%k, %r, %r), branch_computations={%branch, %branch}
  ROOT %red = f32[] reduce(%sel, %one), dimensions={}, to_apply=%add
}
)";

TEST_CASE("rare fields: literals and control successors live out of line and read back") {
  Module m = parse_ok(kModule);
  const Instruction& a = find(m, "main", "a");
  const Instruction& k = find(m, "main", "k");
  const Instruction& one = find(m, "main", "one");
  const Instruction& sum = find(m, "main", "sum");
  const Instruction& init = find(m, "main", "init");
  CHECK(a.parameter_number() == 0);
  CHECK(k.parameter_number() == 1);
  CHECK(one.parameter_number() == -1);
  CHECK(one.literal_text() == "1.5");
  CHECK(a.literal_text().empty());
  CHECK(sum.literal_text().empty());
  REQUIRE(sum.control_successors().size() == 1);
  CHECK(sum.control_successors()[0] == &init);
  REQUIRE(one.control_successors().size() == 1);
  CHECK(one.control_successors()[0] == &init);
  CHECK(a.control_successors().empty());
  REQUIRE(init.control_predecessors().size() == 2);
  CHECK(init.control_predecessors()[0] == &sum);
}

TEST_CASE("edge lists: five operands and a user list that outgrows its first arrays") {
  Module m = parse_ok(kModule);
  const Instruction& a = find(m, "main", "a");
  const Instruction& one = find(m, "main", "one");
  const Instruction& sum = find(m, "main", "sum");
  const Instruction& many = find(m, "main", "many");
  REQUIRE(many.operand_count() == 5);
  CHECK(many.operand(0) == &sum);
  CHECK(many.operand(2) == &a);
  CHECK(many.operand(3) == &one);
  CHECK(many.operand(4) == &sum);
  // %one is used by %sum, %many, %red (each once), in that order: 1 in place, then 2, then 4.
  REQUIRE(one.users().size() == 3);
  CHECK(one.users()[0] == &sum);
  CHECK(one.users()[1] == &many);
  CHECK(one.users()[2] == &find(m, "main", "red"));

  // Ten new users of %a (one in place, then arrays of 2, 4, 8 and 16): all listed in order.
  Computation* main = m.entry();
  Instruction* pa = main->find_instruction("a");
  std::vector<Instruction*> added;
  for (int n = 0; n < 10; ++n) {
    absl::StatusOr<Instruction*> neg =
        main->add_instruction(Opcode::kNegate, "neg", pa->shape(), {pa}, main->root());
    REQUIRE_OK(neg);
    added.push_back(*neg);
  }
  REQUIRE(pa->users().size() == 2 + 10);  // %sum, %many, the new ones
  for (int n = 0; n < 10; ++n) CHECK(pa->users()[2 + static_cast<size_t>(n)] == added[n]);
  // Replacing %many's operand 2 (%a) with %one drops %many from %a's users, in place.
  REQUIRE_OK(main->find_instruction("many")->replace_operand(2, main->find_instruction("one")));
  REQUIRE(pa->users().size() == 1 + 10);
  CHECK(pa->users()[0]->name() == "sum");
  CHECK(pa->users()[1] == added[0]);
  testing::parse_ok(print(m));
}

TEST_CASE("called computations: one attribute's own, several attributes, repeats") {
  Module m = parse_ok(kModule);
  const Computation* add = m.find_computation("add");
  const Computation* cond = m.find_computation("cond");
  const Computation* body = m.find_computation("body");
  const Computation* branch = m.find_computation("branch");
  const Instruction& w = find(m, "main", "w");
  const Instruction& sel = find(m, "main", "sel");
  const Instruction& red = find(m, "main", "red");
  REQUIRE(w.called_computations().size() == 2);  // two attributes
  CHECK(w.called_computations()[0] == cond);
  CHECK(w.called_computations()[1] == body);
  REQUIRE(sel.called_computations().size() == 1);  // one list naming a computation twice
  CHECK(sel.called_computations()[0] == branch);
  REQUIRE(red.called_computations().size() == 1);  // to_apply
  CHECK(red.called_computations()[0] == add);
  CHECK(find(m, "main", "sum").called_computations().empty());
  REQUIRE(branch->callers().size() == 1);
  CHECK(branch->callers()[0] == &sel);

  // Setting an attribute again replaces what it called.
  Instruction* r = m.entry()->root();
  REQUIRE_OK(set_attribute_from_text(*r, "to_apply", "%branch"));
  REQUIRE(r->called_computations().size() == 1);
  CHECK(r->called_computations()[0] == branch);
  CHECK(add->callers().empty());
  Instruction* pw = m.entry()->find_instruction("w");
  REQUIRE_OK(set_attribute_from_text(*pw, "body", "%cond"));
  REQUIRE(pw->called_computations().size() == 1);  // condition and body are both %cond
  CHECK(pw->called_computations()[0] == cond);
  pw->remove_attribute(AttrId::kBody);
  REQUIRE(pw->called_computations().size() == 1);
  CHECK(pw->called_computations()[0] == cond);
}

TEST_CASE("attributes that reference nothing are installed without linking, others link") {
  Module m = parse_ok(kModule);
  // %lt's direction and %i's index reference nothing: installed as they are.
  const Instruction& lt = find(m, "cond", "lt");
  CHECK(lt.attributes().size() == 1);
  CHECK(lt.called_computations().empty());
  CHECK(find(m, "cond", "i").int_attribute(AttrId::kIndex) == 0);
  // A first list that references something (%init's control predecessors) is linked.
  const Instruction& init = find(m, "main", "init");
  CHECK(init.control_predecessors().size() == 2);
  CHECK(find(m, "main", "sum").control_successors().size() == 1);
  // A list that references nothing, then a reference added to it: linked on the second set.
  Instruction* sum = m.entry()->find_instruction("sum");
  REQUIRE_OK(set_attribute_from_text(*sum, "metadata", "{op_name=\"x\"}"));
  CHECK(sum->called_computations().empty());
  REQUIRE_OK(set_attribute_from_text(*sum, "to_apply", "%branch"));
  REQUIRE(sum->called_computations().size() == 1);
  CHECK(sum->called_computations()[0] == m.find_computation("branch"));
  CHECK(m.find_computation("branch")->callers().size() == 2);  // %sel and %sum
}

TEST_CASE("a parameter number past 2^31 - 1 is refused") {
  CHECK(parse_error("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(2147483648)\n}\n")
            .find("parameter number 2147483648 is out of range") != std::string::npos);
  // 2^31 - 1 itself is read, then refused as a gap in the numbering.
  CHECK(parse_error("HloModule m\nENTRY %e {\n  ROOT %p = f32[] parameter(2147483647)\n}\n")
            .find("has 1 parameters but no parameter(0)") != std::string::npos);
}

}  // namespace
}  // namespace hloroof
