// Custom calls whose cost can be told from their target and shapes (cost-model.md 1.6 and 1.8
// item 7): cuBLAS GEMMs, cuDNN convolutions, compiler markers and host transfers. Any other
// target is unknown: FLOPs 0, and its operands and results charged as a floor.
#include <array>
#include <string>

#include "absl/strings/match.h"
#include "cost/cost_internal.h"
#include "util/absl_compat.h"

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
  static constexpr std::array<std::string_view, 6> kMarkers = {
      "Sharding",       "SPMDFullToShardShape", "SPMDShardToFullShape",
      "AllocateBuffer", "LayoutConstraint",     "annotate_device_placement"};
  for (std::string_view m : kMarkers) {
    if (target == m) return true;
  }
  return absl::StartsWith(sv(target), "xla.sdy.");
}

bool is_host_transfer(std::string_view target) {
  return target == "MoveToHost" || target == "MoveToDevice";
}

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
  cost.xla_flops += flops;
  add_default_bytes(op, tally, Model::kXla);
  charge_result_only(op, tally, Model::kOurs);
  return true;
}

bool convolution_cost(const OpView& op, OpCost& cost, ByteTally& tally) {
  const Shape* lhs = op.operand_shape(0);
  const Shape* rhs = op.operand_shape(1);
  const ConvDimLabels* labels = op.instruction->conv_dim_labels();
  if (lhs == nullptr || rhs == nullptr || labels == nullptr) return false;
  std::optional<double> flops =
      convolution_flops(*lhs, *rhs, first_result(*op.result), op.instruction->window(), *labels,
                        op.instruction->feature_group_count(), op.instruction->batch_group_count());
  if (!flops) return false;
  if (*flops > 0)
    cost.matrix.push_back({matrix_operand_type(lhs->element_type, rhs->element_type), *flops});
  cost.flops += *flops;
  cost.xla_flops += *flops;
  // XLA's GPU analysis also charges only the real output (cost-model.md 1.6).
  charge_result_only(op, tally, Model::kBoth);
  return true;
}

}  // namespace

bool add_custom_call_cost(const OpView& op, Context&, OpCost& cost, ByteTally& tally) {
  const std::string_view target = op.instruction->custom_call_target();
  if (is_cublas_gemm(target) && gemm_cost(op, cost, tally)) return true;
  if (is_cudnn_convolution(target) && convolution_cost(op, cost, tally)) return true;
  if (is_marker(target)) return true;
  if (is_host_transfer(target)) {
    add_default_bytes(op, tally);
    return true;
  }
  // Unknown: whatever it computes, it reads its operands and writes its results. XLA reports
  // -1 here; its compatible figures count nothing.
  add_default_bytes(op, tally, Model::kOurs);
  return false;
}

}  // namespace hloroof::cost
