// verify(): one test per rule, each with a module an edit breaks it in and the message; the
// rules it shares with the parser read as the parser's errors do.
#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"
#include "ir_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

constexpr std::string_view kModule =
    "HloModule m, entry_computation_layout={(f32[8,16]{1,0}, f32[16,4]{1,0})->"
    "(f32[8,4]{1,0}, f32[8,16]{1,0})}\n"
    R"(
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (a: f32[8,16], b: f32[16,4]) -> (f32[8,4], f32[8,16]) {
  %a = f32[8,16]{1,0} parameter(0)
  %b = f32[16,4]{1,0} parameter(1)
  %dot = f32[8,4]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %neg = f32[8,16]{1,0} negate(%a)
  ROOT %t = (f32[8,4]{1,0}, f32[8,16]{1,0}) tuple(%dot, %neg)
}
)";

using testing::shape_of;

Module parsed() { return testing::module_of(kModule); }

std::string verify_message(const Module& m) {
  absl::Status s = verify(m);
  return s.ok() ? "ok" : std::string(s.message());
}

TEST_CASE("a parsed module passes verify") { CHECK(verify(parsed()).ok()); }

TEST_CASE("verify: a dot operand of another shape changes the result's dimensions") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  // The issue's case: an operand set to f32[999,7] (a new parameter standing in for it).
  absl::StatusOr<Instruction*> p = main->add_instruction(
      Opcode::kParameter, "wide", shape_of("f32[999,7]{1,0}"), {}, a);
  REQUIRE_OK(p);
  REQUIRE_OK(main->find_instruction("dot")->replace_operand(0, *p));
  // [999,7] x [16,4] contracting dimension 1 with 0: sizes 7 and 16.
  CHECK(verify_message(m) ==
        "computation main, instruction dot (dot): shape: contracting dimension 1 of wide "
        "(f32[999,7]{1,0}) has size 7 but contracting dimension 0 of b (f32[16,4]{1,0}) has "
        "size 16");
}

TEST_CASE("verify: a dot result that is not its operands' product") {
  Module m = parsed();
  m.entry()->find_instruction("dot")->set_shape(shape_of("f32[8,5]{1,0}"));
  // The root's tuple keeps f32[8,4] for it: the dot is checked first (it comes first).
  CHECK(verify_message(m) ==
        "computation main, instruction dot (dot): shape: it has shape f32[8,5]{1,0} but its "
        "operands (a: f32[8,16]{1,0}, b: f32[16,4]{1,0}) and attributes give f32[8,4]");
}

TEST_CASE("verify: operand count (the parser's rule and message)") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  REQUIRE_OK(main->add_instruction(Opcode::kAdd, "lonely", a->shape(), {a}, main->root()));
  CHECK(verify_message(m) ==
        "computation main, instruction lonely (add): operands and attributes: add takes 2 "
        "operands, got 1");
  // The parser says the same of the same instruction in text.
  absl::StatusOr<Module> text = parse_module(
      "ENTRY %e { %a = f32[8,16]{1,0} parameter(0)\n"
      "  ROOT %lonely = f32[8,16]{1,0} add(%a) }",
      ParseOptions{.file_name = "", .show_source_line = false});
  REQUIRE_FALSE(text.ok());
  CHECK(std::string(text.status().message()).find("add takes 2 operands, got 1") !=
        std::string::npos);
}

TEST_CASE("verify: a required attribute") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  REQUIRE(main->add_instruction(Opcode::kTranspose, "tr", shape_of("f32[16,8]"), {a}, main->root())
              .ok());
  CHECK(verify_message(m) ==
        "computation main, instruction tr (transpose): operands and attributes: attribute "
        "'dimensions' is required for transpose");
  REQUIRE_OK(main->find_instruction("tr")->set_dimensions({1, 0}));
  CHECK(verify(m).ok());
}

TEST_CASE("verify: a shape rule of the parser (tuple index)") {
  Module m = parsed();
  Computation* main = m.entry();
  absl::StatusOr<Instruction*> gte = main->add_instruction(
      Opcode::kGetTupleElement, "g", shape_of("f32[8,4]"), {main->root()});
  REQUIRE_OK(gte);
  REQUIRE_OK((*gte)->set_int_attribute(AttrId::kIndex, 2));
  REQUIRE_OK(main->set_root(*gte));
  CHECK(verify_message(m) ==
        "computation main, instruction g (get-tuple-element): shape: tuple index 2 is out of "
        "range: t has 2 elements");
}

