// Custom calls whose cost can be told from their target and shapes (docs/cost-conventions.md,
// "Custom calls"): cuBLAS GEMMs, cuDNN convolutions and fused attention, TopK, kernels that carry
// their own cost estimate (Pallas Mosaic), compiler markers and host transfers. Any other target
// is unknown: FLOPs 0, and its operands and results charged as a floor.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"

namespace hloroof::cost {
namespace {

bool is_cublas_gemm(std::string_view target) {
  return target == "__cublas$gemm" || absl::StartsWith(sv(target), "__cublas$lt$matmul");
}

bool is_cudnn_convolution(std::string_view target) {
  return absl::StartsWith(sv(target), "__cudnn$conv");
}

// Partitioner and layout annotations that generate no code.
bool is_marker(std::string_view target) {
  static constexpr std::array<std::string_view, 7> kMarkers = {
      "Sharding",         "SPMDFullToShardShape",      "SPMDShardToFullShape",
      "AllocateBuffer",   "LayoutConstraint",          "annotate_device_placement",
      "AssumeGatherIndicesInBound"};
  for (std::string_view m : kMarkers) {
    if (target == m) return true;
  }
  return absl::StartsWith(sv(target), "xla.sdy.");
}

bool is_host_transfer(std::string_view target) {
  return target == "MoveToHost" || target == "MoveToDevice";
}

// XLA TPU's data movement, its operands read and its result written: the concatenation of
// slices into one buffer (ConcatBitcast) and the packing of gather and scatter indices
// (GatherScatterIndicesBitpacked: an s32 index array in, the same shape out).
bool is_data_movement(std::string_view target) {
  return target == "ConcatBitcast" || target == "GatherScatterIndicesBitpacked";
}

// XLA TPU's SliceId: the index of the slice a multi-slice program runs on, a u32 scalar the
// runtime gives; its result is written.
bool is_runtime_query(std::string_view target) { return target == "SliceId"; }

const Shape& first_result(const Shape& shape) {
  return shape.is_tuple() && !shape.elements.empty() ? shape.elements[0] : shape;
}

// The operands are read; only the result proper is written: a GEMM's or convolution's tuple
// also holds a scratch buffer, which is not output.
void charge_result_only(const OpView& op, ByteTally& tally, Model model) {
  for (size_t i = 0; i < op.operand_count(); ++i) tally.read(*op.operand_shape(i), model);
  tally.write_leaves(first_result(*op.result), model);
}

bool gemm_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const Shape* lhs = op.operand_shape(0);
  const Shape* rhs = op.operand_shape(1);
  std::optional<GemmConfig> config = op.instruction->backend_config().gemm_config();
  if (lhs == nullptr || rhs == nullptr || !config) return false;
  double k = 1;
  for (int64_t d : config->lhs_contracting) {
    if (d < 0 || d >= lhs->rank()) return false;
    k *= static_cast<double>(lhs->dims[d].size);
  }
  // Alpha, beta and a bias add are ignored, as XLA's GPU analysis does.
  const double flops = 2 * elements(first_result(*op.result)) * k;
  if (flops > 0)
    cost.matrix.push_back({matrix_operand_type(lhs->element_type, rhs->element_type), flops});
  cost.flops += flops;
  // The workspace (tuple element 1) is scratch, not output: XLA's GPU analysis counts only
  // element 0 too. The XLA-compatible figures count nothing: the analysis behind
  // `cost_analysis()` does not know the call (docs/cost-conventions.md).
  charge_result_only(op, tally, Model::kOurs);
  return true;
}

// XLA's block-scaled dot (`__op$block_scaled_dot`, what jax.nn.scaled_matmul lowers to before
// XLA rewrites it into a cuDNN fusion): operands lhs [B.., M, K], rhs [B.., N, K] (both
// contracted on their last dimension) and their block scales; the result [B.., M, N]. 2 K
// FLOPs per result element, of the wider operand type. False when the shapes do not agree.
bool block_scaled_dot_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const Shape* lhs = op.operand_shape(0);
  const Shape* rhs = op.operand_shape(1);
  const Shape& out = *op.result;
  if (op.operand_count() < 2 || lhs == nullptr || rhs == nullptr || !lhs->is_array() ||
      !rhs->is_array() || !out.is_array() || lhs->rank() < 2 || lhs->rank() != rhs->rank() ||
      out.rank() != lhs->rank()) {
    return false;
  }
  const size_t r = lhs->dims.size();
  if (lhs->dims[r - 1].size != rhs->dims[r - 1].size ||
      out.dims[r - 2].size != lhs->dims[r - 2].size ||
      out.dims[r - 1].size != rhs->dims[r - 2].size) {
    return false;
  }
  for (size_t d = 0; d + 2 < r; ++d) {
    if (out.dims[d].size != lhs->dims[d].size || rhs->dims[d].size != lhs->dims[d].size) {
      return false;
    }
  }
  const double flops = 2 * elements(out) * static_cast<double>(lhs->dims[r - 1].size);
  if (flops > 0)
    cost.matrix.push_back({matrix_operand_type(lhs->element_type, rhs->element_type), flops});
  cost.flops += flops;
  // Operands (scales included) read, the result written; the XLA-compatible figures count
  // nothing, as for every call cost_analysis() does not know.
  add_default_bytes(op, tally, Model::kOurs);
  return true;
}

