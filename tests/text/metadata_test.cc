// Instruction metadata: kept as text when written in the printers' plain form and decoded on
// each read, kept as a decoded record otherwise; both read the same and print as written. And
// the attribute forms the parser reads straight from the text (metadata, integer lists,
// integers, computation references): every other spelling of the same value reads the same, and
// errors inside them are reported where and as the token-by-token parser reports them.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hloroof/computation.h"
#include "hloroof/hlo_text.h"
#include "hloroof/module.h"
#include "hloroof/replica_groups.h"
#include "hloroof/sharding.h"
#include "ir/arena.h"
#include "ir/metadata_scan.h"
#include "module_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

std::string module_with(std::string_view attributes) {
  return std::string(
             "HloModule m\n\nENTRY %e (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
             "  ROOT %b = f32[] negate(%a)") +
         std::string(attributes) + "\n}\n";
}

// Every field of the plain form, each with a distinct value.
constexpr std::string_view kPlain =
    R"({op_type="dot" op_name="jit(f)/dot_general" source_file="m.py" source_line=7 )"
    R"(source_end_line=9 source_column=3 source_end_column=12 deduplicated_name="dd" )"
    R"(scheduling_name="sn" stack_frame_id=4})";

void check_every_field(const OpMetadata& m) {
  CHECK(m.op_type == "dot");
  CHECK(m.op_name == "jit(f)/dot_general");
  CHECK(m.source_file == "m.py");
  CHECK(m.source_line == 7);
  CHECK(m.source_end_line == 9);
  CHECK(m.source_column == 3);
  CHECK(m.source_end_column == 12);
  CHECK(m.deduplicated_name == "dd");
  CHECK(m.scheduling_name == "sn");
  CHECK(m.stack_frame_id == 4);
  CHECK(m.profile_type.empty());
  CHECK(m.metadata_payload.empty());
}

TEST_CASE("plain metadata is kept as text and every field reads back") {
  const std::string text = module_with(std::string(", metadata=") + std::string(kPlain));
  absl::StatusOr<Module> m = parse_module(text);
  REQUIRE_OK(m);
  const Instruction* root = m->entry()->root();
  const Attribute* a = root->attribute(AttrId::kMetadata);
  REQUIRE(a != nullptr);
  CHECK(a->text() == kPlain);
  CHECK(a->get<const OpMetadata*>() == nullptr);  // no decoded record
  std::optional<OpMetadata> md = root->metadata();
  REQUIRE(md.has_value());
  check_every_field(*md);
  CHECK(print(*m) == text);
  CHECK_FALSE(m->entry()->root()->operand(0)->metadata().has_value());
}

TEST_CASE("metadata in another spelling keeps a decoded record that reads the same") {
  // Commas between fields take the full parser.
  std::string commas(kPlain);
  for (size_t at = commas.find("\" "); at != std::string::npos; at = commas.find("\" ", at)) {
    commas.replace(at, 2, "\", ");
  }
  const std::string text = module_with(", metadata=" + commas);
  absl::StatusOr<Module> m = parse_module(text);
  REQUIRE_OK(m);
  const Attribute* a = m->entry()->root()->attribute(AttrId::kMetadata);
  REQUIRE(a != nullptr);
  REQUIRE(a->get<const OpMetadata*>() != nullptr);
  CHECK(*a->get<const OpMetadata*>() != nullptr);
  std::optional<OpMetadata> md = m->entry()->root()->metadata();
  REQUIRE(md.has_value());
  check_every_field(*md);
  CHECK(print(*m) == text);  // printed as written
  absl::StatusOr<Module> plain =
      parse_module(module_with(std::string(", metadata=") + std::string(kPlain)));
  REQUIRE_OK(plain);
  std::string difference;
  CHECK(structurally_equal(*m, *plain, &difference));
  CHECK(difference.empty());
}

TEST_CASE("metadata with escapes, profile_type or a payload is decoded in full") {
  absl::StatusOr<Module> m = parse_module(
      module_with(R"(, metadata={op_name="a\"b" profile_type={1,3} metadata_payload="p\n"})"));
  REQUIRE_OK(m);
  std::optional<OpMetadata> md = m->entry()->root()->metadata();
  REQUIRE(md.has_value());
  CHECK(md->op_name == "a\"b");
  REQUIRE(md->profile_type.size() == 2);
  CHECK(md->profile_type[0] == 1);
  CHECK(md->profile_type[1] == 3);
  CHECK(md->metadata_payload == "p\n");
}

