// Custom calls: cuBLAS GEMMs and cuDNN convolutions costed from their configs; markers free;
// anything else unknown, counted and explained, never mixed into totals as -1.
#include "cost_test_util.h"
#include "hloroof/absl_compat.h"

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
  // workspace.
  CHECK(gemm.cost.bytes_read == 32768 + 131072);
  CHECK(gemm.cost.bytes_written == 65536);
  // cost_analysis()'s HloCostAnalysis knows no custom call (-1, here 0): the XLA-compatible
  // figures count none of the GEMM (docs/cost-conventions.md; tests/cost/xla_gpu_cost_test.cc
  // holds that to XLA's own figures).
  CHECK(gemm.cost.xla_flops == 0);
  CHECK(gemm.cost.xla_bytes_accessed == 0);
  CHECK(c.cost.unknown.empty());
  CHECK_FALSE(c.cost.is_lower_bound);
}

TEST_CASE("a cuBLASLt GEMM's bytes count tuple element 0 only, as XLA's GPU analysis") {
  // XLA's GpuHloCostAnalysisTest.CublasCustomCall: three f32[100,100] arrays of 40000 bytes
  // (two operands, the output) = 120000 bytes; the s8 workspace does not count.
  auto c = analyze(R"(
ENTRY e {
  a = f32[100,100]{1,0} parameter(0)
  b = f32[100,100]{1,0} parameter(1)
  gemm = (f32[100,100]{1,0}, s8[80000]{0}) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  ROOT r = f32[100,100]{1,0} get-tuple-element(gemm), index=0
})");
  CHECK(c["gemm"].cost.bytes() == 120000);
  CHECK(c["gemm"].cost.flops == 2.0 * 100 * 100 * 100);
  CHECK(c["gemm"].cost.xla_bytes_accessed == 0);  // cost_analysis(): unknown
}

TEST_CASE("cuDNN fused attention: FLOPs from the operand shapes") {
  // Q, K, V bf16[2,128,4,64] (B=2, S=128, H=4, D=64): E(Q) = E(O) = 65536, S_kv = 128.
  // Forward: 2 S_kv (E(Q) + E(O)) = 2 * 128 * 131072 = 33554432 = 4 B H S_q S_kv D.
  // Backward: 10 S_kv E(Q) = 83886080 (2.5 times the forward).
  auto c = analyze(R"(
ENTRY e {
  q = bf16[2,128,4,64]{3,2,1,0} parameter(0)
  k = bf16[2,128,4,64]{3,2,1,0} parameter(1)
  v = bf16[2,128,4,64]{3,2,1,0} parameter(2)
  do = bf16[2,128,4,64]{3,2,1,0} parameter(3)
  fwd = (bf16[2,128,4,64]{3,2,1,0}, u8[1024]{0}) custom-call(q, k, v), custom_call_target="__cudnn$fmhaSoftmax", backend_config={"cudnn_fmha_backend_config":{"mask_type":"NO_MASK","intermediate_tensor_shape":{"element_type":"BF16","dimensions":["2","4","128","128"]}}}
  o = bf16[2,128,4,64]{3,2,1,0} get-tuple-element(fwd), index=0
  bwd = (bf16[2,128,4,64]{3,2,1,0}, bf16[2,128,4,64]{3,2,1,0}, bf16[2,128,4,64]{3,2,1,0}, u8[1024]{0}) custom-call(q, k, v, do, o), custom_call_target="__cudnn$fmhaSoftmaxBackward", backend_config={"cudnn_fmha_backend_config":{"mask_type":"CAUSAL","intermediate_tensor_shape":{"element_type":"BF16","dimensions":["2","4","128","128"]}}}
  ROOT r = bf16[2,128,4,64]{3,2,1,0} get-tuple-element(bwd), index=0
})");
  CHECK_FALSE(c["fwd"].unknown);
  CHECK(c["fwd"].cost.flops == 33554432);
  CHECK(c["fwd"].cost.matrix_type() == PrimitiveType::kBF16);
  // Reads Q, K, V (3 x 131072 bytes); writes O (131072 bytes), not the u8 scratch.
  CHECK(c["fwd"].cost.bytes() == 4 * 131072);
  // Causal: half of 83886080.
  CHECK(c["bwd"].cost.flops == 41943040);
  CHECK(c["bwd"].cost.bytes_written == 3 * 131072);
  CHECK(c.cost.unknown.empty());
  // cost_analysis() knows neither call.
  CHECK(c.cost.totals.xla_flops == 0);
  CHECK(c.cost.totals.xla_bytes_accessed == 0);
}

