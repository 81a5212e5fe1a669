// The invalid inputs of docs/hlo-text.md, "Conformance cases": each is rejected with a message that
// says what is wrong and where; and the shape of error messages.
#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"
#include "module_test_util.h"

namespace hloroof {
namespace {

using testing::parse_error;

constexpr std::string_view kAdd = R"(
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
)";

// A module whose entry holds `body` (line 3 onwards), with %add defined before it when asked.
std::string module(std::string_view body, bool with_add = false) {
  return std::string("HloModule m\n") + (with_add ? std::string(kAdd) : "") + "ENTRY %e {\n" +
         std::string(body) + "\n}\n";
}

TEST_CASE("8.2-1 an unprefixed name glued to '=' reads as an attribute name") {
  CHECK(parse_error(module("  x=f32[] parameter(0)")) ==
        "3:3: error: expected an instruction name; `x=` was read as an attribute name "
        "(write `x = ...` or `%x=...`)");
}

TEST_CASE("8.2-2 a missing required attribute") {
  CHECK(parse_error(module("  %a = f32[3]{0} parameter(0)\n  %i = f32[] constant(0)\n"
                           "  ROOT %r = f32[3]{0} reduce(%a, %i), to_apply=%add",
                           true)) == "11:23: error: attribute 'dimensions' is required for reduce");
}

TEST_CASE("8.2-3 a layout whose length is not the rank") {
  CHECK(parse_error(module("  %p = f32[2,3]{0} parameter(0)")) ==
        "3:16: error: layout has 1 minor_to_major entries but the shape has rank 2");
}

TEST_CASE("8.2-4 an undefined operand, and one used before its definition") {
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n  %r = f32[2]{0} add(%a, %b)")) ==
        "4:26: error: instruction does not exist: b");
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n  %r = f32[2]{0} add(%a, %b)\n"
                           "  %b = f32[2]{0} parameter(1)")) ==
        "4:26: error: instruction b is used before its definition (operands must be defined "
        "earlier in the computation)");
}

TEST_CASE("8.2-5 two instructions with one name") {
  CHECK(parse_error(module("  %x = f32[2]{0} parameter(0)\n  %x = f32[2]{0} parameter(1)")) ==
        "4:3: error: instruction already exists: x (first defined at 3:3)");
}

TEST_CASE("8.2-6 two ROOTs") {
  CHECK(parse_error(module("  ROOT %x = f32[2]{0} parameter(0)\n"
                           "  ROOT %y = f32[2]{0} parameter(1)")) ==
        "4:3: error: a computation can have only one ROOT (x is already the root)");
}

TEST_CASE("8.2-7 a sub-array with the wrong element count") {
  CHECK(parse_error(module("  %c = s32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5 } })")) ==
        "3:46: error: expected 3 elements in sub-array [1], found 2");
}

TEST_CASE("8.2-8 a constant out of its type's range") {
  CHECK(parse_error(module("  %c = u8[] constant(256)")) ==
        "3:22: error: value 256 is out of range for u8 [0, 255]");
  CHECK(parse_error(module("  %c = s4[] constant(8)")) ==
        "3:22: error: value 8 is out of range for s4 [-8, 7]");
  // f16's largest finite value is 65504; 65520 rounds to infinity.
  CHECK(parse_error(module("  %c = f16[] constant(-65520)")) ==
        "3:23: error: value -65520 is out of range for f16 (largest finite value 65504)");
  CHECK(parse_error(module("  %c = bf16[1]{0} constant({nan(0x3ff)})")) ==
        "3:29: error: NaN payload 0x3ff does not fit the 7 payload bits of bf16");
}

TEST_CASE("8.2-9 an iota device list that does not fill the tile assignment") {
  CHECK(parse_error(module("  %p = f32[4,4] parameter(0), sharding={devices=[2,2]<=[8]}")) ==
        "3:41: error: iota device list has 8 devices but the tile assignment [2,2] needs 4");
  CHECK(parse_error(module("  %p = f32[4,4] parameter(0), sharding={devices=[2,2]0,1,2}")) ==
        "3:41: error: sharding device list has 3 devices but the tile assignment [2,2] needs 4");
}

TEST_CASE("8.2-10 layout properties out of order") {
  CHECK(parse_error(module("  %t = f32[8,128]{1,0:S(1)T(8,128)} parameter(0)")) ==
        "3:27: error: layout properties out of order: T(...) must come before S(...)");
}

