// The edit API (edit.h): computations added, cloned and removed, typed attribute setters,
// shape inference; each edit followed by verify, print and a reparse that gives the same text.
#include <catch2/catch.hpp>
#include <string>

#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "hloroof/replica_groups.h"
#include "ir_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

constexpr std::string_view kModule = R"(HloModule m

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (a: f32[8,16], b: f32[8,16]) -> f32[8] {
  %a = f32[8,16]{1,0} parameter(0)
  %b = f32[8,16]{1,0} parameter(1)
  %m = f32[8,16]{1,0} multiply(%a, %b)
  %e = f32[8,16]{1,0} exponential(%m)
  %zero = f32[] constant(0)
  ROOT %r = f32[8]{0} reduce(%e, %zero), dimensions={1}, to_apply=%add
}
)";

using testing::shape_of;

Module parsed() { return testing::module_of(kModule); }

// verify, print, reparse, print again: the same text, and the reparsed module verifies.
std::string verified_round_trip(const Module& m) {
  absl::Status ok = verify(m);
  INFO(ok.ToString());
  REQUIRE_OK(ok);
  std::string printed = print(m);
  absl::StatusOr<Module> again = parse_module(printed);
  INFO(printed);
  INFO(again.status().ToString());
  REQUIRE_OK(again);
  CHECK(verify(*again).ok());
  CHECK(print(*again) == printed);
  return printed;
}

TEST_CASE("outlining multiply and exponential into a loop fusion") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  Instruction* b = main->find_instruction("b");
  Instruction* e = main->find_instruction("e");

  absl::StatusOr<Computation*> fused = m.add_computation("fused_exp");
  REQUIRE_OK(fused);
  Computation* f = *fused;
  absl::StatusOr<Instruction*> p0 = f->add_instruction(Opcode::kParameter, "p0", a->shape(), {});
  absl::StatusOr<Instruction*> p1 = f->add_instruction(Opcode::kParameter, "p1", b->shape(), {});
  REQUIRE((p0.ok() && p1.ok()));
  absl::StatusOr<Instruction*> mul =
      f->add_instruction(Opcode::kMultiply, "mul", Shape(), {*p0, *p1});
  REQUIRE_OK(mul);
  REQUIRE_OK(set_inferred_shape(**mul));
  absl::StatusOr<Instruction*> exp = f->add_instruction(Opcode::kExp, "exp", Shape(), {*mul});
  REQUIRE_OK(exp);
  REQUIRE_OK(set_inferred_shape(**exp));
  REQUIRE_OK(f->set_root(*exp));

  absl::StatusOr<Instruction*> fusion =
      main->add_instruction(Opcode::kFusion, "fusion", Shape(), {a, b}, e);
  REQUIRE_OK(fusion);
  REQUIRE_OK((*fusion)->set_fusion_kind("kLoop"));
  REQUIRE_OK((*fusion)->set_computation_attribute(AttrId::kCalls, f));
  REQUIRE_OK(set_inferred_shape(**fusion));  // the fused computation's root
  CHECK(to_string((*fusion)->shape()) == "f32[8,16]{1,0}");
  REQUIRE_OK(main->replace_instruction(e, *fusion));
  REQUIRE_OK(main->remove_instruction(main->find_instruction("m")));

  const std::string printed = verified_round_trip(m);
  CHECK(printed.find("%fusion = f32[8,16]{1,0} fusion(%a, %b), kind=kLoop, calls=%fused_exp") !=
        std::string::npos);
  // Callees first: the new computation is printed before the entry.
  CHECK(printed.find("%fused_exp") < printed.find("ENTRY %main"));
  CHECK(m.instruction_count() == 3 + 5 + 4);
}

// Every instruction's position() is its index in the computation's list.
bool positions_are_indices(const Computation& c) {
  for (size_t k = 0; k < c.instructions().size(); ++k) {
    if (c.instructions()[k]->position() != static_cast<int64_t>(k)) return false;
  }
  return true;
}

TEST_CASE("an instruction's position follows insertions and removals") {
  Module m = parsed();
  Computation* main = m.entry();
  // Parsed: a b m e zero r.
  CHECK(positions_are_indices(*main));
  CHECK(main->find_instruction("e")->position() == 3);
  Instruction* a = main->find_instruction("a");
  Instruction* m_ = main->find_instruction("m");
  Shape shape = a->shape();
  // negate(a) placed before `m` (index 2) moves m, e, zero and r on by one.
  absl::StatusOr<Instruction*> neg = main->add_instruction(Opcode::kNegate, "neg", shape, {a}, m_);
  REQUIRE_OK(neg);
  CHECK((*neg)->position() == 2);
  CHECK(m_->position() == 3);
  CHECK(main->root()->position() == 6);
  CHECK(positions_are_indices(*main));
  // At the end (no `before`); before an instruction of another computation: refused.
  Instruction* other = m.find_computation("add")->root();
  absl::StatusOr<Instruction*> tail = main->add_instruction(Opcode::kNegate, "tail", shape, {a});
  REQUIRE_OK(tail);
  CHECK((*tail)->position() == 7);
  CHECK_FALSE(main->add_instruction(Opcode::kNegate, "foreign", shape, {a}, other).ok());
  CHECK(other->position() == 2);
  CHECK(main->instruction_count() == 8);
  // Removing renumbers those after it, and only this computation's.
  REQUIRE_OK(main->remove_instruction(*neg));
  CHECK(m_->position() == 2);
  CHECK((*tail)->position() == 6);
  CHECK(positions_are_indices(*main));
  CHECK(positions_are_indices(*m.find_computation("add")));
  REQUIRE_OK(main->remove_instruction(*tail));
  CHECK(positions_are_indices(*main));
  CHECK(main->root()->position() == 5);
  verified_round_trip(m);
}

