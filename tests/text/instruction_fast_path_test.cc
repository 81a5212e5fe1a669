// The parser reads the usual layout of dumps (`name = SHAPE opcode(%a, b.1)`) straight from the
// text, and any other layout token by token. Both must build the same graph and report the same
// errors at the same places: each case here is parsed once as dumps print it and once laid out
// so that the token-by-token path reads it.
#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "hloroof/computation.h"
#include "hloroof/hlo_text.h"
#include "hloroof/instruction.h"
#include "hloroof/module.h"
#include "hloroof/shape_text.h"
#include "module_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::find;
using testing::parse_ok;

// A module whose entry computation `e` has `lines`, each indented by two spaces: the first is
// line 3 of the text.
std::string entry_with(std::initializer_list<std::string_view> lines) {
  std::string text = "HloModule m\nENTRY e {\n";
  for (std::string_view line : lines) text += "  " + std::string(line) + "\n";
  return text + "}\n";
}

// The error of `text`, as "line:column: message".
std::string located_error(std::string_view text) {
  absl::StatusOr<Module> module = parse_module(text);
  if (module.ok()) return "parsed";
  std::optional<ParseErrorLocation> at = parse_error_location(module.status());
  REQUIRE(at.has_value());
  return std::to_string(at->line) + ":" + std::to_string(at->column) + ": " + at->message;
}

// The names of an instruction's operands, comma-separated.
std::string operand_names(const Instruction& i) {
  std::string out;
  for (const Instruction* o : i.operands()) {
    if (!out.empty()) out += ",";
    out += o->name();
  }
  return out;
}

TEST_CASE("operands by bare name, %name and typed name resolve to the same instructions") {
  // The first module has every layout the direct reading takes; the second the same graph with
  // two spaces after each comma and around '=', which only the token-by-token reading takes.
  for (std::string_view text : {
           entry_with({
               "a.1 = f32[8] parameter(0)",
               "b.1 = f32[8] parameter(1)",
               "%c.1 = f32[8] add(a.1, %b.1)",
               "d.1 = f32[8] multiply(f32[8] c.1, f32[8] %a.1)",
               "ROOT t.1 = (f32[8], f32[8]) tuple(d.1, c.1)",
           }),
           entry_with({
               "a.1  =  f32[8] parameter(0)",
               "b.1  =  f32[8] parameter(1)",
               "%c.1  =  f32[8] add(a.1,  %b.1)",
               "d.1  =  f32[8] multiply(f32[8] c.1,  f32[8] %a.1)",
               "ROOT t.1  =  (f32[8], f32[8]) tuple(d.1,  c.1)",
           }),
       }) {
    Module m = parse_ok(text);
    CHECK(operand_names(find(m, "e", "c.1")) == "a.1,b.1");
    CHECK(operand_names(find(m, "e", "d.1")) == "c.1,a.1");
    CHECK(operand_names(find(m, "e", "t.1")) == "d.1,c.1");
    CHECK(find(m, "e", "t.1").shape().is_tuple());
    CHECK(find(m, "e", "a.1").users().size() == 2);  // c.1 and d.1
  }
}

TEST_CASE("bare operand names without a '.' and nested or indexed operands still parse") {
  Module m = parse_ok(entry_with({
      "x = f32[] parameter(0)",
      "p = (f32[], f32[]) parameter(1)",
      "y = f32[] add(x, p#1)",
      "ROOT z = f32[] add(y, f32[] negate(x))",
  }));
  CHECK(operand_names(find(m, "e", "y")) == "x,p_1");
  CHECK(operand_names(find(m, "e", "z")) == "y,negate.anon");
}

TEST_CASE("an operand name followed by a comment, a space or a colon") {
  // The direct reading takes a name up to the first byte below '-'; these end it elsewhere or
  // later, and are read token by token.
  Module m = parse_ok(entry_with({
      "a.1 = f32[] parameter(0)",
      "b.1 = f32[] parameter(1)",
      "c.1 = f32[] add(a.1/*x*/, b.1)",
      "ROOT d.1 = f32[] add(a.1 , %b.1 )",
  }));
  CHECK(operand_names(find(m, "e", "c.1")) == "a.1,b.1");
  CHECK(operand_names(find(m, "e", "d.1")) == "a.1,b.1");
  CHECK(located_error(entry_with({
            "a.1 = f32[] parameter(0)",
            "b.1 = f32[] parameter(1)",
            "ROOT e.1 = f32[] add(a.1:b.1, b.1)",
        })) == "5:28: expected ')' to close the operand list, got 'b.1'");
}