TEST_CASE("cuDNN fused attention: a config without a score tensor is not read as one") {
  // No score dimension, a zero one, and nine of them (more than a score tensor has): each call
  // is left to the unknown-op rule (operands read, results written), never a guessed S_kv.
  const std::string call =
      "  a = (bf16[2,128,4,64]{3,2,1,0}, u8[1024]{0}) custom-call(q, q, q), "
      "custom_call_target=\"__cudnn$fmhaSoftmax\", backend_config={\"cudnn_fmha_backend_config\":"
      "{\"intermediate_tensor_shape\":{\"dimensions\":[DIMS]}}}\n";
  for (const std::string& dims :
       {std::string(""), std::string("\"2\",\"4\",\"128\",\"0\""),
        std::string("\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"1\",\"128\"")}) {
    INFO(dims);
    std::string text = "ENTRY e {\n  q = bf16[2,128,4,64]{3,2,1,0} parameter(0)\n" + call +
                       "  ROOT r = bf16[2,128,4,64]{3,2,1,0} get-tuple-element(a), index=0\n}";
    text.replace(text.find("DIMS"), 4, dims);
    auto c = analyze(text);
    CHECK(c["a"].unknown);
    CHECK(c["a"].cost.flops == 0);
  }
}

// A TransformerEngine fused-attention call as TE's JAX layer writes it (typed FFI): packed
// qkv bf16[2,128,3,4,64] (B = 2, S = 128, H = 4, D = 64), its RNG seed, and the output, the
// softmax statistics, the RNG state and a u8 workspace. ATTRS replaces the config's sizes.
std::string te_attention(std::string_view target, std::string_view attrs) {
  std::string text = R"(ENTRY e {
  qkv = bf16[2,128,3,4,64]{4,3,2,1,0} parameter(0)
  seed = u32[2]{0} parameter(1)
  a = (bf16[2,128,4,64]{3,2,1,0}, f32[2,4,128,1]{3,2,1,0}, u32[2,4]{1,0}, u8[1]{0}) custom-call(qkv, seed), custom_call_target="TARGET", api_version=API_VERSION_TYPED_FFI, backend_config={ATTRS, deterministic = false, dropout_probability = 1.000000e-01 : f64, is_training = true, scaling_factor = 1.250000e-01 : f64}
  ROOT r = bf16[2,128,4,64]{3,2,1,0} get-tuple-element(a), index=0
})";
  text.replace(text.find("TARGET"), 6, target);
  text.replace(text.find("ATTRS"), 5, attrs);
  return text;
}

constexpr std::string_view kTeSizes =
    "attn_heads = 4 : i64, input_batch = 2 : i64, num_gqa_groups = 4 : i64, "
    "q_max_seqlen = 128 : i64, kv_max_seqlen = 128 : i64, qk_head_dim = 64 : i64, "
    "v_head_dim = 64 : i64";

TEST_CASE("TransformerEngine fused attention: FLOPs from its FFI attributes") {
  // Rows B H S_q = 2 x 4 x 128 = 1024, S_kv = 128. Causal forward (mask_type 2): 64 keys seen
  // on average, 2 (D + D_v) = 256 FLOPs a score: 1024 x 64 x 256 = 16,777,216.
  const std::string causal = str_cat(kTeSizes, ", mask_type = 2 : i64, window_size_left = "
                                               "-1 : i64, window_size_right = -1 : i64");
  auto fwd = analyze(te_attention("te_fused_attn_forward_ffi", causal));
  CHECK_FALSE(fwd["a"].unknown);
  CHECK(fwd["a"].cost.flops == 16777216);
  CHECK(fwd["a"].cost.matrix_type() == PrimitiveType::kBF16);
  // Reads qkv (2 x 128 x 3 x 4 x 64 x 2 = 393,216 B) and the seed (8 B); writes the output
  // (131,072 B), the statistics (2 x 4 x 128 x 4 = 4,096 B) and the RNG state (32 B), not the
  // u8 workspace.
  CHECK(fwd["a"].cost.bytes_read == 393216 + 8);
  CHECK(fwd["a"].cost.bytes_written == 131072 + 4096 + 32);
  CHECK(fwd.cost.totals.xla_flops == 0);
  // Backward, no mask (mask_type 0): 2 (3 D + 2 D_v) = 640 FLOPs a score: 1024 x 128 x 640 =
  // 83,886,080, as cuDNN's backward of the same sizes (10 S_kv E(Q)).
  auto bwd = analyze(te_attention("te_fused_attn_backward_ffi",
                                  str_cat(kTeSizes, ", mask_type = 0 : i64")));
  CHECK(bwd["a"].cost.flops == 83886080);
  // A causal window of 32 keys (window_size_left 31): query i sees min(i + 1, 32) keys, w -
  // w^2 / 2 S_kv = 32 - 4 = 28 on average: 1024 x 28 x 256 = 7,340,032 forward.
  auto windowed = analyze(te_attention(
      "te_fused_attn_forward_ffi",
      str_cat(kTeSizes, ", mask_type = 2 : i64, window_size_left = 31 : i64, "
                        "window_size_right = 0 : i64")));
  CHECK(windowed["a"].cost.flops == 7340032);
  // Without a causal mask, a window of 15 keys each side sees 31: 1024 x 31 x 256 = 8,126,464.
  auto both_sides = analyze(te_attention(
      "te_fused_attn_forward_ffi",
      str_cat(kTeSizes, ", mask_type = 1 : i64, window_size_left = 15 : i64, "
                        "window_size_right = 15 : i64")));
  CHECK(both_sides["a"].cost.flops == 8126464);
  // A narrower v (D_v = 32) and the single head_dim of older TE versions: 2 (64 + 32) = 192
  // FLOPs a score, 1024 x 128 x 192 = 25,165,824; head_dim alone: 256 a score, 33,554,432.
  std::string narrow(kTeSizes);
  narrow.replace(narrow.find("v_head_dim = 64"), 15, "v_head_dim = 32");
  CHECK(analyze(te_attention("te_fused_attn_forward_ffi", narrow))["a"].cost.flops == 25165824);
  const std::string older =
      "attn_heads = 4 : i64, input_batch = 2 : i64, q_max_seqlen = 128 : i64, "
      "kv_max_seqlen = 128 : i64, head_dim = 64 : i64";
  CHECK(analyze(te_attention("te_fused_attn_forward_ffi", older))["a"].cost.flops == 33554432);
}

