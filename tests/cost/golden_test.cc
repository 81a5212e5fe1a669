// The per-op goldens (G1-G21, from XLA's HloCostAnalysis tests). They use
// dense sizes and 8-byte tuple pointers; layouts here have no tiles, so padded == logical,
// except in G20 whose tiles pad an s32 scalar (checked both ways).
#include "cost_test_util.h"

namespace hloroof {
namespace {

using testing::analyze;

constexpr std::string_view kAdd = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT sum = f32[] add(x, y)
}
)";

std::string with_add(std::string_view rest) { return std::string(kAdd) + std::string(rest); }

TEST_CASE("G1 dot f32[10,5] x f32[5,30]") {
  auto c = analyze(R"(
ENTRY e {
  lhs = f32[10,5] parameter(0)
  rhs = f32[5,30] parameter(1)
  ROOT dot = f32[10,30] dot(lhs, rhs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  const OpCost& dot = c["dot"].cost;
  CHECK(dot.flops == 3000);  // 2*10*30*5
  CHECK(dot.matrix_flops() == 3000);
  CHECK(dot.matrix_type() == PrimitiveType::kF32);
  CHECK(dot.transcendentals == 0);
  CHECK(dot.bytes() == 2000);    // 4*(50+150+300)
  CHECK(dot.bytes_read == 800);  // operand 0 200 B + operand 1 600 B
  CHECK(dot.bytes_written == 1200);
  CHECK(dot.xla_bytes_accessed == 2000);
  CHECK(c.cost.totals.flops == 3000);
  CHECK(c.cost.totals.hbm_bytes() == 2000);
}

TEST_CASE("G2 dot_general contracting two dims") {
  auto c = analyze(R"(
ENTRY e {
  lhs = f32[10,5,5] parameter(0)
  rhs = f32[5,5,30] parameter(1)
  ROOT dot = f32[10,30] dot(lhs, rhs), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}
})");
  CHECK(c["dot"].cost.flops == 15000);  // 2*10*30*5*5
  CHECK(c["dot"].cost.bytes() == 4 * (250 + 750 + 300));
}

TEST_CASE("G3 dot_general batch dims are in E(out)") {
  auto c = analyze(R"(
ENTRY e {
  lhs = f32[10,5,5] parameter(0)
  rhs = f32[5,5,30] parameter(1)
  ROOT dot = f32[5,10,30] dot(lhs, rhs), lhs_batch_dims={2}, lhs_contracting_dims={1}, rhs_batch_dims={1}, rhs_contracting_dims={0}
})");
  CHECK(c["dot"].cost.flops == 15000);  // 2*(5*10*30)*5
  CHECK(c["dot"].cost.bytes_written == 6000);
}

TEST_CASE("G4 map applies its computation per element") {
  auto c = analyze(R"(
add_and_exp {
  x = f32[] parameter(0)
  half = f32[] constant(0.5)
  a = f32[] add(x, half)
  ROOT e = f32[] exponential(a)
}
ENTRY e {
  in = f32[10] parameter(0)
  ROOT map = f32[10] map(in), dimensions={0}, to_apply=add_and_exp
})");
  const OpCost& map = c["map"].cost;
  CHECK(map.flops == 10);            // one add per element
  CHECK(map.transcendentals == 10);  // one exp per element
  CHECK(map.bytes() == 80);          // 40 in + 40 out
  // The mapped function's instructions are listed, applied per element.
  CHECK(c.at("add_and_exp", "a").role == CostRole::kApplied);
  CHECK(c.at("add_and_exp", "a").cost.bytes() == 0);
}

TEST_CASE("G5 convolution VALID") {
  auto c = analyze(R"(
ENTRY e {
  input = f32[1,1,10,20] parameter(0)
  kernel = f32[1,1,3,3] parameter(1)
  ROOT conv = f32[1,1,8,18] convolution(input, kernel), window={size=3x3}, dim_labels=bf01_oi01->bf01
})");
  CHECK(c["conv"].cost.flops == 2592);  // 8*18*2*3*3
  CHECK(c["conv"].cost.matrix_flops() == 2592);
  CHECK(c["conv"].cost.bytes() == 4 * (200 + 9 + 144));
}

TEST_CASE("G6 convolution SAME counts only in-bounds taps") {
  auto c = analyze(R"(
ENTRY e {
  input = f32[1,1,3,3] parameter(0)
  kernel = f32[1,1,3,3] parameter(1)
  ROOT conv = f32[1,1,3,3] convolution(input, kernel), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
})");
  CHECK(c["conv"].cost.flops == 2 * (4 + 6 + 4 + 6 + 9 + 6 + 4 + 6 + 4));  // 49 taps = 98
}

TEST_CASE("G7 convolution with feature groups") {
  auto c = analyze(R"(
ENTRY e {
  input = f32[1,120,10,20] parameter(0)
  kernel = f32[120,1,3,3] parameter(1)
  ROOT conv = f32[1,120,8,18] convolution(input, kernel), window={size=3x3}, dim_labels=bf01_oi01->bf01, feature_group_count=120
})");
  CHECK(c["conv"].cost.flops == 311040);  // 120*8*18*2*3*3
}

TEST_CASE("G8 convolution with base and window dilation") {
  auto c = analyze(R"(
ENTRY e {
  input = f32[1,1,10,20] parameter(0)
  kernel = f32[1,1,3,3] parameter(1)
  ROOT conv = f32[1,1,16,76] convolution(input, kernel), window={size=3x3 pad=1_1x1_1 lhs_dilate=3x5 rhs_dilate=7x11}, dim_labels=bf01_oi01->bf01
})");
  CHECK(c["conv"].cost.flops == 1472);  // valid(y) 16, valid(x) 46: 2*16*46
}

TEST_CASE("G9 reduce") {
  auto c = analyze(with_add(R"(
ENTRY e {
  input = f32[10,20] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[10] reduce(input, zero), dimensions={1}, to_apply=add
})"));
  CHECK(c["r"].cost.flops == 190);  // 200 - 10
  CHECK(c["r"].cost.bytes() == 4 * (200 + 1 + 10));
}

TEST_CASE("G10 reduce-window") {
  auto c = analyze(with_add(R"(
ENTRY e {
  input = f32[10,20] parameter(0)
  zero = f32[] constant(0)
  ROOT rw = f32[2,4] reduce-window(input, zero), window={size=4x5 stride=4x5}, to_apply=add
})"));
  CHECK(c["rw"].cost.flops == 152);  // 2*4*(20-1)
  CHECK(c["rw"].cost.bytes() == 4 * (200 + 1 + 8));
}

TEST_CASE("G11 reduce-window with overlapping windows") {
  auto c = analyze(with_add(R"(
ENTRY e {
  input = f32[8,8] parameter(0)
  zero = f32[] constant(0)
  ROOT rw = f32[3,4] reduce-window(input, zero), window={size=4x5 stride=2x1}, to_apply=add
})"));
  CHECK(c["rw"].cost.flops == 228);  // 12*19
}

TEST_CASE("G12 reduce-window that reduces one dim and broadcasts it back") {
  auto c = analyze(R"(
region_0.868 {
  Arg_1.870 = f32[] parameter(1)
  Arg_0.869 = f32[] parameter(0)
  ROOT maximum.871 = f32[] maximum(Arg_0.869, Arg_1.870)
}
ENTRY fusion.50 {
  constant.367 = f32[] constant(-inf)
  param0 = f32[2,3,1024,1024]{2,3,1,0} parameter(0)
  ROOT reduce-window.159 = f32[2,3,1024,1024]{2,3,1,0} reduce-window(param0, constant.367), window={size=1x1x1x2047 pad=0_0x0_0x0_0x1023_1023}, to_apply=region_0.868
})");
  CHECK(c["reduce-window.159"].cost.flops == 2 * 3 * 1024 + 1023);  // 7167
}

TEST_CASE("G13 select-and-scatter") {
  auto c = analyze(with_add(R"(
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  operand = f32[10,20] parameter(0)
  source = f32[2,4] parameter(1)
  zero = f32[] constant(0)
  ROOT sas = f32[10,20] select-and-scatter(operand, source, zero), window={size=4x5 stride=4x5}, select=gt, scatter=add
})"));
  CHECK(c["sas"].cost.flops == 160);  // 8*(20-1) selects + 8 scatters
  CHECK(c["sas"].cost.bytes() == 4 * (200 + 8 + 1 + 200));
}

TEST_CASE("G14 broadcast") {
  auto c = analyze(R"(
ENTRY e {
  c = f32[] constant(42)
  ROOT b = f32[10,7] broadcast(c), dimensions={}
})");
  CHECK(c["b"].cost.flops == 0);
  CHECK(c["b"].cost.bytes() == 284);  // 4*(1 + 70)
  CHECK(c["c"].cost.bytes() == 0);    // a constant is already in memory
}

TEST_CASE("G15 fully connected forward: sigmoid(dot + bias)") {
  auto c = analyze(R"(
sigmoid {
  x = f32[] parameter(0)
  one = f32[] constant(1)
  neg = f32[] negate(x)
  exp = f32[] exponential(neg)
  den = f32[] add(one, exp)
  ROOT out = f32[] divide(one, den)
}
ENTRY e {
  input = f32[10,5] parameter(0)
  weight = f32[5,20] parameter(1)
  bias = f32[20] parameter(2)
  dot = f32[10,20] dot(input, weight), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[10,20] broadcast(bias), dimensions={1}
  add = f32[10,20] add(dot, b)
  ROOT map = f32[10,20] map(add), dimensions={0,1}, to_apply=sigmoid
})");
  // 1000 FMAs, 200 bias adds, 3 flops per sigmoid on 200 elements; 200 exps.
  CHECK(c.cost.totals.flops == 2 * 1000 + 200 + 3 * 200);
  CHECK(c.cost.totals.transcendentals == 200);
  CHECK(c.cost.totals.matrix_flops() == 2000);
  CHECK(c.cost.totals.vector_flops() == 800);
}

TEST_CASE("G16 tuple writes its pointer table") {
  auto c = analyze(R"(
ENTRY e {
  a = f32[123] parameter(0)
  b = f32[42] parameter(1)
  ROOT t = (f32[123], f32[42]) tuple(a, b)
})");
  CHECK(c["t"].cost.flops == 0);
  CHECK(c["t"].cost.bytes() == 16);  // two 8-byte pointers
  CHECK(c["t"].cost.bytes_written == 16);
}

TEST_CASE("G17 slice reads what it keeps") {
  auto c = analyze(R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT s = f32[1] slice(p), slice={[0:1]}
})");
  CHECK(c["s"].cost.bytes() == 8);
}

TEST_CASE("G18 dynamic-slice") {
  auto c = analyze(R"(
ENTRY e {
  p = f32[2] parameter(0)
  i = s32[] parameter(1)
  ROOT ds = f32[1] dynamic-slice(p, i), dynamic_slice_sizes={1}
})");
  CHECK(c["ds"].cost.bytes() == 8 + 4);
}

TEST_CASE("G19 loop fusion") {
  auto c = analyze(R"(
fused {
  c1 = f32[2,2] parameter(0)
  c2 = f32[2,2] parameter(1)
  c3 = f32[2,2] parameter(2)
  add = f32[2,2] add(c1, c2)
  clamp = f32[2,2] clamp(c2, add, add)
  exp = f32[2,2] exponential(add)
  mul = f32[2,2] multiply(exp, c3)
  ROOT sub = f32[2,2] subtract(mul, clamp)
}
ENTRY e {
  c1 = f32[2,2] constant({{0, 0.333}, {0.667, 1}})
  c2 = f32[2,2] constant({{1, 1.333}, {1.667, 2}})
  c3 = f32[2,2] constant({{2, 2.333}, {2.667, 3}})
  ROOT fusion = f32[2,2] fusion(c1, c2, c3), kind=kLoop, calls=fused
})");
  const OpCost& f = c["fusion"].cost;
  CHECK(f.flops == 16);           // add, clamp, multiply, subtract: 4 elements each
  CHECK(f.transcendentals == 4);  // exp
  CHECK(f.bytes() == 64);         // three operands and the output, 16 B each; c2 read once
  CHECK(f.bytes_written == 16);
  // (The optimal_seconds part of this golden is a roofline over these figures: predict's.)
  // Fused instructions are listed with their own FLOPs and no bytes, counted once.
  CHECK(c.at("fused", "exp").role == CostRole::kFused);
  CHECK(c.at("fused", "exp").cost.transcendentals == 4);
  CHECK(c.at("fused", "mul").cost.bytes() == 0);
  CHECK(c.cost.totals.flops == 16);
  CHECK(c.cost.totals.bytes() == 64);
}

constexpr std::string_view kG20 = R"(
HloModule module

_.1 {
  tmp_0 = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  tmp_1 = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} parameter(2)
  tmp_2 = s32[]{:T(128)} parameter(1)
  tmp_3 = s32[]{:T(128)} constant(0)
  tmp_4 = bf16[1,32,256,1152]{3,2,1,0:T(8,128)(2,1)S(3)} dynamic-slice(tmp_1, tmp_2, tmp_3, tmp_3, tmp_3), dynamic_slice_sizes={1,32,256,1152}
  tmp_11 = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} dynamic-update-slice(tmp_0, tmp_4, tmp_2, tmp_3, tmp_3, tmp_3)
  ROOT tmp_20 = (bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)}) tuple(tmp_11)
}

