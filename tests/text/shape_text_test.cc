// parse_shape and to_string against docs/hlo-text.md, "Shapes" and "Layouts and tiles".
#include "hloroof/shape_text.h"

#include <catch2/catch.hpp>
#include <string>
#include "require_ok.h"

namespace hloroof {
namespace {

Shape parsed(std::string_view text) {
  absl::StatusOr<Shape> shape = parse_shape(text);
  INFO(text << " -> " << shape.status().ToString());
  REQUIRE_OK(shape);
  return *shape;
}

std::string parse_error(std::string_view text) {
  absl::StatusOr<Shape> shape = parse_shape(text);
  if (shape.ok()) return "parsed as " + to_string(*shape);
  return std::string(shape.status().message());
}

TEST_CASE("canonical shapes print back exactly") {
  const char* canonical[] = {
      "f32[]",
      "f32[2,3]{1,0}",
      "f32[2,3]{0,1}",
      "f32[0,3]{1,0}",
      "f32[2,3]",
      "pred[7]{0}",
      "bf16[3,5]{1,0:T(8,128)(2,1)}",
      "s4[123,456]{1,0:T(2,128)E(4)}",
      "f32[]{:T(128)S(1)}",
      "u32[]{:S(2)}",
      "f32[<=8,?]{1,0}",
      "f32[?,784]",
      "bf16[1000]{0:T(1024)(128)(2,1)}",
      "s4[256,1024]{1,0:T(8,128)(2,1)L(2048)E(4)S(1)SC(0:128)M(64)}",
      "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
      "f32[4,4]{1,0:D(D,C+~)}",
      "f32[4]{0:D()}",
      "f32[4]{0:#(u32)*(u16)}",
      "f32[8,8]{1,0:SC(0:2,4)(1:3)}",
      "f32[5,5]{1,0:T(8,128)L(2048)}",
      "(f32[], s32[])",
      "((f32[2]{0}, s32[]), token[])",
      "()",
      "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",
      "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], f32[], f32[], "
      "/*index=10*/f32[])",
      "b(f32[8,16]{1,0})",
      "token[]",
      "opaque[]",
  };
  for (const char* text : canonical) {
    INFO(text);
    CHECK(to_string(parsed(text)) == text);
  }
}

TEST_CASE("every element type parses and prints") {
  const char* types[] = {
      "pred",       "s1",         "s2",        "s4",       "s8",       "s16",
      "s32",        "s64",        "u1",        "u2",       "u4",       "u8",
      "u16",        "u32",        "u64",       "f16",      "bf16",     "f32",
      "f64",        "f8e5m2",     "f8e4m3",    "f8e4m3fn", "f8e3m4",   "f8e4m3b11fnuz",
      "f8e5m2fnuz", "f8e4m3fnuz", "f8e8m0fnu", "f6e3m2fn", "f6e2m3fn", "f4e2m1fn",
      "c64",        "c128"};
  for (const char* type : types) {
    std::string text = std::string(type) + "[3]{0}";
    INFO(text);
    Shape s = parsed(text);
    CHECK(primitive_type_name(s.element_type) == type);
    CHECK(to_string(s) == text);
  }
}

TEST_CASE("parsed shapes hold what the text says") {
  Shape s = parsed("s4[256,1024]{1,0:T(8,128)(2,1)L(2048)E(4)S(1)SC(0:128)M(64)}");
  CHECK(s.element_type == PrimitiveType::kS4);
  REQUIRE(s.dims.size() == 2);
  CHECK(s.dims[1].size == 1024);
  REQUIRE(s.layout.has_value());
  const Layout& l = *s.layout;
  CHECK(l.minor_to_major == absl::InlinedVector<int64_t, 6>{1, 0});
  REQUIRE(l.tiles.size() == 2);
  CHECK(l.tiles[0].dims == absl::InlinedVector<int64_t, 4>{8, 128});
  CHECK(l.tiles[1].dims == absl::InlinedVector<int64_t, 4>{2, 1});
  CHECK(l.tail_padding_alignment == 2048);
  CHECK(l.element_size_bits == 4);
  CHECK(l.memory_space == 1);
  REQUIRE(l.split_configs.size() == 1);
  CHECK(l.split_configs[0].dimension == 0);
  CHECK(l.split_configs[0].split_indices == std::vector<int64_t>{128});
  CHECK(l.dynamic_shape_metadata_prefix_bytes == 64);

  Shape dynamic = parsed("f32[<=8,?]");
  CHECK(dynamic.dims[0].kind == Dimension::Kind::kBounded);
  CHECK(dynamic.dims[0].size == 8);
  CHECK(dynamic.dims[1].kind == Dimension::Kind::kUnbounded);
  CHECK_FALSE(dynamic.layout.has_value());

  Shape combined = parsed("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  CHECK(combined.layout->tiles[0].dims[0] == Tile::kCombinedDim);

  Shape scalar = parsed("f32[]{:T(128)S(1)}");
  CHECK(scalar.rank() == 0);
  CHECK(scalar.layout->minor_to_major.empty());

  Shape tuple = parsed("((f32[2]{0}, s32[]), token[])");
  REQUIRE(tuple.is_tuple());
  REQUIRE(tuple.elements.size() == 2);
  CHECK(tuple.elements[0].elements.size() == 2);
  CHECK(tuple.elements[1].kind == Shape::Kind::kToken);

  Shape buffer = parsed("b(f32[8,16]{1,0})");
  CHECK(buffer.kind == Shape::Kind::kBuffer);
  CHECK(buffer.elements[0].dims.size() == 2);
}

TEST_CASE("non-canonical spellings print canonically") {
  CHECK(to_string(parsed("  f32[2, 3] {1, 0} ")) == "f32[2,3]{1,0}");
  CHECK(to_string(parsed("(f32[], /*index=1*/s32[])")) == "(f32[], s32[])");
  // A scalar layout with nothing but defaults is omitted.
  CHECK(to_string(parsed("f32[]{:S(0)}")) == "f32[]");
  CHECK(to_string(parsed("f32[3]{0:L(1)}")) == "f32[3]{0}");
  // ... and is dropped, so that the shape equals its reparsed printout.
  CHECK_FALSE(parsed("f32[]{:}").layout.has_value());
  CHECK(parsed("f32[]{:S(0)}") == parsed("f32[]"));
  CHECK(to_string(parsed("// comment\nf32[1]")) == "f32[1]");
}

TEST_CASE("invalid shapes are rejected with the location and the offending text") {
  CHECK(parse_error("f33[2]") == "1:1: error: unknown element type 'f33'");
  CHECK(parse_error("f32[2,3]{0}") ==
        "1:9: error: layout has 1 minor_to_major entries but the shape has rank 2");
  CHECK(parse_error("f32[2]{:T(2)}") ==
        "1:7: error: layout has 0 minor_to_major entries but the shape has rank 1");
  CHECK(parse_error("f32[2,3]{0,0}") ==
        "1:9: error: minor_to_major {0,0} is not a permutation of 0..1");
  CHECK(parse_error("f32[2,3]{1,2}") ==
        "1:9: error: minor_to_major {1,2} is not a permutation of 0..1");
  CHECK(parse_error("f32[2,3") ==
        "1:8: error: expected ']' to close the dimensions, got end of "
        "input");
  CHECK(parse_error("(f32[], s32[]") ==
        "1:14: error: expected ')' to close the tuple shape, got end of input");
  CHECK(parse_error("f32[2]{0}}") == "1:10: error: expected the end of the shape, got '}'");
  CHECK(parse_error("f32[-1]") == "1:5: error: dimension size -1 is negative");
  // 2^32 x 2^32 = 2^64 elements.
  CHECK(parse_error("f32[4294967296,4294967296]") ==
        "1:1: error: shape f32[4294967296,4294967296] has more elements than fit in a signed "
        "64-bit count");
  CHECK(parse_error("f32[99999999999999999999]") ==
        "1:5: error: integer 99999999999999999999 does not fit in 64 bits");
  CHECK(parse_error("f32[8,128]{1,0:S(1)T(8,128)}") ==
        "1:20: error: layout properties out of order: T(...) must come before S(...)");
  CHECK(parse_error("f32[8]{0:E(4)D(D)}") ==
        "1:14: error: layout properties out of order: D(...) must come before E(...)");
  CHECK(parse_error("f32[8]{0:S(1)S(2)}") == "1:14: error: layout property S(...) repeated");
  CHECK(parse_error("f32[8]{0:X(1)}") ==
        "1:10: error: expected a layout property (D T L # * E S SC P M, in that order) or '}', "
        "got 'X'");
  CHECK(parse_error("f32[]{}") ==
        "1:6: error: '{}' is not a layout; a layout lists minor_to_major ({1,0}), and a "
        "scalar's layout is omitted or written {:...}");
  CHECK(parse_error("f32[8]{0:#(s32)}") ==
        "1:12: error: #(...) index type must be an unsigned integer type, got s32");
  CHECK(parse_error("f32[8]{0:T(0)}") == "1:12: error: tile dimension 0 must be positive");
  CHECK(parse_error("f32[8]{0:S(-1)}") == "1:12: error: S(...) memory space cannot be negative");
  CHECK(parse_error("f32[10,10]{1,0:P(f32[10,10])}") ==
        "1:11: error: a layout with a physical shape P(...) is only valid for sparse arrays, "
        "which HLO text no longer has");
  CHECK(parse_error("f32[2]{0:D(X,C)}") ==
        "1:12: error: expected a dimension level type D, C, S or H, got 'X'");
  CHECK(parse_error("b((f32[]))") == "1:3: error: only an array shape can be wrapped in b(...)");
  CHECK(parse_error("token[2]") == "1:1: error: a token shape has no dimensions: write token[]");
  CHECK(parse_error("token[]{:S(1)}") == "1:8: error: token shapes have no layout");
  CHECK(parse_error("f32[8]{0:T(8)") ==
        "1:14: error: expected a layout property (D T L # * E S SC P M, in that order) or '}', "
        "got end of input");
  CHECK(parse_error("") == "1:1: error: expected a shape, got end of input");
  // Layouts that do not fit their shape (validate_array_layout, shape_size.h).
  CHECK(parse_error("f32[8]{0:SC(3:1)}") ==
        "1:7: error: split config dimension 3 is out of range for rank 1");
  CHECK(parse_error("f32[8]{0:T(*)}") ==
        "1:7: error: tile (*) ends in '*', which has no more minor dimension to merge into");
  // 2^61 elements fit in int64, but 2^61 x 32 bits do not.
  CHECK(parse_error("f32[2305843009213693952]{0:T(1024)}") ==
        "1:25: error: the size in bits does not fit in 64 bits; the shape is too large to be "
        "real");
  CHECK(parse_error("f32[2]{0} /* open") == "1:11: error: unterminated block comment");
  std::string deep(100, '(');
  CHECK(parse_error(deep) == "1:66: error: shape nested more than 64 levels deep");
}

}  // namespace
}  // namespace hloroof