TEST_CASE("TransformerEngine fused attention: a config without every size is not read") {
  // A size missing, zero, negative or not a number, the sizes nested in another entry or in a
  // string left open, no sizes at all: each call is left to the
  // unknown-op rule (operands read, results written), never a guessed size.
  std::string missing(kTeSizes);
  missing.replace(missing.find("kv_max_seqlen = 128 : i64, "), 27, "");
  std::string zero(kTeSizes);
  zero.replace(zero.find("attn_heads = 4"), 14, "attn_heads = 0");
  std::string negative(kTeSizes);
  negative.replace(negative.find("input_batch = 2"), 15, "input_batch = -2");
  std::string word(kTeSizes);
  word.replace(word.find("q_max_seqlen = 128"), 18, "q_max_seqlen = many");
  // The config as a quoted string (as `backend_config="..."` gives it), so that a string in it
  // may be left open.
  const auto quoted = [](std::string text) {
    const size_t open = text.find("backend_config={") + 15;
    const size_t close = text.find('\n', open) - 1;
    std::string config = text.substr(open, close - open + 1);
    for (size_t i = 0; i < config.size(); ++i) {
      if (config[i] == '"' || config[i] == '\\') config.insert(i++, 1, '\\');
    }
    return text.replace(open, close - open + 1, str_cat("\"", config, "\""));
  };
  for (const std::string& text :
       {te_attention("te_fused_attn_forward_ffi", missing),
        te_attention("te_fused_attn_forward_ffi", zero),
        te_attention("te_fused_attn_forward_ffi", negative),
        te_attention("te_fused_attn_forward_ffi", word),
        te_attention("te_fused_attn_forward_ffi", str_cat("outer = {", kTeSizes, "}")),
        quoted(te_attention("te_fused_attn_forward_ffi", str_cat("note = \"", kTeSizes))),
        quoted(te_attention("te_fused_attn_forward_ffi", str_cat(kTeSizes, ", x = \"\\"))),
        te_attention("te_fused_attn_forward_ffi", "")}) {
    INFO(text);
    auto c = analyze(text);
    CHECK(c["a"].unknown);
    CHECK(c["a"].cost.flops == 0);
  }
  // The sizes in a quoted config are read as in a bare one.
  CHECK(analyze(quoted(te_attention("te_fused_attn_forward_ffi", kTeSizes)))["a"].cost.flops ==
        33554432);
}

TEST_CASE("splash attention: FLOPs from q, k and the causal share of the block grid") {
  // q, k, v bf16[2,4,1024,128] (batch 2, 4 heads, 1024 positions, head dim 128); the mask's
  // block grid s8[1,2,2]: causal, 3 of the 4 blocks computed. Scores: 2 x 4 x 1024 x 1024 x
  // 3/4 = 6,291,456. Forward: 4 x scores x 128 = 3,221,225,472 FLOPs; the fused backward (dq
  // written beside dk and dv): 10 x scores x 128 = 8,053,063,680; one exponential a score.
  auto c = analyze(R"(
ENTRY e {
  grid = s8[1,2,2] parameter(0)
  q = bf16[2,4,1024,128] parameter(1)
  k = bf16[2,4,1024,128] parameter(2)
  v = bf16[2,4,1024,128] parameter(3)
  do = bf16[2,4,1024,128] parameter(4)
  splash_mha_fwd_residuals = (bf16[2,4,1024,128], f32[2,4,1024,128]) custom-call(grid, grid, q, k, v), custom_call_target="tpu_custom_call"
  splash_mha_dkv_no_residuals = (bf16[2,2,4,1024,128], bf16[2,4,1024,128], bf16[2,4,1024,128]) custom-call(grid, grid, q, k, v, do), custom_call_target="tpu_custom_call"
  ROOT t = tuple(splash_mha_fwd_residuals, splash_mha_dkv_no_residuals)
})");
  const InstructionCost& fwd = c["splash_mha_fwd_residuals"];
  CHECK_FALSE(fwd.unknown);
  CHECK(fwd.cost.flops == 3221225472.0);
  CHECK(fwd.cost.matrix_flops() == fwd.cost.flops);
  CHECK(fwd.cost.matrix_type() == PrimitiveType::kBF16);
  CHECK(fwd.cost.transcendentals == 6291456.0);
  const InstructionCost& bwd = c["splash_mha_dkv_no_residuals"];
  CHECK_FALSE(bwd.unknown);
  CHECK(bwd.cost.flops == 8053063680.0);
  CHECK(c.cost.unknown.empty());
}

