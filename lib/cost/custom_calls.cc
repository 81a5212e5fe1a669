// Custom calls whose cost can be told from their target and shapes (docs/cost-conventions.md,
// "Custom calls"): cuBLAS GEMMs, cuDNN convolutions and fused attention, TopK, kernels that carry
// their own cost estimate (Pallas Mosaic), compiler markers and host transfers. Any other target
// is unknown: FLOPs 0, and its operands and results charged as a floor.
#include <array>
#include <vector>
#include <cmath>
#include <string>

#include "absl/strings/match.h"
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

// XLA TPU's concatenation of slices into one buffer (ConcatBitcast): data movement, its
// operands read and its result written.
bool is_data_movement(std::string_view target) { return target == "ConcatBitcast"; }

const Shape& first_result(const Shape& shape) {
  return shape.is_tuple() && !shape.elements.empty() ? shape.elements[0] : shape;
}

// The lhs contracting dims of a GEMM's backend config, in the current layout
// (`gemm_backend_config` object) or the older flat one. Integers may be JSON strings.
std::optional<std::vector<int64_t>> lhs_contracting_dims(const BackendConfig& config) {
  for (std::string_view prefix : {"/gemm_backend_config", ""}) {
    const std::string list =
        std::string(prefix) + "/dot_dimension_numbers/lhs_contracting_dimensions";
    if (!config.find_json(list)) continue;
    std::vector<int64_t> dims;
    while (std::optional<int64_t> d = config.find_int(list + "/" + std::to_string(dims.size()))) {
      dims.push_back(*d);
    }
    return dims;
  }
  return std::nullopt;
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
  std::optional<std::vector<int64_t>> contracting =
      lhs_contracting_dims(op.instruction->backend_config());
  if (lhs == nullptr || rhs == nullptr || !contracting) return false;
  double k = 1;
  for (int64_t d : *contracting) {
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

bool is_cudnn_attention(std::string_view target) {
  return absl::StartsWith(sv(target), "__cudnn$fmha");
}

// cuDNN fused attention (flash attention). With Q rows of D elements and S_kv keys, the forward
// pass is two GEMMs, S = Q K^T and O = P V: 2 S_kv (E(Q) + E(O)) FLOPs. The backward pass
// recomputes S and runs four more (dV, dP, dQ, dK): with D_v = D, 2.5 times the forward's
// 4 S_kv E(Q), so 10 S_kv E(Q). A causal mask skips half of the score matrix. S_kv is the last
// dimension of the config's intermediate (score) tensor shape [B, H, S_q, S_kv].
bool attention_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const BackendConfig config = op.instruction->backend_config();
  const std::string dims = "/cudnn_fmha_backend_config/intermediate_tensor_shape/dimensions";
  int64_t rank = 0;
  while (config.find_int(dims + "/" + std::to_string(rank))) ++rank;
  const Shape* q = op.operand_shape(0);
  if (rank < 2 || q == nullptr || !q->is_array()) return false;
  const double s_kv = static_cast<double>(*config.find_int(dims + "/" + std::to_string(rank - 1)));
  if (s_kv <= 0) return false;
  const Shape& out = first_result(*op.result);
  const bool backward = absl::StrContains(sv(op.instruction->custom_call_target()), "Backward");
  double flops = backward ? 10 * s_kv * elements(*q) : 2 * s_kv * (elements(*q) + elements(out));
  if (std::optional<std::string> mask = config.find_string("/cudnn_fmha_backend_config/mask_type");
      mask && absl::StrContains(*mask, "CAUSAL")) {
    flops /= 2;
  }
  if (flops > 0) cost.matrix.push_back({q->element_type, flops});
  cost.flops += flops;
  // Operands are read; the results are written except the u8 scratch buffer. The
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
// operand's type (at the matrix peak, so the time is a floor).
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
  const Shape* first = op.operand_shape(0);
  if (*flops > 0) {
    cost.matrix.push_back({first != nullptr && first->is_array() ? first->element_type
                                                                 : PrimitiveType::kF32,
                           *flops});
  }
  cost.flops += *flops;
  cost.xla_flops += *flops;
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
// rank 3 and more, [..., heads, seq, head_dim]; E(Q) the elements of q, S_kv k's sequence. Per
// score element the forward pass runs 2 matrix products (QK^T, PV: 4 S_kv E(Q) FLOPs); the
// backward recomputes the scores and adds dP, dV and dK (8 S_kv E(Q)), and dQ (10) when one
// kernel makes it too (a dq output beside dk and dv, or the dq kernel alone: 6). The kernel
// skips the blocks its mask leaves empty; the mask is runtime data, so a causal one is assumed
// over the block grid its first operand gives ([.., q blocks, kv blocks]: n(n+1)/2 of n^2), as
// language models train. One exponential per score element computed.
bool splash_attention_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const std::string_view name = op.instruction->name();
  const bool forward = absl::StrContains(sv(name), "_fwd");
  const bool dkv = absl::StrContains(sv(name), "_dkv");
  const bool dq = absl::StrContains(sv(name), "_dq");
  if (!forward && !dkv && !dq) return false;
  std::vector<const Shape*> qkv;
  for (size_t i = 0; i < op.operand_count() && qkv.size() < 3; ++i) {
    const Shape* s = op.operand_shape(i);
    if (s != nullptr && s->is_array() && s->rank() >= 3 && is_floating_point(s->element_type)) {
      qkv.push_back(s);
    }
  }
  if (qkv.size() < 3) return false;
  const Shape& q = *qkv[0];
  const Shape& k = *qkv[1];
  const double s_kv = static_cast<double>(k.dims[k.rank() - 2].size);
  // Blocks computed: the causal share of the block grid the mask operand holds.
  double share = 0.5;
  if (const Shape* grid = op.operand_shape(0);
      grid != nullptr && grid->is_array() && grid->rank() >= 2 &&
      grid->dims[grid->rank() - 1].size == grid->dims[grid->rank() - 2].size &&
      grid->dims.back().size > 0) {
    const double n = static_cast<double>(grid->dims.back().size);
    share = (n + 1) / (2 * n);
  }
  double products = 4;  // FLOPs per score element and head dimension: 2 per product
  if (dkv) {
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
  } else if (dq) {
    products = 6;
  }
  const double scores = elements(q) / static_cast<double>(q.dims.back().size) * s_kv * share;
  const double flops = products * scores * static_cast<double>(q.dims.back().size);
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

}  // namespace

bool add_custom_call_cost(const OpView& op, Context&, OpCost& cost, ByteTally& tally) {
  const std::string_view target = op.instruction->custom_call_target();
  if (is_cublas_gemm(target) && gemm_cost(op, cost, tally)) return true;
  if (is_cudnn_convolution(target) && convolution_cost(op, cost, tally)) return true;
  if (is_cudnn_attention(target) && attention_cost(op, cost, tally)) return true;
  if (target == "TopK" && top_k_cost(op, cost, tally)) return true;
  if (stated_cost(op, cost, tally)) return true;
  if (target == "tpu_custom_call" && absl::StrContains(sv(op.instruction->name()), "splash_m") &&
      splash_attention_cost(op, cost, tally)) {
    return true;
  }
  if (is_marker(target)) return true;
  if (is_host_transfer(target) || is_data_movement(target)) {
    add_default_bytes(op, tally);
    return true;
  }
  // Unknown: whatever it computes, it reads its operands and writes its results. XLA reports
  // -1 here; its compatible figures count nothing.
  add_default_bytes(op, tally, Model::kOurs);
  return false;
}

}  // namespace hloroof::cost