TEST_CASE("op_name() reads metadata()'s op_name in every form and place") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string(", metadata=") + std::string(kPlain), "jit(f)/dot_general"},
      {R"(, metadata={op_name="first" op_type="t"})", "first"},
      // After an integer field, a string holding `op_name=`, and an empty string.
      {R"(, metadata={source_line=12 source_file="op_name=\"x" op_type="" op_name="late"})",
       "late"},
      {R"(, metadata={op_name=""})", ""},
      {R"(, metadata={op_type="only"})", ""},
      {R"(, metadata={})", ""},
      {"", ""},
      // Kept as a decoded record: escapes, commas between fields.
      {R"(, metadata={op_name="a\"b" profile_type={1,3}})", "a\"b"},
      {R"(, metadata={op_type="t", op_name="comma"})", "comma"},
  };
  for (const auto& [attributes, op_name] : cases) {
    INFO(attributes);
    absl::StatusOr<Module> m = parse_module(module_with(attributes));
    REQUIRE_OK(m);
    const Instruction* root = m->entry()->root();
    CHECK(root->op_name() == op_name);
    const std::optional<OpMetadata> md = root->metadata();
    CHECK(root->op_name() == (md ? md->op_name : std::string_view()));
  }
}

TEST_CASE("the plain metadata scanner reads exactly one record and refuses other forms") {
  OpMetadata m;
  // `{op_name="x" source_line=12}` is 1 + 11 + 1 + 14 + 1 = 28 characters; what follows is
  // not read.
  std::string_view text = R"({op_name="x" source_line=12}, sharding={replicated})";
  CHECK(detail::scan_plain_metadata(text, &m) == 28);
  CHECK(m.op_name == "x");
  CHECK(m.source_line == 12);
  CHECK(detail::scan_plain_metadata("{}", &m) == 2);
  CHECK(m.op_name.empty());
  OpMetadata untouched;
  untouched.source_line = 5;
  for (std::string_view refused : {
           R"({op_name="x" op_name="y"})",   // repeated field
           R"({op_name="x", op_type="y"})",  // comma
           R"({op_name="x)",                 // no closing quote
           R"({op_name="x")",                // no closing brace
           R"({source_line=})",              // no number
           R"({profile_type={1}})",          // not in the plain form
           R"({op_name="a\"b"})",            // escape
           R"(op_name="x")",                 // no opening brace
           "",
       }) {
    CHECK(detail::scan_plain_metadata(refused, &untouched) == 0);
    CHECK(untouched.source_line == 5);
  }
}

TEST_CASE("the plain metadata scanner finds quotes, escapes and newlines at any offset") {
  // Strings of 40 bytes put the stop in the first 16-byte block, in the second, in the 8-byte
  // step after the last whole block (offsets 32-39) and in the last bytes, on both sides of
  // each boundary.
  for (size_t at :
       {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{24}, size_t{31},
        size_t{32}, size_t{33}, size_t{35}, size_t{38}, size_t{39}, size_t{40}}) {
    INFO(at);
    std::string body(40, 'x');
    OpMetadata m;
    std::string text = "{op_name=\"" + body.substr(0, at) + "\"}";
    // `{op_name="` is 10 bytes, then `at` bytes, the quote and the brace.
    CHECK(detail::scan_plain_metadata(text, &m) == 10 + at + 2);
    CHECK(m.op_name == body.substr(0, at));
    for (char stop : {'\\', '\n'}) {
      std::string refused = "{op_name=\"" + body + "\"}";
      refused[10 + at] = stop;
      OpMetadata untouched;
      CHECK(detail::scan_plain_metadata(refused, &untouched) == 0);
      CHECK(untouched.op_name.empty());
    }
  }
  // Bytes next to the stops (and bytes with the high bit set) are no stops, in any lane.
  const std::string near = "\x01\x80\xff#![]\x09\x0b\x21\x23\x5b\x5d\x7f";  // 13 bytes
  std::string body;
  while (body.size() < 45) body += near;
  const std::string text = "{op_name=\"" + body + "\"}";
  OpMetadata m;
  CHECK(detail::scan_plain_metadata(text, &m) == text.size());
  CHECK(m.op_name == body);
  // A string that runs to the end of the text has no closing quote.
  CHECK(detail::scan_plain_metadata("{op_name=\"" + std::string(40, 'x'), nullptr) == 0);
}