TEST_CASE("splash attention: q, k and v laid out sequence-minor") {
  // The first case's kernels with q, k and v as [batch, heads, head dim, seq] (the kernel's
  // SEQ_MINOR layout; its outputs stay [..., seq, head dim]): the same 6,291,456 scores, the
  // same 3,221,225,472 and 8,053,063,680 FLOPs. Read head-minor, the 128-wide dimension would
  // be the sequence: a grid of 2 blocks of 64 over 128 positions, a head size of 1024.
  // Context parallelism, sequence-minor: q [1,1,64,256] holds 256 of k's [1,1,64,1024]
  // positions, grid s8[1,1,4] (blocks of 256): the whole causal grid's 10 of 16 blocks,
  // 256 x 1024 x 10/16 = 163,840 scores, 4 x 163,840 x 64 = 41,943,040 FLOPs; the dkv kernel,
  // its results dk and dv [1,1,1024,64]: 8 x 163,840 x 64 = 83,886,080.
  auto c = analyze(R"(
ENTRY e {
  grid = s8[1,2,2] parameter(0)
  q = bf16[2,4,128,1024] parameter(1)
  k = bf16[2,4,128,1024] parameter(2)
  v = bf16[2,4,128,1024] parameter(3)
  do = bf16[2,4,1024,128] parameter(4)
  splash_mha_fwd_residuals = (bf16[2,4,1024,128], f32[2,4,1024,128]) custom-call(grid, grid, q, k, v), custom_call_target="tpu_custom_call"
  splash_mha_dkv_no_residuals = (bf16[2,2,4,1024,128], bf16[2,4,1024,128], bf16[2,4,1024,128]) custom-call(grid, grid, q, k, v, do), custom_call_target="tpu_custom_call"
  cp = s8[1,1,4] parameter(5)
  qs = bf16[1,1,64,256] parameter(6)
  ks = bf16[1,1,64,1024] parameter(7)
  splash_mha_fwd_residuals.1 = (bf16[1,1,256,64], f32[1,1,256,128]) custom-call(cp, cp, qs, ks, ks), custom_call_target="tpu_custom_call"
  splash_mha_dkv_no_residuals.1 = (bf16[1,1,1024,64], bf16[1,1,1024,64]) custom-call(cp, cp, qs, ks, ks), custom_call_target="tpu_custom_call"
  ROOT t = tuple(splash_mha_fwd_residuals, splash_mha_dkv_no_residuals, splash_mha_fwd_residuals.1, splash_mha_dkv_no_residuals.1)
})");
  CHECK(c["splash_mha_fwd_residuals"].cost.flops == 3221225472.0);
  CHECK(c["splash_mha_fwd_residuals"].cost.transcendentals == 6291456.0);
  CHECK(c["splash_mha_dkv_no_residuals"].cost.flops == 8053063680.0);
  CHECK(c["splash_mha_fwd_residuals.1"].cost.flops == 41943040.0);
  CHECK(c["splash_mha_dkv_no_residuals.1"].cost.flops == 83886080.0);
}