TEST_CASE("an edit that would make a cycle is refused, and the module stays as it was") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* neg = main->find_instruction("neg");
  Instruction* a = main->find_instruction("a");
  Instruction* t = main->root();
  // neg as its own operand: analyses returned numbers for such a module; only verify refused.
  absl::Status self = neg->replace_operand(0, neg);
  CHECK(self.message() == "neg cannot be operand 0 of neg: it is that instruction, a cycle");
  // e, added before neg and made its operand; then neg, or the root through it, as e's operand.
  absl::StatusOr<Instruction*> e =
      main->add_instruction(Opcode::kExp, "e", shape_of("f32[8,16]{1,0}"), {a}, neg);
  REQUIRE_OK(e);
  REQUIRE_OK(neg->replace_operand(0, *e));  // e is printed before neg: no cycle
  absl::Status loop = (*e)->replace_operand(0, neg);
  CHECK(loop.message() == "neg cannot be operand 0 of e: it depends on it, a cycle");
  absl::Status back = (*e)->replace_operand(0, t);
  CHECK(back.message() == "t cannot be operand 0 of e: it depends on it, a cycle");
  CHECK(neg->operand(0) == *e);
  CHECK((*e)->operand(0) == a);
  CHECK(verify(m).ok());
}

TEST_CASE("verify: replica groups follow XLA's verifier against the header's counts") {
  // 16 partitions; the all-gather's ids are global devices (use_global_device_ids), the
  // all-to-all's partitions (a channel_id), the all-reduce's groups may differ in size.
  constexpr std::string_view kGroups = R"(HloModule m, num_partitions=16

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[1024] parameter(0)
  ag = f32[16384] all-gather(p), channel_id=1, replica_groups=[1,16]<=[16], dimensions={0}, use_global_device_ids=true
  a2a = f32[1024] all-to-all(p), channel_id=2, replica_groups=[4,4]<=[16], dimensions={0}
  ar = f32[1024] all-reduce(p), channel_id=3, replica_groups=[2,8]<=[16], use_global_device_ids=true, to_apply=add
  ROOT t = (f32[16384], f32[1024], f32[1024]) tuple(ag, a2a, ar)
})";
  const auto verified = [&](std::string_view op, std::string_view groups) {
    Module m = testing::module_of(kGroups);
    Instruction* i = m.entry()->find_instruction(op);
    REQUIRE_OK(set_attribute_from_text(*i, "replica_groups", groups));
    return verify_message(m);
  };
  CHECK(verify(testing::module_of(kGroups)).ok());
  std::string ids;
  for (int k = 0; k < 15; ++k) ids += std::to_string(k) + ",";
  // An id of 99 among 16: the ids are not 0..15.
  CHECK(verified("ag", "{{" + ids + "99}}") ==
        "computation e, instruction ag (all-gather): replica groups: replica groups name 16 ids, "
        "so each is in 0..15; 99 is not");
  // Groups of different sizes: refused for an all-gather, allowed for an all-reduce.
  const std::string uneven = "{{0,1,2},{3,4,5},{6,7,8},{9,10,11},{12,13,14},{15}}";
  CHECK(verified("ag", uneven) ==
        "computation e, instruction ag (all-gather): replica groups: the replica groups of "
        "all-gather must all have one size (the first has 3)");
  CHECK(verified("ar", uneven) == "ok");
  // Fewer ids than the module's devices.
  CHECK(verified("ar", "{{0,1},{2,3}}") ==
        "computation e, instruction ar (all-reduce): replica groups: the replica groups hold 4 "
        "ids, but the module has 16 devices (replica_count x num_partitions): each must be in "
        "exactly one group");
  // An id twice.
  CHECK(verified("ar", "{{0,1,2,3,4,5,6,7},{8,9,10,11,12,13,14,7}}") ==
        "computation e, instruction ar (all-reduce): replica groups: id 7 is in the replica "
        "groups more than once");
  // 1024 split into groups of 3, in a module of 3 partitions.
  Module m3 = testing::module_of(R"(HloModule m, num_partitions=3

ENTRY e {
  p = f32[1024] parameter(0)
  ROOT a2a = f32[1024] all-to-all(p), channel_id=2, replica_groups={{0,1,2}}, dimensions={0}
})");
  std::string message = verify_message(m3);
  CHECK(message.find("all-to-all splits dimension 0 (size 1024) into groups of 3, which do "
                     "not divide it") != std::string::npos);
}