TEST_CASE("metadata with escaped strings is decoded as the token path decodes it") {
  // JAX names parameters `params['w']`, printed with escaped quotes.
  detail::Arena arena;
  OpMetadata m;
  const std::string text =
      R"({op_name="params[\'layers_0\'][\'w\']" source_file="a\\b\"c.py" source_line=3})";
  CHECK(detail::scan_escaped_metadata(text, arena, &m) == text.size());
  CHECK(m.op_name == "params['layers_0']['w']");
  CHECK(m.source_file == "a\\b\"c.py");  // an escaped backslash, then an escaped quote
  CHECK(m.source_line == 3);
  // Strings without escapes stay views into the text.
  OpMetadata plain;
  const std::string unescaped = R"({op_name="x" source_file="y"})";
  CHECK(detail::scan_escaped_metadata(unescaped, arena, &plain) == unescaped.size());
  CHECK(plain.op_name.data() == unescaped.data() + 10);
  // What the token path must report, or read, is refused: an escape absl::CUnescape does not
  // know, a backslash at the end, a line break, a field outside the plain form.
  for (const std::string& refused : {
           std::string(R"({op_name="a\q"})"),
           std::string(R"({op_name="a\)"),
           std::string("{op_name=\"a\\'\nb\"}"),
           std::string(R"({op_name="a\'" profile_type={1}})"),
       }) {
    CAPTURE(refused);
    OpMetadata untouched;
    untouched.source_line = 5;
    CHECK(detail::scan_escaped_metadata(refused, arena, &untouched) == 0);
    CHECK(untouched.source_line == 5);
    CHECK(untouched.op_name.empty());
  }
  // Parsed, the same record as the token path keeps (the module's printer writes the text as
  // it was, so both spellings print back unchanged).
  for (std::string_view separator : {" ", ", "}) {
    CAPTURE(separator);
    const std::string module = std::string(R"(HloModule m
ENTRY %e {
  ROOT %p = f32[] parameter(0), metadata={op_name="params[\'w\']")") +
                               std::string(separator) + R"(source_line=7}
}
)";
    Module parsed = testing::parse_ok(module);
    std::optional<OpMetadata> read = parsed.entry()->root()->metadata();
    REQUIRE(read.has_value());
    CHECK(read->op_name == "params['w']");
    CHECK(read->source_line == 7);
    CHECK(print(parsed).find(R"(metadata={op_name="params[\'w\']")" +
                                    std::string(separator) + "source_line=7}") !=
          std::string::npos);
  }
}

TEST_CASE("the plain metadata scanner reads integers as from_chars does") {
  auto line = [](std::string_view number) -> std::optional<int64_t> {
    OpMetadata m;
    std::string text = "{source_line=" + std::string(number) + "}";
    if (detail::scan_plain_metadata(text, &m) != text.size()) return std::nullopt;
    return m.source_line;
  };
  CHECK(line("0") == 0);
  CHECK(line("007") == 7);
  CHECK(line("-5") == -5);
  CHECK(line("123456789012345678") == 123456789012345678);    // 18 digits
  CHECK(line("1234567890123456789") == 1234567890123456789);  // 19: the long way
  CHECK(line("9223372036854775807") == INT64_MAX);
  CHECK(line("-9223372036854775808") == INT64_MIN);
  CHECK(line("00000000000000000000001") == 1);
  CHECK_FALSE(line("9223372036854775808").has_value());  // 2^63 does not fit
  CHECK_FALSE(line("-").has_value());
  CHECK_FALSE(line("").has_value());
  CHECK_FALSE(line("+5").has_value());
  CHECK_FALSE(line("5x").has_value());
  CHECK_FALSE(line("1.5").has_value());
}

TEST_CASE("the plain metadata scanner knows each field by its whole name") {
  OpMetadata m;
  // Every field in another order than printers use: same values as kPlain.
  constexpr std::string_view kShuffled =
      R"({stack_frame_id=4 scheduling_name="sn" deduplicated_name="dd" source_end_column=12 )"
      R"(source_column=3 source_end_line=9 source_line=7 source_file="m.py" )"
      R"(op_name="jit(f)/dot_general" op_type="dot"})";
  CHECK(detail::scan_plain_metadata(kShuffled, &m) == kShuffled.size());
  check_every_field(m);
  CHECK(detail::scan_plain_metadata(kShuffled, nullptr) == kShuffled.size());
  for (std::string_view refused : {
           R"({op_nam="x"})",
           R"({op_namex="x"})",
           R"({op_typ="x"})",
           R"({source_fil="x"})",
           R"({source_lines=1})",
           R"({source_end_lin=1})",
           R"({source_end_columns=1})",
           R"({source_colum=1})",
           R"({stack_frame_idx=1})",
           R"({scheduling="x"})",
           R"({deduplicated_nam="x"})",
           R"({s=1})",
           R"({so=1})",
           R"({o="x"})",
           R"({op_name ="x"})",
           R"({op_name= "x"})",
           R"({op_name="x"  source_line=1})",
           R"({ op_name="x"})",
           R"({op_name="x" })",
           R"({op_name='x'})",
           R"({Op_name="x"})",
           R"({op_name="x"source_line=1})",
           R"({source_line="1"})",
           R"({op_name=1})",
       }) {
    INFO(refused);
    CHECK(detail::scan_plain_metadata(refused, &m) == 0);
    CHECK(detail::scan_plain_metadata(refused, nullptr) == 0);
  }
}

// A module whose line 10 is `line`, after %add (lines 2-6) and %p, %c (lines 8-9) of the entry.
std::string entry_line(std::string_view line) {
  return "HloModule m\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
         "  %y = f32[] parameter(1)\n  ROOT %s = f32[] add(%x, %y)\n}\nENTRY %e {\n"
         "  %p = f32[2,3]{1,0} parameter(0)\n  %c = f32[] constant(0)\n" +
         std::string(line) + "\n}\n";
}

// `  ROOT %r = f32[2]{0} reduce(%p, %c)` is 36 bytes: what follows starts at column 37.
constexpr std::string_view kReduce = "  ROOT %r = f32[2]{0} reduce(%p, %c)";

// Parses `line` as the entry's last line (it must parse and print back) and checks that it
// builds the same module as `expected`.
Module parse_same(const Module& expected, std::string_view line) {
  INFO(line);
  Module m = testing::parse_ok(entry_line(line));
  std::string difference;
  CHECK(structurally_equal(expected, m, &difference));
  CHECK(difference.empty());
  return m;
}

// For each (value, message) case, `prefix + value + suffix` as the entry's last line fails to
// parse with that message.
template <size_t n>
void check_errors(std::string_view prefix,
                  const std::pair<std::string_view, std::string_view> (&cases)[n],
                  std::string_view suffix = "") {
  for (const auto& [value, message] : cases) {
    INFO(value);
    CHECK(testing::parse_error(entry_line(std::string(prefix) + std::string(value) +
                                          std::string(suffix))) == message);
  }
}

// Both lines as the entry's last line build the same module.
void check_same(std::string_view a, std::string_view b) {
  INFO(a);
  parse_same(testing::parse_ok(entry_line(a)), b);
}

TEST_CASE("attributes in the printed form and in other spellings read the same") {
  using testing::parse_ok;
  const std::string printed = std::string(kReduce) +
                              R"(, dimensions={1}, to_apply=%add, metadata={op_name="r" )"
                              R"(source_line=3})";
  Module m = parse_ok(entry_line(printed));
  const Instruction* r = m.entry()->root();
  REQUIRE(r->attribute(AttrId::kMetadata) != nullptr);
  CHECK(r->attribute(AttrId::kMetadata)->text() == R"({op_name="r" source_line=3})");
  CHECK(r->attribute(AttrId::kMetadata)->get<const OpMetadata*>() == nullptr);
  REQUIRE(r->attribute(AttrId::kDimensions) != nullptr);
  CHECK(r->attribute(AttrId::kDimensions)->text() == "{1}");
  // Each spelling is the printed one with one thing changed; all but the last take the token
  // path for the changed attribute.
  for (std::string_view other : {
           R"(, dimensions={ 1 }, to_apply=%add, metadata={op_name="r" source_line=3})",
           R"(, dimensions= {1}, to_apply=%add, metadata={op_name="r" source_line=3})",
           R"(, dimensions={01}, to_apply=%add, metadata={op_name="r" source_line=3})",
           R"(, dimensions={1}, to_apply=add, metadata={op_name="r" source_line=3})",
           R"(, dimensions={1}, to_apply=add:, metadata={op_name="r" source_line=3})",
           "\n    , dimensions={1}, to_apply=add\n    , metadata={op_name=\"r\" source_line=3}",
           R"(, dimensions={1}, to_apply= %add, metadata={op_name="r" source_line=3})",
           R"(, dimensions={1},  to_apply=%add, metadata={op_name="r" source_line=3})",
           R"(, dimensions={1}, to_apply=%add, metadata={op_name="r", source_line=3})",
           R"(, dimensions={1}, to_apply=%add, metadata={op_name="r"  source_line=3})",
           R"(, dimensions={1}, to_apply=%add, metadata={ op_name="r" source_line=3 })",
           R"(, dimensions={1}, to_apply=%add, metadata= {op_name="r" source_line=3})",
           R"(, dimensions={1}, to_apply=%add, metadata={op_name="r" source_line=3})",
           R"(, dimensions={1}, to_apply=%add, metadata={op_name="r" source_line=03})",
           "\n    , dimensions={1}\n    , to_apply=%add\n    , metadata={op_name=\"r\" "
           "source_line=3}",
           R"(,dimensions={1},to_apply=%add,metadata={op_name="r" source_line=3})",
       }) {
    Module o = parse_same(m, std::string(kReduce) + std::string(other));
    const OpMetadata md = *o.entry()->root()->metadata();
    CHECK(md.op_name == "r");
    CHECK(md.source_line == 3);
  }
  // Integer attributes, with and without a space before the line end.
  const std::string gte =
      "  %t = (f32[2,3]{1,0}, f32[]) tuple(%p, %c)\n  ROOT %g = f32[] get-tuple-element(%t)";
  Module g = parse_ok(entry_line(gte + ", index=1"));
  REQUIRE(g.entry()->root()->attribute(AttrId::kIndex) != nullptr);
  CHECK(g.entry()->root()->attribute(AttrId::kIndex)->text() == "1");
  for (std::string_view other : {", index=1 ", ", index= 1", ", index=01", ",index=1"}) {
    parse_same(g, gte + std::string(other));
  }
}

TEST_CASE("errors inside attribute values keep their place and wording") {
  // Columns on line 10: kReduce is 36 bytes, `, dimensions={` 14 more, so the first integer is
  // at column 51; `, dimensions={1}, to_apply=` puts the callee at column 64.
  const std::pair<std::string_view, std::string_view> cases[] = {
      {", dimensions={1,}, to_apply=%add",
       "10:53: error: expected an integer (dimensions), got '}'"},
      {", dimensions={1 0}, to_apply=%add",
       "10:53: error: expected '}' to close dimensions, got '0'"},
      {", dimensions={99999999999999999999}, to_apply=%add",
       "10:51: error: integer 99999999999999999999 does not fit in 64 bits"},
      {", dimensions={9223372036854775808}, to_apply=%add",
       "10:51: error: integer 9223372036854775808 is too large for dimensions"},
      {", dimensions={1}, to_apply=%nope", "10:64: error: computation does not exist: nope"},
      {", dimensions={1}, to_apply=%e", "10:64: error: computation e cannot call itself"},
      {", dimensions={1}, to_apply=%add.", "10:64: error: computation does not exist: add."},
      {", dimensions={1}, dimensions={1}, to_apply=%add",
       "10:55: error: attribute 'dimensions' is given twice"},
      {", dimensions={1}x, to_apply=%add",
       "10:53: error: unexpected 'x' after the value of attribute 'dimensions'; attributes are "
       "separated by commas"},
      // `, dimensions={1}, to_apply=%add, metadata={` ends at column 79: the field at 80.
      {", dimensions={1}, to_apply=%add, metadata={bogus=1}",
       "10:80: error: unknown metadata field 'bogus'"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"x\" bogus=1}",
       "10:92: error: unknown metadata field 'bogus'"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"a\\q\"}",
       "10:88: error: invalid string: unknown escape sequence: \\q"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"x\" source_line=1.5}",
       "10:104: error: expected an integer (source_line), got '1.5'"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"x\" source_line=99999999999999999999}",
       "10:104: error: integer 99999999999999999999 does not fit in 64 bits"},
      {", dimensions={1}, to_apply=%add, metadata={source_line=9223372036854775808}",
       "10:92: error: integer 9223372036854775808 is too large for source_line"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"x",
       "10:88: error: unterminated string"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"x\" op_name=\"y\"}",
       "10:92: error: metadata field 'op_name' repeated"},
      {", dimensions={1}, to_apply=%add, metadata={op_name=\"x\"}, metadata={}",
       "10:94: error: attribute 'metadata' is given twice"},
      {", dimensions={1}, to_apply=%add, metadata ={}",
       "10:70: error: expected an attribute (name=value), got 'metadata'"},
      {", dimensions={1}, to_apply=%add, Metadata={}",
       "10:70: error: unknown attribute 'Metadata'"},
  };
  check_errors(kReduce, cases);
  // A callee without '%' is a name only where the lexer reads an identifier: reserved words
  // and element types are not names, even of a computation that exists.
  for (std::string_view reserved : {"true", "f32", "nan", "ROOT", "replicated"}) {
    INFO(reserved);
    std::string text =
        entry_line(std::string(kReduce) + ", dimensions={1}, to_apply=%" + std::string(reserved));
    const size_t add = text.find("%add");
    text.replace(add, 4, "%" + std::string(reserved));
    CHECK(testing::parse_error(text) == "parsed");
    text.replace(text.rfind("=%") + 1, 1, "");
    CHECK(testing::parse_error(text) ==
          "10:64: error: expected a computation name, got '" + std::string(reserved) + "'");
  }
  const std::pair<std::string_view, std::string_view> callee_cases[] = {
      {", dimensions={1}, to_apply=nope", "10:64: error: computation does not exist: nope"},
      {", dimensions={1}, to_apply=add=", "10:64: error: expected a computation name, got 'add='"},
      {", dimensions={1}, to_apply=1add", "10:64: error: expected a computation name, got '1'"},
      {", dimensions={1}, to_apply=e", "10:64: error: computation e cannot call itself"},
  };
  check_errors(kReduce, callee_cases);
  // `  ROOT %g = f32[] get-tuple-element(%t)` is 39 bytes, `, index=` 8 more: the value is at
  // column 48 of line 11.
  const std::string gte =
      "  %t = (f32[2,3]{1,0}, f32[]) tuple(%p, %c)\n  ROOT %g = f32[] get-tuple-element(%t)";
  const std::pair<std::string_view, std::string_view> index_cases[] = {
      {", index=1x2", "11:48: error: expected an integer (index), got '1x2'"},
      {", index=1.", "11:48: error: expected an integer (index), got '1.'"},
      {", index=", "12:1: error: expected an integer (index), got '}'"},
      {", index=-1", "11:19: error: tuple index -1 is out of range: t has 2 elements"},
      {", index=9223372036854775808",
       "11:48: error: integer 9223372036854775808 is too large for index"},
      {", index=1, index=1", "11:51: error: attribute 'index' is given twice"},
  };
  check_errors(gte, index_cases);
  // `  ROOT %s = f32[1,3]{1,0} slice(%p), slice={` is 46 bytes: the first `[` is at column 47.
  const std::string slice = "  ROOT %s = f32[1,3]{1,0} slice(%p)";
  const std::pair<std::string_view, std::string_view> slice_cases[] = {
      {", slice={[0:1:0], [0:3]}", "10:50: error: a slice stride must be positive"},
      {", slice={[0:1], [0:3:-1]}", "10:57: error: a slice stride must be positive"},
      {", slice={[0:1], [0:3],}",
       "10:58: error: expected '[' to open a slice dimension [start:limit], got '}'"},
      {", slice={[0:1] [0:3]}", "10:51: error: expected '}' to close the slice, got '['"},
      {", slice={[0:1], [0:x]}", "10:55: error: expected an integer (the slice limit), got 'x'"},
      {", slice={[0:1], [0;3]}", "10:54: error: unexpected character ';'"},
      {", slice={[0:1], [0:99999999999999999999]}",
       "10:55: error: integer 99999999999999999999 does not fit in 64 bits"},
  };
  check_errors(slice, slice_cases);
  // `  ROOT %q = pred[] compare(%c, %c), direction=` is 46 bytes: the word is at column 47.
  const std::string compare = "  ROOT %q = pred[] compare(%c, %c)";
  const std::pair<std::string_view, std::string_view> word_cases[] = {
      {", direction=ge",
       "10:47: error: 'ge' is not a valid direction; expected one of EQ, NE, GE, GT, LE, LT"},
      {", direction=GE:", "10:47: error: expected a value for direction, got 'GE:'"},
      {", direction=GE=", "10:47: error: expected a value for direction, got 'GE='"},
      {", direction=", "11:1: error: expected a value for direction, got '}'"},
      {", direction=GE, direction=LT", "10:51: error: attribute 'direction' is given twice"},
      {", direction=\"GE\"", "10:47: error: expected a value for direction, got '\"GE\"'"},
      {", direction=GE, type=FLOAT.",
       "10:56: error: 'FLOAT.' is not a valid type; expected one of FLOAT, TOTALORDER, SIGNED, "
       "UNSIGNED"},
  };
  check_errors(compare, word_cases);
}

TEST_CASE("slices and words in the printed form and in other spellings read the same") {
  using testing::parse_ok;
  const std::string slice = "  ROOT %s = f32[1,2]{1,0} slice(%p), slice=";
  for (std::string_view other : {"{[0:1],[1:3]}", "{[0:1],  [1:3]}", "{ [0:1], [1:3] }",
                                 "{[0:1:1], [1:3:1]}", " {[0:1], [1:3]}"}) {
    check_same(slice + "{[0:1], [1:3]}", slice + std::string(other));
  }
  Module strided =
      parse_ok(entry_line("  ROOT %s = f32[1,2]{1,0} slice(%p), slice={[0:1], [0:3:2]}"));
  const Attribute* a = strided.entry()->root()->attribute(AttrId::kSlice);
  REQUIRE(a != nullptr);
  CHECK(a->text() == "{[0:1], [0:3:2]}");
  REQUIRE(a->get<const Slice*>() != nullptr);
  const Slice& s = **a->get<const Slice*>();
  REQUIRE(s.dims.size() == 2);
  CHECK(s.dims[0] == SliceDim{0, 1, 1});
  CHECK(s.dims[1] == SliceDim{0, 3, 2});
  const std::string compare = "  ROOT %q = pred[] compare(%c, %c), direction=";
  for (std::string_view other : {"GE ", " GE", "GE\n  , type=FLOAT"}) {
    check_same(
        compare + "GE" + (other.find("type") != std::string_view::npos ? ", type=FLOAT" : ""),
        compare + std::string(other));
  }
}

TEST_CASE("backend_config blobs and booleans in the printed form and in other spellings") {
  using testing::parse_ok;
  // A blob with braces and escaped quotes inside strings is kept whole, braces included.
  const std::string negate = "  ROOT %n = f32[2,3]{1,0} negate(%p), backend_config=";
  const std::string blob = R"({"a":"}{","b":{"c":"\"x\""},"n":[1,{}]})";
  Module m = parse_ok(entry_line(negate + blob));
  const Attribute* config = m.entry()->root()->attribute(AttrId::kBackendConfig);
  REQUIRE(config != nullptr);
  CHECK(config->text() == blob);
  CHECK(m.entry()->root()->backend_config().text() == blob);
  CHECK(m.entry()->root()->backend_config().find_int("/n/0") == 1);
  // Each other spelling takes the token path for the blob (a space after '=', a comma that is
  // not the printers', a line break before the next attribute) or reads it directly before
  // something else than the usual comma.
  for (std::string_view other :
       {" {\"a\":1}, metadata={op_name=\"n\"}", "{\"a\":1} , metadata={op_name=\"n\"}",
        "{\"a\":1}\n    , metadata={op_name=\"n\"}", "{\"a\":1},metadata={op_name=\"n\"}"}) {
    check_same(negate + "{\"a\":1}, metadata={op_name=\"n\"}", negate + std::string(other));
  }
  const std::string reduce =
      "  ROOT %r = f32[2,3]{1,0} all-reduce(%p), channel_id=1, replica_groups={{0}}, "
      "use_global_device_ids=";
  Module t = parse_ok(entry_line(reduce + "true, to_apply=%add"));
  REQUIRE(t.entry()->root()->attribute(AttrId::kUseGlobalDeviceIds) != nullptr);
  CHECK(*t.entry()->root()->attribute(AttrId::kUseGlobalDeviceIds)->get<bool>() == true);
  CHECK(t.entry()->root()->attribute(AttrId::kUseGlobalDeviceIds)->text() == "true");
  Module f = parse_ok(entry_line(reduce + "false\n    , to_apply=%add"));
  REQUIRE(f.entry()->root()->attribute(AttrId::kUseGlobalDeviceIds) != nullptr);
  CHECK(*f.entry()->root()->attribute(AttrId::kUseGlobalDeviceIds)->get<bool>() == false);
  for (std::string_view other : {"true , to_apply=%add", " true, to_apply=%add",
                                 "true\n    , to_apply=%add", "true,to_apply=%add"}) {
    check_same(reduce + "true, to_apply=%add", reduce + std::string(other));
  }
  // Errors, read by the token path, at the places it gives: `negate` above is 53 bytes, so the
  // blob opens at column 54 of line 10 (a second name at 58, after `{}, `); `reduce` is 100
  // bytes, the boolean at column 101.
  const std::pair<std::string, std::string_view> cases[] = {
      {negate + R"({{"a":1)", "10:54: error: unbalanced '{' (no matching '}')"},
      {negate + R"({"a":"})", "10:54: error: unbalanced '{' (no matching '}')"},
      {negate + "{}, backend_config={}", "10:58: error: attribute 'backend_config' is given twice"},
      {reduce + "True, to_apply=%add",
       "10:101: error: expected true or false (use_global_device_ids), got 'True'"},
      {reduce + "true1, to_apply=%add",
       "10:101: error: expected true or false (use_global_device_ids), got 'true1'"},
      {reduce + "1, to_apply=%add",
       "10:101: error: expected true or false (use_global_device_ids), got '1'"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK(testing::parse_error(entry_line(text)) == message);
  }
}

