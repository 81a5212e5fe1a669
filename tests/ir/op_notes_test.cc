// Notes about single ops grouped when several ops get the same one (lib/ir/op_notes.h): the
// names are looked up in the module, wherever they are, and only they count as ops.
#include "ir/op_notes.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// 200 adds in the entry (add.0 ... add.199: names of every length and last digit the noted
// ones have) and two custom calls in the computation it calls.
std::string module_text() {
  std::string text = "HloModule m\n\nkernels {\n  p = f32[8] parameter(0)\n"
                     "  k.1 = f32[8] custom-call(p), custom_call_target=\"a\"\n"
                     "  ROOT k.22 = f32[8] custom-call(k.1), custom_call_target=\"a\"\n}\n\n"
                     "ENTRY main {\n  x = f32[8] parameter(0)\n";
  std::string last = "x";
  for (int k = 0; k < 200; ++k) {
    absl::StrAppend(&text, "  add.", k, " = f32[8] add(", last, ", x)\n");
    last = absl::StrCat("add.", k);
  }
  absl::StrAppend(&text, "  ROOT c = f32[8] call(", last, "), to_apply=kernels\n}\n");
  return text;
}

TEST_CASE("notes of the same text about ops of the module become one line where the first was") {
  absl::StatusOr<Module> module = parse_module(module_text());
  REQUIRE_OK(module);
  const std::vector<std::string> lines = {
      "first line, not about an op",
      "k.22: target a is not understood",
      "add.17: rounded",
      "DCN: rounded",  // no instruction of that name: kept as it is
      "k.1: target a is not understood",
      "add.170: rounded",
      "add.7: said once",
  };
  const std::vector<std::string> grouped = group_op_notes(lines, &*module);
  // The custom calls are found in the callee; add.17 and add.170 differ from other adds' names
  // by a digit only.
  const std::vector<std::string> expected = {
      "first line, not about an op",
      "2 custom calls: target a is not understood; e.g. k.22, k.1",
      "2 ops: rounded; e.g. add.17, add.170",
      "DCN: rounded",
      "add.7: said once",
  };
  CHECK(grouped == expected);
  // Without the module every name counts: DCN joins the adds.
  const std::vector<std::string> without = group_op_notes(lines, nullptr);
  REQUIRE(without.size() == 4);
  CHECK(without[2] == "3 ops: rounded; e.g. add.17, DCN, add.170");
}

}  // namespace
}  // namespace hloroof
