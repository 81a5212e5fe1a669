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

TEST_CASE("TextPool Refs give their texts back, the same Ref for the same text") {
  TextPool texts;
  CHECK(texts.ref("") == 0);
  CHECK(texts.text(0).empty());
  const TextPool::Ref loop = texts.ref("loop fusion");
  CHECK(loop != 0);  // the first text of the first block is not the empty one
  CHECK(texts.text(loop) == "loop fusion");
  CHECK(texts.ref(std::string("loop ") + "fusion") == loop);
  // save() views the text of its Ref.
  CHECK(texts.save("loop fusion").data() == texts.text(loop).data());
  const TextPool::Ref once = texts.ref_once("loop fusion");
  CHECK(once != loop);  // not looked for
  CHECK(texts.text(once) == "loop fusion");
  // Texts of many blocks and a few larger than a block, each Ref its own text; a text with
  // NUL and every byte value.
  std::vector<std::pair<TextPool::Ref, std::string>> held;
  std::string bytes;
  for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
  held.emplace_back(texts.ref(bytes), bytes);
  for (int k = 0; k < 30000; ++k) {
    std::string t = "op." + std::to_string(k);
    held.emplace_back(k % 2 == 0 ? texts.ref(t) : texts.ref_once(t), t);
    if (k % 7000 == 0) {
      std::string large(70000 + k, static_cast<char>('a' + k % 26));
      held.emplace_back(texts.ref(large), large);
    }
  }
  size_t right = 0;
  for (const auto& [ref, text] : held) right += texts.text(ref) == text;
  CHECK(right == held.size());
  // A text saved by ref() is found again by its text (op.28), one saved by ref_once() is not.
  for (const auto& [ref, text] : held) {
    if (text == "op.28") CHECK(texts.ref("op.28") == ref);
    if (text == "op.29") CHECK(texts.ref("op.29") != ref);
  }
  CHECK_FALSE(texts.full());
}

}  // namespace
