// The platform a module was compiled for, read from what the compiler left in it. Every marker
// here is one only that platform's compiler or runtime leaves; docs/prediction-model.md lists
// them with their sources.
#include "hloroof/platform.h"

#include <array>
#include <iterator>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/shape.h"
#include "hloroof/absl_compat.h"
#include "util/string_view_hash.h"

namespace hloroof {
namespace {

struct Marker {
  std::string_view prefix;
  std::string_view platform;
};

// Custom-call targets, by prefix.
constexpr Marker kTargetMarkers[] = {
    // XLA:GPU's own library calls and rewrites (xla/service/gpu/cublas_cudnn.cc).
    {"__cublas$", "gpu"},
    {"__cudnn$", "gpu"},
    {"__triton", "gpu"},
    {"__gpu$", "gpu"},
    {"xla.gpu.", "gpu"},
    {"__nccl", "gpu"},
    // JAX's GPU kernels (jax-ml/jax jaxlib/gpu/gpu_kernels.cc: cublas_*, cudnn_rnn, cusolver_*,
    // cusparse_*, cu_threefry2x32, cu_lu_pivots_to_permutation; hip* on ROCm), Mosaic GPU and
    // Triton kernels called from JAX.
    {"cublas_", "gpu"},
    {"cudnn_", "gpu"},
    {"cusolver_", "gpu"},
    {"cusparse_", "gpu"},
    {"cu_threefry", "gpu"},
    {"cu_lu_pivots", "gpu"},
    {"hipblas_", "gpu"},
    {"hipsolver_", "gpu"},
    {"hipsparse_", "gpu"},
    {"hip_threefry", "gpu"},
    {"hip_lu_pivots", "gpu"},
    {"mosaic_gpu", "gpu"},
    {"triton_kernel_call", "gpu"},
    // NVIDIA TransformerEngine's JAX extension: te_fused_attn_forward_ffi, te_gemm_ffi, ...
    {"te_", "gpu"},
    // Pallas and Mosaic kernels on TPU, and the TPU compiler's own calls (MaxText's TPU dumps).
    {"tpu_custom_call", "tpu"},
    {"AssumeGatherIndicesInBound", "tpu"},
    {"GatherScatterIndicesBitpacked", "tpu"},
    {"ConcatBitcast", "tpu"},
    {"SparseDenseMatmul", "tpu"},
    // XLA:CPU (oneDNN rewrites) and JAX's CPU kernels (jaxlib/cpu/cpu_kernels.cc: lapack_*).
    {"__onednn$", "cpu"},
    {"lapack_", "cpu"},
    {"ducc_fft", "cpu"},
    // AWS Neuron's compiler.
    {"AwsNeuron", "neuron"},
};

// Backend-config keys (a JSON key, quoted), by the platform whose compiler writes them.
constexpr Marker kConfigMarkers[] = {
    // xla/service/gpu/backend_configs.proto (GpuBackendConfig and what it holds).
    {"\"operation_queue_id\"", "gpu"},
    {"\"wait_on_operation_queues\"", "gpu"},
    {"\"fusion_backend_config\"", "gpu"},
    {"\"gemm_backend_config\"", "gpu"},
    {"\"cudnn_", "gpu"},
    {"\"collective_backend_config\"", "gpu"},
    {"\"force_earliest_schedule\"", "gpu"},
    {"\"block_scaled_dot_backend_config\"", "gpu"},
    // The TPU compiler's (MaxText's TPU dumps).
    {"\"scoped_memory_configs\"", "tpu"},
    {"\"used_scoped_memory_configs\"", "tpu"},
    // xla/service/cpu/backend_config.proto.
    {"\"outer_dimension_partitions\"", "cpu"},
    {"\"onednn_", "cpu"},
};

std::string_view target_platform(std::string_view target) {
  for (const Marker& m : kTargetMarkers) {
    if (absl::StartsWith(sv(target), sv(m.prefix))) return m.platform;
  }
  return {};
}

// The bytes that follow a marker's opening quote: a quote followed by another byte starts none.
constexpr std::array<bool, 256> kMarkerSecondBytes = [] {
  std::array<bool, 256> bytes{};
  for (const Marker& m : kConfigMarkers) bytes[static_cast<unsigned char>(m.prefix[1])] = true;
  return bytes;
}();

// The first marker of the table found anywhere in a backend config. Every marker starts with a
// quote, so one pass over the config's quotes finds them all: a config is read once, not once
// a marker (TPU modules carry a config on most instructions).
const Marker* config_marker(std::string_view config) {
  constexpr size_t kNone = std::size(kConfigMarkers);
  size_t first = kNone;
  for (size_t at = config.find('"'); at != std::string_view::npos && at + 1 < config.size() &&
                                     first != 0;
       at = config.find('"', at + 1)) {
    const char second = config[at + 1];
    if (!kMarkerSecondBytes[static_cast<unsigned char>(second)]) continue;
    const std::string_view rest = config.substr(at);
    for (size_t m = 0; m < first; ++m) {
      const std::string_view prefix = kConfigMarkers[m].prefix;
      if (prefix[1] == second && absl::StartsWith(sv(rest), sv(prefix))) {
        first = m;
        break;
      }
    }
  }
  return first == kNone ? nullptr : &kConfigMarkers[first];
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

// How the output names what told the platform: the custom call's target, or the config's key.
std::string marker_text(const Instruction& i, const Marker* config) {
  if (config == nullptr) return absl::StrCat("custom call \"", sv(i.custom_call_target()), "\"");
  std::string_view key = config->prefix.substr(1);
  if (absl::EndsWith(sv(key), "\"")) key.remove_suffix(1);
  return absl::StrCat("backend config \"", sv(key), "\"");
}

std::string_view platform_title(std::string_view platform) {
  if (platform == "gpu") return "GPU";
  if (platform == "tpu") return "TPU";
  if (platform == "cpu") return "CPU";
  if (platform == "neuron") return "AWS Neuron";
  return platform;
}

// The first fusion named as XLA:GPU names its fusions (loop_add_fusion, input_reduce_fusion,
// wrapped_transpose): a hint of a GPU program, too weak to decide (a hand-written module may
// use such names); "" when none is.
std::string gpu_fusion_name(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() != Opcode::kFusion) continue;
      const std::string_view name = i->name();
      const bool emitter = (absl::StartsWith(sv(name), "loop_") ||
                            absl::StartsWith(sv(name), "input_")) &&
                           absl::StrContains(sv(name), "_fusion");
      if (emitter || absl::StartsWith(sv(name), "wrapped_")) return std::string(name);
    }
  }
  return "";
}

}  // namespace

