// The remaining rows of docs/cost-conventions.md, "Where hloroof follows XLA", one op at a time.
#include "cost_test_util.h"

namespace hloroof {
namespace {

using testing::analyze;

TEST_CASE("ragged-dot: the true 2*m*k*n, XLA's count kept apart") {
  auto c = analyze(R"(
ENTRY e {
  lhs = f32[64,32] parameter(0)
  rhs = f32[4,32,16] parameter(1)
  groups = s32[4] parameter(2)
  ROOT rd = f32[64,16] ragged-dot(lhs, rhs, groups), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})");
  CHECK(c["rd"].cost.flops == 2.0 * 64 * 32 * 16);  // every row meets one group's [32,16]
  CHECK(c["rd"].cost.xla_flops == 2.0 * 16 * 32);   // XLA drops the m dim (cost-conventions.md)
  CHECK(c["rd"].cost.matrix_flops() == c["rd"].cost.flops);
}

TEST_CASE("scaled-dot contracts lhs with rhs, operands 0 and 2") {
  auto c = analyze(R"(
ENTRY e {
  lhs = f8e4m3fn[16,64] parameter(0)
  lhs_scale = f8e8m0fnu[16,2] parameter(1)
  rhs = f8e4m3fn[64,8] parameter(2)
  rhs_scale = f8e8m0fnu[2,8] parameter(3)
  ROOT sd = bf16[16,8] scaled-dot(lhs, lhs_scale, rhs, rhs_scale), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  CHECK(c["sd"].cost.flops == 2.0 * 16 * 8 * 64);
  CHECK(c["sd"].cost.matrix_type() == PrimitiveType::kF8E4M3FN);
}

TEST_CASE("mixed operand types: the wider one sets the matrix peak") {
  auto c = analyze(R"(
ENTRY e {
  a = s8[4,8] parameter(0)
  b = bf16[8,2] parameter(1)
  ROOT d = f32[4,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  CHECK(c["d"].cost.matrix_type() == PrimitiveType::kBF16);
}

TEST_CASE("transcendentals are XLA's list, power and atan2 included") {
  auto c = analyze(R"(
ENTRY e {
  a = f32[10] parameter(0)
  b = f32[10] parameter(1)
  t = f32[10] tanh(a)
  p = f32[10] power(a, b)
  y = f32[10] atan2(a, b)
  m = f32[10] maximum(a, b)
  ROOT c = f32[10] convert(m)
})");
  CHECK(c["t"].cost.transcendentals == 10);
  CHECK(c["p"].cost.transcendentals == 10);
  CHECK(c["y"].cost.transcendentals == 10);
  CHECK(c["m"].cost.flops == 10);
  CHECK(c["c"].cost.flops == 10);
  CHECK(c.cost.totals.flops == 20);
  CHECK(c.cost.totals.transcendentals == 30);
}

TEST_CASE("sort, fft, triangular-solve, cholesky, rng") {
  auto c = analyze(R"(
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  keys = f32[1024] parameter(0)
  sorted = f32[1024] sort(keys), dimensions={0}, to_apply=less
  signal = c64[8,64] parameter(1)
  spectrum = c64[8,64] fft(signal), fft_type=FFT, fft_length={64}
  a = f32[4,4] parameter(2)
  b = f32[4,8] parameter(3)
  x = f32[4,8] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  l = f32[4,4] cholesky(a), lower=true
  lo = f32[] parameter(4)
  hi = f32[] parameter(5)
  ROOT r = f32[100] rng(lo, hi), distribution=rng_uniform
})");
  CHECK(c["sorted"].cost.flops == 1024 * 10);          // n * ceil(log2 n)
  // 5 L log2 L per transform of L = 64 points, 8 transforms: 5 * 512 * 6 = 15360. XLA's
  // figure: 4 FMAs per complex multiply, 8 * log2 64 * 512 = 24576.
  CHECK(c["spectrum"].cost.flops == 5 * 512 * 6);
  CHECK(c["spectrum"].cost.xla_flops == 2 * 4 * 6 * 512);
  CHECK(c["x"].cost.flops == 2 * 4 * 32);              // 2 * a.dims[-1] * E(b)
  CHECK(c["x"].cost.bytes() == 128 + 64 / 2 + 128);    // out, half of a, b
  CHECK(c["l"].cost.flops == 21);                      // floor(4 * 16 / 3)
  CHECK(c["l"].cost.bytes() == 32 + 32);               // half read, half written
  CHECK(c["r"].cost.transcendentals == 100);
}

TEST_CASE("fft: a multi-dimensional transform counts the sum of its log2 lengths, XLA's product") {
  auto c = analyze(R"(
ENTRY e {
  x = c64[16,32,64] parameter(0)
  y = c64[16,32,64] fft(x), fft_type=FFT, fft_length={16,32,64}
  r = f32[8,64] parameter(1)
  s = c64[8,33] fft(r), fft_type=RFFT, fft_length={64}
  t = c64[8,33] parameter(2)
  ROOT u = f32[8,64] fft(t), fft_type=IRFFT, fft_length={64}
})");
  // L = 16 * 32 * 64 = 32768 points, log2 L = 4 + 5 + 6 = 15: 5 * 32768 * 15 = 2457600.
  CHECK(c["y"].cost.flops == 5.0 * 32768 * 15);
  // XLA: 8 * (4 * 5 * 6) * 32768 = 31457280, 12.8x ours.
  CHECK(c["y"].cost.xla_flops == 8.0 * 120 * 32768);
  // Real transforms: half of 5 L log2 L over the 8 x 64 real points: 2.5 * 512 * 6 = 7680.
  CHECK(c["s"].cost.flops == 2.5 * 512 * 6);
  CHECK(c["u"].cost.flops == 2.5 * 512 * 6);
}

TEST_CASE("data movement: copies, transposes, gathers and scatters") {
  auto c = analyze(R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  relabel = f32[3,2]{0,1} transpose(p), dimensions={1,0}
  moved = f32[3,2]{1,0} transpose(p), dimensions={1,0}
  copied = f32[2,3]{1,0} copy(p)
  bc = f32[6]{0} bitcast(p)
  operand = f32[100,4] parameter(1)
  indices = s32[10,1] parameter(2)
  updates = f32[10,4] parameter(3)
  sc = f32[100,4] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  big = f32[1000] parameter(4)
  upd = f32[10] parameter(5)
  at = s32[] parameter(6)
  ROOT dus = f32[1000] dynamic-update-slice(big, upd, at)
})");
  CHECK(c["relabel"].cost.bytes() == 0);  // the layouts make it a bitcast
  CHECK(c["moved"].cost.bytes() == 48);
  CHECK(c["copied"].cost.bytes() == 48);
  CHECK(c["bc"].cost.bytes() == 0);
  CHECK(c["sc"].cost.flops == 40);              // one add per update element
  CHECK(c["sc"].cost.bytes() == 3 * 160 + 40);  // region read, updates read, region written
  CHECK(c["dus"].cost.bytes() == 2 * 40 + 4);   // the buffer is updated in place
}

TEST_CASE("optimization barriers are free; XLA charges them") {
  auto c = analyze(R"(
ENTRY e {
  p = f32[16] parameter(0)
  t = (f32[16]) tuple(p)
  ROOT b = (f32[16]) opt-barrier(t)
})");
  CHECK(c["b"].cost.bytes() == 0);
  CHECK(c["b"].cost.xla_bytes_accessed == 64 + 8);  // result leaf + operand pointer table
}

TEST_CASE("calls and conditionals") {
  auto c = analyze(R"(
callee {
  x = f32[8] parameter(0)
  ROOT n = f32[8] negate(x)
}
cheap {
  x = f32[8] parameter(0)
  ROOT y = f32[8] negate(x)
}
dear {
  x = f32[8] parameter(0)
  e = f32[8] exponential(x)
  ROOT y = f32[8] multiply(e, e)
}
ENTRY e {
  p = f32[8] parameter(0)
  k = f32[8] call(p), to_apply=callee
  i = s32[] parameter(1)
  ROOT c = f32[8] conditional(i, k, k), branch_computations={cheap, dear}
})");
  CHECK(c["k"].cost.flops == 8);
  CHECK(c["k"].cost.bytes() == 64);
  // The costliest branch, figure by figure: 8 FLOPs, 8 transcendentals, and dear's bytes:
  // exp 32 + 32 B, multiply reads its operand twice (each operand slot is charged) 64 + 32 B.
  CHECK(c["c"].cost.flops == 8);
  CHECK(c["c"].cost.transcendentals == 8);
  CHECK(c["c"].cost.bytes() == 160);
  CHECK(c.at("dear", "e").multiplier == 1);
  REQUIRE(c.cost.notes.size() == 1);
  CHECK(c.cost.notes[0] == "c: counted as the costliest of its 2 branches, figure by figure");
}

TEST_CASE("the module without an entry is an error") {
  Module empty;
  absl::StatusOr<ModuleCost> cost = analyze_cost(empty);
  CHECK_FALSE(cost.ok());
}

}  // namespace
}  // namespace hloroof