TEST_CASE("an instruction named like a keyword is not an operand when written bare") {
  // `true` is a keyword: only `%true` names the instruction.
  CHECK(located_error(
            entry_with({"%true = f32[] parameter(0)", "ROOT add.1 = f32[] add(true, true)"})) ==
        "4:26: expected an operand, got 'true'");
  Module m =
      parse_ok(entry_with({"%true = f32[] parameter(0)", "ROOT add.1 = f32[] add(%true, %true)"}));
  CHECK(operand_names(find(m, "e", "add.1")) == "true,true");
  // An element type written where an operand stands is read as a shape.
  CHECK(located_error(entry_with({"a.1 = f32[] parameter(0)", "ROOT n.2 = f32[] add(a.1, f32)"})) ==
        "4:32: expected '[' after the element type f32, got ')'");
}

TEST_CASE("unknown, later and mistyped operands are reported where they are written") {
  CHECK(
      located_error(entry_with({"a.1 = f32[] parameter(0)", "ROOT add.1 = f32[] add(a.1, b.2)"})) ==
      "4:31: instruction does not exist: b.2");
  CHECK(located_error(entry_with({
            "a.1 = f32[] parameter(0)",
            "n.2 = f32[] negate(c.3)",
            "c.3 = f32[] negate(a.1)",
            "ROOT add.1 = f32[] add(a.1, n.2)",
        })) ==
        "4:22: instruction c.3 is used before its definition (operands must be defined earlier "
        "in the computation)");
  CHECK(located_error(entry_with({"a.1 = f32[] parameter(0)", "n.2 = f32[] negate(s32[] a.1)"})) ==
        "4:28: operand a.1 has shape f32[], not s32[] as written");
}

TEST_CASE("an opcode followed by other bytes than '(' is read token by token") {
  // The direct reading takes the opcode up to the first byte below '-'; a comment there, or a
  // byte no name has, sends the head to the lexer, which reads or reports it.
  Module m =
      parse_ok(entry_with({"a.1 = f32[] parameter(0)", "ROOT n.2 = f32[] add/*c*/(a.1, a.1)"}));
  CHECK(find(m, "e", "n.2").opcode() == Opcode::kAdd);
  CHECK(
      located_error(entry_with({"a.1 = f32[] parameter(0)", "ROOT n.2 = f32[] add.x(a.1, a.1)"})) ==
      "4:20: unknown opcode 'add.x'");
  CHECK(
      located_error(entry_with({"a.1 = f32[] parameter(0)", "ROOT n.2 = f32[] add:x(a.1, a.1)"})) ==
      "4:20: expected an opcode, got 'add:'");
}

TEST_CASE("opcodes the direct reading does not know are reported as before") {
  CHECK(located_error(entry_with({"a.1 = f32[] parameter(0)", "n.2 = f32[] frobnicate(a.1)"})) ==
        "4:15: unknown opcode 'frobnicate'");
  // add-start is the async sugar: read token by token, checked as async-start.
  CHECK(
      located_error(entry_with({"a.1 = f32[] parameter(0)", "n.2 = f32[] add-start(a.1, a.1)"})) ==
      "4:15: n.2 returns ((operand shapes), result shape, ...), not f32[]");
}