TEST_CASE("8.2-11 '{}' after a scalar shape") {
  CHECK(parse_error(module("  %c = f32[]{} constant(0)")) ==
        "3:13: error: '{}' is not a layout here; a scalar's layout is omitted or written {:...}");
}

TEST_CASE("8.2-12 an unterminated block comment is reported where it starts") {
  CHECK(parse_error("HloModule m /* never closed\nENTRY %e {\n") ==
        "1:13: error: unterminated block comment");
}

TEST_CASE("8.2-13 an unknown opcode, and async sugar on an op with native async forms") {
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n  %o = f32[2]{0} foo(%a)")) ==
        "4:18: error: unknown opcode 'foo'");
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n"
                           "  %o = f32[2]{0} all-reduce-update(%a)")) ==
        "4:18: error: all-reduce cannot be async-wrapped as all-reduce-update (it has native "
        "-start/-done opcodes)");
}

TEST_CASE("8.2-14 a call to a computation that does not exist") {
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n"
                           "  %o = f32[2]{0} call(%a), to_apply=%nope")) ==
        "4:37: error: computation does not exist: nope");
}

TEST_CASE("8.2-15 two ENTRY computations") {
  CHECK(parse_error("HloModule m\nENTRY %e {\n  %a = f32[] parameter(0)\n}\n"
                    "ENTRY %f {\n  %a = f32[] parameter(0)\n}\n") ==
        "5:1: error: only one ENTRY computation is allowed (the first is at line 2)");
}

TEST_CASE("8.2-16 window fields of different lengths") {
  CHECK(parse_error(module("  %a = f32[1,8,8,1]{3,2,1,0} parameter(0)\n"
                           "  %k = f32[3,3,1,1]{3,2,1,0} parameter(1)\n"
                           "  %c = f32[1,4,4,1]{3,2,1,0} convolution(%a, %k), "
                           "window={size=3x3 stride=2}, dim_labels=b01f_01io->b01f")) ==
        "5:59: error: window stride has 1 entry, size has 2");
}

TEST_CASE("8.2-17 dim labels with different spatial counts") {
  CHECK(parse_error(module("  %a = f32[1,8,8,1]{3,2,1,0} parameter(0)\n"
                           "  %k = f32[3,3,1,1]{3,2,1,0} parameter(1)\n"
                           "  %c = f32[1,4,4,1]{3,2,1,0} convolution(%a, %k), "
                           "window={size=3x3}, dim_labels=b01f_01io->b0f")) ==
        "5:81: error: input, kernel and output must have the same number of spatial dimensions "
        "(2, 2, 1)");
}

TEST_CASE("8.2-18 iota replica groups of the wrong size, or without a transpose") {
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n  %r = f32[2]{0} all-reduce(%a), "
                           "replica_groups=[2,4]<=[16], to_apply=%add",
                           true)) == "10:56: error: iota device list has 16 ids but [2,4] needs 8");
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n  %r = f32[2]{0} all-reduce(%a), "
                           "replica_groups=[2,4]<=[4,2], to_apply=%add",
                           true)) ==
        "10:56: error: a multi-dimensional iota reshape [4,2] needs a T(...) permutation");
}

TEST_CASE("8.2-19 hex integers") {
  CHECK(parse_error(module("  %c = s32[] constant(0x10)")) ==
        "3:23: error: hex integers are not supported: 0x10");
}

TEST_CASE("8.2-20 an invalid escape in a string") {
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n"
                           "  %c = f32[2]{0} custom-call(%a), custom_call_target=\"a\\qb\"")) ==
        "4:54: error: invalid string: unknown escape sequence: \\q");
}

TEST_CASE("a parameter number is taken once, however far it lies from the others") {
  // 100 lies past the room the table of numbers has at first (64), so it is recorded apart;
  // parameters 0..39 grow the table past 100, and a second 100 must still be refused. Lines: the
  // body starts on line 3, so its 42nd line, the second 100, is line 44.
  std::string body = "  %p100 = f32[] parameter(100)\n";
  for (int k = 0; k < 40; ++k) {
    body += "  %p" + std::to_string(k) + " = f32[] parameter(" + std::to_string(k) + ")\n";
  }
  CHECK(parse_error(module(body + "  %q = f32[] parameter(100)")) ==
        "44:24: error: parameter number 100 is already taken by p100");
  // A number near 2^31 costs no table of 2^31 entries: it is refused as a gap, or as taken.
  CHECK(parse_error(module("  %a = f32[] parameter(2000000000)")) ==
        "2:7: error: computation e has 1 parameters but no parameter(0)");
  CHECK(parse_error(module("  %a = f32[] parameter(2000000000)\n"
                           "  %b = f32[] parameter(2000000000)")) ==
        "4:24: error: parameter number 2000000000 is already taken by a");
}