TEST_CASE("splash attention: rectangular blocks, a shrunk sliding-window grid, its backward") {
  // One head of 1024 positions, head dim 64: 1024 x 1024 = 1,048,576 scores in all.
  // causal: grid s8[1,2,4], q blocks of 1024/2 = 512, kv blocks of 1024/4 = 256. q block 0
  //   keeps kv blocks 0-1 (its last position 511 is in block 1), q block 1 all 4: 6 of 8.
  //   4 x 1,048,576 x 6/8 x 64 = 201,326,592 FLOPs.
  // window: grid s8[1,4,2] shrunk to 2 kv blocks a row, partial-mask blocks s32[2,256,256]:
  //   blocks of 256, 4 x 4 in all; rows keep 1, 2, 2, 2: 7 of 16.
  //   4 x 1,048,576 x 7/16 x 64 = 117,440,512.
  // its backward: grid s8[1,4,4] left whole, the same mask's partial blocks: the forward's
  //   shrunk grid says a query sees (2 - 1) x 256 positions back, so kv block j is needed by
  //   q blocks j and j + 1 (the last by 3 alone): 2 + 2 + 2 + 1 = 7 of 16, dq fused (10 FLOPs
  //   a score and head dim): 10 x 1,048,576 x 7/16 x 64 = 293,601,280.
  // causal backward: grid s8[1,4,4], mask computed in the kernel (no partial blocks): kv
  //   block j needed by q blocks j-3: 4 + 3 + 2 + 1 = 10 of 16: 10 x 1,048,576 x 10/16 x 64
  //   = 419,430,400.
  auto c = analyze(R"(
ENTRY e {
  causal = s8[1,2,4] parameter(0)
  band = s8[1,4,2] parameter(1)
  whole = s8[1,4,4] parameter(2)
  partial = s32[2,256,256] parameter(3)
  q = bf16[1,1,1024,64] parameter(4)
  k = bf16[1,1,1024,64] parameter(5)
  v = bf16[1,1,1024,64] parameter(6)
  splash_mha_fwd_residuals.1 = (bf16[1,1,1024,64], f32[1,1,1024,128]) custom-call(causal, causal, q, k, v), custom_call_target="tpu_custom_call"
  splash_mha_fwd_residuals.2 = (bf16[1,1,1024,64], f32[1,1,1024,128]) custom-call(band, band, band, q, k, v, partial), custom_call_target="tpu_custom_call"
  splash_mha_dkv_no_residuals.1 = (bf16[1,1,1024,64], bf16[1,1,1024,64], bf16[1,1,1024,64]) custom-call(whole, whole, whole, q, k, v, partial), custom_call_target="tpu_custom_call"
  splash_mha_dkv_no_residuals.2 = (bf16[1,1,1024,64], bf16[1,1,1024,64], bf16[1,1,1024,64]) custom-call(whole, whole, q, k, v), custom_call_target="tpu_custom_call"
  ROOT t = tuple(splash_mha_fwd_residuals.1, splash_mha_fwd_residuals.2, splash_mha_dkv_no_residuals.1, splash_mha_dkv_no_residuals.2)
})");
  CHECK(c["splash_mha_fwd_residuals.1"].cost.flops == 201326592.0);
  CHECK(c["splash_mha_fwd_residuals.2"].cost.flops == 117440512.0);
  CHECK(c["splash_mha_dkv_no_residuals.1"].cost.flops == 293601280.0);
  CHECK(c["splash_mha_dkv_no_residuals.2"].cost.flops == 419430400.0);
}

TEST_CASE("splash attention: q one shard of the sequence, the keys gathered whole") {
  // Context parallelism over 4: q holds 256 of k's 1024 positions (one head, head dim 64),
  // its grid s8[1,1,4] one q block of 256 by 4 kv blocks of 256. Its share is the whole
  // causal grid's, 4 x 4 blocks: 1 + 2 + 3 + 4 = 10 of 16; scores 256 x 1024 x 10/16 =
  // 163,840. Forward: 4 x 163,840 x 64 = 41,943,040 FLOPs. The dkv kernel (dk and dv, no dq)
  // over the same grid: kv block j needed by q blocks j-3 of the whole sequence, 4 + 3 + 2 +
  // 1 = 10 of 16 again: 8 x 163,840 x 64 = 83,886,080.
  // A shard of one position against 2^30 keys would be a grid of 2^30 q blocks a side: not
  // read, half of 2^30 scores, 4 x 2^29 x 64 = 137,438,953,472 FLOPs.
  auto c = analyze(R"(
ENTRY e {
  grid = s8[1,1,4] parameter(0)
  q = bf16[1,1,256,64] parameter(1)
  k = bf16[1,1,1024,64] parameter(2)
  v = bf16[1,1,1024,64] parameter(3)
  one = s8[1,1,1] parameter(4)
  q1 = bf16[1,1,1,64] parameter(5)
  kh = bf16[1,1,1073741824,64] parameter(6)
  splash_mha_fwd_residuals.1 = (bf16[1,1,256,64], f32[1,1,256,128]) custom-call(grid, grid, q, k, v), custom_call_target="tpu_custom_call"
  splash_mha_dkv_no_residuals.1 = (bf16[1,1,1024,64], bf16[1,1,1024,64]) custom-call(grid, grid, q, k, v, q), custom_call_target="tpu_custom_call"
  splash_mha_fwd_residuals.2 = (bf16[1,1,1,64], f32[1,1,1,128]) custom-call(one, q1, kh, kh), custom_call_target="tpu_custom_call"
  ROOT t = tuple(splash_mha_fwd_residuals.1, splash_mha_dkv_no_residuals.1, splash_mha_fwd_residuals.2)
})");
  CHECK(c["splash_mha_fwd_residuals.1"].cost.flops == 41943040.0);
  CHECK(c["splash_mha_fwd_residuals.1"].cost.transcendentals == 163840.0);
  CHECK(c["splash_mha_dkv_no_residuals.1"].cost.flops == 83886080.0);
  CHECK(c["splash_mha_fwd_residuals.2"].cost.flops == 137438953472.0);
}