TEST_CASE("verify: the replica groups of every async collective start are checked") {
  // Four replicas; each start names replica 7 among 0..3. all-gather-start and
  // all-reduce-start are opcodes of their own; all-to-all-start (as XLA:GPU writes it),
  // reduce-scatter-start, ragged-all-to-all-start and collective-broadcast-start are async
  // sugar for the op they wrap; the explicit async-start holds the op in its computation.
  const std::string kHeader = "HloModule m, replica_count=4\n\n";
  const std::string kAdd = R"(add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

)";
  const std::string bad = "replica_groups={{0,1},{2,7}}";
  const auto message = [&](const std::string& text) {
    return verify_message(testing::module_of(text));
  };
  const std::string a2a = absl::StrCat(kHeader, R"(ENTRY e {
  p = f32[8,16] parameter(0)
  s = ((f32[8,16]), f32[8,16]) all-to-all-start(p), )", bad, R"(, dimensions={0}
  ROOT d = f32[8,16] all-to-all-done(s)
})");
  CHECK(message(a2a) ==
        "computation e, instruction s (all-to-all-start): replica groups: replica groups name "
        "4 ids, so each is in 0..3; 7 is not");
  // The same groups, each id once: accepted.
  std::string fixed = a2a;
  fixed.replace(fixed.find("2,7"), 3, "2,3");
  CHECK(message(fixed) == "ok");
  // An all-to-all-start splits its dimension into groups as the all-to-all does.
  std::string odd = fixed;
  odd.replace(odd.find("{{0,1},{2,3}}"), 13, "{{0,1,2,3}}");
  odd.replace(odd.find("f32[8,16] parameter"), 9, "f32[6,16]");
  odd.replace(odd.find("((f32[8,16]), f32[8,16])"), 24, "((f32[6,16]), f32[6,16])");
  odd.replace(odd.find("ROOT d = f32[8,16]"), 18, "ROOT d = f32[6,16]");
  CHECK(message(odd).find("all-to-all splits dimension 0 (size 6) into groups of 4") !=
        std::string::npos);
  const std::string rs = absl::StrCat(kHeader, kAdd, R"(ENTRY e {
  p = f32[8,16] parameter(0)
  s = ((f32[8,16]), f32[4,16]) reduce-scatter-start(p), )", bad, R"(, dimensions={0}, to_apply=add
  ROOT d = f32[4,16] reduce-scatter-done(s)
})");
  CHECK(message(rs) ==
        "computation e, instruction s (reduce-scatter-start): replica groups: replica groups "
        "name 4 ids, so each is in 0..3; 7 is not");
  const std::string ag = absl::StrCat(kHeader, R"(ENTRY e {
  p = f32[8] parameter(0)
  s = (f32[8], f32[16]) all-gather-start(p), )", bad, R"(, dimensions={0}
  ROOT d = f32[16] all-gather-done(s)
})");
  CHECK(message(ag).find("7 is not") != std::string::npos);
  const std::string ar = absl::StrCat(kHeader, kAdd, R"(ENTRY e {
  p = f32[8] parameter(0)
  s = f32[8] all-reduce-start(p), )", bad, R"(, to_apply=add
  ROOT d = f32[8] all-reduce-done(s)
})");
  CHECK(message(ar).find("7 is not") != std::string::npos);
  const std::string cb = absl::StrCat(kHeader, R"(ENTRY e {
  p = f32[8] parameter(0)
  s = ((f32[8]), f32[8]) collective-broadcast-start(p), )", bad, R"(
  ROOT d = f32[8] collective-broadcast-done(s)
})");
  CHECK(message(cb).find("7 is not") != std::string::npos);
  const std::string wrapped = absl::StrCat(kHeader, R"(wrapped {
  q = f32[8,16] parameter(0)
  ROOT a = f32[8,16] all-to-all(q), )", bad, R"(, dimensions={0}
}