TEST_CASE("more rules upstream's parser enforces") {
  CHECK(parse_error(module("  %a = f32[] parameter(0)\n  %r = pred[] compare(%a), direction=EQ")) ==
        "4:15: error: compare takes 2 operands, got 1");
  CHECK(parse_error(module("  %a = f32[] parameter(0)\n"
                           "  %r = pred[] compare(%a, %a), direction=EQUAL")) ==
        "4:42: error: 'EQUAL' is not a valid direction; expected one of EQ, NE, GE, GT, LE, LT");
  CHECK(parse_error(module("  %a = f32[] parameter(0)\n  %b = f32[] parameter(0)")) ==
        "4:24: error: parameter number 0 is already taken by a");
  CHECK(parse_error(module("  %a = f32[] parameter(1)")) ==
        "2:7: error: computation e has 1 parameters but no parameter(0)");
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n"
                           "  %g = f32[] get-tuple-element(%a), index=0")) ==
        "4:14: error: get-tuple-element needs a tuple operand, but a has shape f32[2]{0}");
  CHECK(parse_error(module("  %t = (f32[]) parameter(0)\n  %g = f32[] add(%t#1, %t#1)")) ==
        "4:21: error: tuple index 1 is out of range: t has 1 elements");
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0)\n  %b = f32[2]{0} add(f32[3] %a, %a)")) ==
        "4:29: error: operand a has shape f32[2]{0}, not f32[3] as written");
  CHECK(parse_error(module("  %f32 = f32[] parameter(0)")) ==
        "3:3: error: illegal instruction name: f32; suggest renaming to: f32_");
  CHECK(parse_error(module("  %a = f32[] parameter(0), dimension={0}")) ==
        "3:28: error: unknown attribute 'dimension'");
  CHECK(parse_error(module("  %a = f32[] parameter(0), metadata={op_name=\"a\" op_name=\"b\"}")) ==
        "3:50: error: metadata field 'op_name' repeated");
  CHECK(parse_error(
            "HloModule m\nENTRY %e (p: f32[]) -> s32[] {\n  ROOT %p = f32[] parameter(0)\n}") ==
        "2:7: error: computation e declares result shape s32[] but its root p has shape f32[]");
}

TEST_CASE("junk after an attribute's value is pointed at, not taken for a missing attribute") {
  // Was "attribute 'to_apply' is required for all-reduce", the caret on the opcode. Line 10:
  // `  %r = f32[8]{0} all-reduce(%p), replica_groups=` is 48 columns; the junk follows the value.
  const std::string head = "  %p = f32[8]{0} parameter(0)\n  %r = f32[8]{0} all-reduce(%p), ";
  struct Case {
    std::string groups;
    std::string error;
  };
  const Case cases[] = {
      {"replica_groups=[2,4]<=[8]T(5)",
       "10:59: error: unexpected 'T' after the value of attribute 'replica_groups'"},
      {"replica_groups=[2,4]<=[8]T(0,0)",
       "10:59: error: unexpected 'T' after the value of attribute 'replica_groups'"},
      {"replica_groups=[2,4]<=[8]T()",
       "10:59: error: unexpected 'T' after the value of attribute 'replica_groups'"},
      {"replica_groups=[2,4]<=[8]T(0",
       "10:59: error: unexpected 'T' after the value of attribute 'replica_groups'"},
      {"replica_groups=[2,4]<=[8]X",
       "10:59: error: unexpected 'X' after the value of attribute 'replica_groups'"},
      {"replica_groups={{0,1,2,3},{4,5,6,7}}X",
       "10:70: error: unexpected 'X' after the value of attribute 'replica_groups'"},
  };
  for (const Case& c : cases) {
    INFO(c.groups);
    const std::string error =
        parse_error(module(head + c.groups + ", to_apply=%add", /*with_add=*/true));
    CHECK(error.rfind(c.error, 0) == 0);
    CHECK(error.find("is required") == std::string::npos);
  }
  CHECK(parse_error(module("  %p = f32[8]{0} parameter(0) junk")) ==
        "3:31: error: unexpected 'junk' after the instruction; its attributes follow a comma "
        "(`, name=value`)");
}

