// The bytes of a file, and the text of a module under examples/ (for tests that run the bundled
// examples).
#ifndef HLOROOF_TESTS_EXAMPLES_H_
#define HLOROOF_TESTS_EXAMPLES_H_

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hloroof::testing {

// The whole file, byte for byte; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline std::string read_example(const std::string& name) {
  std::string text = read_file(std::string(HLOROOF_SOURCE_DIR) + "/examples/" + name);
  REQUIRE(!text.empty());
  return text;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_EXAMPLES_H_