ENTRY e {
  p = f32[8,16] parameter(0)
  s = ((f32[8,16]), f32[8,16]) async-start(p), calls=wrapped
  ROOT d = f32[8,16] async-done(s)
})");
  CHECK(message(wrapped) ==
        "computation wrapped, instruction a (all-to-all): replica groups: replica groups name 4 "
        "ids, so each is in 0..3; 7 is not");
}

TEST_CASE("verify: elementwise operands have the result's dimensions") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* neg = main->find_instruction("neg");
  REQUIRE_OK(neg->replace_operand(0, main->find_instruction("dot")));
  CHECK(verify_message(m) ==
        "computation main, instruction neg (negate): shape: operand dot has shape "
        "f32[8,4]{1,0}, whose dimensions are not those of the result f32[8,16]{1,0}");
}

TEST_CASE("verify: broadcast maps each operand dimension to a result dimension of its size") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  absl::StatusOr<Instruction*> b = main->add_instruction(
      Opcode::kBroadcast, "bc", shape_of("f32[2,8,16]"), {a}, main->root());
  REQUIRE_OK(b);
  REQUIRE_OK((*b)->set_dimensions({2, 1}));
  CHECK(verify_message(m) ==
        "computation main, instruction bc (broadcast): shape: broadcast of f32[8,16]{1,0} to "
        "f32[2,8,16]: operand dimension 0 does not map to result dimension 2 of the same size");
  REQUIRE_OK((*b)->set_dimensions({1, 2}));
  CHECK(verify(m).ok());
}

TEST_CASE("verify: an operand is defined before its user") {
  Module m = parsed();
  Computation* main = m.entry();
  Instruction* a = main->find_instruction("a");
  // A copy placed last, then used by the earlier negate.
  absl::StatusOr<Instruction*> late = main->add_instruction(Opcode::kCopy, "late", a->shape(), {a});
  REQUIRE_OK(late);
  REQUIRE_OK(main->find_instruction("neg")->replace_operand(0, *late));
  CHECK(verify_message(m) ==
        "computation main, instruction neg (negate): references: operand late is defined after "
        "its user");
}

TEST_CASE("verify: a computation without instructions") {
  Module m = parsed();
  REQUIRE_OK(m.add_computation("empty"));
  CHECK(verify_message(m) == "computation empty: root: the computation has no instructions");
}

TEST_CASE("verify: the module header's entry layout agrees with the entry computation") {
  Module m = parsed();
  Shape stale = shape_of("f32[4,4]{1,0}");
  m.mutable_attributes().entry_parameter_layouts[1] = &stale;
  CHECK(verify_message(m) ==
        "module header: entry_computation_layout: parameter 1 is f32[4,4]{1,0} there, but b "
        "has shape f32[16,4]{1,0}");
  m.mutable_attributes().entry_parameter_layouts.pop_back();
  CHECK(verify_message(m) ==
        "module header: entry_computation_layout: it lists 1 parameters, but the entry "
        "computation main has 2");
}

TEST_CASE("set_shape on an entry parameter or root keeps the module header in step") {
  Module m = parsed();
  Computation* main = m.entry();
  main->find_instruction("b")->set_shape(shape_of("f32[16,6]{1,0}"));
  main->find_instruction("dot")->set_shape(shape_of("f32[8,6]{1,0}"));
  main->root()->set_shape(shape_of("(f32[8,6]{1,0}, f32[8,16]{1,0})"));
  REQUIRE_OK(verify(m));
  const std::string printed = print(m);
  CHECK(printed.substr(0, printed.find('\n')) ==
        "HloModule m, entry_computation_layout={(f32[8,16]{1,0}, f32[16,6]{1,0})->"
        "(f32[8,6]{1,0}, f32[8,16]{1,0})}");
  absl::StatusOr<Module> again = parse_module(printed);
  REQUIRE_OK(again);
  CHECK(verify(*again).ok());
  CHECK(print(*again) == printed);
}

TEST_CASE("verify: the first failing rule is reported, in printed order") {
  Module m = parsed();
  // Two broken instructions: the one printed first is named.
  m.entry()->find_instruction("neg")->set_shape(shape_of("f32[8,15]{1,0}"));
  m.entry()->find_instruction("dot")->set_shape(shape_of("f32[8,5]{1,0}"));
  CHECK(verify_message(m).rfind("computation main, instruction dot (dot)", 0) == 0);
}

