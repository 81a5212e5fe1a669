// The rules about the ops' own work: layout-copy, f32-matmul, dense-ragged-dot,
// unfused-attention, unfused-elementwise, small-ops, host-launched-loop, scatter-repeats,
// unknown-cost.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "advise/advise_internal.h"
#include "hloroof/computation.h"
#include "hloroof/shape_text.h"
#include "hloroof/units.h"
#include "hloroof/absl_compat.h"
#include "ir/shape_util.h"
#include "predict/gpu_families.h"
#include "util/string_view_hash.h"

namespace hloroof::advise_internal {
namespace {

std::string plural(size_t n, std::string_view word) {
  return absl::StrCat(n, " ", sv(word), n == 1 ? "" : "s");
}

// The layout of an array shape, the default (major to minor, no tiles) when it prints none.
Layout layout_or_default(const Shape& shape) {
  if (shape.layout) return *shape.layout;
  Layout layout;
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    layout.minor_to_major.push_back(d);
  }
  return layout;
}

// A copy whose result keeps its operand's layout (`copy {2,1,0} -> {2,1,0}`, as HLO before
// layout assignment has) moves no value into another layout.
bool copy_changes_layout(const Instruction& copy) {
  if (copy.operand_count() == 0) return false;
  const Shape& from = copy.operand(0)->shape();
  const Shape& to = copy.shape();
  if (!from.is_array() || !to.is_array()) return true;
  return !(layout_or_default(from) == layout_or_default(to));
}

// A copy that changes the layout, a transpose, or a fusion that does nothing else: it only
// rewrites a value in another layout or tiling.
bool only_changes_layout(const Instruction& i) {
  if (i.opcode() == Opcode::kCopy) return copy_changes_layout(i);
  if (i.opcode() == Opcode::kTranspose) return true;
  if (i.opcode() != Opcode::kFusion || i.called_computations().empty()) return false;
  bool moves = false;
  for (const Instruction* f : i.called_computations()[0]->instructions()) {
    switch (f->opcode()) {
      case Opcode::kCopy:
        if (copy_changes_layout(*f)) moves = true;
        break;
      case Opcode::kTranspose:
        moves = true;
        break;
      case Opcode::kParameter:
      case Opcode::kBitcast:
      case Opcode::kReshape:
        break;
      default:
        return false;
    }
  }
  return moves;
}

std::string layout_text(const Shape& shape) {
  if (!shape.is_array() || !shape.layout) return "{default}";
  return to_string(*shape.layout);
}

bool wide_float(PrimitiveType t) { return t == PrimitiveType::kF32 || t == PrimitiveType::kF64; }
bool narrow_float(PrimitiveType t) { return is_floating_point(t) && primitive_bit_width(t) <= 16; }

// A matmul in f32 (or f64) operands, or one asking for HIGHEST precision.
bool is_wide_matmul(const Instruction& m, bool* highest) {
  *highest = false;
  if (const WordList* p = m.operand_precision()) {
    for (std::string_view w : *p) {
      if (w == "highest" || w == "HIGHEST") *highest = true;
    }
  }
  bool wide = *highest;
  for (const Instruction* o : m.operands()) {
    if (o->shape().is_array() && wide_float(o->shape().element_type)) wide = true;
  }
  return wide;
}

bool is_narrow_matmul(const Instruction& m) {
  return m.operand_count() > 0 && m.operand(0)->shape().is_array() &&
         narrow_float(m.operand(0)->shape().element_type);
}

// An elementwise op on its own, or a loop fusion: each reads its inputs from HBM and writes
// its result back.
bool elementwise_like(const Instruction& i) {
  if (is_elementwise(i.opcode())) return true;
  return i.opcode() == Opcode::kFusion && i.fusion_kind() == "kLoop" && !does_matmul(i);
}

}  // namespace

void layout_copy(const Context& ctx, std::vector<Candidate>& out) {
  Candidate c;
  std::vector<AdviceEvidence> items;
  double total = 0, bytes = 0;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    const Instruction& i = *op.instruction;
    if (op_time_s(r) <= 0 || !only_changes_layout(i) || i.operand_count() == 0) continue;
    if (in_host_memory(i.shape()) || in_host_memory(i.operand(0)->shape())) continue;
    const Instruction* consumer = nullptr;
    for (const Instruction* u : consumers(i)) {
      if (does_matmul(*u)) {
        consumer = u;
        break;
      }
    }
    if (consumer == nullptr) continue;
    const double saving = op_step_time_s(r);
    AdviceEvidence e = ctx.evidence(op);
    e.detail = absl::StrCat(sv(opcode_name(i.opcode())), " ", layout_text(i.operand(0)->shape()),
                            " -> ", layout_text(i.shape()), ", ", format_bytes(r.hbm_bytes),
                            " through HBM in ", times_text(op_time_s(r), r.multiplier), ", for ",
                            sv(consumer->name()), " (", sv(opcode_name(consumer->opcode())), ")");
    e.bytes = r.hbm_bytes * r.multiplier;
    e.time_s = saving;
    e.time_at_stake_s = saving;
    items.push_back(std::move(e));
    c.claims.push_back({&i, saving});
    total += saving;
    bytes += r.hbm_bytes * r.multiplier;
  }
  if (items.empty() || total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "layout-copy";
  text.title = "Copies re-lay out matmul operands every step";
  text.what = absl::StrCat(
      items.size(),
      items.size() == 1 ? " copy or transpose only changes" : " copies or transposes only change",
      " the layout or tiling of a value right before a dot or convolution: ", format_bytes(bytes),
      " moved, ", format_seconds(total), " per step.");
  text.fix =
      "Store the operand in the layout the matmul reads. Let XLA choose the layouts of the "
      "step's inputs and outputs with AUTO layouts (jax.experimental.layout: compile with "
      "Layout.AUTO, DeviceLocalLayout.AUTO in older JAX, and keep the weights in the layout "
      "the compiled step reports); or transpose the weight once, outside the step, into the "
      "order the einsum contracts.";
  text.arithmetic = absl::StrCat("time of the copies: ", sum_text(items, total));
  add_candidate(std::move(c), std::move(text), std::move(items), bytes, out);
}