ENTRY _ {
  _0 = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  _1 = s32[]{:T(128)} parameter(1)
  _4 = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} parameter(2)
  ROOT _ = (bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)}) fusion(_0, _1, _4), kind=kLoop, calls=_.1
}
)";

constexpr std::string_view kG20BareUpdate = R"(
HloModule module

ENTRY _ {
  _0 = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} parameter(0)
  _1 = s32[]{:T(128)} parameter(1)
  _2 = bf16[1,32,256,1152]{3,2,1,0:T(8,128)(2,1)} parameter(2)
  ROOT _ = bf16[50,32,256,1152]{3,2,1,0:T(8,128)(2,1)} dynamic-update-slice(_0, _2, _1, _1, _1, _1)
}
)";

TEST_CASE("G20 fusion rooted at a dynamic-update-slice updates in place") {
  auto fusion = analyze(kG20);
  auto bare = analyze(kG20BareUpdate);
  // The update bf16[1,32,256,1152] is 2*32*256*1152 = 18,874,368 B; the tiles pad nothing.
  constexpr double kUpdate = 18874368;
  const OpCost& f = fusion["_"].cost;
  // Dense sizes (the golden): written update + read dynamic-slice source + index once.
  CHECK(f.bytes() == 2 * kUpdate + 4);  // 37,748,740
  CHECK(f.bytes_written == kUpdate);    // the big buffer (operand 0) costs nothing
  CHECK(f.bytes() == bare["_"].cost.bytes());
  // Padded: the s32 index under T(128) occupies a 128-element tile, 512 B.
  CHECK(f.hbm_bytes() == 2 * kUpdate + 512);
  CHECK(f.hbm_bytes() == bare["_"].cost.hbm_bytes());
  CHECK(f.xla_bytes_accessed == 2 * kUpdate + 512);
  // With padding turned off, padded figures are the dense ones.
  auto dense = analyze(kG20, CostOptions{.use_padded_sizes = false});
  CHECK(dense["_"].cost.hbm_bytes() == 2 * kUpdate + 4);
}

TEST_CASE("G21 all-reduce with a tuple result") {
  auto c = analyze(with_add(R"(
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  ROOT ar = (f32[2,2], f32[2,2]) all-reduce(a, b), replica_groups={}, to_apply=add
})"));
  const OpCost& ar = c["ar"].cost;
  CHECK(ar.bytes() == 64);  // 4*4*4
  CHECK(ar.bytes_read == 32);
  CHECK(ar.bytes_written == 32);
  CHECK(ar.flops == 8);  // one add per output element (XLA's two-replica convention)
}

}  // namespace
}  // namespace hloroof