// Fused attention (flash attention: cuDNN's and TransformerEngine's calls, attention_call).
// Per score computed (a query's row times the keys it sees), the forward pass runs two GEMMs,
// S = Q K^T and O = P V: 2 (D + D_v) FLOPs. The backward pass recomputes S and runs four more,
// dP = dO V^T and dV = P^T dO (2 D_v each), dQ = dS K and dK = dS^T Q (2 D each): 2 (3 D +
// 2 D_v), 2.5 times the forward when D_v = D. A causal mask skips half of the score matrix,
// a sliding window all but its width. False for any other call.
bool attention_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const std::optional<AttentionCall> call = attention_call(op);
  if (!call) return false;
  const double per_score = call->backward ? 2 * (3 * call->head_dim + 2 * call->head_dim_v)
                                          : 2 * (call->head_dim + call->head_dim_v);
  const double flops = call->rows * call->visible_keys * per_score;
  cost.matrix.push_back({op.operand_shape(0)->element_type, flops});
  cost.flops += flops;
  // Operands are read; the results are written except the u8 scratch buffers. The
  // XLA-compatible figures count nothing, as for every cuBLAS and cuDNN call.
  for (size_t i = 0; i < op.operand_count(); ++i) tally.read(*op.operand_shape(i), Model::kOurs);
  if (op.result->is_tuple()) {
    for (const Shape& e : op.result->elements) {
      if (!(e.is_array() && e.element_type == PrimitiveType::kU8)) {
        tally.write_leaves(e, Model::kOurs);
      }
    }
  } else {
    tally.write_leaves(*op.result, Model::kOurs);
  }
  return true;
}

// TopK of the last dimension: each input element is compared against a heap of the k best,
// ceil(log2 k) comparisons, counted as FLOPs.
bool top_k_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const Shape* input = op.operand_shape(0);
  const Shape& values = first_result(*op.result);
  if (input == nullptr || !input->is_array() || values.rank() == 0) return false;
  const double k = static_cast<double>(values.dims.back().size);
  const double flops = elements(*input) * (k > 1 ? std::ceil(std::log2(k)) : 1);
  cost.flops += flops;
  // XLA's analysis does not know the call: the XLA-compatible figures count nothing.
  add_default_bytes(op, tally, Model::kOurs);
  return true;
}

