// The platform a module was compiled for, read from what the compiler left in it.
#include "hloroof/platform.h"

#include "absl/strings/match.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/shape.h"
#include "util/absl_compat.h"

namespace hloroof {
namespace {

bool is_gpu_target(std::string_view target) {
  for (std::string_view prefix :
       {"__cublas", "__cudnn", "__triton", "__gpu", "xla.gpu.", "__nccl", "mosaic_gpu"}) {
    if (absl::StartsWith(sv(target), sv(prefix))) return true;
  }
  return false;
}

bool has_gpu_backend_config(const Instruction& i) {
  const std::string_view config = i.backend_config().text();
  for (std::string_view key : {"\"operation_queue_id\"", "\"fusion_backend_config\"",
                               "\"gemm_backend_config\"", "\"cudnn_"}) {
    if (absl::StrContains(sv(config), sv(key))) return true;
  }
  return false;
}

bool has_tpu_layout(const Shape& shape) {
  bool found = false;
  for_each_array_leaf(shape, [&](const Shape& leaf) {
    if (leaf.layout && (!leaf.layout->tiles.empty() || leaf.layout->memory_space != 0)) {
      found = true;
    }
  });
  return found;
}

}  // namespace

std::string infer_platform(const Module& module) {
  bool tpu = false;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kCustomCall && is_gpu_target(i->custom_call_target())) {
        return "gpu";
      }
      if (has_gpu_backend_config(*i)) return "gpu";
      if (!tpu && has_tpu_layout(i->shape())) tpu = true;
    }
  }
  return tpu ? "tpu" : "";
}

}  // namespace hloroof