TEST_CASE("replica groups in iota form as printed and in other spellings read the same") {
  using testing::parse_ok;
  const std::string reduce =
      "  ROOT %r = f32[2,3]{1,0} all-reduce(%p), channel_id=1, replica_groups=";
  Module m = parse_ok(entry_line(reduce + "[2,2]<=[2,2]T(1,0), to_apply=%add"));
  const Attribute* a = m.entry()->root()->attribute(AttrId::kReplicaGroups);
  REQUIRE(a != nullptr);
  CHECK(a->text() == "[2,2]<=[2,2]T(1,0)");
  REQUIRE(a->get<const ReplicaGroups*>() != nullptr);
  const ReplicaGroups& groups = **a->get<const ReplicaGroups*>();
  CHECK(groups.form == ReplicaGroups::Form::kIota);
  CHECK(groups.num_groups == 2);
  CHECK(groups.group_size == 2);
  CHECK(groups.iota_dims == std::vector<int64_t>{2, 2});
  CHECK(groups.iota_transpose == std::vector<int64_t>{1, 0});
  // iota([2,2]) transposed by (1,0) lists 0,2,1,3: groups {0,2} and {1,3}.
  CHECK(groups.id_at(0, 1) == 2);
  CHECK(groups.id_at(1, 0) == 1);
  for (std::string_view printed : {"[2,2]<=[2,2]T(1,0)", "[2,2]<=[4]", "[1,4]<=[4]"}) {
    for (std::string_view after :
         {", to_apply=%add", " , to_apply=%add", "\n    , to_apply=%add", ",to_apply=%add"}) {
      std::string spaced(printed);
      spaced.replace(spaced.find("<="), 2, " <= ");
      for (const std::string& other :
           {std::string(printed) + std::string(after),
            " " + std::string(printed) + std::string(after), spaced + std::string(after)}) {
        check_same(reduce + std::string(printed) + ", to_apply=%add", reduce + other);
      }
    }
  }
  // Errors, read by the token path: `reduce` is 71 bytes, so `[` is at column 72, the iota
  // list at 79 and the transpose list after `T(` at 85.
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"[2,2]<=[3]", "10:79: error: iota device list has 3 ids but [2,2] needs 4"},
      {"[2,2]<=[2,2]T(0,0)",
       "10:85: error: T(0,0) is not a permutation of the iota reshape dims [2,2]"},
      {"[2,2]<=[2,2]T(1)",
       "10:85: error: T(1) is not a permutation of the iota reshape dims [2,2]"},
      {"[2,2]<=[2,2]T(1,0,2)",
       "10:85: error: T(1,0,2) is not a permutation of the iota reshape dims [2,2]"},
      {"[2,2]<=[2,2]",
       "10:79: error: a multi-dimensional iota reshape [2,2] needs a T(...) permutation"},
      {"[2,-2]<=[4]", "10:80: error: iota device list has 4 ids but [2,-2] needs more"},
      {"[2,2]<=[99999999999999999999]",
       "10:80: error: integer 99999999999999999999 does not fit in 64 bits"},
      // `[4]T(0)` leaves the T over: said there, at column 72 + 10 (not as to_apply missing).
      {"[2,2]<=[4]T(0)",
       "10:82: error: unexpected 'T' after the value of attribute 'replica_groups'; attributes "
       "are separated by commas"},
      {"[2,2]<=[4]x",
       "10:82: error: unexpected 'x' after the value of attribute 'replica_groups'; attributes "
       "are separated by commas"},
  };
  check_errors(reduce, cases, ", to_apply=%add");
}

