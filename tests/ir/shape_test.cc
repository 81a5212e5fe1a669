// Shapes as values: tuple elements stored once per distinct element, layouts shared until
// written, equality and hashing that do not depend on how a shape was built.
#include <catch2/catch.hpp>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "hloroof/shape.h"
#include "hloroof/shape_text.h"
#include "ir_test_util.h"

namespace hloroof {
namespace {

Shape parsed(std::string_view text) { return testing::shape_of(text); }

// `(f32[], f32[], ...)` with `n` elements.
std::string scalars(int n) {
  std::string text = "(";
  for (int i = 0; i < n; ++i) text += i == 0 ? "f32[]" : ", f32[]";
  return text + ")";
}

TEST_CASE("equal tuple elements are stored once") {
  const Shape wide = parsed(scalars(1000));
  REQUIRE(wide.elements.size() == 1000);
  CHECK(wide.elements.distinct().size() == 1);
  CHECK(wide.elements[999] == Shape::Array(PrimitiveType::kF32, {}));
  // Every element is the one stored element.
  CHECK(&wide.elements[0] == &wide.elements[999]);
  int64_t visited = 0;
  for (const Shape& e : wide.elements) visited += e.element_type == PrimitiveType::kF32 ? 1 : 0;
  CHECK(visited == 1000);
  CHECK(wide.array_leaf_count() == 1000);
  CHECK(wide.elements.array_leaves_per_element() == 1);

  // (a, b, a, c, b): three distinct, in order of first appearance.
  const Shape mixed = parsed("(f32[2], s32[], f32[2], (f32[2], token[], f32[3]), s32[])");
  REQUIRE(mixed.elements.size() == 5);
  REQUIRE(mixed.elements.distinct().size() == 3);
  CHECK(mixed.elements.distinct_index(2) == 0);
  CHECK(mixed.elements.distinct_index(3) == 2);
  CHECK(mixed.elements.distinct_index(4) == 1);
  CHECK(mixed.elements[3].is_tuple());
  CHECK(to_string(mixed) == "(f32[2], s32[], f32[2], (f32[2], token[], f32[3]), s32[])");
  // Leaves: 1 + 1 + 1 + (1 + 0 for the token + 1) + 1 = 6, not the same for every element.
  CHECK(mixed.array_leaf_count() == 6);
  CHECK(mixed.elements.array_leaves_per_element() == -1);

  // All distinct.
  const Shape distinct = parsed("(f32[1], f32[2], f32[3])");
  CHECK(distinct.elements.distinct().size() == 3);
  CHECK(distinct.elements[2].dims[0].size == 3);
  CHECK(distinct.elements.back().dims[0].size == 3);
}

TEST_CASE("a tuple of many distinct elements keeps every element") {
  // (f32[1], f32[1], f32[2], ..., f32[n]): element 0 and 1 are equal, element k >= 1 is
  // f32[k]. Past 256 and 65536 distinct elements the stored entries widen; each must survive.
  for (int n : {300, 70000}) {
    std::string text = "(f32[1]";
    for (int k = 1; k <= n; ++k) text += ", f32[" + std::to_string(k) + "]";
    const Shape s = parsed(text + ")");
    REQUIRE(s.elements.size() == static_cast<size_t>(n) + 1);
    CHECK(s.elements.distinct().size() == static_cast<size_t>(n));
    bool all_right = s.elements[0].dims[0].size == 1;
    for (int k = 1; k <= n; ++k) all_right = all_right && s.elements[k].dims[0].size == k;
    CHECK(all_right);
    CHECK(s == parsed(to_string(s)));
    CHECK(s.hash() == parsed(to_string(s)).hash());
  }
}

TEST_CASE("shapes that differ in one small dimension hash over the whole range") {
  // Hash tables place by the high bits (absl's groups) and tag by the low ones: the hashes of
  // f32[1] ... f32[4096] (with and without a layout) must spread over both. 4,096 random
  // values fill about 4096 (1 - 1/e) = 2,589 of 4,096 buckets; shapes whose hashes differed
  // in their low bits only filled a handful of high-bit buckets.
  for (const bool layout : {false, true}) {
    std::vector<bool> high(4096, false), low(4096, false);
    for (int k = 1; k <= 4096; ++k) {
      const size_t h = parsed(layout ? "f32[" + std::to_string(k) + "]{0}"
                                     : "f32[" + std::to_string(k) + "]")
                           .hash();
      high[h >> (8 * sizeof(size_t) - 12)] = true;
      low[h & 4095] = true;
    }
    INFO("layout " << layout);
    CHECK(std::count(high.begin(), high.end(), true) > 2400);
    CHECK(std::count(low.begin(), low.end(), true) > 2400);
  }
}

TEST_CASE("shapes compare and hash by value, however they were built") {
  std::vector<Shape> list(3, Shape::Array(PrimitiveType::kF32, {8}));
  list[1] = Shape::Token();
  const Shape built = Shape::Tuple(list);
  const Shape read = parsed("(f32[8], token[], f32[8])");
  CHECK(built == read);
  CHECK(built.hash() == read.hash());
  CHECK(absl::HashOf(built) == absl::HashOf(read));

  TupleBuilder one_by_one;
  for (const Shape& e : read.elements) one_by_one.add(e);
  CHECK(Shape::Tuple(one_by_one.build()) == read);

  // Same width and distinct elements, different order.
  CHECK_FALSE(parsed("(f32[8], f32[8], token[])") == read);
  CHECK_FALSE(parsed("(f32[8], token[])") == read);
  CHECK_FALSE(parsed("(f32[8], token[], f32[8]{0})") == read);  // a layout written
  CHECK(parsed("()") == Shape::Tuple(std::vector<Shape>{}));
  CHECK_FALSE(parsed("()") == Shape::Array(PrimitiveType::kF32, {}));
  // A scalar tuple of 1000 and of 1001 elements differ; both store one element.
  CHECK_FALSE(parsed(scalars(1000)) == parsed(scalars(1001)));
  CHECK(parsed(scalars(1000)) == parsed(scalars(1000)));
}

TEST_CASE("a copied layout is shared until one copy writes it") {
  const Shape original = parsed("f32[8,128]{1,0:T(8,128)}");
  Shape copy = original;
  CHECK(&*std::as_const(copy).layout == &*original.layout);  // read only: shared
  copy.layout->memory_space = 1;               // written: this copy gets its own
  CHECK(original.layout->memory_space == 0);
  CHECK(copy.layout->memory_space == 1);
  CHECK(copy.layout->tiles == original.layout->tiles);
  CHECK_FALSE(copy == original);

  Shape plain = Shape::Array(PrimitiveType::kF32, {4});
  CHECK_FALSE(plain.layout.has_value());
  plain.layout = Layout{.minor_to_major = {0}};
  CHECK(plain == parsed("f32[4]{0}"));
  plain.layout.reset();
  CHECK(plain == parsed("f32[4]"));
  plain.layout.emplace().minor_to_major.push_back(0);
  CHECK(plain == parsed("f32[4]{0}"));
}

TEST_CASE("a buffer shape holds its one array") {
  const Shape buffer = parsed("b(f32[8]{0})");
  CHECK(buffer.kind == Shape::Kind::kBuffer);
  REQUIRE(buffer.elements.size() == 1);
  CHECK(buffer.elements[0] == parsed("f32[8]{0}"));
  CHECK(buffer == Shape::Buffer(parsed("f32[8]{0}")));
  CHECK(buffer.array_leaf_count() == 1);
}

TEST_CASE("tree size and depth are counted whether an element is copied or moved in") {
  // (f32[], (f32[], f32[])): the outer tuple, its two elements and the inner pair's two arrays
  // are 5 shapes in the tree; tuples nest 2 deep.
  const Shape pair = Shape::Tuple({Shape::Array(PrimitiveType::kF32, {}),
                                   Shape::Array(PrimitiveType::kF32, {})});
  CHECK(pair.tree_size() == 3);
  CHECK(pair.depth() == 1);
  for (bool move : {false, true}) {
    INFO((move ? "moved" : "copied"));
    TupleBuilder builder;
    builder.add(Shape::Array(PrimitiveType::kF32, {}));
    Shape inner = pair;
    if (move) {
      builder.add(std::move(inner));
    } else {
      builder.add(inner);
    }
    const Shape outer = Shape::Tuple(builder.build());
    CHECK(outer.tree_size() == 5);
    CHECK(outer.depth() == 2);
    CHECK(outer.array_leaf_count() == 3);
  }
}

}  // namespace
}  // namespace hloroof