// A kernel that states its own cost: Pallas Mosaic kernels (`tpu_custom_call`) put
// `cost_estimate: {flops, transcendentals, bytes_accessed}` in `custom_call_config`. The
// estimate does not split matrix from vector FLOPs: they count as matrix FLOPs of the first
// operand's type (at the matrix peak, so the time is a floor); megablox's grouped matmuls as
// the tiles they run (megablox_tiles), of their rows' type. The XLA-compatible figures keep
// the estimate.
bool stated_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const BackendConfig config = op.instruction->backend_config();
  const std::string key = "/custom_call_config/cost_estimate";
  std::optional<double> flops = config.find_double(key + "/flops");
  if (!flops) return false;
  const double transcendentals = config.find_double(key + "/transcendentals").value_or(0);
  if (!std::isfinite(*flops) || !std::isfinite(transcendentals) || *flops < 0 ||
      transcendentals < 0) {
    return false;
  }
  cost.xla_flops += *flops;
  const Shape* first = op.operand_shape(0);
  PrimitiveType type =
      first != nullptr && first->is_array() ? first->element_type : PrimitiveType::kF32;
  if (const std::optional<MegabloxTiles> tiles = megablox_tiles(op)) {
    *flops *= tiles->share;
    type = tiles->type;
  }
  if (*flops > 0) cost.matrix.push_back({type, *flops});
  cost.flops += *flops;
  cost.transcendentals += transcendentals;
  cost.xla_transcendentals += transcendentals;
  add_default_bytes(op, tally, Model::kOurs);
  if (std::optional<double> bytes = config.find_double(key + "/bytes_accessed");
      bytes && std::isfinite(*bytes) && *bytes >= 0) {
    cost.xla_bytes_accessed += *bytes;
  } else {
    add_default_bytes(op, tally, Model::kXla);
  }
  return true;
}

// Splash attention (jax.experimental.pallas's TPU kernel, MaxText's attention), a Mosaic
// kernel that states no cost: told by its name (splash_mha_fwd..., splash_mha_dkv...,
// splash_mha_dq...; splash_mqa likewise). q, k and v are its first three floating operands of
// rank 3 and more, [..., heads, seq, head_dim] or sequence-minor (splash_operands); E(Q) the
// elements of q, S_kv k's sequence. Per score element the forward pass runs 2 matrix products
// (QK^T, PV: 4 S_kv E(Q) FLOPs); the backward recomputes the scores and adds dP, dV and dK
// (8 S_kv E(Q)), and dQ (10) when one kernel makes it too (a dq output beside dk and dv, or
// the dq kernel alone: 6). The kernel computes whole blocks and skips those its mask leaves
// empty (SplashGrid::share). One exponential per score element computed.
struct SplashCall {
  bool forward = false, dkv = false, dq = false;
  SplashOperands qk;
};

std::optional<SplashCall> splash_call(const OpView& op) {
  SplashCall call;
  const std::string_view name = op.instruction->name();
  call.forward = absl::StrContains(sv(name), "_fwd");
  call.dkv = absl::StrContains(sv(name), "_dkv");
  call.dq = absl::StrContains(sv(name), "_dq");
  if (!call.forward && !call.dkv && !call.dq) return std::nullopt;
  const std::optional<SplashOperands> qk = splash_operands(op);
  if (!qk) return std::nullopt;
  call.qk = *qk;
  return call;
}

bool is_mask_type(PrimitiveType t) {
  return is_signed_integral(t) || is_unsigned_integral(t) || t == PrimitiveType::kPred;
}

// A splash kernel's grid of (q block, kv block) pairs. Its first operand is the block mask,
// [heads, q blocks, kv blocks], which may be shrunk to the blocks a row needs (the kv axis of
// the forward and dq kernels, the q axis of dkv's), as a sliding window shrinks it. The
// unshrunk axis gives its block size (its sequence over its count); the other comes from the
// partial-mask blocks ([n, a, b], an integer operand of rank 3 beside the grid: the mask is
// materialized, not computed in the kernel) or, without them, from the other sequence.
// A q shorter than k by a whole factor n is one of n shards of the sequence, the keys gathered
// whole (context parallelism, MaxText's q_seq_shards): its share is the whole grid's, as when
// the shards are balanced (MaxText's load-balanced reordering) and on average when not.
struct SplashGrid {
  double s_q = 0, s_kv = 0;            // sequences
  double rows = 0, cols = 0;           // the grid as given: q blocks, kv blocks
  double block_q = 0, block_kv = 0;    // positions a block
  double full_q = 0, full_kv = 0;      // blocks over the whole sequences
  double q_shards = 1;                 // q's sequence: 1 / q_shards of k's
  bool materialized = false;           // partial-mask blocks given

  bool shrunk(bool dkv) const { return dkv ? rows < full_q : cols < full_kv; }
  // How far behind its own position a query sees, in positions, that a forward grid shrunk to
  // `cols` kv blocks a row implies: the band's widest reach (c - 1 blocks).
  double window() const { return (cols - 1) * block_kv; }