void f32_matmul(const Context& ctx, std::vector<Candidate>& out) {
  const std::optional<double> bf16 = ctx.device.matrix_peak(PrimitiveType::kBF16);
  if (!bf16 || *bf16 <= 0) return;
  // Only where the rest of the program already runs its matmuls in 16 bits or fewer.
  bool narrow_elsewhere = false;
  for (const IndexedOp& op : ctx.ops) {
    if (op.record->matrix_flops <= 0) continue;
    for (const Instruction* m : matmuls_of(*op.instruction)) {
      if (is_narrow_matmul(*m)) narrow_elsewhere = true;
    }
  }
  if (!narrow_elsewhere) return;
  const double f32_peak = ctx.device.matrix_peak(PrimitiveType::kF32).value_or(*bf16);
  // Where the device lists TF32 tensor cores, f32 dots below HIGHEST precision run there, as
  // the predictor runs them.
  const auto tf32 = ctx.device.matrix_flops_per_s.find("tf32");
  const double eff = ctx.device.matmul_efficiency;
  const double bw = ctx.device.hbm_bandwidth * ctx.device.hbm_efficiency;
  const double vector = ctx.device.vector_flops_per_s;
  Candidate c;
  std::vector<AdviceEvidence> items;
  double total = 0, flops = 0;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (r.matrix_flops <= 0 || op_time_s(r) <= 0) continue;
    bool wide = false, highest = false;
    for (const Instruction* m : matmuls_of(*op.instruction)) {
      bool h = false;
      if (is_wide_matmul(*m, &h)) wide = true;
      highest = highest || h;
    }
    if (!wide) continue;
    // The same roofline twice: as predicted, and with the matmul at the bf16 peak and its f32
    // operands read in half the bytes.
    double f32_operand_bytes = 0;
    for (const Instruction* o : op.instruction->operands()) {
      if (o->shape().is_array() && wide_float(o->shape().element_type)) {
        f32_operand_bytes += result_bytes(o->shape()).padded;
      }
    }
    const double other = vector > 0 ? (r.flops - r.matrix_flops) / vector : 0;
    const double hbm_now = bw > 0 ? r.hbm_bytes / bw : 0;
    const double hbm_bf16 = bw > 0 ? std::max(0.0, r.hbm_bytes - f32_operand_bytes / 2) / bw : 0;
    const double wide_peak =
        !highest && tf32 != ctx.device.matrix_flops_per_s.end() ? tf32->second : f32_peak;
    const double now = std::max({r.matrix_flops / (wide_peak * eff), hbm_now, other});
    const double then = std::max({r.matrix_flops / (*bf16 * eff), hbm_bf16, other});
    const double per_run = std::min(op_time_s(r), std::max(0.0, now - then));
    if (per_run <= 0) continue;
    const double saving = per_run * r.multiplier;
    claim_op(ctx, op, saving,
             absl::StrCat(highest ? "precision HIGHEST, " : "f32 operands, ",
                          format_flops(r.matrix_flops), ": ", format_seconds(now), " at ",
                          format_flop_rate(wide_peak * eff), " and ", format_bytes(r.hbm_bytes),
                          " vs ", format_seconds(then), " in bf16 (",
                          format_flop_rate(*bf16 * eff), ", f32 operands in half the bytes)"),
             c, items);
    total += saving;
    flops += r.matrix_flops * r.multiplier;
  }
  if (items.empty() || total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "f32-matmul";
  text.title = "Some matmuls run in f32 while the rest of the model is bf16";
  text.what = absl::StrCat(plural(items.size(), "matmul"), " (", format_flops(flops),
                           " per step) take f32 operands or HIGHEST precision; in bf16 "
                           "they would take ",
                           format_seconds(total), " less.");
  text.fix =
      "Run them in bf16 with f32 accumulation: cast both operands with .astype(jnp.bfloat16) "
      "and pass preferred_element_type=jnp.float32 to jnp.einsum / jax.lax.dot_general (keep "
      "f32 master weights outside the matmul); drop precision=jax.lax.Precision.HIGHEST or "
      "jax.default_matmul_precision('highest') where the default is accurate enough.";
  text.arithmetic = absl::StrCat(
      "per op, max(matrix FLOPs / peak, HBM bytes / bandwidth, other FLOPs / vector rate) in "
      "f32 minus the same in bf16, x executions: ",
      sum_text(items, total));
  add_candidate(std::move(c), std::move(text), std::move(items), 0, out);
}