TEST_CASE("duplicate names, and names that differ only in their last characters") {
  CHECK(located_error(entry_with({
            "a.1 = f32[] parameter(0)",
            "a.1 = f32[] negate(a.1)",
            "ROOT add.1 = f32[] add(a.1, a.1)",
        })) == "4:3: instruction already exists: a.1 (first defined at 3:3)");
  // 24 and 25 bytes: the last eight bytes are compared in an overlapping word.
  Module m = parse_ok(entry_with({
      "get-tuple-element.123456 = f32[] parameter(0)",
      "get-tuple-element.123457 = f32[] parameter(1)",
      "get-tuple-element.1234567 = f32[] subtract(get-tuple-element.123457, "
      "get-tuple-element.123456)",
      "ROOT get-tuple-element.1234568 = f32[] negate(get-tuple-element.1234567)",
  }));
  CHECK(operand_names(find(m, "e", "get-tuple-element.1234567")) ==
        "get-tuple-element.123457,get-tuple-element.123456");
  const Computation* e = m.find_computation("e");
  CHECK(e->find_instruction("get-tuple-element.12345") == nullptr);
  CHECK(e->find_instruction("get-tuple-element.1234569") == nullptr);
  CHECK(e->find_instruction("get-tuple-element.1234568") == e->root());
}

// A chain `p.0 = parameter(0)`, `n.1 = negate(p.0)`, ... of `count` instructions, as the body
// of ENTRY %e; `repeat` (when not empty) is defined again as the last line.
std::string chain(int count, std::string_view repeat = {}) {
  std::string text = "HloModule m\n\nENTRY %e {\n  p.0 = f32[] parameter(0)\n";
  std::string previous = "p.0";
  for (int k = 1; k < count; ++k) {
    const std::string name = "n." + std::to_string(k);
    text += "  " + name + " = f32[] negate(" + previous + ")\n";
    previous = name;
  }
  if (!repeat.empty()) text += "  " + std::string(repeat) + " = f32[] negate(p.0)\n";
  return text + "}\n";
}

TEST_CASE("names are found by scanning in small computations and by a map in large ones") {
  // Up to 16 instructions a computation scans its list for a name; the 17th fills the map.
  for (int count : {2, 15, 16, 17, 40}) {
    CAPTURE(count);
    Module m = parse_ok(chain(count));
    Computation* e = m.entry();
    REQUIRE(e->instruction_count() == static_cast<size_t>(count));
    CHECK(e->find_instruction("p.0") == e->instructions().front());
    CHECK(e->find_instruction("n." + std::to_string(count - 1)) == e->root());
    CHECK(e->find_instruction("n." + std::to_string(count)) == nullptr);
    CHECK(e->find_instruction("n") == nullptr);
    for (int k = 1; k < count; ++k) {
      CHECK(e->find_instruction("n." + std::to_string(k))->operand(0) ==
            e->instructions()[static_cast<size_t>(k - 1)]);
    }
    // A name defined twice is an error on either side of the limit: the first, the last
    // and the middle name again.
    for (const std::string& again : {std::string("p.0"), "n." + std::to_string(count - 1),
                                     "n." + std::to_string(count / 2)}) {
      if (again == "n.0") continue;
      const std::string text = chain(count, again);
      CAPTURE(again);
      CHECK(located_error(text).find("instruction already exists: " + again) !=
            std::string::npos);
    }
    // Edits keep lookups right as a computation crosses the limit: each add takes a free
    // name, and a removed name can be found no more.
    const Shape& scalar = e->root()->shape();
    for (int k = 0; k < 3; ++k) {
      absl::StatusOr<Instruction*> copy =
          e->add_instruction(Opcode::kCopy, "p.0", scalar, {e->instructions().front()});
      REQUIRE_OK(copy);
      CHECK((*copy)->name() == "p.0." + std::to_string(k + 1));
      CHECK(e->find_instruction((*copy)->name()) == *copy);
    }
    REQUIRE_OK(e->remove_instruction(e->find_instruction("p.0.2")));
    CHECK(e->find_instruction("p.0.2") == nullptr);
    CHECK(e->find_instruction("p.0.3") != nullptr);
    absl::StatusOr<Instruction*> again =
        e->add_instruction(Opcode::kCopy, "p.0", scalar, {e->instructions().front()});
    REQUIRE_OK(again);
    CHECK((*again)->name() == "p.0.2");  // free again
  }
}