TEST_CASE("a computation called by an earlier one moves before it") {
  Module m = parsed();
  // Printed order: add, main. A new computation goes before main; made the callee of the
  // reduce's to_apply chain through `add`, it must move before `add`.
  absl::StatusOr<Computation*> max = m.add_computation("max");
  REQUIRE_OK(max);
  Shape scalar = shape_of("f32[]");
  Instruction* x = *(*max)->add_instruction(Opcode::kParameter, "x", scalar, {});
  Instruction* y = *(*max)->add_instruction(Opcode::kParameter, "y", scalar, {});
  REQUIRE_OK((*max)->set_root(*(*max)->add_instruction(Opcode::kMaximum, "mx", scalar, {x, y})));
  Computation* add = m.find_computation("add");
  absl::StatusOr<Instruction*> call = add->add_instruction(
      Opcode::kCall, "c", scalar, {add->parameters()[0], add->parameters()[1]});
  REQUIRE_OK(call);
  REQUIRE_OK((*call)->set_to_apply(*max));
  REQUIRE_OK(add->replace_instruction(add->root(), *call));
  REQUIRE(m.computations().size() == 3);
  CHECK(m.computations()[0]->name() == "max");
  CHECK(m.computations()[1]->name() == "add");
  verified_round_trip(m);
  // The called computation cannot be removed while called; the caller's call can.
  CHECK_FALSE(m.remove_computation(*max).ok());
}

TEST_CASE("cloning a computation and removing the original") {
  Module m = parsed();
  Computation* add = m.find_computation("add");
  absl::StatusOr<Computation*> copy = m.clone_computation(*add, "add.clone");
  REQUIRE_OK(copy);
  CHECK((*copy)->instruction_count() == 3);
  CHECK((*copy)->root()->name() == "s");
  CHECK((*copy)->parameters().size() == 2);
  Instruction* r = m.entry()->root();
  REQUIRE_OK(r->set_to_apply(*copy));
  CHECK(add->callers().empty());
  REQUIRE_OK(m.remove_computation(add));
  CHECK(m.find_computation("add") == nullptr);
  const std::string printed = verified_round_trip(m);
  CHECK(printed.find("to_apply=%add.clone") != std::string::npos);
  CHECK_FALSE(m.remove_computation(m.entry()).ok());
  CHECK_FALSE(m.add_computation("add.clone").ok());  // the name is taken
}

TEST_CASE("typed attribute setters print as the text would write them") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  Shape s = a->shape();
  Instruction* ar = *main->add_instruction(Opcode::kAllReduce, "ar", s, {a}, main->root());
  REQUIRE_OK(ar->set_to_apply(m.find_computation("add")));
  ReplicaGroups groups;
  groups.groups = {{0, 1}, {2, 3}};
  REQUIRE_OK(ar->set_replica_groups(groups));
  REQUIRE_OK(ar->set_channel_id(7));
  REQUIRE_OK(ar->set_bool_attribute(AttrId::kUseGlobalDeviceIds, true));
  Instruction* sl = *main->add_instruction(Opcode::kSlice, "sl", Shape(), {ar}, main->root());
  Slice slice;
  slice.dims = {{0, 8, 2}, {4, 16, 1}};
  REQUIRE_OK(sl->set_slice(slice));
  REQUIRE_OK(set_inferred_shape(*sl));
  // ceil(8 / 2) = 4 rows, 16 - 4 = 12 columns.
  CHECK(to_string(sl->shape()) == "f32[4,12]");
  // Opcode-specific attributes print in the order they were set, the common ones after them.
  CHECK(print(*ar) ==
        "%ar = f32[8,16]{1,0} all-reduce(%a), to_apply=%add, replica_groups={{0,1},{2,3}}, "
        "channel_id=7, use_global_device_ids=true");
  CHECK(print(*sl) == "%sl = f32[4,12] slice(%ar), slice={[0:8:2], [4:16:1]}");
  // The wrong setter for an attribute's kind is refused.
  CHECK_FALSE(ar->set_int_attribute(AttrId::kDimensions, 3).ok());
  CHECK_FALSE(ar->set_string_attribute(AttrId::kChannelId, "x").ok());
  verified_round_trip(m);
}