namespace {

// Whether the last part of an op_name ("jit(f)/moe/ragged_dot_general") names a ragged dot.
bool from_ragged_dot(std::string_view op_name) {
  const size_t slash = op_name.rfind('/');
  const std::string_view last = slash == std::string_view::npos ? op_name
                                                                 : op_name.substr(slash + 1);
  return last == "ragged_dot_general" || last == "ragged_dot";
}

// The product of `shape`'s dimensions at `dims`.
double dims_product(const Shape& shape, IntList dims) {
  double n = 1;
  for (int64_t d : dims) {
    if (d >= 0 && d < shape.rank()) n *= static_cast<double>(shape.dims[d].size);
  }
  return n;
}

// Whether `g` groups fit `matmul` as a dense ragged dot: a dot that contracts over whole groups
// (its contracting size a multiple of g) or batches over them (a batch dimension of g), or a
// convolution that picks each group's slot out of g (a window of g over a base dilated by g:
// how XLA's TPU compiler writes a ragged dot).
bool groups_fit(const Instruction& matmul, int64_t g) {
  if (matmul.opcode() == Opcode::kConvolution) {
    const Window* window = matmul.window();
    if (window == nullptr) return false;
    for (const WindowDim& d : window->dims) {
      if (d.size == g && d.lhs_dilation == g) return true;
    }
    return false;
  }
  if (matmul.operand_count() < 1 || !matmul.operand(0)->shape().is_array()) return false;
  const DotDimensionNumbers dims = matmul.dot_dimensions();
  const Shape& lhs = matmul.operand(0)->shape();
  for (int64_t d : dims.lhs_batch) {
    if (d >= 0 && d < lhs.rank() && lhs.dims[d].size == g) return true;
  }
  const double contracting = dims_product(lhs, dims.lhs_contracting);
  const double groups = static_cast<double>(g);
  return contracting > groups && std::fmod(contracting, groups) == 0;
}

// The number of groups of a dense ragged dot: the length of the first integer vector (the
// group sizes, or their ends: s32[G], s32[G,1]) among the ops at most four steps above `op`
// that fits `matmul` (groups_fit); 0 when none does. The group sizes sit a few ops up; the walk
// stops after 256 ops, so that a program of many such dots under wide ops stays linear.
int64_t ragged_groups(const Instruction& op, const Instruction& matmul) {
  constexpr size_t kMostOps = 256;
  std::vector<const Instruction*> level = {&op}, next;
  absl::flat_hash_set<const Instruction*> seen = {&op};
  for (int depth = 0; depth < 4 && !level.empty(); ++depth) {
    next.clear();
    for (const Instruction* i : level) {
      for (const Instruction* o : i->operands()) {
        if (seen.size() > kMostOps) return 0;
        if (!seen.insert(o).second) continue;
        next.push_back(o);
        const Shape& s = o->shape();
        if (!s.is_array() || !(is_signed_integral(s.element_type) ||
                               is_unsigned_integral(s.element_type))) {
          continue;
        }
        // A vector: one dimension other than 1, its size g.
        int64_t g = 0, long_dims = 0;
        for (const Dimension& d : s.dims) {
          if (d.size == 1) continue;
          ++long_dims;
          g = d.size;
        }
        if (long_dims == 1 && g >= 2 && groups_fit(matmul, g)) return g;
      }
    }
    level.swap(next);
  }
  return 0;
}

}  // namespace

// Matmuls that XLA made of a ragged dot (jax.lax.ragged_dot, a mixture of experts' grouped
// matmul) as one dense dot over every group: each token's row, masked by its group, meets every
// group's weights (or, for the weights' gradient, every group sums over every token), so the
// dot runs G times the FLOPs of the grouped matmul. XLA's GPU compiler lowers it so; its TPU
// compiler masks the rows into every group's slot the same way and picks each slot's product
// with a base-dilated convolution. At stake: the op's time less a Gth of it.
void dense_ragged_dot(const Context& ctx, std::vector<Candidate>& out) {
  Candidate c;
  std::vector<AdviceEvidence> items;
  double total = 0, flops = 0;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (r.matrix_flops <= 0 || op_time_s(r) <= 0) continue;
    int64_t groups = 0;
    const bool op_named = from_ragged_dot(op.instruction->op_name());
    for (const Instruction* m : matmuls_of(*op.instruction)) {
      if (m->opcode() != Opcode::kDot && m->opcode() != Opcode::kConvolution) continue;
      if (!op_named && !from_ragged_dot(m->op_name())) continue;
      groups = std::max(groups, ragged_groups(*op.instruction, *m));
    }
    if (groups < 2) continue;
    const double saving = op_time_s(r) * (1 - 1.0 / static_cast<double>(groups)) * r.multiplier;
    claim_op(ctx, op, saving,
             absl::StrCat(groups, " groups, ", format_flops(r.matrix_flops), " dense: ",
                          format_flops(r.matrix_flops / static_cast<double>(groups)), " grouped"),
             c, items);
    total += saving;
    flops += r.matrix_flops * r.multiplier;
  }
  if (items.empty() || total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "dense-ragged-dot";
  text.title = "A ragged dot runs as a dense matmul over every group";
  text.what = absl::StrCat(
      plural(items.size(), "matmul"), " (", format_flops(flops), " per step) ",
      items.size() == 1 ? "runs" : "run",
      " jax.lax.ragged_dot as one dense dot over all its groups: each row, masked by its group, "
      "meets every group's weights, G times the FLOPs of the grouped matmul (G: the groups, "
      "from the group sizes the masks are made of). At a Gth of the FLOPs: ",
      format_seconds(total), " less.");
  text.fix =
      "Run each group's rows against its own weights only: dispatch the tokens to a fixed "
      "capacity per group ([groups, capacity, d], a capacity factor of about 1.25) and use one "
      "batched jnp.einsum over the groups, or a grouped-matmul kernel over tokens sorted by "
      "group (on TPU megablox's gmm, jax.experimental.pallas.ops.tpu.megablox; on GPU a "
      "Pallas or Triton grouped GEMM); then check with hloroof advise that this finding is "
      "gone.";
  text.arithmetic = absl::StrCat("per op, its time x (1 - 1/G) x executions: ",
                                 sum_text(items, total));
  add_candidate(std::move(c), std::move(text), std::move(items), 0, out);
}