TEST_CASE("verify: every dimension list names dimensions its shape has, each once") {
  // One instruction of each op with a dimension list, all valid; each case below sets one list
  // (as an edit from Python would) and names the op, the list and the dimension.
  constexpr std::string_view kDims = R"(HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  q = f32[8,6]{1,0} parameter(1)
  idx = s32[3,1]{1,0} parameter(2)
  upd = f32[3,8]{1,0} parameter(3)
  sq = f32[4,4]{1,0} parameter(4)
  z = f32[] constant(0)
  r = f32[4]{0} reduce(p, z), dimensions={1}, to_apply=add
  tr = f32[8,4]{1,0} transpose(p), dimensions={1,0}
  b = f32[4,4,2]{2,1,0} broadcast(sq), dimensions={0,1}
  rw = f32[4,8]{1,0} reduce-window(p, z), window={size=1x1}, to_apply=add
  cc = f32[8,8]{1,0} concatenate(p, p), dimensions={0}
  rv = f32[4,8]{1,0} reverse(p), dimensions={0,1}
  s = f32[4,8]{1,0} sort(p), dimensions={1}, to_apply=less
  d = f32[4,6]{1,0} dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[3,8]{1,0} gather(p, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
  sc = f32[4,8]{1,0} scatter(p, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[4]{0}, f32[8,4]{1,0}, f32[4,4,2]{2,1,0}, f32[4,8]{1,0}, f32[8,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,6]{1,0}, f32[3,8]{1,0}, f32[4,8]{1,0}) tuple(r, tr, b, rw, cc, rv, s, d, g, sc)
})";
  REQUIRE_OK(verify(testing::module_of(kDims)));
  // `op`'s attribute `name` set to `value` (more pairs after it), then verified.
  const auto verified = [&](std::string_view op,
                            std::initializer_list<std::pair<std::string_view, std::string_view>>
                                values) {
    Module m = testing::module_of(kDims);
    Instruction* i = m.entry()->find_instruction(op);
    for (const auto& [name, value] : values) {
      INFO(op << " " << name << "=" << value);
      REQUIRE_OK(set_attribute_from_text(*i, name, value));
    }
    return verify_message(m);
  };
  const std::string p = "operand p (f32[4,8]{1,0}) has 2 dimensions";
  // The issue's case: a reduce over dimension 7 of a rank-2 operand.
  CHECK(verified("r", {{"dimensions", "{7}"}}) ==
        "computation e, instruction r (reduce): dimensions: dimensions={7} names dimension 7, "
        "but " + p);
  CHECK(verified("r", {{"dimensions", "{1,1}"}}) ==
        "computation e, instruction r (reduce): dimensions: dimensions={1,1} names dimension 1 "
        "twice");
  CHECK(verified("r", {{"dimensions", "{-1}"}}) ==
        "computation e, instruction r (reduce): dimensions: dimensions={-1} names dimension -1, "
        "but " + p);
  // A long list is written in part: its first 16 dimensions and its length.
  CHECK(verified("r", {{"dimensions", "{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19}"}}) ==
        "computation e, instruction r (reduce): dimensions: dimensions={0,1,2,3,4,5,6,7,8,9,10,"
        "11,12,13,14,15,... (20 in all)} names dimension 2, but " + p);
  // A transpose permutes every dimension: two of two, each once.
  CHECK(verified("tr", {{"dimensions", "{0}"}}) ==
        "computation e, instruction tr (transpose): dimensions: dimensions={0} names 1 "
        "dimension, but " + p);
  CHECK(verified("tr", {{"dimensions", "{1,1}"}}) ==
        "computation e, instruction tr (transpose): dimensions: dimensions={1,1} names "
        "dimension 1 twice");
  CHECK(verified("tr", {{"dimensions", "{0,2}"}}) ==
        "computation e, instruction tr (transpose): dimensions: dimensions={0,2} names "
        "dimension 2, but " + p);
  // A broadcast's dimensions are the result's; {0,0} maps both of sq's (sizes 4 and 4) to
  // the result's dimension 0 (size 4), which the size check alone lets through.
  CHECK(verified("b", {{"dimensions", "{0,0}"}}) ==
        "computation e, instruction b (broadcast): dimensions: dimensions={0,0} names "
        "dimension 0 twice");
  CHECK(verified("b", {{"dimensions", "{0,3}"}}) ==
        "computation e, instruction b (broadcast): dimensions: dimensions={0,3} names "
        "dimension 3, but the result (f32[4,4,2]{2,1,0}) has 3 dimensions");
  CHECK(verified("rw", {{"window", "{size=1}"}}) ==
        "computation e, instruction rw (reduce-window): dimensions: window={...} has 1 "
        "dimensions, but operand p (f32[4,8]{1,0}) has 2");
  CHECK(verified("cc", {{"dimensions", "{2}"}}) ==
        "computation e, instruction cc (concatenate): dimensions: dimensions={2} names "
        "dimension 2, but " + p);
  CHECK(verified("rv", {{"dimensions", "{0,0}"}}) ==
        "computation e, instruction rv (reverse): dimensions: dimensions={0,0} names "
        "dimension 0 twice");
  CHECK(verified("rv", {{"dimensions", "{5}"}}) ==
        "computation e, instruction rv (reverse): dimensions: dimensions={5} names dimension 5, "
        "but " + p);
  CHECK(verified("s", {{"dimensions", "{2}"}}) ==
        "computation e, instruction s (sort): dimensions: dimensions={2} names dimension 2, "
        "but " + p);
  // Dot: each list within its operand, none twice, no dimension both contracted and batch.
  CHECK(verified("d", {{"lhs_contracting_dims", "{99}"}}) ==
        "computation e, instruction d (dot): dimensions: lhs_contracting_dims={99} names "
        "dimension 99, but " + p);
  CHECK(verified("d", {{"rhs_contracting_dims", "{-1}"}}) ==
        "computation e, instruction d (dot): dimensions: rhs_contracting_dims={-1} names "
        "dimension -1, but operand q (f32[8,6]{1,0}) has 2 dimensions");
  // {1,1} with {0,0}: sizes 8 and 8 pair up twice, which the size check alone lets through.
  CHECK(verified("d", {{"lhs_contracting_dims", "{1,1}"}, {"rhs_contracting_dims", "{0,0}"}}) ==
        "computation e, instruction d (dot): dimensions: lhs_contracting_dims={1,1} names "
        "dimension 1 twice");
  CHECK(verified("d", {{"lhs_batch_dims", "{1}"}, {"rhs_batch_dims", "{0}"}}) ==
        "computation e, instruction d (dot): dimensions: dimension 1 is in both "
        "lhs_contracting_dims={1} and lhs_batch_dims={1}");
  // Gather: offset_dims index the result, the others the operand, the indices' batch
  // dimensions and index_vector_dim (which may be their rank) the indices.
  CHECK(verified("g", {{"offset_dims", "{2}"}}) ==
        "computation e, instruction g (gather): dimensions: offset_dims={2} names dimension 2, "
        "but the result (f32[3,8]{1,0}) has 2 dimensions");
  CHECK(verified("g", {{"collapsed_slice_dims", "{0,0}"}}) ==
        "computation e, instruction g (gather): dimensions: collapsed_slice_dims={0,0} names "
        "dimension 0 twice");
  CHECK(verified("g", {{"start_index_map", "{3}"}}) ==
        "computation e, instruction g (gather): dimensions: start_index_map={3} names "
        "dimension 3, but " + p);
  CHECK(verified("g", {{"index_vector_dim", "3"}}) ==
        "computation e, instruction g (gather): dimensions: index_vector_dim=3 is not a "
        "dimension of operand idx (s32[3,1]{1,0}) nor its rank, 2");
  CHECK(verified("g", {{"slice_sizes", "{1}"}}) ==
        "computation e, instruction g (gather): dimensions: slice_sizes={1} names 1 "
        "dimension, but " + p);
  // Scatter: update_window_dims index the updates, the others the operand.
  CHECK(verified("sc", {{"update_window_dims", "{2}"}}) ==
        "computation e, instruction sc (scatter): dimensions: update_window_dims={2} names "
        "dimension 2, but operand upd (f32[3,8]{1,0}) has 2 dimensions");
  CHECK(verified("sc", {{"inserted_window_dims", "{9}"}}) ==
        "computation e, instruction sc (scatter): dimensions: inserted_window_dims={9} names "
        "dimension 9, but " + p);
  CHECK(verified("sc", {{"scatter_dims_to_operand_dims", "{0,0}"}}) ==
        "computation e, instruction sc (scatter): dimensions: scatter_dims_to_operand_dims="
        "{0,0} names dimension 0 twice");
  CHECK(verified("sc", {{"index_vector_dim", "-1"}}) ==
        "computation e, instruction sc (scatter): dimensions: index_vector_dim=-1 is not a "
        "dimension of operand idx (s32[3,1]{1,0}) nor its rank, 2");
}