  // The share of the grid computed. The mask's values are runtime data: a causal one is
  // assumed (language models train so), each q position seeing the keys up to its own,
  // `window` positions back at most, and a shrunk axis caps a row at what it holds.
  double share(bool dkv, double window) const {
    const double all_q = full_q * q_shards;  // q blocks over every shard
    double computed = 0;
    if (!dkv) {  // q block i: kv blocks from the one its window opens in to its diagonal
      for (double i = 0; i < all_q; ++i) {
        const double last = std::min(full_kv - 1, std::floor(((i + 1) * block_q - 1) / block_kv));
        const double first = std::max(0.0, std::floor((i * block_q - window) / block_kv));
        computed += std::clamp(last - first + 1, 0.0, cols);
      }
    } else {  // kv block j: q blocks from the one holding its first position to its window's end
      for (double j = 0; j < full_kv; ++j) {
        const double first = std::floor(j * block_kv / block_q);
        const double last =
            std::min(all_q - 1, std::floor(((j + 1) * block_kv - 1 + window) / block_q));
        computed += std::clamp(last - first + 1, 0.0, rows * q_shards);
      }
    }
    return computed / (all_q * full_kv);
  }
};

std::optional<SplashGrid> splash_grid(const OpView& op, const SplashCall& call) {
  const Shape* mask = op.operand_shape(0);
  if (mask == nullptr || !mask->is_array() || mask->rank() < 2 ||
      !is_mask_type(mask->element_type)) {
    return std::nullopt;
  }
  SplashGrid g;
  g.s_q = static_cast<double>(call.qk.q_seq);
  g.s_kv = static_cast<double>(call.qk.kv_seq);
  g.rows = static_cast<double>(mask->dims[mask->rank() - 2].size);
  g.cols = static_cast<double>(mask->dims[mask->rank() - 1].size);
  if (g.rows < 1 || g.cols < 1) return std::nullopt;
  const double known = call.dkv ? g.s_kv / g.cols : g.s_q / g.rows;
  double other = call.dkv ? g.s_q / g.rows : g.s_kv / g.cols;
  for (size_t i = 1; i < op.operand_count(); ++i) {
    const Shape* s = op.operand_shape(i);
    if (s == nullptr || !s->is_array() || s->rank() != 3 || !is_mask_type(s->element_type) ||
        s->dims[1].size < 2 || s->dims[2].size < 2 || s->dims == mask->dims) {
      continue;  // not partial-mask blocks (the grid's other tables share its shape)
    }
    const double a = static_cast<double>(s->dims[1].size);
    const double b = static_cast<double>(s->dims[2].size);
    g.materialized = true;
    if (a == known || b == known) other = a == known ? b : a;
    break;
  }
  g.block_q = call.dkv ? other : known;
  g.block_kv = call.dkv ? known : other;
  g.full_q = g.s_q / g.block_q;
  g.full_kv = g.s_kv / g.block_kv;
  if (g.s_q >= 1 && g.s_kv > g.s_q && std::fmod(g.s_kv, g.s_q) == 0) g.q_shards = g.s_kv / g.s_q;
  constexpr double kMaxBlocks = 1 << 16;  // beyond any kernel's grid: a malformed one
  if (!(g.block_q >= 1 && g.block_kv >= 1) || g.block_q != std::floor(g.block_q) ||
      g.block_kv != std::floor(g.block_kv) || g.full_q != std::floor(g.full_q) ||
      g.full_kv != std::floor(g.full_kv) || g.full_q * g.q_shards > kMaxBlocks ||
      g.full_kv > kMaxBlocks ||
      g.rows > g.full_q || g.cols > g.full_kv) {
    return std::nullopt;
  }
  return g;
}

// (q's sequence, k's sequence, head dimension) -> the window a shrunk forward grid of that
// attention implies. A backward kernel's grid is often left whole, its empty blocks skipped at
// run time; its forward's says how far the band reaches.
using SplashWindows = absl::flat_hash_map<std::tuple<int64_t, int64_t, int64_t>, double>;

std::tuple<int64_t, int64_t, int64_t> splash_key(const SplashCall& call) {
  return {call.qk.q_seq, call.qk.kv_seq, call.qk.head_dim};
}

