// Custom calls: cuBLAS GEMMs and cuDNN convolutions costed from their configs; markers free;
// anything else unknown, counted and explained, never mixed into totals as -1.
#include "cost_test_util.h"

namespace hloroof {
namespace {

using testing::analyze;

TEST_CASE("a cuBLAS GEMM's FLOPs come from its backend config") {
  auto c = analyze(R"(
ENTRY e {
  a = f32[64,128]{1,0} parameter(0)
  b = f32[128,256]{1,0} parameter(1)
  gemm = (f32[64,256]{1,0}, s8[4194304]{0}) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}}
  ROOT r = f32[64,256]{1,0} get-tuple-element(gemm), index=0
})");
  const InstructionCost& gemm = c["gemm"];
  CHECK_FALSE(gemm.unknown);
  CHECK(gemm.cost.flops == 2.0 * 64 * 256 * 128);  // 4,194,304
  CHECK(gemm.cost.matrix_flops() == gemm.cost.flops);
  CHECK(gemm.cost.matrix_type() == PrimitiveType::kF32);
  // Reads a (32 KiB) and b (128 KiB); writes the f32[64,256] result (64 KiB), not the 4 MiB
  // workspace. XLA charges the workspace too.
  CHECK(gemm.cost.bytes_read == 32768 + 131072);
  CHECK(gemm.cost.bytes_written == 65536);
  CHECK(gemm.cost.xla_bytes_accessed == 32768 + 131072 + 65536 + 4194304);
  CHECK(c.cost.unknown.empty());
  CHECK_FALSE(c.cost.is_lower_bound);
}

TEST_CASE("a cuBLASLt batched GEMM with the older flat config") {
  auto c = analyze(R"(
ENTRY e {
  a = bf16[8,32,64]{2,1,0} parameter(0)
  b = bf16[8,64,16]{2,1,0} parameter(1)
  ROOT gemm = bf16[8,32,16]{2,1,0} custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]}}
})");
  CHECK(c["gemm"].cost.flops == 2.0 * 8 * 32 * 16 * 64);  // batch dims are in E(out)
  CHECK(c["gemm"].cost.matrix_type() == PrimitiveType::kBF16);
}

TEST_CASE("a cuDNN convolution is costed by the convolution rule") {
  auto c = analyze(R"(
ENTRY e {
  input = f32[1,1,10,20] parameter(0)
  kernel = f32[1,1,3,3] parameter(1)
  conv = (f32[1,1,8,18], u8[0]) custom-call(input, kernel), window={size=3x3}, dim_labels=bf01_oi01->bf01, custom_call_target="__cudnn$convForward"
  ROOT r = f32[1,1,8,18] get-tuple-element(conv), index=0
})");
  // As G5: 8*18*2*3*3 FLOPs; the scratch buffer is not output.
  CHECK(c["conv"].cost.flops == 2592);
  CHECK(c["conv"].cost.matrix_flops() == 2592);
  CHECK(c["conv"].cost.bytes() == 4 * (200 + 9 + 144));
  CHECK(c["conv"].cost.xla_bytes_accessed == 4 * (200 + 9 + 144));
}

TEST_CASE("an unknown custom call is reported, not counted as -1") {
  auto c = analyze(R"(
ENTRY e {
  p = f32[16] parameter(0)
  k = f32[16] custom-call(p), custom_call_target="my_kernel"
  ROOT n = f32[16] negate(k)
})");
  const InstructionCost& k = c["k"];
  CHECK(k.unknown);
  CHECK(k.cost.flops == 0);
  CHECK(k.cost.unknown_ops == 1);
  CHECK(k.cost.bytes() == 128);  // its operand and result, a floor
  CHECK(k.cost.xla_bytes_accessed == 0);
  REQUIRE(c.cost.unknown.size() == 1);
  CHECK(c.cost.unknown[0]->name() == "k");
  CHECK(c.cost.is_lower_bound);
  CHECK(c.cost.totals.flops == 16);
  CHECK(c.cost.totals.unknown_ops == 1);
  REQUIRE(c.cost.notes.size() == 1);
  CHECK(c.cost.notes[0] ==
        "k: custom call target \"my_kernel\" is not understood; FLOPs count 0, bytes count its "
        "operands and results");
}

TEST_CASE("an S(6) index is read from on-chip scalar memory, not from the host") {
  // The index i is an s32[] in TPU scalar memory (S(6)); nothing here touches host memory.
  auto c = analyze(R"(
ENTRY e {
  i = s32[]{:T(128)S(6)} parameter(0)
  p = f32[1024]{0} parameter(1)
  ROOT d = f32[128]{0} dynamic-slice(p, i), dynamic_slice_sizes={128}
})");
  CHECK(c["d"].cost.host_bytes() == 0);
  CHECK(c.cost.totals.host_bytes() == 0);
  CHECK(c.cost.totals.on_chip_bytes() > 0);
}

TEST_CASE("partitioner markers and host moves are known") {
  auto c = analyze(R"(
ENTRY e {
  p = f32[16] parameter(0)
  s = f32[16] custom-call(p), custom_call_target="Sharding", sharding={replicated}
  ROOT h = f32[16]{0:S(5)} custom-call(s), custom_call_target="MoveToHost"
})");
  CHECK_FALSE(c["s"].unknown);
  CHECK(c["s"].cost.bytes() == 0);
  CHECK_FALSE(c["h"].unknown);
  CHECK(c["h"].cost.hbm_bytes() == 64);
  CHECK(c["h"].cost.host_bytes() == 64);
  CHECK(c.cost.unknown.empty());
}

}  // namespace
}  // namespace hloroof