// In module `text`, `op`'s attribute `name` set to `value`: verify() refuses it with `message`,
// and the text of the module (and so an HloProto, which is read through it) is refused with the
// same words.
void check_refused(std::string_view text, std::string_view op, std::string_view name,
                   std::string_view value, std::string_view message) {
  INFO(op << " " << name << "=" << value);
  Module m = testing::module_of(text);
  Instruction* i = m.entry()->find_instruction(op);
  REQUIRE_OK(set_attribute_from_text(*i, name, value));
  const std::string verified = verify_message(m);
  CHECK(verified.find(message) != std::string::npos);
  CHECK(verified.rfind("computation e, instruction " + std::string(op) + " (", 0) == 0);
  absl::StatusOr<Module> read = parse_module(print(m));
  REQUIRE_FALSE(read.ok());
  CHECK(std::string(read.status().message()).find(message) != std::string::npos);
}

TEST_CASE("verify and the readers: iota, pad, slice, dynamic-slice, fft and topk dimensions") {
  constexpr std::string_view kOps = R"(HloModule m

ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  i0 = s32[] parameter(1)
  z = f32[] constant(0)
  io = s32[4,8]{1,0} iota(), iota_dimension=1
  pd = f32[6,8]{1,0} pad(p, z), padding=1_1x0_0
  sl = f32[2,8]{1,0} slice(p), slice={[0:2], [0:8]}
  ds = f32[2,4]{1,0} dynamic-slice(p, i0, i0), dynamic_slice_sizes={2,4}
  f = c64[4,5]{1,0} fft(p), fft_type=RFFT, fft_length={8}
  tk = (f32[4,2]{1,0}, s32[4,2]{1,0}) topk(p), k=2, largest=true
  ROOT t = (s32[4,8]{1,0}, f32[6,8]{1,0}, f32[2,8]{1,0}, f32[2,4]{1,0}, c64[4,5]{1,0}, (f32[4,2]{1,0}, s32[4,2]{1,0})) tuple(io, pd, sl, ds, f, tk)
})";
  REQUIRE_OK(verify(testing::module_of(kOps)));
  const auto refused = [&](std::string_view op, std::string_view name, std::string_view value,
                           std::string_view message) {
    check_refused(kOps, op, name, value, message);
  };
  const std::string p = "operand p (f32[4,8]{1,0})";
  refused("io", "iota_dimension", "2",
          "iota_dimension=2 is not a dimension of the result (s32[4,8]{1,0}), which has 2 "
          "dimensions");
  refused("io", "iota_dimension", "-1", "iota_dimension=-1 is not a dimension of the result");
  refused("pd", "padding", "1_1", "padding={...} has 1 dimensions, but " + p + " has 2");
  refused("sl", "slice", "{[0:2]}", "slice={...} has 1 dimensions, but " + p + " has 2");
  refused("sl", "slice", "{[0:2], [0:9]}",
          "slice dimension 1 [0:9:1] is not within dimension 1 of " + p +
              ": 0 <= start <= limit <= 8, stride >= 1");
  refused("ds", "dynamic_slice_sizes", "{2}",
          "dynamic_slice_sizes has 1 sizes, but " + p + " has 2 dimensions");
  refused("ds", "dynamic_slice_sizes", "{2,9}",
          "dynamic_slice_sizes names size 9 for dimension 1 of " + p + ", which has 8");
  // An RFFT's lengths are its operand's last dimensions (an FFT's are not checked, as XLA's).
  refused("f", "fft_length", "{4}",
          "fft_length={...} entry 0 (4) wants dimension 1 of " + p + " of size 4, not 8");
  refused("f", "fft_length", "{1,1,4,8}",
          "fft_length names 4 lengths, but an fft transforms 1 to 3 of the last dimensions of " +
              p);
  refused("tk", "k", "9",
          "k=9 is not within the last dimension of " + p + ": topk takes 0 <= k <= its size");
}