const SplashWindows& splash_windows(Context& context) {
  if (context.splash_windows) return *context.splash_windows;
  SplashWindows& windows = context.splash_windows.emplace();
  for (const Computation* computation : context.module.computations()) {
    for (const Instruction* instruction : computation->instructions()) {
      if (instruction->opcode() != Opcode::kCustomCall ||
          instruction->custom_call_target() != "tpu_custom_call" ||
          !absl::StrContains(sv(instruction->name()), "splash_m")) {
        continue;
      }
      const OpView op = view_of(*instruction);
      const std::optional<SplashCall> call = splash_call(op);
      if (!call || !call->forward) continue;
      const std::optional<SplashGrid> grid = splash_grid(op, *call);
      if (!grid || !grid->materialized || !grid->shrunk(false)) continue;
      double& window = windows[splash_key(*call)];
      window = std::max(window, grid->window());
    }
  }
  return windows;
}

bool splash_attention_cost(const OpView& op, Context& context, OpCost& cost, ByteTally& tally) {
  const std::optional<SplashCall> call = splash_call(op);
  if (!call) return false;
  const Shape& q = *call->qk.q;
  double share = 0.5;  // an unreadable grid: half of it
  if (const std::optional<SplashGrid> grid = splash_grid(op, *call)) {
    double window = std::numeric_limits<double>::infinity();  // causal
    if (grid->materialized && grid->shrunk(false) && !call->dkv) {
      window = grid->window();
    } else if (grid->materialized && !grid->shrunk(call->dkv)) {
      const SplashWindows& windows = splash_windows(context);
      if (auto it = windows.find(splash_key(*call)); it != windows.end()) window = it->second;
    }
    share = grid->share(call->dkv, window);
  }
  const double s_kv = static_cast<double>(call->qk.kv_seq);
  double products = 4;  // FLOPs per score element and head dimension: 2 per product
  if (call->dkv) {
    // A fused backward writes dq beside dk and dv: a result with as many elements as q or more.
    bool with_dq = false;
    if (op.result->is_tuple()) {
      int same_as_q = 0;
      for (const Shape& e : op.result->elements) {
        if (e.is_array() && e.rank() >= 3 && elements(e) >= elements(q)) ++same_as_q;
      }
      with_dq = same_as_q >= 3;
    }
    products = with_dq ? 10 : 8;
  } else if (call->dq) {
    products = 6;
  }
  const double head_dim = static_cast<double>(call->qk.head_dim);
  // Query positions x heads x keys computed; none for an empty head (elements(q) is 0 too).
  const double scores = call->qk.q_rows() * s_kv * share;
  const double flops = products * scores * head_dim;
  cost.matrix.push_back({q.element_type, flops});
  cost.flops += flops;
  cost.transcendentals += scores;
  add_default_bytes(op, tally, Model::kOurs);
  return true;
}

bool convolution_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const Shape* lhs = op.operand_shape(0);
  const Shape* rhs = op.operand_shape(1);
  const ConvDimLabels* labels = op.instruction->conv_dim_labels();
  if (lhs == nullptr || rhs == nullptr || labels == nullptr) return false;
  // The operands and result are the forward convolution's (the one dim_labels describe) in the
  // order of the pass: a data gradient returns the forward input, a filter gradient the filter.
  const Shape& result = first_result(*op.result);
  const std::string_view target = op.instruction->custom_call_target();
  const Shape* input = lhs;
  const Shape* kernel = rhs;
  const Shape* output = &result;
  if (target == "__cudnn$convBackwardInput") {
    input = &result;
    output = lhs;
  } else if (target == "__cudnn$convBackwardFilter") {
    kernel = &result;
    output = rhs;
  }
  std::optional<double> flops =
      convolution_flops(*input, *kernel, *output, op.instruction->window(), *labels,
                        op.instruction->feature_group_count(), op.instruction->batch_group_count());
  if (!flops) return false;
  if (*flops > 0)
    cost.matrix.push_back({matrix_operand_type(lhs->element_type, rhs->element_type), *flops});
  cost.flops += *flops;
  // Only the real output is written (docs/cost-conventions.md, GEMMs and cuDNN convolutions);
  // the XLA-compatible figures count nothing, as for a cuBLAS GEMM.
  charge_result_only(op, tally, Model::kOurs);
  return true;
}