TEST_CASE("an all-reduce made asynchronous takes its attributes onto the start") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  Instruction* m1 = main->find_instruction("m");
  Instruction* ar = *main->add_instruction(Opcode::kAllReduce, "ar", a->shape(), {a}, m1);
  REQUIRE_OK(ar->set_to_apply(m.find_computation("add")));
  ReplicaGroups groups;
  groups.groups = {{0, 1}};
  REQUIRE_OK(ar->set_replica_groups(groups));
  REQUIRE_OK(ar->set_channel_id(3));
  REQUIRE_OK(ar->set_control_predecessors({main->find_instruction("b")}));
  REQUIRE_OK(m1->replace_operand(0, ar));

  Instruction* start =
      *main->add_instruction(Opcode::kAllReduceStart, "ar-start", a->shape(), {a}, ar);
  // The start's own control predecessor stays; the all-reduce's is not copied.
  REQUIRE_OK(start->set_control_predecessors({a}));
  REQUIRE_OK(start->copy_attributes_from(*ar));
  Instruction* done =
      *main->add_instruction(Opcode::kAllReduceDone, "ar-done", a->shape(), {start}, ar);
  REQUIRE_OK(main->replace_instruction(ar, done));
  CHECK(print(*start) ==
        "%ar-start = f32[8,16]{1,0} all-reduce-start(%a), to_apply=%add, "
        "replica_groups={{0,1}}, channel_id=3, control-predecessors={%a}");
  // %add has two callers now: the reduce and the start (the all-reduce is gone).
  CHECK(m.find_computation("add")->callers().size() == 2);
  verified_round_trip(m);

  // The reduce calls %add: its attributes cannot go to an instruction of %add.
  Computation* add = m.find_computation("add");
  Instruction* sum = add->root();
  absl::Status own = sum->copy_attributes_from(*main->root());
  CHECK(own.message() == "s cannot call its own computation");
  // Nor from another module.
  Module other = parsed();
  absl::Status foreign = start->copy_attributes_from(*other.entry()->root());
  CHECK(foreign.message() ==
        "cannot copy the attributes of r to ar-start: it is in another module");
}

TEST_CASE("shape inference for callers") {
  Module m = parsed();
  Computation* main = m.entry();
  CHECK(to_string(*infer_shape(*main->root())) == "f32[8]");
  CHECK(to_string(*infer_shape(*main->find_instruction("m"))) == "f32[8,16]{1,0}");
  absl::StatusOr<Shape> none = infer_shape(*main->find_instruction("a"));
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message() ==
        "cannot infer the shape of a (parameter): its operands do not give its shape; write it");
  Instruction* a = main->find_instruction("a");
  Instruction* tr = *main->add_instruction(Opcode::kTranspose, "tr", Shape(), {a}, main->root());
  REQUIRE_OK(tr->set_dimensions({1, 0}));
  CHECK(to_string(*infer_shape(*tr)) == "f32[16,8]");
  REQUIRE_OK(set_inferred_shape(*tr));
  Instruction* dot = *main->add_instruction(Opcode::kDot, "d", Shape(), {a, tr}, main->root());
  REQUIRE_OK(dot->set_dot_dimensions({.lhs_contracting = {1}, .rhs_contracting = {0}}));
  // [8,16] x [16,8] contracting 16: [8,8].
  absl::StatusOr<Shape> product = infer_shape(*dot);
  REQUIRE_OK(product);
  CHECK(to_string(*product) == "f32[8,8]");
}

TEST_CASE("a parameter added to the entry joins the module header") {
  absl::StatusOr<Module> m = parse_module(
      "HloModule h, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
      "ENTRY %e (p: f32[4]) -> f32[4] {\n  ROOT %p = f32[4]{0} parameter(0)\n}\n");
  REQUIRE_OK(m);
  Computation* e = m->entry();
  Instruction* q = *e->add_instruction(Opcode::kParameter, "q", shape_of("f32[4]{0}"), {});
  CHECK(q->parameter_number() == 1);
  Instruction* sum = *e->add_instruction(Opcode::kAdd, "sum", Shape(), {e->root(), q});
  REQUIRE_OK(set_inferred_shape(*sum));
  REQUIRE_OK(e->set_root(sum));
  const std::string printed = verified_round_trip(*m);
  CHECK(printed.substr(0, printed.find('\n')) ==
        "HloModule h, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}");
}

TEST_CASE("a module built from nothing") {
  Module m;
  absl::StatusOr<Computation*> e = m.add_computation("main");
  REQUIRE_OK(e);
  CHECK(m.entry() == *e);
  Shape s = shape_of("f32[2]");
  Instruction* p = *(*e)->add_instruction(Opcode::kParameter, "p", s, {});
  Instruction* n = *(*e)->add_instruction(Opcode::kNegate, "n", s, {p});
  REQUIRE_OK((*e)->set_root(n));
  const std::string printed = verified_round_trip(m);
  CHECK(printed.rfind("HloModule module_main\n", 0) == 0);
  REQUIRE_OK(m.set_name("scratch"));
  CHECK(print(m).rfind("HloModule scratch\n", 0) == 0);
}

}  // namespace
}  // namespace hloroof