TEST_CASE("errors name the file, show the line and put a caret under the column") {
  ParseOptions options;
  options.file_name = "model.hlo";
  absl::StatusOr<Module> m =
      parse_module("HloModule m\nENTRY %e {\n\t%a = f32[2]{0} foo(%a)\n}\n", options);
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().message() ==
        "model.hlo:3:17: error: unknown opcode 'foo'\n"
        "\t%a = f32[2]{0} foo(%a)\n"
        "\t               ^");
  std::optional<ParseErrorLocation> where = parse_error_location(m.status());
  REQUIRE(where.has_value());
  CHECK(where->line == 3);
  CHECK(where->column == 17);
  CHECK(where->message == "unknown opcode 'foo'");
  CHECK_FALSE(parse_error_location(absl::InternalError("other")).has_value());
}

TEST_CASE("long lines are cut around the error") {
  std::string body = "  %a = f32[2]{0} parameter(0), metadata={op_name=\"" + std::string(300, 'x') +
                     "\"}, bogus={}";
  absl::StatusOr<Module> m = parse_module(module(body));
  REQUIRE_FALSE(m.ok());
  std::string message(m.status().message());
  // The window keeps 80 columns on each side of the caret.
  CHECK(message.find("...") != std::string::npos);
  CHECK(message.size() < 300);
  CHECK(message.substr(0, message.find('\n')) == "3:355: error: unknown attribute 'bogus'");
}

TEST_CASE("line and column count the newlines of comments, strings and blobs before the error") {
  // Line 4 is `  second */ %a = f32[2]{0} foo(%a)`: 12 bytes before %a, 15 more before foo.
  CHECK(parse_error("HloModule m\nENTRY %e {\n  /* first\n  second */ %a = f32[2]{0} foo(%a)\n}") ==
        "4:28: error: unknown opcode 'foo'");
  // A comment of three lines before ENTRY moves everything down by two lines; on line 6,
  // `  %a = f32[2]{0} ` is 17 bytes.
  CHECK(parse_error("HloModule m\n/* a\n b\n c */\nENTRY %e {\n  %a = f32[2]{0} foo(%a)\n}") ==
        "6:18: error: unknown opcode 'foo'");
  // Line 4 is `y"}, bogus={}`: bogus starts at byte 6.
  CHECK(
      parse_error(module("  %a = f32[2]{0} parameter(0), metadata={op_name=\"x\ny\"}, bogus={}")) ==
      "4:6: error: unknown attribute 'bogus'");
  // A string of 50 newlines opened on line 3: the error is on line 53, `"}, bogus={}`.
  std::string lines;
  for (int i = 0; i < 50; ++i) lines += "line\n";
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0), metadata={op_name=\"" + lines +
                           "\"}, bogus={}")) == "53:5: error: unknown attribute 'bogus'");
  // Line 5 is `"b": 2}, bogus={}`: bogus starts at byte 10.
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0), backend_config={\n\"a\": 1,\n"
                           "\"b\": 2}, bogus={}")) == "5:10: error: unknown attribute 'bogus'");
  // A line comment ends at the newline; the error is at the start of the next line.
  CHECK(parse_error("HloModule m // the name\nENTRY %e {\n%a = f32[2]{0} foo(%a)\n}") ==
        "3:16: error: unknown opcode 'foo'");
  // An error inside a string of several lines is at the string's opening quote: line 3,
  // after the 49 bytes of `  %a = f32[2]{0} parameter(0), metadata={op_name=`.
  CHECK(parse_error(module("  %a = f32[2]{0} parameter(0), metadata={op_name=\"x\n\\q\"}")) ==
        "3:50: error: invalid string: unknown escape sequence: \\q");
}

TEST_CASE("empty and garbage inputs are errors, not crashes") {
  CHECK(parse_error("") == "1:1: error: expected a computation, got end of input");
  CHECK(parse_error("HloModule") == "1:10: error: expected the module name, got end of input");
  CHECK(parse_error("}{") == "1:1: error: expected a computation name, got '}'");
  CHECK(parse_error("HloModule m\nENTRY %e {\n}") ==
        "3:1: error: computation e has no instructions");
  CHECK(parse_error(std::string_view("HloModule m\0", 12)) == "1:12: error: NUL byte in the input");
}

