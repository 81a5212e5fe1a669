// What the expected-time models read of an instruction (expected_time.h): the GEMMs it runs
// and the matrix class they run on, and its elementwise issue time.
#include "predict/expected_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"
#include "hloroof/computation.h"
#include "predict/expected_time_internal.h"
#include "predict/gpu_families.h"
#include "predict/tpu_models.h"
#include "util/number_text.h"

namespace hloroof::predict {

std::string_view matrix_unit(const DeviceSpec& device, PrimitiveType type, bool highest,
                             bool tf32) {
  if (type == PrimitiveType::kC64) return "f32";
  if (type == PrimitiveType::kC128) return "f64";
  const std::string_view cls = matrix_class(type);
  if (cls != "f32" || device.kind != DeviceKind::kGpu || !device.gpu) return cls;
  // NVIDIA runs f32 dots below HIGHEST on TF32 tensor cores from Ampere (8.0) on.
  const bool ampere = nvidia(device) && device.gpu->compute_capability_major >= 8;
  if (ampere && (tf32 || !highest) && peak(device, "tf32")) return "tf32";
  return cls;
}

namespace {

// Precision a dot asks for: HIGHEST (or the f32 algorithm) keeps f32 units; the tf32 algorithm
// asks for TF32.
void dot_precision(const Instruction& dot, bool& highest, bool& tf32) {
  const std::string_view algorithm = dot.string_attribute(AttrId::kAlgorithm);
  if (absl::StartsWithIgnoreCase(sv(algorithm), "dot_f32_f32_f32")) highest = true;
  if (absl::StartsWithIgnoreCase(sv(algorithm), "dot_tf32")) tf32 = true;
  if (const WordList* p = dot.operand_precision()) {
    for (std::string_view w : *p) {
      if (absl::EqualsIgnoreCase(sv(w), "highest")) highest = true;
    }
  }
}

void gemm_precision(const GemmConfig& gemm, bool& highest, bool& tf32) {
  for (const std::string& p : gemm.operand_precision) {
    if (absl::EqualsIgnoreCase(p, "HIGHEST")) highest = true;
  }
  const std::string upper = absl::AsciiStrToUpper(gemm.algorithm);
  if (absl::StrContains(upper, "F32_F32_F32")) highest = true;
  if (absl::StrContains(upper, "TF32")) tf32 = true;
}

double product(const Shape& s, absl::Span<const int64_t> dims) {
  double p = 1;
  for (int64_t d : dims) {
    if (d >= 0 && d < s.rank()) p *= static_cast<double>(s.dims[static_cast<size_t>(d)].size);
  }
  return p;
}

double elements_of(const Shape& s) {
  double p = 1;
  for (const Dimension& d : s.dims) p *= static_cast<double>(d.size);
  return p;
}

// b, m, n, k of dot(lhs, rhs) with the given batch and contracting dims of the lhs.
std::optional<measured::GemmShape> gemm_shape(const Shape& lhs, const Shape& rhs,
                                              absl::Span<const int64_t> lhs_batch,
                                              absl::Span<const int64_t> lhs_contracting) {
  measured::GemmShape g;
  g.b = product(lhs, lhs_batch);
  g.k = product(lhs, lhs_contracting);
  if (!(g.b >= 1 && g.k >= 1)) return std::nullopt;
  g.m = elements_of(lhs) / (g.b * g.k);
  g.n = elements_of(rhs) / (g.b * g.k);
  if (!(g.m >= 1 && g.n >= 1)) return std::nullopt;
  return g;
}

// The index of `shape`'s most minor dimension, by its layout (the last one without).
int64_t minor_index(const Shape& shape) {
  if (shape.layout && !shape.layout->minor_to_major.empty()) {
    const int64_t d = shape.layout->minor_to_major.front();
    if (d >= 0 && d < shape.rank()) return d;
  }
  return shape.rank() - 1;
}

// The size of `shape`'s most minor dimension, by its layout (the last one without).
int64_t minor_dimension(const Shape& shape) {
  return shape.dims[static_cast<size_t>(minor_index(shape))].size;
}

// Whether a row of `n` elements of `type` is kUnalignedMinDim elements or more and not a whole
// number of kGpuVectorBytes vectors.
bool not_whole_vectors(int64_t n, PrimitiveType type) {
  return n >= kUnalignedMinDim &&
         n * std::max(1, primitive_storage_bytes(type)) % kGpuVectorBytes != 0;
}

// The size of `shape`'s rows (its minor dimension) where they are not whole vectors
// (not_whole_vectors), else 0.
int64_t unaligned_row(const Shape& shape) {
  if (!shape.is_array() || shape.dims.empty()) return 0;
  const int64_t row = minor_dimension(shape);
  return not_whole_vectors(row, shape.element_type) ? row : 0;
}

// The first unaligned row (unaligned_row) of a GEMM's operands and result.
int64_t unaligned_gemm_row(const Shape& lhs, const Shape& rhs, const Shape& result) {
  for (const Shape* s : {&lhs, &rhs, &result}) {
    if (const int64_t row = unaligned_row(*s)) return row;
  }
  return 0;
}

void add_dot(const Instruction& dot, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (dot.operand_count() < 2) return;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  if (!lhs.is_array() || !rhs.is_array()) return;
  const DotDimensionNumbers dims = dot.dot_dimensions();
  std::optional<measured::GemmShape> g =
      gemm_shape(lhs, rhs, dims.lhs_batch, dims.lhs_contracting);
  if (!g) return;
  bool highest = false, tf32 = false;
  dot_precision(dot, highest, tf32);
  const PrimitiveType type = cost::matrix_operand_type(lhs.element_type, rhs.element_type);
  out.push_back({*g, lhs.element_type, rhs.element_type, matrix_unit(device, type, highest, tf32),
                 1, unaligned_gemm_row(lhs, rhs, dot.shape())});
}

void add_cublas(const Instruction& call, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (call.operand_count() < 2) return;
  const Shape& lhs = call.operand(0)->shape();
  const Shape& rhs = call.operand(1)->shape();
  if (!lhs.is_array() || !rhs.is_array()) return;
  const std::optional<GemmConfig> config = call.backend_config().gemm_config();
  if (!config) return;
  std::optional<measured::GemmShape> g =
      gemm_shape(lhs, rhs, config->lhs_batch, config->lhs_contracting);
  if (!g) return;
  bool highest = false, tf32 = false;
  gemm_precision(*config, highest, tf32);
  const PrimitiveType type = cost::matrix_operand_type(lhs.element_type, rhs.element_type);
  // The result: the call's first tuple element (the second is its workspace).
  const Shape& result = call.shape().is_tuple() && !call.shape().elements.empty()
                            ? call.shape().elements.front()
                            : call.shape();
  out.push_back({*g, lhs.element_type, rhs.element_type, matrix_unit(device, type, highest, tf32),
                 1, unaligned_gemm_row(lhs, rhs, result)});
}

// Calls fn(op) for `i`, or, when `i` is a fusion, for every op its fused computation runs
// (fusions nested in it included, down to 4 levels).
template <typename Fn>
void for_each_fused_op(const Instruction& i, Fn&& fn, int depth = 0) {
  if (i.opcode() != Opcode::kFusion) {
    fn(i);
    return;
  }
  const Computation* fused = i.computation_attribute(AttrId::kCalls);
  if (fused == nullptr || depth > 4) return;
  for (const Instruction* inner : fused->instructions()) for_each_fused_op(*inner, fn, depth + 1);
}

// A dense convolution as its implicit GEMM, at cuDNN's measured factor over the table.
void add_conv(const Instruction& conv, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (conv.operand_count() < 2) return;
  const std::optional<measured::GemmShape> g = implicit_gemm(
      conv, device.kind == DeviceKind::kTpu ? ConvTaps::kValid : ConvTaps::kAll);
  if (!g) return;
  const PrimitiveType lhs = conv.operand(0)->shape().element_type;
  const PrimitiveType rhs = conv.operand(1)->shape().element_type;
  const PrimitiveType type = cost::matrix_operand_type(lhs, rhs);
  // cuDNN's implicit GEMM: any of its dimensions that is not a whole number of vectors.
  int64_t unaligned = 0;
  for (double d : {g->k, g->n, g->m}) {
    const auto n = static_cast<int64_t>(d);
    if (unaligned == 0 && not_whole_vectors(n, lhs)) unaligned = n;
  }
  out.push_back({*g, lhs, rhs, matrix_unit(device, type, false, false), kCudnnOverGemmTable,
                 unaligned});
}

void add_gemm(const Instruction& i, const DeviceSpec& device, std::vector<GemmCall>& out) {
  if (i.opcode() == Opcode::kDot) {
    add_dot(i, device, out);
  } else if (i.opcode() == Opcode::kConvolution &&
             (device.kind == DeviceKind::kGpu || device.kind == DeviceKind::kTpu)) {
    // XLA's TPU programs write their matrix products as convolutions in fusions.
    add_conv(i, device, out);
  } else if (i.opcode() == Opcode::kCustomCall) {
    const std::string_view target = i.custom_call_target();
    if (target == "__cublas$gemm" || absl::StartsWith(sv(target), "__cublas$lt$matmul")) {
      add_cublas(i, device, out);
    } else if (absl::StartsWith(sv(target), "__cudnn$conv")) {
      add_conv(i, device, out);
    }
  }
}

}  // namespace

std::vector<GemmCall> gemms_of(const Instruction& instruction, const DeviceSpec& device) {
  std::vector<GemmCall> out;
  for_each_fused_op(instruction,
                    [&](const Instruction& op) { add_gemm(op, device, out); });
  return out;
}

namespace {

// A Pallas (Mosaic) kernel with matrix work on a TPU: what splash_gemms and megablox_gemms time.
bool tpu_kernel_with_products(const Instruction& instruction, double matrix_flops,
                              const DeviceSpec& device) {
  return device.kind == DeviceKind::kTpu && instruction.opcode() == Opcode::kCustomCall &&
         instruction.custom_call_target() == "tpu_custom_call" && matrix_flops > 0;
}

}  // namespace

std::vector<GemmCall> splash_gemms(const Instruction& instruction, double matrix_flops,
                                   const DeviceSpec& device) {
  if (!tpu_kernel_with_products(instruction, matrix_flops, device) ||
      !absl::StrContains(sv(instruction.name()), "splash_m")) {
    return {};
  }
  // q's rows and head size, in either layout, as the cost rule reads them.
  const std::optional<cost::SplashOperands> qk = cost::splash_operands(cost::view_of(instruction));
  if (!qk) return {};
  const Shape& q = *qk->q;
  const double head_dim = static_cast<double>(qk->head_dim);
  const double rows = qk->q_rows();
  if (!(rows >= 1)) return {};
  measured::GemmShape g;
  g.m = rows;
  g.k = head_dim;
  g.n = matrix_flops / (2 * rows * head_dim);
  return {{g, q.element_type, q.element_type, matrix_unit(device, q.element_type, false, false)}};
}

std::vector<GemmCall> megablox_gemms(const Instruction& instruction, double matrix_flops,
                                     const DeviceSpec& device) {
  if (!tpu_kernel_with_products(instruction, matrix_flops, device)) return {};
  const cost::OpView view = cost::view_of(instruction);
  const std::optional<cost::MegabloxTiles> tiles = cost::megablox_tiles(view);
  if (!tiles) return {};
  const Shape* rows = view.operand_shape(5);
  const Shape& out = instruction.shape();
  if (rows == nullptr || rows->rank() != 2 || !out.is_array() || out.rank() < 2) return {};
  // gmm's result is [m, n] and its rows [m, k]; tgmm's is [G, k, n].
  const double n = static_cast<double>(out.dims.back().size);
  measured::GemmShape g;
  if (out.rank() == 2) {
    g.k = static_cast<double>(rows->dims[1].size);
    g.n = n;
    g.m = matrix_flops / (2 * g.k * n);
  } else {
    g.m = static_cast<double>(out.dims[out.rank() - 2].size);
    g.n = n;
    g.k = matrix_flops / (2 * g.m * n);
  }
  if (!(g.m >= 1) || !(g.k >= 1) || !(g.n >= 1)) return {};
  return {{g, tiles->type, tiles->type, matrix_unit(device, tiles->type, false, false)}};
}

std::string_view op_matrix_unit(const Instruction& instruction, const DeviceSpec& device,
                                PrimitiveType type) {
  if (type == PrimitiveType::kInvalid) return {};
  const std::vector<GemmCall> gemms = gemms_of(instruction, device);
  const std::string_view fallback = matrix_unit(device, type, false, false);
  if (gemms.empty()) return fallback;
  for (const GemmCall& g : gemms) {
    if (g.unit != gemms.front().unit) return fallback;
  }
  return gemms.front().unit;
}

namespace {

// The profiled device whose op cycles stand in for `device`'s (its measured_on.op_profiles:
// the H100 for Hopper and Ampere GPUs, the B200 for Blackwell ones). Only ratios of cycles are
// used.
std::string_view profile_source(const DeviceSpec& device) {
  if (device.kind != DeviceKind::kGpu || !device.gpu) return {};
  return device.measured_on.op_profiles;
}

// Issue slots per element by opcode and element type for one profiled device: cycles over
// those of an f32 add, at least 1. Built once per device.
using SlotTable = absl::flat_hash_map<std::pair<Opcode, PrimitiveType>, double>;

const SlotTable* slot_table(std::string_view profile) {
  auto build = [](std::string_view device) {
    auto* table = new SlotTable;
    const std::optional<double> unit = measured::op_profile_cycles(device, "add", "f32");
    if (!unit || !(*unit > 0)) return table;
    for (const measured::OpProfileRecord& r : measured::op_profile_records()) {
      if (r.device != device) continue;
      const std::optional<Opcode> op = opcode_from_name(r.opcode);
      const std::optional<PrimitiveType> type = primitive_type_from_name(r.type);
      if (op && type) (*table)[{*op, *type}] = std::max(1.0, r.cycles / *unit);
    }
    return table;
  };
  // One table for each profiled device, built once.
  static const auto* tables = [&build] {
    auto* out = new std::map<std::string, const SlotTable*, std::less<>>;
    for (const measured::OpProfileRecord& r : measured::op_profile_records()) {
      if (!out->contains(r.device)) out->emplace(r.device, build(r.device));
    }
    return out;
  }();
  auto it = tables->find(profile);
  return it == tables->end() ? nullptr : it->second;
}

// `used`: the fraction of its elements the fusion computes (ModuleCost::element_utilization).
void add_issue(const Instruction& i, const SlotTable& slots, double used, IssueTime& out) {
  const OpCategory category = opcode_category(i.opcode());
  if (category != OpCategory::kElementwise && category != OpCategory::kTranscendental) return;
  const Shape& shape = i.shape();
  if (!shape.is_array()) return;
  const double elements = elements_of(shape) * used;
  auto it = slots.find({i.opcode(), shape.element_type});
  // XLA's profiles time f16 ops but no bf16 ones. A bf16 op takes its f16 twin's slots
  // (borrowed): an op the emitter expands (an exponential, a tanh, a division) runs in f32
  // between two converts for either 16-bit type.
  if (it == slots.end() && shape.element_type == PrimitiveType::kBF16) {
    it = slots.find({i.opcode(), PrimitiveType::kF16});
    if (it != slots.end()) out.bf16_as_f16 = true;
  }
  out.element_ops += elements;
  out.slots += elements * (it == slots.end() ? 1.0 : it->second);
}

}  // namespace

IssueTime elementwise_issue_time(const Instruction& instruction, const DeviceSpec& device,
                                 const ModuleCost& cost) {
  IssueTime t;
  const std::string_view profile = profile_source(device);
  const SlotTable* slots = profile.empty() ? nullptr : slot_table(profile);
  if (slots == nullptr || slots->empty() || !(device.vector_flops_per_s > 0)) return t;
  // A fused computation that gathers or slices computes some of its ops only where used (an
  // op outside a fusion computes all of its elements).
  for_each_fused_op(instruction, [&](const Instruction& op) {
    double share = 1.0;
    if (&op != &instruction) {
      if (auto u = cost.element_utilization.find(&op); u != cost.element_utilization.end()) {
        share = u->second;
      }
    }
    add_issue(op, *slots, share, t);
  });
  if (t.element_ops <= 0) return t;
  t.profile = std::string(profile);
  t.time_s = t.slots / (device.vector_flops_per_s / 2);
  return t;
}

std::string_view kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::kElementwise:
      return "elementwise";
    case KernelClass::kReduction:
      return "reduction";
    case KernelClass::kTranspose:
      return "transpose";
    case KernelClass::kNone:
      break;
  }
  return "none";
}

