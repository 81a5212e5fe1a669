// Instruction metadata: kept as text when written in the printers' plain form and decoded on
// each read, kept as a decoded record otherwise; both read the same and print as written.
#include <catch2/catch.hpp>
#include <string>

#include "hloroof/computation.h"
#include "hloroof/hlo_text.h"
#include "hloroof/module.h"
#include "ir/metadata_scan.h"

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
  REQUIRE(m.ok());
  const Instruction* root = m->entry()->root();
  const Attribute* a = root->attribute(AttrId::kMetadata);
  REQUIRE(a != nullptr);
  CHECK(a->text == kPlain);
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
  REQUIRE(m.ok());
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
  REQUIRE(plain.ok());
  std::string difference;
  CHECK(structurally_equal(*m, *plain, &difference));
  CHECK(difference.empty());
}

TEST_CASE("metadata with escapes, profile_type or a payload is decoded in full") {
  absl::StatusOr<Module> m = parse_module(
      module_with(R"(, metadata={op_name="a\"b" profile_type={1,3} metadata_payload="p\n"})"));
  REQUIRE(m.ok());
  std::optional<OpMetadata> md = m->entry()->root()->metadata();
  REQUIRE(md.has_value());
  CHECK(md->op_name == "a\"b");
  REQUIRE(md->profile_type.size() == 2);
  CHECK(md->profile_type[0] == 1);
  CHECK(md->profile_type[1] == 3);
  CHECK(md->metadata_payload == "p\n");
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

}  // namespace
}  // namespace hloroof