// cuDNN's call: S_kv and B H S_q from the score tensor [B, H, S_q, S_kv] of its config
// (intermediate_tensor_shape), D from q (operand 0), D_v from the forward's output (tuple
// element 0; the backward's is dQ, and D_v = D is taken).
std::optional<AttentionCall> cudnn_call(const OpView& op) {
  const BackendConfig config = op.instruction->backend_config();
  const std::string dims = "/cudnn_fmha_backend_config/intermediate_tensor_shape/dimensions/";
  std::vector<int64_t> score;
  // [B, H, S_q, S_kv]: a longer list is read no further than this, and taken as malformed.
  constexpr size_t kMaxScoreRank = 8;
  for (size_t d = 0; d <= kMaxScoreRank; ++d) {
    const std::optional<int64_t> v = config.find_int(dims + std::to_string(d));
    if (!v) break;
    if (*v <= 0) return std::nullopt;
    score.push_back(*v);
  }
  if (score.size() < 2 || score.size() > kMaxScoreRank) return std::nullopt;
  AttentionCall call;
  call.library = "cuDNN";
  call.backward = absl::StrContains(sv(op.instruction->custom_call_target()), "Backward");
  const std::optional<std::string> mask =
      config.find_string("/cudnn_fmha_backend_config/mask_type");
  call.causal = mask && absl::StrContains(*mask, "CAUSAL");
  call.rows = 1;
  for (size_t d = 0; d + 1 < score.size(); ++d) call.rows *= static_cast<double>(score[d]);
  call.keys = static_cast<double>(score.back());
  call.visible_keys = call.causal ? call.keys / 2 : call.keys;
  call.head_dim = elements(*op.operand_shape(0)) / call.rows;
  const Shape& out = first_result(*op.result);
  call.head_dim_v = call.backward || !out.is_array() ? call.head_dim : elements(out) / call.rows;
  if (!(call.head_dim > 0) || !(call.head_dim_v > 0)) return std::nullopt;
  return call;
}

std::string_view trim(std::string_view s) { return sv(absl::StripAsciiWhitespace(sv(s))); }

// The value text of entry `name` of a typed-FFI call's backend config, the MLIR dictionary XLA
// prints: `{attn_heads = 16 : i64, is_training = true, ...}`. Entries are split at the
// dictionary's top level (brackets and strings inside a value are skipped over); the value is
// the text after `=`, its `: type` suffix left on. None when the config is no such dictionary
// (a string left open, brackets that do not pair) or has no such entry.
std::optional<std::string_view> ffi_attribute(std::string_view config, std::string_view name) {
  config = trim(config);
  if (config.size() < 2 || config.front() != '{' || config.back() != '}') return std::nullopt;
  const std::string_view body = config.substr(1, config.size() - 2);
  std::optional<std::string_view> found;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i <= body.size() && depth >= 0; ++i) {
    const char c = i < body.size() ? body[i] : ',';
    if (quoted) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == '{' || c == '[' || c == '(' || c == '<') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')' || c == '>') {
      --depth;
    } else if (c == ',' && depth == 0) {
      const std::string_view entry = body.substr(start, i - start);
      start = i + 1;
      const size_t eq = entry.find('=');
      if (!found && eq != std::string_view::npos && trim(entry.substr(0, eq)) == name) {
        found = trim(entry.substr(eq + 1));
      }
    }
  }
  if (quoted || depth != 0) return std::nullopt;
  return found;
}

// An integer entry (`16 : i64`) of a typed-FFI config; None when absent or not an integer.
std::optional<int64_t> ffi_int(std::string_view config, std::string_view name) {
  const std::optional<std::string_view> value = ffi_attribute(config, name);
  if (!value) return std::nullopt;
  int64_t v = 0;
  if (!absl::SimpleAtoi(sv(trim(value->substr(0, value->find(':')))), &v)) {
    return std::nullopt;
  }
  return v;
}