KernelClass kernel_class(const Instruction& instruction) {
  // Ops that launch no kernel of XLA's own: leaves, control flow, library and collective calls.
  auto launches_none = [](OpCategory c) {
    return c == OpCategory::kLeaf || c == OpCategory::kControlFlow || c == OpCategory::kCustom ||
           c == OpCategory::kAsync || c == OpCategory::kCollective ||
           c == OpCategory::kCommunication || c == OpCategory::kOrdering;
  };
  if (launches_none(opcode_category(instruction.opcode()))) return KernelClass::kNone;
  bool reduce = false, transpose = false, other = false;
  for_each_fused_op(instruction, [&](const Instruction& op) {
    const OpCategory c = opcode_category(op.opcode());
    // Matrix products, FFTs and library calls run kernels of their own (GEMM tables, families).
    if (c == OpCategory::kContraction || c == OpCategory::kCustom ||
        c == OpCategory::kCollective) {
      other = true;
    }
    if (op.opcode() == Opcode::kReduce) reduce = true;
    if (op.opcode() == Opcode::kTranspose) transpose = true;
  });
  if (other) return KernelClass::kNone;
  if (reduce) return KernelClass::kReduction;
  if (transpose) return KernelClass::kTranspose;
  return KernelClass::kElementwise;
}