namespace {

// Elements of an array shape (0 for anything else, or a count that does not fit).
double array_elements(const Shape& shape) {
  return shape.is_array() ? static_cast<double>(std::max<int64_t>(0, detail::element_count(shape)))
                          : 0;
}

// The larger element count of a result's array leaves.
double result_elements(const Shape& shape) {
  double n = 0;
  for_each_array_leaf(shape, [&](const Shape& leaf) { n = std::max(n, array_elements(leaf)); });
  return n;
}

// Whether `op` reads or writes an array of at least `elements` elements.
bool touches(const Instruction& op, double elements) {
  if (result_elements(op.shape()) >= elements) return true;
  for (const Instruction* o : op.operands()) {
    if (result_elements(o->shape()) >= elements) return true;
  }
  return false;
}

// Whether `op` (or a computation it fuses, two levels deep) reduces an array of at least
// `elements` elements over its last dimension: a softmax's row maximum or sum.
bool reduces_rows(const Instruction& op, double elements, int depth = 2) {
  if (op.opcode() == Opcode::kReduce && op.operand_count() > 0) {
    const Shape& in = op.operand(0)->shape();
    if (!in.is_array() || in.rank() == 0 || array_elements(in) < elements) return false;
    for (int64_t d : op.dimensions()) {
      if (d == in.rank() - 1) return true;
    }
    return false;
  }
  if (op.opcode() != Opcode::kFusion || depth == 0) return false;
  const Computation* fused = op.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return false;
  for (const Instruction* i : fused->instructions()) {
    if (reduces_rows(*i, elements, depth - 1)) return true;
  }
  return false;
}

// Whether a matmul op batches its products (over heads): a dot with batch dimensions, alone or
// fused, or a cuBLAS call whose backend config lists some.
bool batched_matmul(const Instruction& op) {
  if (op.opcode() == Opcode::kCustomCall) {
    const std::optional<GemmConfig> config = op.backend_config().gemm_config();
    return config && !config->lhs_batch.empty();
  }
  for (const Instruction* m : matmuls_of(op)) {
    if (m->opcode() == Opcode::kDot && !m->dot_dimensions().lhs_batch.empty()) return true;
  }
  return false;
}

// The element count of the scores `op` computes, or 0: a matmul batched over heads whose result
// ends in [queries, keys], both longer than what it contracts (the head dimension: its matrix
// FLOPs over twice the result's elements), so that the scores outweigh the queries and keys
// they come from.
double score_elements(const IndexedOp& op) {
  const Shape& shape = op.instruction->shape();
  const Shape& out = shape.is_tuple() && !shape.elements.empty() ? shape.elements[0] : shape;
  const double n = array_elements(out);
  if (n <= 0 || out.rank() < 3 || !batched_matmul(*op.instruction)) return 0;
  const double k = op.record->matrix_flops / (2 * n);
  const bool longer = static_cast<double>(out.dims[out.rank() - 1].size) > k &&
                      static_cast<double>(out.dims[out.rank() - 2].size) > k;
  return longer ? n : 0;
}

}  // namespace

// Attention whose scores make a round trip through HBM: a batched dot writes [queries, keys]
// scores larger than its inputs, ops that do no matmul (masks, a softmax: a row reduction over
// the keys among them) read and write arrays of that size, and another matmul consumes them.
// A fused attention kernel keeps the scores on chip: at stake, the time of those ops and, of
// the dots on either side, what they take beyond their FLOPs at the device's matmul rate.
void unfused_attention(const Context& ctx, std::vector<Candidate>& out) {
  const std::optional<double> bf16 = ctx.device.matrix_peak(PrimitiveType::kBF16);
  if (!bf16 || *bf16 <= 0) return;
  absl::flat_hash_set<const Instruction*> between, dots;
  std::vector<const Instruction*> seeds;
  for (const IndexedOp& op : ctx.ops) {
    if (op.record->matrix_flops <= 0) continue;
    const double scores = score_elements(op);
    if (scores <= 0) continue;
    absl::flat_hash_set<const Instruction*> seen, found_between, found_dots;
    bool softmax = false;
    std::vector<const Instruction*> level = consumers(*op.instruction), next;
    for (int depth = 0; depth < 6 && !level.empty(); ++depth) {
      next.clear();
      for (const Instruction* u : level) {
        if (!seen.insert(u).second) continue;
        if (const OpPrediction* r = ctx.record(u); r != nullptr && r->matrix_flops > 0) {
          found_dots.insert(u);
          continue;
        }
        if (!touches(*u, scores)) continue;
        found_between.insert(u);
        softmax = softmax || reduces_rows(*u, scores);
        for (const Instruction* c : consumers(*u)) next.push_back(c);
      }
      level.swap(next);
    }
    if (!softmax || found_dots.empty()) continue;
    seeds.push_back(op.instruction);
    dots.insert(op.instruction);
    dots.insert(found_dots.begin(), found_dots.end());
    between.insert(found_between.begin(), found_between.end());
  }
  if (seeds.empty()) return;
  Candidate c;
  std::vector<AdviceEvidence> items;
  double total = 0, bytes = 0;
  auto claim = [&](const IndexedOp& op, double per_run, std::string detail) {
    if (per_run <= 0) return;
    const double saving = per_run * op.record->multiplier;
    claim_op(ctx, op, saving, std::move(detail), c, items);
    total += saving;
  };
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (op_time_s(r) <= 0) continue;
    if (between.contains(op.instruction)) {
      bytes += r.hbm_bytes * r.multiplier;
      claim(op, op_time_s(r),
            absl::StrCat("score-sized, no matmul: ", format_bytes(r.hbm_bytes), " through HBM"));
    } else if (dots.contains(op.instruction)) {
      const std::vector<const Instruction*> fused = matmuls_of(*op.instruction);
      const Instruction* m = fused.empty() ? op.instruction : fused.front();
      const PrimitiveType type = m->operand_count() > 0 && m->operand(0)->shape().is_array()
                                     ? m->operand(0)->shape().element_type
                                     : PrimitiveType::kBF16;
      const double peak = ctx.device.matrix_peak(type).value_or(*bf16);
      const double compute_s = r.matrix_flops / (peak * ctx.device.matmul_efficiency);
      claim(op, op_time_s(r) - compute_s,
            absl::StrCat("matmul with the scores: ", format_seconds(op_time_s(r)), ", its ",
                         format_flops(r.matrix_flops), " alone ", format_seconds(compute_s)));
    }
  }
  if (items.empty() || total < ctx.min_time_s()) return;
  FindingText text;
  text.id = "unfused-attention";
  text.title = "Attention scores make a round trip through HBM";
  text.what = absl::StrCat(
      plural(seeds.size(), "attention matmul"), " write [queries, keys] scores larger than "
      "their inputs; ",
      plural(between.size(), "op"), " (a softmax, masks) then move ", format_bytes(bytes),
      " of scores through HBM a step before the next matmul reads them. A fused attention "
      "kernel keeps the scores on chip: at stake ",
      format_seconds(total), ", the time of those ops and what the matmuls take beyond their "
      "FLOPs.");
  text.fix =
      "Use a fused attention kernel: jax.nn.dot_product_attention(q, k, v, "
      "implementation=\"cudnn\") on NVIDIA GPUs (bf16 or fp16; is_causal=True for a causal "
      "mask rather than a mask array), splash attention "
      "(jax.experimental.pallas.ops.tpu.splash_attention) on TPU, or a Pallas flash-attention "
      "kernel; in MaxText, attention=cudnn_flash_te or flash.";
  text.arithmetic = absl::StrCat(
      "per op, the ops between the matmuls: their time; the matmuls: their time less matrix "
      "FLOPs / (peak x matmul efficiency), x executions: ",
      sum_text(items, total));
  add_candidate(std::move(c), std::move(text), std::move(items), bytes, out);
}