TEST_CASE("splash attention: a grid that cannot be read is counted as half") {
  // The grid's 3 q blocks do not divide 1024 positions: half of 1,048,576 scores,
  // 4 x 524,288 x 64 = 134,217,728 FLOPs. A grid larger than the sequence likewise. Heads of
  // no dimension compute nothing (not 0 / 0).
  auto c = analyze(R"(
ENTRY e {
  odd = s8[1,3,3] parameter(0)
  huge = s8[1,2048,2048] parameter(1)
  q = bf16[1,1,1024,64] parameter(2)
  k = bf16[1,1,1024,64] parameter(3)
  v = bf16[1,1,1024,64] parameter(4)
  splash_mha_fwd_residuals.1 = (bf16[1,1,1024,64], f32[1,1,1024,128]) custom-call(odd, q, k, v), custom_call_target="tpu_custom_call"
  splash_mha_fwd_residuals.2 = (bf16[1,1,1024,64], f32[1,1,1024,128]) custom-call(huge, q, k, v), custom_call_target="tpu_custom_call"
  empty = bf16[1,1,1024,0] parameter(5)
  splash_mha_fwd_residuals.3 = (bf16[1,1,1024,0], f32[1,1,1024,128]) custom-call(odd, empty, empty, empty), custom_call_target="tpu_custom_call"
  ROOT t = tuple(splash_mha_fwd_residuals.1, splash_mha_fwd_residuals.2, splash_mha_fwd_residuals.3)
})");
  CHECK(c["splash_mha_fwd_residuals.1"].cost.flops == 134217728.0);
  CHECK(c["splash_mha_fwd_residuals.2"].cost.flops == 134217728.0);
  CHECK(c["splash_mha_fwd_residuals.3"].cost.flops == 0.0);
  CHECK(c["splash_mha_fwd_residuals.3"].cost.transcendentals == 0.0);
}

TEST_CASE("TopK, gather bound markers and kernels with a stated cost are known") {
  auto c = analyze(R"(
ENTRY e {
  x = f32[8,1024]{1,0} parameter(0)
  i = s32[16,1]{1,0} parameter(1)
  topk = (f32[8,16]{1,0}, s32[8,16]{1,0}) custom-call(x), custom_call_target="TopK"
  assume = s32[16,1]{1,0} custom-call(i), custom_call_target="AssumeGatherIndicesInBound"
  kernel = f32[8,1024]{1,0} custom-call(x), custom_call_target="tpu_custom_call", backend_config={"custom_call_config":{"body":"","cost_estimate":{"flops":1000000,"transcendentals":8192,"bytes_accessed":65536}}}
  values = f32[8,16]{1,0} get-tuple-element(topk), index=0
  ROOT t = (f32[8,16]{1,0}, s32[16,1]{1,0}, f32[8,1024]{1,0}) tuple(values, assume, kernel)
})");
  // TopK: 8192 elements x ceil(log2 16) = 4 comparisons.
  CHECK_FALSE(c["topk"].unknown);
  CHECK(c["topk"].cost.flops == 8192 * 4);
  // Reads x (32768 bytes), writes values and indices (512 + 512 bytes).
  CHECK(c["topk"].cost.bytes() == 32768 + 1024);
  CHECK(c["topk"].cost.xla_flops == 0);  // XLA's analysis knows no TopK custom call
  CHECK(c["topk"].cost.xla_bytes_accessed == 0);
  CHECK_FALSE(c["assume"].unknown);
  CHECK(c["assume"].cost.bytes() == 0);
  CHECK_FALSE(c["kernel"].unknown);
  CHECK(c["kernel"].cost.flops == 1000000);
  CHECK(c["kernel"].cost.transcendentals == 8192);
  CHECK(c["kernel"].cost.xla_bytes_accessed == 65536);
  CHECK(c["kernel"].cost.bytes() == 2 * 32768);  // its operand and result
  CHECK(c.cost.unknown.empty());
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
  CHECK(c["conv"].cost.xla_flops == 0);  // cost_analysis() knows no custom call
  CHECK(c["conv"].cost.xla_bytes_accessed == 0);
}

TEST_CASE("a cuDNN gradient is costed as its forward convolution") {
  // A 1x1 convolution of 4 positions from 8 to 2 features: 2 x 4 x 2 x 8 = 128 FLOPs, and its
  // data and filter gradients the same 128 (each a GEMM of the same three sizes). Read as a
  // forward pass (operand 0, operand 1, result), the filter gradient would count 4 times that,
  // the ratio of input to output features (8 / 2).
  auto c = analyze(R"(
ENTRY e {
  x = f32[1,2,2,8] parameter(0)
  w = f32[2,1,1,8] parameter(1)
  dy = f32[1,2,2,2] parameter(2)
  fwd = (f32[1,2,2,2], u8[0]) custom-call(x, w), window={size=1x1}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convForward"
  dw = (f32[2,1,1,8], u8[0]) custom-call(x, dy), window={size=1x1}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBackwardFilter"
  dx = (f32[1,2,2,8], u8[0]) custom-call(dy, w), window={size=1x1}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBackwardInput"
  a = f32[1,2,2,2] get-tuple-element(fwd), index=0
  b = f32[2,1,1,8] get-tuple-element(dw), index=0
  d = f32[1,2,2,8] get-tuple-element(dx), index=0
  ROOT t = (f32[1,2,2,2], f32[2,1,1,8], f32[1,2,2,8]) tuple(a, b, d)
})");
  CHECK(c["fwd"].cost.flops == 128);
  CHECK(c["dw"].cost.flops == 128);
  CHECK(c["dx"].cost.flops == 128);
  // cost_analysis() counts none of the three (unknown custom calls).
  CHECK(c["fwd"].cost.xla_flops == 0);
  CHECK(c["dw"].cost.xla_flops == 0);
  CHECK(c["dx"].cost.xla_flops == 0);
}

