// Helpers shared by the IR tests: texts that must parse, parsed with the failure shown.
#ifndef HLOROOF_TESTS_IR_IR_TEST_UTIL_H_
#define HLOROOF_TESTS_IR_IR_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string_view>

#include "hloroof/hlo_text.h"
#include "hloroof/shape_text.h"
#include "require_ok.h"

namespace hloroof::testing {

inline Module module_of(std::string_view text) {
  absl::StatusOr<Module> module = parse_module(text);
  INFO(module.status().ToString());
  REQUIRE_OK(module);
  return *std::move(module);
}

inline Shape shape_of(std::string_view text) {
  absl::StatusOr<Shape> shape = parse_shape(text);
  INFO(text << ": " << shape.status().ToString());
  REQUIRE_OK(shape);
  return *std::move(shape);
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_IR_IR_TEST_UTIL_H_