void unfused_elementwise(const Context& ctx, std::vector<Candidate>& out) {
  const double bw = ctx.device.hbm_bandwidth * ctx.device.hbm_efficiency;
  if (bw <= 0) return;
  Candidate c;
  // Each op found, with its round trip; texts are made for the evidence kept only.
  struct Found {
    const IndexedOp* op;
    const Instruction* user;
    double round_trip;
  };
  std::vector<Found> found;
  std::vector<EvidenceRank> ranks;
  double total = 0, bytes = 0;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    const Instruction& p = *op.instruction;
    if (op_time_s(r) <= 0 || !elementwise_like(p) || p.is_root() || p.users().size() != 1) {
      continue;
    }
    const Instruction& user = *p.users()[0];
    const OpPrediction* u = ctx.record(&user);
    if (u == nullptr || op_time_s(*u) <= 0 || !elementwise_like(user)) continue;
    // Written by p, read back by its only user: fused, the value would stay on chip.
    const double round_trip = 2 * ctx.bytes_of(p.shape()).padded;
    const double per_run = std::min(op_time_s(r), round_trip / bw);
    if (per_run <= 0) continue;
    const double saving = per_run * r.multiplier;
    ranks.push_back({saving, round_trip * r.multiplier, r.multiplier, found.size()});
    found.push_back({&op, &user, round_trip});
    c.claims.push_back({&p, saving});
    total += saving;
    bytes += round_trip * r.multiplier;
  }
  if (found.empty() || total < ctx.min_time_s()) return;
  std::vector<AdviceEvidence> items;
  for (size_t k : kept_items(ctx, ranks)) {
    const Found& f = found[k];
    const OpPrediction& r = *f.op->record;
    const Instruction& p = *f.op->instruction;
    AdviceEvidence& e = items.emplace_back(ctx.evidence(*f.op));
    e.detail = absl::StrCat(sv(opcode_name(p.opcode())), " -> ", sv(f.user->name()), " (",
                            sv(opcode_name(f.user->opcode())), "): ", format_bytes(f.round_trip),
                            " written and read back through HBM");
    e.bytes = f.round_trip * r.multiplier;
    e.time_s = op_step_time_s(r);
    e.time_at_stake_s = ranks[k].time_at_stake_s;
  }
  FindingText text;
  text.id = "unfused-elementwise";
  text.title = "Elementwise ops are not fused";
  text.what = absl::StrCat(plural(found.size(), "elementwise op"),
                           " write a result that only the next elementwise "
                           "op reads: ",
                           format_bytes(bytes),
                           " per step go to HBM and back that fusion would keep "
                           "on chip.");
  text.fix =
      "If this HLO was not optimized (jax.jit(f).lower(...).as_text()), advise the compiled "
      "module instead: jax.jit(f).lower(...).compile().as_text(). Otherwise find what splits "
      "the chain: a host callback (jax.pure_callback) or custom call in between, "
      "jax.lax.optimization_barrier or a jax.checkpoint boundary, or a value used twice.";
  text.arithmetic = absl::StrCat("per op, min(its time, 2 x result bytes / ", format_byte_rate(bw),
                                 ") x executions: ", sum_text(ranks, total));
  add_candidate(std::move(c), std::move(text), std::move(items), bytes, out,
                static_cast<int64_t>(found.size()));
}

