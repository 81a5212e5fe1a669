// Logical and padded sizes (docs/sources.md, "TPU tiling and padding"; docs/hlo-text.md,
// "Layouts and tiles").
#include <catch2/catch.hpp>

#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "ir_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

ArraySize size_of(std::string_view text) {
  absl::StatusOr<ArraySize> size = array_size(testing::shape_of(text));
  INFO(size.status().ToString());
  REQUIRE_OK(size);
  return *size;
}

TEST_CASE("P1: f32[3,5] tiled (2,2) pads to [4,6]") {
  // worked example P1: padded to [4,6] = 24 elements = 96 B; logical 15 x 4 = 60 B.
  ArraySize s = size_of("f32[3,5]{1,0:T(2,2)}");
  CHECK(s.elements == 15);
  CHECK(s.logical_bytes == 60);
  CHECK(s.padded_elements == 24);
  CHECK(s.padded_bytes == 96);
  CHECK(s.padding_factor() == Approx(1.6));
}

TEST_CASE("P2: small minor dims under T(8,128) pad 12.6x") {
  // worked example P2: physical (128,128,4,9,18); (9,18) -> (16,128);
  // 128*128*4*16*128*4 B = 512 MiB. Logical 4*128*128*9*18*4 B = 40.5 MiB.
  ArraySize s = size_of("f32[4,128,128,9,18]{4,3,0,2,1:T(8,128)}");
  CHECK(s.padded_bytes == 512 * kMiB);
  CHECK(s.logical_bytes == 81 * kMiB / 2);
  CHECK(s.padding_factor() == Approx(12.64).epsilon(0.01));
}

TEST_CASE("P3: bf16 with a 64-wide minor dim doubles") {
  // worked example P3: physical (512,512,4,64); (4,128) on (4,64) -> (4,128); (2,1) adds
  // nothing: 512*512*4*128*2 B = 256 MiB vs 4*512*512*64*2 B = 128 MiB.
  ArraySize s = size_of("bf16[4,512,512,64]{3,0,2,1:T(4,128)(2,1)}");
  CHECK(s.padded_bytes == 256 * kMiB);
  CHECK(s.logical_bytes == 128 * kMiB);
  CHECK(s.padding_factor() == Approx(2.0));
}

TEST_CASE("P4 and P5: 64 wide pads, 256 wide does not") {
  // P4: physical (256,256,4,64) -> 256*256*4*128*4 B = 128 MiB vs 64 MiB logical.
  ArraySize p4 = size_of("f32[4,256,256,64]{3,0,2,1:T(4,128)}");
  CHECK(p4.padded_bytes == 128 * kMiB);
  CHECK(p4.logical_bytes == 64 * kMiB);
  // P5: every covered dim is already a multiple of its tile entry: 256 MiB and 128 MiB.
  ArraySize p5f = size_of("f32[4,256,256,256]{3,0,2,1:T(4,128)}");
  CHECK(p5f.padded_bytes == 256 * kMiB);
  CHECK(p5f.padded_bytes == p5f.logical_bytes);
  ArraySize p5b = size_of("bf16[4,256,256,256]{3,0,2,1:T(4,128)(2,1)}");
  CHECK(p5b.padded_bytes == 128 * kMiB);
  CHECK(p5b.padded_bytes == p5b.logical_bytes);
}

TEST_CASE("P6: element (2,3) of f32[3,5] under T(2,2) sits at linear index 17") {
  // worked example P6: tile (1,1) of a 2x3 grid, in-tile (0,1): (1*3+1)*4 + (0*2+1) = 17.
  absl::StatusOr<Shape> shape = parse_shape("f32[3,5]{1,0:T(2,2)}");
  REQUIRE_OK(shape);
  absl::StatusOr<int64_t> index = physical_element_index(*shape, {2, 3});
  REQUIRE_OK(index);
  CHECK(*index == 17);
}

TEST_CASE("bf16 (8,128)(2,1) packs row pairs into words") {
  // In-tile offset of the (2,1) level ((i/2)*128 + j)*2 + i%2.
  absl::StatusOr<Shape> shape = parse_shape("bf16[3,5]{1,0:T(8,128)(2,1)}");
  REQUIRE_OK(shape);
  CHECK(*physical_element_index(*shape, {1, 0}) == 1);
  CHECK(*physical_element_index(*shape, {0, 1}) == 2);
  CHECK(*physical_element_index(*shape, {2, 3}) == 262);  // (1*128 + 3)*2 + 0
  CHECK(!physical_element_index(*shape, {3, 0}).ok());   // out of bounds
  CHECK(!physical_element_index(*shape, {0}).ok());      // wrong rank
}

TEST_CASE("P7: bf16[32,32,8192] under (8,128)(2,1) has no padding") {
  // 32*32*8192*2 B = 16,777,216 B; 32 is a multiple of 8 and 8192 of 128.
  ArraySize s = size_of("bf16[32,32,8192]{2,1,0:T(8,128)(2,1)}");
  CHECK(s.padded_bytes == 16777216);
  CHECK(s.logical_bytes == 16777216);
}

