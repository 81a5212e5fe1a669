// Helpers shared by the module parser tests.
#ifndef HLOROOF_TESTS_TEXT_MODULE_TEST_UTIL_H_
#define HLOROOF_TESTS_TEXT_MODULE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace hloroof::testing {

// Parses `text`, requiring success, and checks the round trip every parsed module must
// satisfy: printing is idempotent and the reparsed graph equals the first.
inline Module parse_ok(std::string_view text) {
  absl::StatusOr<Module> module = parse_module(text);
  INFO(text);
  INFO(module.status().ToString());
  REQUIRE_OK(module);
  std::string printed = print(*module);
  absl::StatusOr<Module> again = parse_module(printed);
  INFO(printed);
  INFO(again.status().ToString());
  REQUIRE_OK(again);
  CHECK(print(*again) == printed);
  std::string difference;
  CHECK(structurally_equal(*module, *again, &difference));
  INFO(difference);
  return *std::move(module);
}

// The error message of a text that must not parse (without the source line and caret).
inline std::string parse_error(std::string_view text) {
  ParseOptions options;
  options.show_source_line = false;
  absl::StatusOr<Module> module = parse_module(text, options);
  if (module.ok()) return "parsed";
  return std::string(module.status().message());
}

inline const Instruction& find(const Module& m, std::string_view computation,
                               std::string_view name) {
  const Computation* c = m.find_computation(computation);
  REQUIRE(c != nullptr);
  const Instruction* i = c->find_instruction(name);
  INFO(name);
  REQUIRE(i != nullptr);
  return *i;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_TEXT_MODULE_TEST_UTIL_H_