void small_ops(const Context& ctx, std::vector<Candidate>& out) {
  const double overhead = ctx.device.per_op_overhead_s;
  if (overhead <= 0) return;
  Candidate c;
  // The ops found; texts are made for the evidence kept only.
  std::vector<const IndexedOp*> found;
  std::vector<EvidenceRank> ranks;
  double total = 0, runs = 0;
  detail::StringViewMap<double> by_category;  // sorted below
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (r.bound != BoundBy::kOverhead || op_time_s(r) <= 0) continue;
    // A small GPU loop's kernels: the host's launches, not this overhead, are what costs
    // (host-launched-loop).
    if (predict::loop_host_gap_s(*op.instruction, ctx.device) > 0) continue;
    const double per_run = std::min(op_time_s(r), overhead);
    const double saving = per_run * r.multiplier;
    ranks.push_back({saving, r.hbm_bytes * r.multiplier, r.multiplier, found.size()});
    found.push_back(&op);
    c.claims.push_back({op.instruction, saving});
    total += saving;
    runs += r.multiplier;
    by_category[r.category()] += r.multiplier;
  }
  if (runs < static_cast<double>(ctx.limits.small_ops_min_count) ||
      total < ctx.limits.small_ops_min_step_share * ctx.step_s() || total <= 0) {
    return;
  }
  std::vector<std::pair<double, std::string>> categories;
  for (const auto& [name, n] : by_category) categories.push_back({n, std::string(name)});
  std::sort(categories.rbegin(), categories.rend());
  std::vector<std::string> parts;
  for (size_t k = 0; k < categories.size() && k < 3; ++k) {
    parts.push_back(absl::StrCat(categories[k].first, " ", categories[k].second));
  }
  FindingText text;
  text.id = "small-ops";
  text.title = "Many tiny ops: launch overhead dominates";
  text.what =
      absl::StrCat(runs, " op executions per step do less work than the fixed per-op overhead (",
                   format_seconds(overhead), " each): ", format_seconds(total), " of overhead (",
                   format_percent(total / ctx.step_s()),
                   " of the step). Most: ", absl::StrJoin(parts, ", "), ".");
  text.fix =
      "Give each op more work: jit the whole step rather than calling small jitted functions, "
      "batch small computations with jax.vmap, loop with jax.lax.scan / fori_loop rather than "
      "a Python loop over tiny arrays, raise the per-device batch; on GPU let XLA put the step "
      "in CUDA graphs (XLA_FLAGS=--xla_gpu_enable_command_buffer).";
  text.arithmetic = absl::StrCat(runs, " executions x min(op time, ", format_seconds(overhead),
                                 " overhead) = ", format_seconds(total));
  std::vector<AdviceEvidence> items;
  for (size_t k : kept_items(ctx, ranks)) {
    const OpPrediction& r = *found[k]->record;
    const double per_run = std::min(op_time_s(r), overhead);
    AdviceEvidence& e = items.emplace_back(ctx.evidence(*found[k]));
    e.detail = absl::StrCat(sv(r.category()), ": ", times_text(op_time_s(r), r.multiplier),
                            ", of which overhead ", format_seconds(per_run));
    e.bytes = ranks[k].bytes;
    e.time_s = op_step_time_s(r);
    e.time_at_stake_s = ranks[k].time_at_stake_s;
  }
  add_candidate(std::move(c), std::move(text), std::move(items), 0, out,
                static_cast<int64_t>(found.size()));
}