TEST_CASE("verify and the readers: a window of no size, stride or dilation") {
  // XLA's shape inference refuses each, for every windowed op: a module built or edited through
  // the API is refused by verify(), its text (and so an HloProto) by the reader, in the same
  // words.
  constexpr std::string_view kOps = R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}

ENTRY e {
  p = f32[4,8]{1,0} parameter(0)
  src = f32[2,4]{1,0} parameter(1)
  img = f32[1,8,8,1]{3,2,1,0} parameter(2)
  w = f32[3,3,1,1]{3,2,1,0} parameter(3)
  z = f32[] constant(0)
  rw = f32[2,4]{1,0} reduce-window(p, z), window={size=2x2 stride=2x2}, to_apply=add
  ss = f32[4,8]{1,0} select-and-scatter(p, src, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
  cv = f32[1,6,6,1]{3,2,1,0} convolution(img, w), window={size=3x3}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,4]{1,0}, f32[4,8]{1,0}, f32[1,6,6,1]{3,2,1,0}) tuple(rw, ss, cv)
})";
  REQUIRE_OK(verify(testing::module_of(kOps)));
  const auto refused = [&](std::string_view op, std::string_view window,
                           std::string_view message) {
    check_refused(kOps, op, "window", window, message);
  };
  refused("rw", "{size=2x2 stride=2x0}", "window stride must be at least 1, got 0");
  refused("rw", "{size=2x0}", "window size must be at least 1, got 0");
  refused("ss", "{size=2x2 stride=2x0}", "window stride must be at least 1, got 0");
  refused("ss", "{size=2x2 lhs_dilate=1x0}", "window lhs_dilate must be at least 1, got 0");
  refused("cv", "{size=3x3 rhs_dilate=0x1}", "window rhs_dilate must be at least 1, got 0");
  // Each field over every dimension before the next field: the size first.
  refused("cv", "{size=3x0 stride=0x1}", "window size must be at least 1, got 0");
  // A negative stride, which text cannot write, set through the API.
  Module m = testing::module_of(kOps);
  Instruction* ss = m.entry()->find_instruction("ss");
  Window w = *ss->window();
  w.dims[0].stride = -1;
  REQUIRE_OK(ss->set_window(w));
  CHECK(verify_message(m).find("window stride must be at least 1, got -1") != std::string::npos);
}