TEST_CASE("rank-1 arrays under one and three tile levels") {
  // f32[1000] under T(1024): [1000] -> [1,1024]: 1024 x 4 B = 4096 B (logical 4000 B).
  ArraySize f = size_of("f32[1000]{0:T(1024)}");
  CHECK(f.padded_bytes == 4096);
  CHECK(f.logical_bytes == 4000);
  // bf16[1000] under T(1024)(128)(2,1): [1,1024] -> (128) [1,8,128] -> (2,1) [1,4,128,2,1]
  // = 1024 elements x 2 B = 2048 B.
  ArraySize b = size_of("bf16[1000]{0:T(1024)(128)(2,1)}");
  CHECK(b.padded_bytes == 2048);
  CHECK(b.first_tile_padded_bytes == 2048);
  CHECK(b.logical_bytes == 2000);
}

TEST_CASE("tiled scalars occupy a whole tile") {
  // f32[]{:T(256)}: rank 0 under a rank-1 tile: the missing dim counts 1, rounds to 256:
  // 256 x 4 B = 1024 B.
  ArraySize f = size_of("f32[]{:T(256)}");
  CHECK(f.elements == 1);
  CHECK(f.logical_bytes == 4);
  CHECK(f.padded_bytes == 1024);
  // s32[]{:T(128)}: 128 x 4 B = 512 B.
  CHECK(size_of("s32[]{:T(128)}").padded_bytes == 512);
  // bf16[]{:T(512)(2,1)}: every level applied, [1] -> [1,512] -> (2,1) pads 1 to 2:
  // [1,512,2,1] = 1024 elements = 2048 B. XLA's first-tile rule stops at 512 elements = 1 KiB
  // (docs/sources.md, "TPU tiling and padding", the end of the section).
  ArraySize b = size_of("bf16[]{:T(512)(2,1)}");
  CHECK(b.padded_bytes == 2048);
  CHECK(b.first_tile_padded_bytes == 1024);
}

TEST_CASE("bf16 (8,128)(2,1) with odd dims") {
  // bf16[9,130]: 9 -> 16, 130 -> 256: 4096 elements x 2 B = 8192 B; logical 9*130*2 = 2340 B.
  ArraySize s = size_of("bf16[9,130]{1,0:T(8,128)(2,1)}");
  CHECK(s.padded_bytes == 8192);
  CHECK(s.logical_bytes == 2340);
}

TEST_CASE("sub-byte types: packed with E(n), a byte each without") {
  // s4[123,456]{1,0:T(2,128)E(4)}: 456 -> 512, 123 -> 124: 63488 x 4 bits = 31744 B
  // (logical 123*456*4/8 = 28044 B).
  ArraySize packed = size_of("s4[123,456]{1,0:T(2,128)E(4)}");
  CHECK(packed.padded_bytes == 31744);
  CHECK(packed.logical_bytes == 28044);
  // s4[3] without E(n): stored one byte each (3 B), logically ceil(3*4/8) = 2 B.
  ArraySize loose = size_of("s4[3]{0}");
  CHECK(loose.padded_bytes == 3);
  CHECK(loose.logical_bytes == 2);
  // pred is a byte, not a bit: pred[10] is 10 B both ways.
  CHECK(size_of("pred[10]").logical_bytes == 10);
}

TEST_CASE("int8 (32,128)(4,1)") {
  // s8[100,200]: 100 -> 128, 200 -> 256: 32768 x 1 B; logical 20000 B.
  ArraySize s = size_of("s8[100,200]{1,0:T(32,128)(4,1)}");
  CHECK(s.padded_bytes == 32768);
  CHECK(s.logical_bytes == 20000);
}

TEST_CASE("minor_to_major decides which dims the tile covers") {
  // physical [3,200] -> 8 x 256 x 4 B = 8192 B;
  // physical [200,3] -> 200 x 128 x 4 B = 102400 B.
  CHECK(size_of("f32[200,3]{0,1:T(8,128)}").padded_bytes == 8192);
  CHECK(size_of("f32[200,3]{1,0:T(8,128)}").padded_bytes == 102400);
}

TEST_CASE("a tile of higher rank than the shape") {
  // f32[5] under (8,128): [5] -> [1,5] -> [8,128]: 1024 x 4 B = 4096 B.
  CHECK(size_of("f32[5]{0:T(8,128)}").padded_bytes == 4096);
}