TEST_CASE("common shardings as printed and in other spellings read the same") {
  using testing::parse_ok;
  const std::string negate = "  ROOT %n = f32[2,3]{1,0} negate(%p), sharding=";
  auto sharding_of = [](const Module& m) {
    const Attribute* a = m.entry()->root()->attribute(AttrId::kSharding);
    REQUIRE(a != nullptr);
    REQUIRE(a->get<const Sharding*>() != nullptr);
    return **a->get<const Sharding*>();
  };
  // iota([2,2]) transposed by (1,0) lists devices 0,2,1,3.
  Module m =
      parse_ok(entry_line(negate + "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"));
  const Sharding tiled = sharding_of(m);
  CHECK(tiled.type == Sharding::Type::kTiled);
  CHECK(tiled.tile_shape == std::vector<int64_t>{2, 1, 2});
  CHECK(tiled.devices.expand() == std::vector<int64_t>{0, 2, 1, 3});
  CHECK(tiled.last_tile_dim_replicate);
  CHECK(sharding_of(parse_ok(entry_line(negate + "{maximal device=3}"))).device == 3);
  CHECK(sharding_of(parse_ok(entry_line(negate + "{replicated}"))).type ==
        Sharding::Type::kReplicated);
  // Each printed form against spellings that only the token path reads: spaces inside the
  // braces, around '<=' or ',', before the value, and other bytes before the next attribute.
  const std::pair<std::string_view, std::vector<std::string_view>> spellings[] = {
      {"{replicated}", {"{ replicated }", " {replicated}"}},
      {"{maximal device=3}", {"{maximal  device=3}", "{ maximal device=3}"}},
      {"{devices=[2,2]<=[4]}", {"{devices=[2,2] <= [4]}", "{devices=[2, 2]<=[4]}"}},
      {"{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
       {"{devices=[2,1,2]<=[2,2]T(1,0)  last_tile_dim_replicate}",
        "{last_tile_dim_replicate devices=[2,1,2]<=[2,2]T(1,0)}",
        "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}"}},
      {"{devices=[2,2]0,1,2,3}", {"{devices=[2,2]0, 1, 2, 3}", "{devices=[2,2]<=[4]}"}},
  };
  for (const auto& [printed, others] : spellings) {
    for (std::string_view after : {", metadata={op_name=\"n\"}", " , metadata={op_name=\"n\"}",
                                   "\n    , metadata={op_name=\"n\"}"}) {
      Module a = parse_ok(entry_line(negate + std::string(printed) + std::string(after)));
      std::vector<std::string_view> all = others;
      all.push_back(printed);
      for (std::string_view other : all) {
        INFO(printed);
        INFO(other);
        INFO(after);
        Module o = parse_ok(entry_line(negate + std::string(other) + ", metadata={op_name=\"n\"}"));
        CHECK(sharding_of(a) == sharding_of(o));
      }
    }
  }
  // Errors, read by the token path: `negate` is 47 bytes, so `devices=` is at column 49 and
  // T's list of `{devices=[2,2]<=[2,2]T(` at column 70.
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"{devices=[2,2]<=[3]}",
       "10:49: error: iota device list has 3 devices but the tile assignment [2,2] needs 4"},
      {"{devices=[2,2]0,1,2}",
       "10:49: error: sharding device list has 3 devices but the tile assignment [2,2] needs 4"},
      {"{devices=[2]0}",
       "10:49: error: sharding device list has 1 devices but the tile assignment [2] needs 2"},
      {"{devices=[0,2]<=[4]}", "10:49: error: tile assignment dimensions must be positive"},
      {"{devices=[2,2]<=[2,2]T(0,0)}",
       "10:70: error: T(0,0) is not a permutation of the iota reshape dims [2,2]"},
      {"{devices=[2,2]<=[4]T(0)}",
       "10:67: error: expected a sharding part (replicated, devices=..., metadata=..., ...) or "
       "'}', got 'T'"},
  };
  check_errors(negate, cases, ", metadata={op_name=\"n\"}");
}

}  // namespace
}  // namespace hloroof