TEST_CASE("a shape is known by its text only where the text ends as when it was read") {
  // `f32[8] {0}`: the cached `f32[8]` ends at the space; the layout is then not part of it.
  CHECK(located_error(
            entry_with({"a.1 = f32[8] parameter(0)", "ROOT n.2 = f32[8] {0} negate(a.1)"})) ==
        "4:21: expected an opcode, got '{'");
  // A tuple's text has spaces: it is measured, not cut at the first space.
  Module tuples = parse_ok(entry_with({
      "a.1 = (f32[8], s32[]) parameter(0)",
      "b.1 = (f32[8], s32[]) copy(a.1)",
      "ROOT n.2 = (f32[8], s32[]) copy((f32[8], s32[]) b.1)",
  }));
  CHECK(&find(tuples, "e", "n.2").shape() == &find(tuples, "e", "a.1").shape());
  CHECK(operand_names(find(tuples, "e", "n.2")) == "b.1");
  // Typed operands: a layout the definition does not have, two spaces after the shape.
  Module typed = parse_ok(entry_with({
      "a.1 = f32[8] parameter(0)",
      "b.1 = f32[8]{0} negate(f32[8]{0} a.1)",
      "ROOT d.1 = f32[8]{0}  add(f32[8]  a.1, b.1)",
  }));
  CHECK(operand_names(find(typed, "e", "b.1")) == "a.1");
  CHECK(operand_names(find(typed, "e", "d.1")) == "a.1,b.1");
}

// A module with one computation `c` to call and `e` whose last line is `last`: a.1 is f32[8],
// b.1 is f32[2,3]; the last line is line 11.
std::string checks_module(std::string_view last) {
  return "HloModule m\n\nc {\n  p.0 = f32[] parameter(0)\n  ROOT q.0 = f32[] negate(p.0)\n}\n\n"
         "ENTRY e {\n  a.1 = f32[8] parameter(0)\n  b.1 = f32[2,3] parameter(1)\n" +
         std::string(last) + "\n}\n";
}

TEST_CASE("the usual instruction skips the checks one by one, and the rest are reported") {
  // Each of these fails one condition of the shortcut (operand count, a required attribute,
  // result_accuracy, to_apply with called_computations): the full checks report it at the opcode.
  CHECK(located_error(checks_module("  ROOT n.2 = f32[8] add(a.1)")) ==
        "11:21: add takes 2 operands, got 1");
  CHECK(located_error(checks_module("  ROOT n.2 = f32[8] transpose(a.1)")) ==
        "11:21: attribute 'dimensions' is required for transpose");
  CHECK(located_error(
            checks_module("  ROOT n.2 = f32[8] add(a.1, a.1), result_accuracy={mode=highest}")) ==
        "11:21: result_accuracy is only allowed on transcendental ops, not add");
  CHECK(located_error(checks_module("  ROOT n.2 = f32[8] custom-call(a.1), "
                                    "custom_call_target=\"x\", to_apply=c, "
                                    "called_computations={c}")) ==
        "11:21: a custom-call takes to_apply or called_computations, not both");
  // Opcodes with checks of their own always take the full checks: 2*3 = 6 elements, not 7.
  CHECK(located_error(checks_module("  ROOT n.2 = f32[7] reshape(b.1)")) ==
        "11:21: reshape from f32[2,3] to f32[7] changes the element count");
  // And the same instructions pass once well formed; an omitted shape is inferred.
  for (std::string_view last :
       {"  ROOT n.2 = f32[8] transpose(a.1), dimensions={0}",
        "  ROOT n.2 = f32[8] exponential(a.1), result_accuracy={mode=highest}",
        "  ROOT n.2 = f32[6] reshape(b.1)"}) {
    CHECK(located_error(checks_module(last)) == "parsed");
  }
  Module m = parse_ok(checks_module("  ROOT n.2 = add(a.1, a.1)"));
  CHECK(&find(m, "e", "n.2").shape() == &find(m, "e", "a.1").shape());
}

TEST_CASE("instruction names an upstream parser would rename") {
  CHECK(located_error(checks_module("  %s32 = f32[8] negate(a.1)")) ==
        "11:3: illegal instruction name: s32; suggest renaming to: s32_");
  CHECK(located_error(checks_module("  %__x = f32[8] negate(a.1)")) ==
        "11:3: illegal instruction name: __x; suggest renaming to: a_x");
  // `__xla_` names are upstream's own; a '.' makes a name no element type.
  CHECK(located_error(checks_module("  %__xla_x = f32[8] negate(a.1)")) == "parsed");
  CHECK(located_error(checks_module("  %s32.1 = f32[8] negate(a.1)")) == "parsed");
}