TEST_CASE("combined dims '*' merge into the next more minor dim") {
  // [112,110] tiled by (2,3): 112 x 111 = 12432
  // elements x 4 B = 49728 B.
  ArraySize s = size_of("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  CHECK(s.padded_elements == 12432);
  CHECK(s.padded_bytes == 49728);
  CHECK(s.elements == 12320);
}

TEST_CASE("L(n) rounds tiled counts only") {
  // Worked example 8: (8,128) gives 1024 elements, L(2048) rounds to 2048: 8192 B.
  CHECK(size_of("f32[5,5]{1,0:T(8,128)L(2048)}").padded_bytes == 8192);
  // Worked example 10: untiled layouts ignore L: 25 x 4 B = 100 B.
  CHECK(size_of("f32[5,5]{1,0:L(2048)}").padded_bytes == 100);
}

TEST_CASE("split configs size one piece; M(n) is not counted") {
  // Worked example 9: SC(0:128) splits the majormost dim 256 into 128+128; [128,1024] under
  // (8,128): 131072 elements, a multiple of L(2048); E(4): 65536 B; S(1) is on-chip.
  absl::StatusOr<Shape> shape =
      parse_shape("s4[256,1024]{1,0:T(8,128)(2,1)L(2048)E(4)S(1)SC(0:128)M(64)}");
  REQUIRE_OK(shape);
  absl::StatusOr<ShapeSize> s = shape_size(*shape);
  REQUIRE_OK(s);
  CHECK(s->padded_bytes == 65536);
  CHECK(s->padded_bytes_on_chip == 65536);
  CHECK(s->padded_bytes_default == 0);
}

TEST_CASE("bounded dynamic dims count at their bound") {
  // f32[<=8,3] under (8,128): 8 x 128 x 4 B = 4096 B; logical 8*3*4 = 96 B.
  ArraySize s = size_of("f32[<=8,3]{1,0:T(8,128)}");
  CHECK(s.padded_bytes == 4096);
  CHECK(s.logical_bytes == 96);
}

TEST_CASE("tuples sum their leaves per memory space") {
  // 96 B (P1) in HBM + 2048 B on chip (bf16 scalar above, S(1)) + 8 B pinned host + token 0.
  absl::StatusOr<Shape> shape = parse_shape(
      "(f32[3,5]{1,0:T(2,2)}, (bf16[]{:T(512)(2,1)S(1)}, token[]), f32[2]{0:S(5)})");
  REQUIRE_OK(shape);
  absl::StatusOr<ShapeSize> s = shape_size(*shape);
  REQUIRE_OK(s);
  CHECK(s->elements == 15 + 1 + 2);
  CHECK(s->logical_bytes == 60 + 2 + 8);
  CHECK(s->padded_bytes == 96 + 2048 + 8);
  CHECK(s->padded_bytes_default == 96);
  CHECK(s->padded_bytes_on_chip == 2048);
  CHECK(s->padded_bytes_host == 8);
}

TEST_CASE("S(6) is TPU scalar memory on chip; only S(5) is host memory") {
  // s32[] under T(128): one 128-element tile, 512 B, in S(6); f32[2] in S(5): 8 B.
  absl::StatusOr<Shape> shape = parse_shape("(s32[]{:T(128)S(6)}, f32[2]{0:S(5)})");
  REQUIRE_OK(shape);
  absl::StatusOr<ShapeSize> s = shape_size(*shape);
  REQUIRE_OK(s);
  CHECK(s->padded_bytes_on_chip == 512);
  CHECK(s->padded_bytes_host == 8);
  CHECK(s->padded_bytes_default == 0);
}

TEST_CASE("sizes that cannot be computed are errors, not guesses") {
  Shape unbounded = *parse_shape("f32[?,4]");
  CHECK(!array_size(unbounded).ok());
  CHECK(validate_array_layout(unbounded).ok());  // a valid shape without a static size

  // 2^32 x 2^32 elements x 4 B overflows 64 bits.
  Shape huge = Shape::Array(PrimitiveType::kF32, {int64_t{1} << 32, int64_t{1} << 32});
  absl::Status status = validate_array_layout(huge);
  CHECK(!status.ok());
  CHECK_THAT(std::string(status.message()), Catch::Contains("does not fit in 64 bits"));

  // Padding can overflow where the dense size does not.
  Shape padded = Shape::Array(PrimitiveType::kF32, {int64_t{1} << 40, 3});
  padded.layout = Layout{.minor_to_major = {1, 0}, .tiles = {Tile{{8, int64_t{1} << 30}}}};
  CHECK(!validate_array_layout(padded).ok());

  Shape not_permutation = Shape::Array(PrimitiveType::kF32, {2, 3});
  not_permutation.layout = Layout{.minor_to_major = {0, 0}};
  CHECK(!array_size(not_permutation).ok());

  Shape trailing_star = Shape::Array(PrimitiveType::kF32, {2, 3});
  trailing_star.layout = Layout{.minor_to_major = {1, 0}, .tiles = {Tile{{2, Tile::kCombinedDim}}}};
  CHECK(!array_size(trailing_star).ok());
}

}  // namespace
}  // namespace hloroof
