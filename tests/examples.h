// The text of a module under examples/, for tests that run the bundled examples.
#ifndef HLOROOF_TESTS_EXAMPLES_H_
#define HLOROOF_TESTS_EXAMPLES_H_

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace hloroof::testing {

inline std::string read_example(const std::string& name) {
  std::ifstream in(std::string(HLOROOF_SOURCE_DIR) + "/examples/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(!text.str().empty());
  return text.str();
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_EXAMPLES_H_
