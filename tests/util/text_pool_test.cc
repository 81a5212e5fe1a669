// TextPool keeps each text once, and its views stay valid while it lives.
#include "hloroof/text_pool.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace {

using hloroof::TextPool;

TEST_CASE("TextPool saves equal texts once and keeps them while it lives") {
  TextPool texts;
  std::string model = "gemm table h100 (measured, interpolated)";
  const std::string_view a = texts.save(model);
  model.assign(model.size(), '?');  // the pool holds its own bytes
  CHECK(a == "gemm table h100 (measured, interpolated)");
  const std::string_view b =
      texts.save(std::string("gemm table h100 ") + "(measured, interpolated)");
  CHECK(b.data() == a.data());  // the same text, held once
  const std::string_view c = texts.save("roofline");
  CHECK(c == "roofline");
  CHECK(c.data() != a.data());
  CHECK(texts.save("").empty());
  // save_once does not look: the same text twice is held twice.
  const std::string_view d = texts.save_once("fusion.1");
  const std::string_view e = texts.save_once("fusion.1");
  CHECK(d == e);
  CHECK(d.data() != e.data());
}

TEST_CASE("TextPool views stay where they are as the pool grows") {
  TextPool texts;
  std::vector<std::string_view> views;
  // 20000 texts of 7-8 bytes and a few larger than a block (64 KiB): many blocks.
  for (int k = 0; k < 20000; ++k) {
    views.push_back(texts.save_once("op." + std::to_string(k)));
    if (k % 5000 == 0) views.push_back(texts.save(std::string(100000 + k, 'x')));
  }
  size_t large = 0;
  for (int k = 0, v = 0; k < 20000; ++k, ++v) {
    CHECK(views[v] == "op." + std::to_string(k));
    if (k % 5000 == 0) {
      ++v;
      CHECK(views[v].size() == static_cast<size_t>(100000 + k));
      large += views[v].find_first_not_of('x') == std::string_view::npos;
    }
  }
  CHECK(large == 4);
}

}  // namespace