TEST_CASE("8.2-21 a window of no size, stride or dilation") {
  // XLA's shape inference refuses each, and verify() too: at the opcode.
  const auto conv = [](std::string_view window) {
    return module(str_cat("  %a = f32[1,8,8,1]{3,2,1,0} parameter(0)\n"
                          "  %k = f32[3,3,1,1]{3,2,1,0} parameter(1)\n"
                          "  %c = f32[1,4,4,1]{3,2,1,0} convolution(%a, %k), window={",
                          window, "}, dim_labels=b01f_01io->b01f"));
  };
  CHECK(parse_error(conv("size=3x3 stride=2x0")) ==
        "5:30: error: window stride must be at least 1, got 0");
  CHECK(parse_error(conv("size=3x0")) == "5:30: error: window size must be at least 1, got 0");
  CHECK(parse_error(conv("size=3x3 rhs_dilate=0x1")) ==
        "5:30: error: window rhs_dilate must be at least 1, got 0");
  CHECK(parse_error(conv("size=3x3 lhs_dilate=1x0")) ==
        "5:30: error: window lhs_dilate must be at least 1, got 0");
  // Unit values are the defaults: they parse.
  testing::parse_ok(conv("size=3x3 stride=1x1 lhs_dilate=1x1 rhs_dilate=1x1"));
}

TEST_CASE("8.2-22 a convolution's group counts: positive, the feature groups dividing") {
  const auto conv = [](std::string_view features, std::string_view groups) {
    return module(str_cat("  %a = f32[1,8,8,", features, "]{3,2,1,0} parameter(0)\n"
                          "  %k = f32[3,3,1,", features, "]{3,2,1,0} parameter(1)\n"
                          "  %c = f32[1,6,6,", features, "]{3,2,1,0} convolution(%a, %k), "
                          "window={size=3x3}, dim_labels=b01f_01io->b01f, ", groups));
  };
  CHECK(parse_error(conv("4", "feature_group_count=0")) ==
        "5:30: error: feature_group_count must be at least 1, got 0");
  CHECK(parse_error(conv("4", "batch_group_count=-2")) ==
        "5:30: error: batch_group_count must be at least 1, got -2");
  CHECK(parse_error(conv("6", "feature_group_count=4")) ==
        "5:30: error: feature_group_count=4 does not divide the 6 input features of operand a "
        "(f32[1,8,8,6]{3,2,1,0})");
  // Depthwise: as many groups as features.
  testing::parse_ok(conv("4", "feature_group_count=4"));
}

}  // namespace
}  // namespace hloroof

namespace hloroof {
namespace {

using testing::parse_error;

TEST_CASE("hostile inputs are errors, not crashes or huge allocations") {
  auto in_entry = [](std::string_view body) {
    return "HloModule m\nENTRY %e {\n" + std::string(body) + "\n}\n";
  };
  // 2^40 devices would need terabytes once expanded.
  CHECK(parse_error(
            in_entry(
                "  %p = f32[4] parameter(0), sharding={devices=[1099511627776]<=[1099511627776]}"))
            .find("tile assignment has more than 1048576 tiles") != std::string::npos);
  CHECK(parse_error(in_entry("  %a = f32[] parameter(0)\n  %r = f32[] all-reduce(%a), "
                             "replica_groups=[1,8589934592]<=[8589934592], to_apply=%x"))
            .find("iota device list has more than 4294967296 ids") != std::string::npos);
  CHECK(parse_error(in_entry("  %a = f32[] parameter(0)\n  %r = f32[] all-reduce(%a), "
                             "replica_groups=[4611686018427387904,4]<=[8], to_apply=%x"))
            .find("needs more") != std::string::npos);
  // Inferring the shape of a pad whose size overflows fails cleanly.
  CHECK(parse_error(
            in_entry("  %a = f32[9223372036854775807] parameter(0)\n  %z = f32[] constant(0)\n"
                     "  %q = pad(%a, %z), padding=9223372036854775807_1")) ==
        "5:8: error: cannot infer the shape of pad; write the shape before the opcode");
  // Deep nesting of literals, shapes and nested instructions is bounded.
  std::string deep_shape =
      "  %p = " + std::string(200, '(') + "f32[]" + std::string(200, ')') + " parameter(0)";
  CHECK(parse_error(in_entry(deep_shape)).find("nested more than 64 levels deep") !=
        std::string::npos);
  std::string nested = "  %r = f32[] ";
  for (int k = 0; k < 100; ++k) nested += "negate(";
  nested += "f32[] parameter(0)" + std::string(100, ')');
  CHECK(parse_error(in_entry(nested)).find("nested more than 64 levels deep") != std::string::npos);
  std::string rank100 = "f32[1";
  for (int k = 1; k < 100; ++k) rank100 += ",1";
  rank100 += "]";
  CHECK(parse_error(in_entry("  %c = " + rank100 + " constant(" + std::string(100, '{') + "0" +
                             std::string(100, '}') + ")"))
            .find("literal nested more than 64 levels deep") != std::string::npos);
}

}  // namespace
}  // namespace hloroof