// GPU while loops whose body is too small for a command buffer (fewer than
// kCommandBufferMinKernels kernels): the host launches the body's kernels one at a time every
// trip (predict::loop_host_gap_s), and a trip takes the longer of those launches and its
// kernels, less what hides behind the work queued before the loop. A loop counts when its trips
// take no longer than their launches and at least half as long: the host sets their pace. At
// stake, at most, per op of the body: its time above its roofline, up to its launch.
void host_launched_loops(const Context& ctx, std::vector<Candidate>& out) {
  // A kernel of such a body and its launch (every kernel of the body has one; its other ops
  // take no time).
  struct Kernel {
    const IndexedOp* op = nullptr;
    double launch_s = 0;
    // One execution's saving: its time above its roofline, up to its launch.
    double saving_s() const {
      return std::clamp(op_time_s(*op->record) - op->record->roofline_time_s, 0.0, launch_s);
    }
  };
  struct Body {
    double launches_s = 0;  // one trip's
    double time_s = 0;      // one trip's, as the step takes it
    double trips = 0;       // executions per step
    std::vector<Kernel> kernels;
  };
  std::map<const Computation*, Body> bodies;  // in a fixed order
  for (const IndexedOp& op : ctx.ops) {
    // Positive only in the body of a small loop (loop_host_gap_s).
    const double launch = predict::loop_host_gap_s(*op.instruction, ctx.device);
    if (launch <= 0) continue;
    Body& b = bodies[op.instruction->parent()];
    b.launches_s += launch;
    b.time_s += op_time_s(*op.record);
    b.trips = std::max(b.trips, op.record->multiplier);
    b.kernels.push_back({&op, launch});
  }
  for (const auto& [body, b] : bodies) {
    // Kernels longer than the launches bound the trips (the launches hide behind them); trips
    // far shorter than them hide the launches behind the work before the loop.
    if (b.time_s > b.launches_s * (1 + 1e-9) || b.time_s < 0.5 * b.launches_s) continue;
    Candidate c;
    std::vector<EvidenceRank> ranks;
    double total = 0;
    for (size_t k = 0; k < b.kernels.size(); ++k) {
      const OpPrediction& r = *b.kernels[k].op->record;
      const double saving = b.kernels[k].saving_s() * r.multiplier;
      if (saving <= 0) continue;
      c.claims.push_back({b.kernels[k].op->instruction, saving});
      ranks.push_back({saving, r.hbm_bytes * r.multiplier, r.multiplier, k});
      total += saving;
    }
    if (total <= 0 || total < ctx.min_time_s()) continue;
    const Instruction* loop = body->while_loop();
    FindingText text;
    text.id = "host-launched-loop";
    text.title = "A small GPU loop runs at the host's pace";
    const double loop_s = b.time_s * b.trips;
    text.what = absl::StrCat(
        "loop ", sv(loop->name()), " (", sv(loop->parent()->name()), ") runs its body of ",
        plural(b.kernels.size(), "kernel"), " ", b.trips, " times a step, too few kernels for a ",
        "command buffer (", predict::kCommandBufferMinKernels, "): the host launches each one ",
        "on its own every trip, ", format_seconds(b.launches_s), " a trip, and a trip takes ",
        format_seconds(b.time_s), ": the launches, not the kernels, set its pace. The loop takes ",
        format_seconds(loop_s), " (", format_percent(loop_s / ctx.step_s()), " of the step).");
    text.fix = absl::StrCat(
        "Give each trip more kernels or more work: unroll the loop (jax.lax.fori_loop or "
        "jax.lax.scan with unroll=k) so that its body holds ",
        predict::kCommandBufferMinKernels,
        " kernels or more and runs as one command buffer, batch the trips' work with jax.vmap "
        "where they do not depend on each other, or write the loop as one kernel (Pallas).");
    text.arithmetic = absl::StrCat(
        "per op, min(its time - its roofline, its launch) x executions: ",
        sum_text(ranks, total));
    std::vector<AdviceEvidence> items;
    for (size_t k : kept_items(ctx, ranks)) {
      const Kernel& kernel = b.kernels[k];
      const OpPrediction& r = *kernel.op->record;
      AdviceEvidence& e = items.emplace_back(ctx.evidence(*kernel.op));
      e.detail = absl::StrCat(sv(r.category()), ": ", times_text(op_time_s(r), r.multiplier),
                              ", roofline ", format_seconds(r.roofline_time_s), ", launch ",
                              format_seconds(kernel.launch_s));
      e.time_at_stake_s = kernel.saving_s() * r.multiplier;
    }
    add_candidate(std::move(c), std::move(text), std::move(items), 0, out,
                  static_cast<int64_t>(ranks.size()));
  }
}

// The scatter `op` runs: itself, or the one its fused computation runs; null for anything else.
const Instruction* scatter_of(const Instruction& op) {
  if (op.opcode() == Opcode::kScatter) return &op;
  if (op.opcode() != Opcode::kFusion) return nullptr;
  const Computation* fused = op.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return nullptr;
  for (const Instruction* i : fused->instructions()) {
    if (i->opcode() == Opcode::kScatter) return i;
  }
  return nullptr;
}

// GPU scatters of 16-bit updates whose indices may repeat (their time has a range: the busiest
// row's chain of same-address atomics, predict/gpu_families.cc), when the range's top (text's
// token ids) adds at least scatter_repeats_min_step_share of the step. The expected time takes
// the fewest repeats the data allow, so the finding is about a risk, not time the step counts:
// reported apart from the ranking's time, like unknown-cost.
void scatter_repeats(const Context& ctx, std::vector<Candidate>& out) {
  struct Found {
    const IndexedOp* op = nullptr;
    PrimitiveType updates = PrimitiveType::kInvalid;  // their element type
    TimeRange range;
    double risk_s = 0;  // (the range's top - the expected time) x executions
  };
  std::vector<Found> found;
  double risk_s = 0;
  for (const IndexedOp& op : ctx.ops) {
    const std::optional<TimeRange> range = op.record->time_range();
    if (!range || range->high_s <= op_time_s(*op.record)) continue;
    const Instruction* scatter = scatter_of(*op.instruction);
    if (scatter == nullptr || scatter->operand_count() < 3) continue;
    const Shape& updates = scatter->operand(scatter->operand_count() - 1)->shape();
    if (!updates.is_array() || primitive_storage_bytes(updates.element_type) >= 4) continue;
    const double risk = (range->high_s - op_time_s(*op.record)) * op.record->multiplier;
    risk_s += risk;
    found.push_back({&op, updates.element_type, *range, risk});
  }
  if (found.empty() || risk_s < ctx.limits.scatter_repeats_min_step_share * ctx.step_s()) return;
  Candidate c;
  c.untimed = true;
  std::vector<EvidenceRank> ranks;
  for (size_t k = 0; k < found.size(); ++k) {
    const OpPrediction& r = *found[k].op->record;
    ranks.push_back({found[k].risk_s, r.hbm_bytes * r.multiplier, r.multiplier, k});
  }
  std::vector<AdviceEvidence> items;
  for (size_t k : kept_items(ctx, ranks)) {
    const Found& f = found[k];
    const OpPrediction& r = *f.op->record;
    AdviceEvidence& e = items.emplace_back(ctx.evidence(*f.op));
    e.detail = absl::StrCat(sv(primitive_type_name(f.updates)), " updates: expected ",
                            times_text(op_time_s(r), r.multiplier), " (", f.range.low, "); with ",
                            f.range.high, ", ", format_seconds(f.range.high_s), " a run");
    e.time_at_stake_s = f.risk_s;
  }
  FindingText text;
  text.id = "scatter-repeats";
  text.title = "A 16-bit scatter-add may take far longer with real indices";
  text.what = absl::StrCat(
      plural(found.size(), "scatter"), " add", found.size() == 1 ? "s" : "",
      " 16-bit updates with atomics at indices the program does not declare unique: the "
      "updates that land on one row wait for each other, 6.8 us a repeat for 16-bit atomics "
      "(13 ns for 32-bit ones). The ",
      format_seconds(ctx.step_s()), " step takes the fewest repeats the data allow (indices "
      "spread evenly); with indices as skewed as text's token ids (a Zipf law of exponent 1.1) ",
      found.size() == 1 ? "it adds" : "they add", " ", format_seconds(risk_s), " a step (",
      format_percent(ctx.step_s() > 0 ? risk_s / ctx.step_s() : 0), " of the step). Measured "
      "on an H200 (bench/measured/gpu_h200_contention): an embedding gradient of 16384 Zipf "
      "token ids over 32000 rows of 2048 ran 17.6 ms in bf16, 0.17 ms in f32.");
  text.fix =
      "Accumulate in f32: scatter f32 updates into an f32 table (g.astype(jnp.float32), "
      "jnp.zeros(shape, jnp.float32).at[ids].add(...)), then cast; for an embedding, look "
      "the tokens up from the f32 table (or take the gradient of a one-hot matmul) so that its "
      "gradient's scatter is f32. Sorting the indices does not shorten the chain (23.5 ms "
      "sorted); declare them unique (unique_indices=True) only when they are.";
  text.arithmetic = absl::StrCat(
      "not counted in the step's time at stake: per op, (the range's top - its expected "
      "time) x executions: ",
      sum_text(ranks, risk_s));
  add_candidate(std::move(c), std::move(text), std::move(items), 0, out,
                static_cast<int64_t>(found.size()));
}