TEST_CASE("a shape like the previous instruction's, and texts that only start like it") {
  // The shape text found last is compared before any look-up; a longer text that starts with
  // it, or the same text followed by something other than a space, is looked up as before.
  Module m = parse_ok(entry_with({
      "a.1 = f32[8] parameter(0)",
      "b.1 = f32[8] negate(a.1)",
      "c.1 = f32[8]{0} negate(b.1)",
      "d.1 = f32[8]{0} negate(c.1)",
      "e.1 = f32[8] negate(d.1)",
      "ROOT f.1 = f32[8]{0}  negate(e.1)",
  }));
  CHECK(&find(m, "e", "b.1").shape() == &find(m, "e", "a.1").shape());
  CHECK(to_string(find(m, "e", "c.1").shape()) == "f32[8]{0}");
  CHECK(&find(m, "e", "d.1").shape() == &find(m, "e", "c.1").shape());
  CHECK(to_string(find(m, "e", "e.1").shape()) == "f32[8]");
  CHECK(to_string(find(m, "e", "f.1").shape()) == "f32[8]{0}");
  // The text found last, then the same bytes without the space: read token by token.
  Module glued =
      parse_ok(entry_with({"a.1 = f32[8] parameter(0)", "ROOT b.1 = f32[8]negate(a.1)"}));
  CHECK(&find(glued, "e", "b.1").shape() == &find(glued, "e", "a.1").shape());
}

TEST_CASE("an operand that is the instruction just before, or only shares its first bytes") {
  Module m = parse_ok(entry_with({
      "a.1 = f32[] parameter(0)",
      "a.10 = f32[] negate(a.1)",
      "a.100 = f32[] add(a.10, a.1)",
      "ROOT a.1000 = f32[] add(a.100, a.10)",
  }));
  CHECK(operand_names(find(m, "e", "a.10")) == "a.1");
  CHECK(operand_names(find(m, "e", "a.100")) == "a.10,a.1");
  CHECK(operand_names(find(m, "e", "a.1000")) == "a.100,a.10");
  // The instruction being defined is not yet known: naming itself is an error.
  CHECK(located_error(entry_with({"a.1 = f32[] parameter(0)", "ROOT b.1 = f32[] negate(b.1)"})) ==
        "4:27: instruction does not exist: b.1");
}

TEST_CASE("the comma after the operands, and tuple elements known by their text") {
  // `),` starts the attributes without the lexer; `) ,` goes through it. Same module, same
  // errors at the same places.
  for (std::string_view sep : {",", " ,"}) {
    const std::string root = "ROOT t.1 = f32[8] negate(a.1)" + std::string(sep);
    Module m =
        parse_ok(entry_with({"a.1 = f32[8] parameter(0)", root + " metadata={op_name=\"x\"}"}));
    CHECK(find(m, "e", "t.1").attributes().size() == 1);
    const std::string bad = entry_with({"a.1 = f32[8] parameter(0)", root});
    CHECK(located_error(bad) == "5:1: expected an attribute (name=value), got '}'");
  }
  // Elements already read as instruction shapes are taken by their text; `f32[8] {0}` (a space
  // before the layout) is parsed, layout included, as before.
  Module m = parse_ok(entry_with({
      "a.1 = f32[8]{0} parameter(0)",
      "b.1 = s32[] parameter(1)",
      "t.1 = (f32[8]{0}, s32[], /*index=2*/f32[8]{0}) tuple(a.1, b.1, a.1)",
      "ROOT u.1 = (f32[8] {0}, s32[]) tuple(a.1, b.1)",
  }));
  CHECK(to_string(find(m, "e", "t.1").shape()) == "(f32[8]{0}, s32[], f32[8]{0})");
  CHECK(to_string(find(m, "e", "u.1").shape()) == "(f32[8]{0}, s32[])");
  // A known element's text is not taken where parsing would report an error first.
  CHECK(located_error(entry_with(
            {"a.1 = f32[8] parameter(0)", "ROOT t.1 = (f32[8], f32[8]x) parameter(1)"})) ==
        "4:29: expected ')' to close the tuple shape, got 'x'");
}