TEST_CASE("a custom call that hands a computation to the SparseCore does its work") {
  // As libtpu writes a scatter-add it offloads to a v5p's SparseCore: an opaque target whose
  // one called computation, on thread "sparsecore", runs the scatter asynchronously.
  auto c = analyze(R"hlo(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%scatter_body (p0: f32[64], p1: s32[16,1], p2: f32[16]) -> f32[64] {
  %p0 = f32[64] parameter(0)
  %p1 = s32[16,1] parameter(1)
  %p2 = f32[16] parameter(2)
  ROOT %scatter = f32[64] scatter(%p0, %p1, %p2), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add
}, execution_thread="sparsecore"

%offloaded (q0: f32[64], q1: s32[16,1], q2: f32[16]) -> f32[64] {
  %q0 = f32[64] parameter(0)
  %q1 = s32[16,1] parameter(1)
  %q2 = f32[16] parameter(2)
  %start = ((f32[64], s32[16,1], f32[16]), f32[64], u32[]) async-start(%q0, %q1, %q2), async_execution_thread="sparsecore", calls=%scatter_body
  ROOT %done = f32[64] async-done(%start)
}, execution_thread="sparsecore"

ENTRY e {
  x = f32[64] parameter(0)
  i = s32[16,1] parameter(1)
  u = f32[16] parameter(2)
  ROOT call = f32[64] custom-call(x, i, u), custom_call_target="TODO(b/522284627)", output_to_operand_aliasing={{}: (0, {})}, called_computations={%offloaded}
})hlo");
  const InstructionCost& call = c["call"];
  CHECK_FALSE(call.unknown);
  CHECK(c.cost.unknown.empty());
  CHECK_FALSE(c.cost.is_lower_bound);
  // The scatter's cost, no more: 16 additions; as every scatter, its bytes are the scatter
  // rule's (c["scatter"]), here counted once, at the custom call.
  CHECK(call.cost.flops == 16);
  CHECK(call.cost.bytes() == c["scatter"].cost.bytes());
  CHECK(call.cost.bytes() > 0);
}

TEST_CASE("a collective handed to the SparseCore is a collective") {
  // As libtpu writes an FSDP weight all-gather it offloads to TPU7x's SparseCore: an async
  // pair whose computation is an offload call, whose computation's root is the all-gather.
  // The start performs the all-gather: bf16[8,64] gathered from [1,64] over 8 devices, 1 KiB
  // (8 x 64 x 2 B) as its result.
  auto c = analyze(R"hlo(
HloModule m, num_partitions=8

%gather (p: bf16[1,64]) -> bf16[8,64] {
  %p = bf16[1,64] parameter(0)
  ROOT %ag = bf16[8,64] all-gather(%p), channel_id=1, replica_groups=[1,8]<=[8], dimensions={0}, use_global_device_ids=true
}, execution_thread="sparsecore"

%wrapped (w: bf16[1,64]) -> bf16[8,64] {
  %w = bf16[1,64] parameter(0)
  ROOT %call = bf16[8,64] custom-call(%w), custom_call_target="TODO(b/522284627)", called_computations={%gather}
}

ENTRY e {
  x = bf16[1,64] parameter(0)
  start = ((bf16[1,64]), bf16[8,64], u32[]) async-start(x), calls=%wrapped
  ROOT done = bf16[8,64] async-done(start)
})hlo");
  REQUIRE(c["start"].collective.has_value());
  CHECK(c["start"].collective->kind == CollectiveKind::kAllGather);
  CHECK(c["start"].collective->group_size == 8);
  CHECK(c["start"].collective->payload_bytes == 1024);
  CHECK(c.cost.unknown.empty());
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

TEST_CASE("XLA TPU's ConcatBitcast moves its operands into its result") {
  // Two bf16[256,128] slices (65,536 B each) read, one bf16[512,128] (131,072 B) written.
  auto c = analyze(R"(
ENTRY e {
  a = bf16[256,128] parameter(0)
  b = bf16[256,128] parameter(1)
  ROOT cat = bf16[512,128] custom-call(a, b), custom_call_target="ConcatBitcast"
})");
  CHECK_FALSE(c["cat"].unknown);
  CHECK(c["cat"].cost.bytes_read == 131072);
  CHECK(c["cat"].cost.bytes_written == 131072);
  CHECK(c["cat"].cost.flops == 0);
  CHECK(c.cost.unknown.empty());
}

TEST_CASE("megablox's grouped matmul counts the tiles it runs") {
  // gmm over m = 4096 rows in 4 groups (offsets s32[5]), metadata for N = 11 tiles: 8 tiles
  // of 512 rows and 3 more where a tile holds the edge of two groups. Its estimate states the
  // rows once, 2 x 4096 x 256 x 512 = 1,073,741,824 FLOPs; the kernel runs 11 / 8 of it,
  // 1,476,395,008, of its rows' type (bf16, not the s32 of operand 0). XLA's figures keep the
  // estimate. Another kernel with the same operands keeps its estimate whole.
  const std::string text = R"(
ENTRY e {
  n = s32[] parameter(0)
  offsets = s32[5] parameter(1)
  ids = s32[11] parameter(2)
  tiles = s32[11] parameter(3)
  active = s32[1] parameter(4)
  lhs = bf16[4096,256] parameter(5)
  rhs = bf16[4,256,512] parameter(6)
  ROOT NAME.3 = bf16[4096,512] custom-call(n, offsets, ids, tiles, active, lhs, rhs), custom_call_target="tpu_custom_call", backend_config={"custom_call_config":{"cost_estimate":{"bytes_accessed":"6291456","flops":"1073741824","transcendentals":"0"}}}
})";
  const auto with_name = [&text](std::string_view name) {
    std::string t = text;
    t.replace(t.find("NAME"), 4, name);
    return analyze(t);
  };
  auto gmm = with_name("gmm");
  CHECK(gmm["gmm.3"].cost.flops == 1476395008.0);
  CHECK(gmm["gmm.3"].cost.matrix_type() == PrimitiveType::kBF16);
  CHECK(gmm["gmm.3"].cost.xla_flops == 1073741824.0);
  CHECK(with_name("tgmm")["tgmm.3"].cost.flops == 1476395008.0);
  CHECK(with_name("kernel")["kernel.3"].cost.flops == 1073741824.0);
}