int store_element_bytes(const Instruction& instruction, KernelClass kind) {
  if (kind != KernelClass::kElementwise && kind != KernelClass::kReduction) return 0;
  if (instruction.opcode() == Opcode::kCopy) return 0;
  bool moves_only = instruction.opcode() == Opcode::kFusion;
  for_each_fused_op(instruction, [&moves_only](const Instruction& op) {
    const Opcode o = op.opcode();
    if (o != Opcode::kParameter && o != Opcode::kConstant && o != Opcode::kBitcast &&
        o != Opcode::kDynamicSlice && o != Opcode::kFusion) {
      moves_only = false;
    }
  });
  if (moves_only) return 0;
  const Shape* out = &instruction.shape();
  while (out->is_tuple() && !out->elements.empty()) out = &out->elements[0];
  if (!out->is_array()) return 0;
  const int bytes = primitive_storage_bytes(out->element_type);
  return bytes >= 2 ? bytes : 0;
}

namespace {

// Calls `f` with each array of `shape` in device memory (memory space 0; tuples walked), its
// element count and its bytes.
template <typename F>
void for_each_device_array(const Shape& shape, F&& f) {
  if (shape.is_tuple()) {
    for (const Shape& element : shape.elements) for_each_device_array(element, f);
    return;
  }
  if (!shape.is_array() || shape.dims.empty()) return;
  if (shape.layout && shape.layout->memory_space != kDefaultMemorySpace) return;
  const int bytes = primitive_storage_bytes(shape.element_type);
  if (bytes <= 0) return;
  double elements = 1;
  for (const Dimension& d : shape.dims) elements *= static_cast<double>(d.size);
  f(shape, elements, elements * bytes);
}

// Whether `instruction` (a fusion: one of its ops) reduces rows: a reduce whose dimensions
// hold its operand's minor dimension, by layout.
bool reduces_rows(const Instruction& instruction) {
  bool rows = false;
  for_each_fused_op(instruction, [&rows](const Instruction& op) {
    if (op.opcode() != Opcode::kReduce || op.operand_count() < 1) return;
    const Shape& in = op.operand(0)->shape();
    if (!in.is_array() || in.dims.empty()) return;
    const int64_t minor = minor_index(in);
    for (int64_t d : op.dimensions()) rows |= d == minor;
  });
  return rows;
}

// Per operand of fusion `fusion`, the bytes its fused computation reads of it through
// dynamic-slices (operand 0 of each); 0 for the others. Empty for anything but a fusion.
std::vector<double> dynamically_sliced_bytes(const Instruction& fusion) {
  std::vector<double> out;
  if (fusion.opcode() != Opcode::kFusion) return out;
  const Computation* fused = fusion.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return out;
  out.assign(fusion.operands().size(), 0.0);
  for (const Instruction* inner : fused->instructions()) {
    if (inner->opcode() != Opcode::kDynamicSlice || inner->operand_count() < 1) continue;
    const Instruction* source = inner->operand(0);
    if (source->opcode() != Opcode::kParameter) continue;
    const int64_t k = source->parameter_number();
    if (k < 0 || k >= static_cast<int64_t>(out.size())) continue;
    for_each_device_array(inner->shape(),
                          [&](const Shape&, double, double bytes) { out[k] += bytes; });
  }
  return out;
}

}  // namespace