TEST_CASE("names added and removed after parsing are found and freed by name") {
  Module m = parse_ok(entry_with({"a.1 = f32[] parameter(0)", "ROOT n.1 = f32[] negate(a.1)"}));
  Computation* e = m.find_computation("e");
  Instruction* a = e->find_instruction("a.1");
  REQUIRE(a != nullptr);
  absl::StatusOr<Instruction*> added =
      e->add_instruction(Opcode::kNegate, "a.1", a->shape(), {a}, e->root());
  REQUIRE_OK(added);
  CHECK((*added)->name() == "a.1.1");  // the name was taken
  CHECK(e->find_instruction("a.1.1") == *added);
  REQUIRE_OK(e->remove_instruction(*added));
  CHECK(e->find_instruction("a.1.1") == nullptr);
  CHECK(e->find_instruction("a.1") == a);
}

// The entry `e` of `count` instructions, `p<sep>0 = parameter(0)` then `n<sep>k =
// negate(p<sep>0)`, and a root tuple whose operands are `operands` (spelled as given).
std::string wide_entry(int count, std::string_view sep, const std::vector<std::string>& operands) {
  const std::string p = "p" + std::string(sep) + "0";
  std::string text = "HloModule m\n\nENTRY %e {\n  " + p + " = f32[] parameter(0)\n";
  for (int k = 1; k < count; ++k) {
    text += "  n" + std::string(sep) + std::to_string(k) + " = f32[] negate(" + p + ")\n";
  }
  text += "  ROOT t = (";
  for (size_t k = 0; k < operands.size(); ++k) text += k == 0 ? "f32[]" : ", f32[]";
  text += ") tuple(";
  for (size_t k = 0; k < operands.size(); ++k) text += (k == 0 ? "" : ", ") + operands[k];
  return text + ")\n}\n";
}

TEST_CASE("a computation past 64k names finds every operand of a long list, in either reader") {
  // 70,000 names: the name map has 131,071 slots, past the size from which the parser
  // prefetches names before it adds or looks them up (the operands of a list from its fourth,
  // eight ahead). Every spelling must still resolve as before.
  constexpr int kCount = 70000;
  for (std::string_view sep : {".", "_"}) {  // names without a dot are read token by token
    CAPTURE(sep);
    std::vector<std::string> operands;
    std::vector<int> numbers;
    for (int k = kCount - 1; k >= 1; k -= 7) numbers.push_back(k);  // far apart, backwards
    for (size_t k = 0; k < numbers.size(); ++k) {
      std::string name = "n" + std::string(sep) + std::to_string(numbers[k]);
      operands.push_back(k % 3 == 1 ? "%" + name : name);
    }
    Module m = parse_ok(wide_entry(kCount, sep, operands));
    Computation* e = m.entry();
    REQUIRE(e->instruction_count() == static_cast<size_t>(kCount) + 1);
    REQUIRE(e->root()->operand_count() == numbers.size());
    for (size_t k = 0; k < numbers.size(); ++k) {
      CAPTURE(k);
      CHECK(e->root()->operand(k) == e->instructions()[static_cast<size_t>(numbers[k])]);
    }
    // A name defined again, and a list cut off where the text ends, are errors as before.
    std::string again = wide_entry(kCount, sep, {"n" + std::string(sep) + "5"});
    again.insert(again.find("  ROOT"),
                 "  n" + std::string(sep) + "9 = f32[] negate(p" + std::string(sep) + "0)\n");
    CHECK(located_error(again).find("instruction already exists: n" + std::string(sep) + "9") !=
          std::string::npos);
    std::string cut = wide_entry(kCount, sep, operands);
    cut.resize(cut.size() - std::string_view(")\n}\n").size());
    CHECK(located_error(cut) != "parsed");
  }
}

}  // namespace
}  // namespace hloroof