// TransformerEngine's call (its JAX layer's typed-FFI attributes): B input_batch, H
// attn_heads, S_q q_max_seqlen, S_kv kv_max_seqlen, D qk_head_dim and D_v v_head_dim (one
// head_dim in TE versions before the split). mask_type is NVTE_Mask_Type: 2-5 are the causal
// masks (top-left or bottom-right aligned, with padding or without). window_size_left and
// _right (-1: unbounded) set a sliding window. Packed sequences (THD) and padding are charged
// at their maximum lengths: the work of the real tokens is at most that.
std::optional<AttentionCall> te_call(const OpView& op) {
  const std::string_view target = op.instruction->custom_call_target();
  const bool backward = target == "te_fused_attn_backward_ffi";
  if (!backward && target != "te_fused_attn_forward_ffi") return std::nullopt;
  const std::string_view config = op.instruction->backend_config().text();
  const auto size = [config](std::string_view name) -> std::optional<double> {
    const std::optional<int64_t> v = ffi_int(config, name);
    if (!v || *v <= 0) return std::nullopt;
    return static_cast<double>(*v);
  };
  const std::optional<double> batch = size("input_batch"), heads = size("attn_heads"),
                              queries = size("q_max_seqlen"), keys = size("kv_max_seqlen");
  std::optional<double> head_dim = size("qk_head_dim"), head_dim_v = size("v_head_dim");
  if (!head_dim) head_dim = size("head_dim");
  if (!head_dim_v) head_dim_v = head_dim;
  if (!batch || !heads || !queries || !keys || !head_dim || !head_dim_v) return std::nullopt;
  AttentionCall call;
  call.library = "TransformerEngine";
  call.backward = backward;
  const int64_t mask = ffi_int(config, "mask_type").value_or(0);
  call.causal = mask >= 2 && mask <= 5;
  call.rows = *batch * *heads * *queries;
  call.keys = *keys;
  call.head_dim = *head_dim;
  call.head_dim_v = *head_dim_v;
  const int64_t left = ffi_int(config, "window_size_left").value_or(-1);
  const int64_t right = ffi_int(config, "window_size_right").value_or(-1);
  if (call.causal) {
    // Query i sees min(i + 1, w) keys, w = the window's left width + 1: w - w^2 / 2 S_kv on
    // average (S_kv / 2 without a window, the causal half).
    const double w = left >= 0 ? std::min(static_cast<double>(left) + 1, call.keys) : call.keys;
    call.visible_keys = w - w * w / (2 * call.keys);
  } else if (left >= 0 || right >= 0) {
    // The window's width, its cut at the sequence's ends left out.
    const double lo = left >= 0 ? static_cast<double>(left) : call.keys;
    const double hi = right >= 0 ? static_cast<double>(right) : call.keys;
    call.visible_keys = std::min(call.keys, lo + hi + 1);
  } else {
    call.visible_keys = call.keys;
  }
  return call;
}

}  // namespace

// megablox's grouped matmuls (gmm and tgmm, Pallas TPU kernels: an MoE's experts) run over
// the m rows in tiles, and a tile that holds rows of two groups runs once for each. Their
// group metadata (operands 1-3: offsets s32[G + 1], then group ids and m-tile ids, s32[N])
// has room for N = m-tiles + G - 1 tiles, the most the grid visits, reached unless group
// sizes fall on tile edges; the kernel's own estimate counts the m rows once. The share of
// the stated work the kernel runs, N / (N - G + 1), and the type of its rows (operand 5);
// none for any other kernel.
std::optional<MegabloxTiles> megablox_tiles(const OpView& op) {
  const std::string_view name = op.instruction->name();
  if (!absl::StartsWith(sv(name), "gmm") && !absl::StartsWith(sv(name), "tgmm")) {
    return std::nullopt;
  }
  if (op.operand_count() < 7) return std::nullopt;
  const auto s32_list = [&op](size_t i) -> double {
    const Shape* s = op.operand_shape(i);
    return s != nullptr && s->is_array() && s->rank() == 1 &&
                   s->element_type == PrimitiveType::kS32
               ? static_cast<double>(s->dims[0].size)
               : 0;
  };
  const double groups = s32_list(1) - 1, tiles = s32_list(2);
  const Shape* rows = op.operand_shape(5);
  if (groups < 1 || tiles < groups || s32_list(3) != tiles || rows == nullptr ||
      !rows->is_array() || !is_floating_point(rows->element_type)) {
    return std::nullopt;
  }
  return MegabloxTiles{tiles / (tiles - groups + 1), rows->element_type};
}