PlatformInference infer_platform_of(const Module& module) {
  PlatformInference found;      // the first GPU marker ends the search
  PlatformInference tpu_layout;  // tiled layouts decide only when no marker does
  // A config's marker by its text: most configs repeat (a TPU training step's thousands of
  // fusions carry a few distinct ones), and each distinct text is read once.
  detail::StringViewMap<const Marker*> markers;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      std::string_view platform;
      const Marker* config = nullptr;
      if (i->opcode() == Opcode::kCustomCall) platform = target_platform(i->custom_call_target());
      if (const std::string_view text = i->backend_config().text();
          platform.empty() && !text.empty()) {
        auto [known, fresh] = markers.try_emplace(text, nullptr);
        if (fresh) known->second = config_marker(text);
        if ((config = known->second) != nullptr) platform = config->platform;
      }
      if (!platform.empty()) {
        if (found.platform.empty() || (platform == "gpu" && found.platform != "gpu")) {
          found = {std::string(platform), marker_text(*i, config), std::string(i->name())};
          if (platform == "gpu") return found;
        }
        continue;
      }
      if (tpu_layout.platform.empty() && has_tpu_layout(i->shape())) {
        tpu_layout = {"tpu", "tiled layout or memory space", std::string(i->name())};
      }
    }
  }
  return found.platform.empty() ? tpu_layout : found;
}

std::string infer_platform(const Module& module) { return infer_platform_of(module).platform; }

PlatformInference platform_of_file_name(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // XLA names its dumps MODULE.NAME.PLATFORM_after_optimizations.txt (and _before_): "cpu",
  // "tpu", and on GPUs the compute capability first ("sm_9.0_gpu").
  for (const std::string_view stage : {"_after_optimizations", "_before_optimizations"}) {
    const size_t at = name.find(stage);
    if (at == std::string_view::npos || at < 3) continue;
    const std::string_view platform = name.substr(at - 3, 3);
    if (platform == "cpu" || platform == "gpu" || platform == "tpu") {
      return {std::string(platform), absl::StrCat("file name \"", sv(name), "\""), ""};
    }
  }
  return {};
}

DefaultDevice default_device(const Module& module, std::string_view option) {
  const PlatformInference p = infer_platform_of(module);
  DefaultDevice d;
  d.device = std::string(p.platform == "gpu" ? kDefaultGpuDevice : kDefaultTpuDevice);
  const std::string opt(option);
  if (p.platform == "gpu" || p.platform == "tpu") {
    d.decided = true;
    d.note = absl::StrCat("no ", opt, " given: the module was compiled for ",
                          sv(platform_title(p.platform)), " (", p.marker, " in ", p.instruction,
                          "), so it is predicted on ", d.device, ", the default ", p.platform,
                          " device; ", opt, " picks another");
  } else if (!p.platform.empty()) {
    d.note = absl::StrCat("no ", opt, " given: the module was compiled for ",
                          sv(platform_title(p.platform)), " (", p.marker, " in ", p.instruction,
                          "), which has no built-in device, so it is predicted on ", d.device,
                          " as if compiled for it; ", opt, " names the device to predict on");
  } else {
    d.note = absl::StrCat("no ", opt,
                          " given and nothing in the module tells its platform (no custom call, "
                          "backend config or layout of one platform): predicted on ",
                          d.device, ", the default device, a guess; ", opt,
                          " names the device it runs on");
    // A weak hint, named but not decisive: fusion names of XLA:GPU's emitters.
    if (const std::string hint = gpu_fusion_name(module); !hint.empty()) {
      absl::StrAppend(&d.note, " (its fusion names, such as ", hint,
                      ", are XLA:GPU's: on a GPU, give ", opt, " h100 or the GPU's name)");
    }
  }
  return d;
}

}  // namespace hloroof