TEST_CASE("XLA TPU's GatherScatterIndicesBitpacked moves its indices") {
  // s32[4,32,3] in (1,536 B) and the same shape out, as MaxText's take_along_axis gathers
  // compile on a v6e.
  auto c = analyze(R"(
ENTRY e {
  i = s32[4,32,3] parameter(0)
  ROOT p = s32[4,32,3] custom-call(i), custom_call_target="GatherScatterIndicesBitpacked"
})");
  CHECK_FALSE(c["p"].unknown);
  CHECK(c["p"].cost.bytes_read == 1536);
  CHECK(c["p"].cost.bytes_written == 1536);
  CHECK(c.cost.unknown.empty());
}

TEST_CASE("a block-scaled dot counts 2 K FLOPs a result element") {
  // lhs f8e4m3fn[8,128,512], rhs f8e4m3fn[8,1024,512], scales f8e8m0fnu (one a block of 32):
  // result f32[8,128,1024]. 2 x 8 x 128 x 1024 x 512 = 1,073,741,824 FLOPs of fp8. Bytes:
  // lhs 524,288 + rhs 4,194,304 + scales 16,384 + 131,072 read, 4,194,304 written.
  auto c = analyze(R"(
ENTRY e {
  lhs = f8e4m3fn[8,128,512] parameter(0)
  rhs = f8e4m3fn[8,1024,512] parameter(1)
  ls = f8e8m0fnu[8,128,16] parameter(2)
  rs = f8e8m0fnu[8,1024,16] parameter(3)
  ROOT d = f32[8,128,1024] custom-call(lhs, rhs, ls, rs), custom_call_target="__op$block_scaled_dot"
})");
  CHECK_FALSE(c["d"].unknown);
  CHECK(c["d"].cost.flops == 1073741824.0);
  CHECK(c["d"].cost.matrix_type() == PrimitiveType::kF8E4M3FN);
  CHECK(c["d"].cost.bytes_read == 524288 + 4194304 + 16384 + 131072);
  CHECK(c["d"].cost.bytes_written == 4194304);
  CHECK(c.cost.totals.xla_flops == 0);
  // Shapes that do not contract (K 512 against 256) are not read as a dot: unknown.
  auto bad = analyze(R"(
ENTRY e {
  lhs = f8e4m3fn[128,512] parameter(0)
  rhs = f8e4m3fn[1024,256] parameter(1)
  ROOT d = f32[128,1024] custom-call(lhs, rhs), custom_call_target="__op$block_scaled_dot"
})");
  CHECK(bad["d"].unknown);
  CHECK(bad["d"].cost.flops == 0);
}

TEST_CASE("XLA TPU's SliceId writes its scalar and is known") {
  // A multi-slice program asks the runtime which slice it runs on: no operand, a u32 scalar
  // (4 B) written, no FLOPs; not unknown work that would make the step a floor.
  auto c = analyze(R"(
ENTRY e {
  ROOT id = u32[] custom-call(), custom_call_target="SliceId"
})");
  CHECK_FALSE(c["id"].unknown);
  CHECK(c["id"].cost.bytes_read == 0);
  CHECK(c["id"].cost.bytes_written == 4);
  CHECK(c["id"].cost.flops == 0);
  CHECK(c.cost.unknown.empty());
}

}  // namespace
}  // namespace hloroof