std::optional<AttentionCall> attention_call(const OpView& op) {
  const Shape* q = op.operand_shape(0);
  if (q == nullptr || !q->is_array() || op.result == nullptr) return std::nullopt;
  const std::string_view target = op.instruction->custom_call_target();
  if (absl::StartsWith(sv(target), "__cudnn$fmha")) return cudnn_call(op);
  return te_call(op);
}

double SplashOperands::q_rows() const {
  return head_dim > 0 ? elements(*q) / static_cast<double>(head_dim) : 0;
}

// The kernel's outputs are head-minor whatever the inputs' layout: the next-to-last dimension of
// each floating result of rank 3 or more (o, the log-sum-exp, dq, dk, dv) is a sequence. An
// operand whose next-to-last dimension is one of those is head-minor; one whose last dimension
// is, and not its next-to-last, sequence-minor. When only one of q and k tells, the other's
// head size is the same (q k^T shares it); when neither, both are head-minor.
std::optional<SplashOperands> splash_operands(const OpView& op) {
  std::vector<const Shape*> qkv;
  for (size_t i = 0; i < op.operand_count() && qkv.size() < 3; ++i) {
    const Shape* s = op.operand_shape(i);
    if (s != nullptr && s->is_array() && s->rank() >= 3 && is_floating_point(s->element_type)) {
      qkv.push_back(s);
    }
  }
  if (qkv.size() < 3) return std::nullopt;
  std::vector<int64_t> sequences;
  const auto add_sequence = [&](const Shape& s) {
    if (s.is_array() && s.rank() >= 3 && is_floating_point(s.element_type)) {
      sequences.push_back(s.dims[s.rank() - 2].size);
    }
  };
  if (op.result != nullptr) {
    if (op.result->is_tuple()) {
      for (const Shape& e : op.result->elements) add_sequence(e);
    } else {
      add_sequence(*op.result);
    }
  }
  const auto is_sequence = [&](int64_t n) {
    return std::find(sequences.begin(), sequences.end(), n) != sequences.end();
  };
  struct Minor {
    int64_t second, last;
    std::optional<bool> seq_minor;  // none: the results do not tell
    int64_t sequence() const { return *seq_minor ? last : second; }
    int64_t head() const { return *seq_minor ? second : last; }
  };
  const auto read = [&](const Shape& s) {
    Minor m{s.dims[s.rank() - 2].size, s.dims[s.rank() - 1].size, std::nullopt};
    if (is_sequence(m.second)) {
      m.seq_minor = false;
    } else if (is_sequence(m.last)) {
      m.seq_minor = true;
    }
    return m;
  };
  const auto with_head = [](Minor& m, int64_t head) {
    m.seq_minor = m.second == head && m.last != head;
  };
  Minor q = read(*qkv[0]), k = read(*qkv[1]);
  if (!q.seq_minor && !k.seq_minor) {
    q.seq_minor = k.seq_minor = false;
  } else if (!q.seq_minor) {
    with_head(q, k.head());
  } else if (!k.seq_minor) {
    with_head(k, q.head());
  }
  return SplashOperands{qkv[0], qkv[1], q.sequence(), k.sequence(), q.head()};
}

bool add_custom_call_cost(const OpView& op, Context& context, OpCost& cost, ByteTally& tally) {
  const std::string_view target = op.instruction->custom_call_target();
  if (is_cublas_gemm(target) && gemm_cost(op, cost, tally)) return true;
  if (is_cudnn_convolution(target) && convolution_cost(op, cost, tally)) return true;
  if (attention_cost(op, cost, tally)) return true;
  if (target == "TopK" && top_k_cost(op, cost, tally)) return true;
  if (target == "__op$block_scaled_dot" && block_scaled_dot_cost(op, cost, tally)) return true;
  if (stated_cost(op, cost, tally)) return true;
  if (target == "tpu_custom_call" && absl::StrContains(sv(op.instruction->name()), "splash_m") &&
      splash_attention_cost(op, context, cost, tally)) {
    return true;
  }
  if (is_marker(target)) return true;
  if (is_host_transfer(target) || is_data_movement(target) || is_runtime_query(target)) {
    add_default_bytes(op, tally);
    return true;
  }
  // Unknown: whatever it computes, it reads its operands and writes its results. XLA reports
  // -1 here; its compatible figures count nothing.
  add_default_bytes(op, tally, Model::kOurs);
  return false;
}

}  // namespace hloroof::cost