TEST_CASE("the text reader refuses the dimension lists verify() refuses") {
  // A dot contracting dimension 7 of a rank-2 operand was predicted (142 ms where the valid dot
  // takes microseconds); 66 repeated dimensions gave 5e189 s. Both are errors at the opcode.
  absl::StatusOr<Module> dot = parse_module(R"(HloModule m
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  ROOT d = f32[8,4]{1,0} dot(a, b), lhs_contracting_dims={7}, rhs_contracting_dims={0}
})");
  REQUIRE_FALSE(dot.ok());
  CHECK(std::string(dot.status().message()).find(
            "lhs_contracting_dims={7} names dimension 7, but operand a (f32[8,16]{1,0}) has 2 "
            "dimensions") != std::string::npos);
  std::string repeated = "{";
  for (int k = 0; k < 66; ++k) repeated += k == 0 ? "1" : ",1";
  repeated += "}";
  absl::StatusOr<Module> reduce = parse_module(absl::StrCat(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8]{0} reduce(a, z), dimensions=)", repeated, R"(, to_apply=add
})"));
  REQUIRE_FALSE(reduce.ok());
  CHECK(std::string(reduce.status().message()).find("names dimension 1 twice") !=
        std::string::npos);
  // Contracting dimensions of unequal sizes: 16 against 4.
  absl::StatusOr<Module> sizes = parse_module(R"(HloModule m
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  ROOT d = f32[8,16]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})");
  REQUIRE_FALSE(sizes.ok());
  CHECK(std::string(sizes.status().message()).find("has size 16 but contracting dimension 1") !=
        std::string::npos);
}

}  // namespace
}  // namespace hloroof