double unaligned_share(const Instruction& instruction, KernelClass kernel) {
  const bool contraction_fusion = instruction.opcode() == Opcode::kFusion &&
                                  kernel == KernelClass::kNone &&
                                  instruction.fusion_kind() != "kLoop";
  if (kernel == KernelClass::kNone && !contraction_fusion) return 0;
  // A loop over the output's elements (a concatenation too: each operand is a block of it),
  // vectorized unless their count is odd; Triton's fusions tile rows.
  const bool loop = kernel == KernelClass::kElementwise &&
                    (instruction.opcode() != Opcode::kFusion ||
                     instruction.fusion_kind() != "kCustom");
  bool odd_loop = false;
  if (loop) {
    for_each_device_array(instruction.shape(), [&](const Shape&, double elements, double) {
      if (std::fmod(elements, 2.0) != 0) odd_loop = true;
    });
  }
  double all = 0, unaligned = 0;
  const auto add = [&](const Shape& shape, double, double bytes) {
    all += bytes;
    // Rows shorter than kUnalignedMinDim are tiled several at a time, contiguous in memory.
    if (loop ? odd_loop : unaligned_row(shape) != 0) unaligned += bytes;
  };
  for_each_device_array(instruction.shape(), add);
  // A row reduction reading an operand through a dynamic-slice (a runtime offset) reads the
  // slice element by element.
  const std::vector<double> sliced = kernel == KernelClass::kReduction && reduces_rows(instruction)
                                         ? dynamically_sliced_bytes(instruction)
                                         : std::vector<double>();
  for (size_t k = 0; k < instruction.operands().size(); ++k) {
    if (k < sliced.size() && sliced[k] > 0) {
      all += sliced[k];
      unaligned += sliced[k];
      continue;
    }
    for_each_device_array(instruction.operands()[k]->shape(), add);
  }
  return all > 0 ? unaligned / all : 0;
}

StridedReads strided_loop_reads(const Instruction& instruction) {
  StridedReads out;
  if (instruction.opcode() != Opcode::kFusion || instruction.fusion_kind() != "kLoop") return out;
  for_each_fused_op(instruction, [&](const Instruction& op) {
    if (op.opcode() != Opcode::kTranspose || op.operand_count() < 1) return;
    const Shape& in = op.operand(0)->shape();
    const Shape& result = op.shape();
    const IntList permutation = op.dimensions();
    if (!in.is_array() || !result.is_array() || in.rank() < 2 || !in.layout || !result.layout ||
        in.layout->minor_to_major.empty() || result.layout->minor_to_major.empty()) {
      return;
    }
    const int64_t minor = result.layout->minor_to_major.front();
    if (minor < 0 || minor >= static_cast<int64_t>(permutation.size()) ||
        permutation[static_cast<size_t>(minor)] == in.layout->minor_to_major.front()) {
      return;
    }
    for_each_device_array(result, [&](const Shape&, double elements, double bytes) {
      out.elements += elements;
      out.bytes += bytes;
    });
  });
  return out;
}

}  // namespace hloroof::predict