void unknown_cost(const Context& ctx, std::vector<Candidate>& out) {
  if (ctx.prediction.unknown_ops.empty()) return;
  // The instruction of each op named: the first of that name in the module's order (null when
  // none). Only those names are looked for, and the walk stops once each is found.
  detail::StringViewMap<const Instruction*> by_name;
  for (const std::string& name : ctx.prediction.unknown_ops) by_name.emplace(name, nullptr);
  size_t left = by_name.size();
  for (const Computation* comp : ctx.module.computations()) {
    if (left == 0) break;
    for (const Instruction* i : comp->instructions()) {
      auto it = by_name.find(i->name());
      if (it == by_name.end() || it->second != nullptr) continue;
      it->second = i;
      if (--left == 0) break;
    }
  }
  const double bw = ctx.device.hbm_bandwidth * ctx.device.hbm_efficiency;
  struct Target {
    int64_t count = 0;
    double bytes = 0;
    std::vector<std::string> names;
    const Instruction* first = nullptr;
  };
  std::map<std::string, Target> targets;
  for (const std::string& name : ctx.prediction.unknown_ops) {
    const Instruction* i = by_name.find(name)->second;
    std::string target = "unknown";
    double bytes = 0;
    if (i != nullptr) {
      target = i->opcode() == Opcode::kCustomCall ? std::string(i->custom_call_target())
                                                  : std::string(opcode_name(i->opcode()));
      bytes = result_bytes(i->shape()).padded;
      for (const Instruction* o : i->operands()) bytes += result_bytes(o->shape()).padded;
    }
    Target& t = targets[target];
    ++t.count;
    t.bytes += bytes;
    if (t.names.size() < 3) t.names.push_back(name);
    if (t.first == nullptr) t.first = i;
  }
  Candidate c;
  std::vector<AdviceEvidence> items;
  double floor_s = 0;
  for (const auto& [target, t] : targets) {
    AdviceEvidence e;
    e.op = t.names.front();
    if (t.first != nullptr) {
      e.computation = std::string(t.first->parent()->name());
      if (const std::string_view op_name = t.first->op_name(); !op_name.empty()) {
        e.scope = scope_of(op_name);
      }
      e.shape = to_string(t.first->shape());
    }
    const double min_s = bw > 0 ? t.bytes / bw : 0;
    e.detail = absl::StrCat(target, ": ", t.count, " op", t.count == 1 ? "" : "s", " (",
                            absl::StrJoin(t.names, ", "), t.count > 3 ? ", ..." : "",
                            "); reading operands and writing results once takes at least ",
                            format_seconds(min_s));
    e.bytes = t.bytes;
    items.push_back(std::move(e));
    floor_s += min_s;
  }
  FindingText text;
  text.id = "unknown-cost";
  text.title = "Ops of unknown cost: the step time is a floor";
  text.what = absl::StrCat(
      ctx.prediction.unknown_ops.size(), " op", ctx.prediction.unknown_ops.size() == 1 ? "" : "s",
      " (", plural(targets.size(), "target"), ")",
      ctx.prediction.unknown_ops.size() == 1 ? " has" : " have",
      " no cost model and count 0 s in the ", format_seconds(ctx.step_s()),
      " step. Reading their operands and writing their results "
      "once would take at least ",
      format_seconds(floor_s), " (",
      format_percent(ctx.step_s() > 0 ? floor_s / (ctx.step_s() + floor_s) : 0),
      " of a step that included it); they may hide much more.");
  text.fix =
      "Measure them once on the device (jax.profiler.trace) and weigh the prediction by "
      "them; move host callbacks (jax.pure_callback, io_callback) out of the step; prefer "
      "jnp / lax code that XLA can cost and fuse to opaque custom calls where the speed "
      "allows.";
  c.untimed = true;
  text.arithmetic = "no step time counted: their time is unknown";
  add_candidate(std::move(c), std::move(text), std::move(items), 0, out,
                static_cast<int64_t>(ctx.prediction.unknown_ops.size()));
}

}  // namespace hloroof::advise_internal
