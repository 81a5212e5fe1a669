// The rules about bytes: memory-headroom and padding-waste.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "advise/advise_internal.h"
#include "hloroof/computation.h"
#include "hloroof/units.h"

namespace hloroof::advise_internal {
namespace {

std::string share_text(double part, double whole) {
  return absl::StrCat(format_bytes(part),
                      whole > 0 ? absl::StrCat(" (", format_percent(part / whole), ")") : "");
}

std::string buffer_role(const MemoryBuffer& b) {
  if (b.kind == BufferKind::kParameter) {
    return b.donated ? "parameter, donated: carried step to step (weights, optimizer state)"
                     : "parameter, not donated";
  }
  if (b.kind == BufferKind::kTemporary) return "temporary (activations, intermediates)";
  return std::string(buffer_kind_name(b.kind));
}

AdviceEvidence buffer_evidence(const MemoryBuffer& b, std::string detail) {
  AdviceEvidence e;
  e.op = b.name;
  e.computation = b.computation;
  e.shape = b.shape;
  e.detail = std::move(detail);
  return e;
}

}  // namespace

void memory_headroom(const Context& ctx, std::vector<Candidate>& out) {
  const int64_t peak = memory_held_bytes(ctx.memory());
  if (ctx.device.hbm_capacity_bytes <= 0) return;
  const CapacityCheck check = check_capacity(
      peak, ctx.device,
      ctx.memory().footprint_bytes > 0 ? CapacityBasis::kFootprint : CapacityBasis::kPeak);
  if (check.headroom >= ctx.limits.memory_min_headroom) return;
  const MemoryBreakdown& b = ctx.memory().peak_breakdown;
  const double whole = static_cast<double>(peak);
  double donated = 0;
  std::vector<AdviceEvidence> items;
  for (const MemoryBuffer& buffer : ctx.memory().peak_buffers) {
    if (buffer.kind == BufferKind::kParameter && buffer.donated) {
      donated += static_cast<double>(buffer.padded_bytes);
    }
    AdviceEvidence e = buffer_evidence(
        buffer, absl::StrCat(buffer_role(buffer), ": ",
                             share_text(static_cast<double>(buffer.padded_bytes), whole)));
    e.bytes = static_cast<double>(buffer.padded_bytes);
    items.push_back(std::move(e));
  }
  const double capacity = static_cast<double>(check.capacity_bytes);
  const double target = (1 - ctx.limits.memory_min_headroom) * capacity;
  Candidate c;
  FindingText text;
  text.id = "memory-headroom";
  text.title = check.fits ? "Memory is nearly full: little room left"
                          : "Out of memory: the step does not fit";
  text.what = absl::StrCat(
      "The peak of ", format_bytes(whole), " (at ", ctx.memory().peak_at, ") is ",
      format_percent(capacity > 0 ? whole / capacity : 0), " of ", check.device, "'s ",
      format_bytes(capacity), " HBM",
      check.fits
          ? ""
          : absl::StrCat(", ", format_bytes(static_cast<double>(check.shortfall_bytes)), " over"),
      ". At the peak: parameters ", share_text(static_cast<double>(b.parameters), whole),
      donated > 0
          ? absl::StrCat(" (", format_bytes(donated), " of them donated and carried step to step)")
          : "",
      ", temporaries ", share_text(static_cast<double>(b.temporaries), whole), ", outputs ",
      share_text(static_cast<double>(b.outputs), whole), ", constants ",
      share_text(static_cast<double>(b.constants), whole), ". Padding by the layout's tiles is ",
      format_bytes(static_cast<double>(ctx.memory().peak_padding_waste_bytes)), " of it.");
  std::vector<std::string> fixes;
  if (b.temporaries > b.parameters) {
    fixes.push_back(
        "save fewer activations: jax.checkpoint (jax.remat) the layer with a policy such as "
        "jax.checkpoint_policies.dots_with_no_batch_dims_saveable, or offload them with "
        "save_and_offload_only_these_names; or split the batch into microbatches");
  }
  if (b.parameters > 0) {
    fixes.push_back(
        "shard parameters and optimizer state over more devices (FSDP: a NamedSharding over "
        "the data axis) or keep optimizer state in host memory (memory_kind='pinned_host')");
  }
  if (ctx.memory().alias_bytes == 0 && b.outputs > 0) {
    fixes.push_back(
        "donate the state the step replaces, so outputs reuse the inputs' buffers: "
        "jax.jit(step, donate_argnums=(0, 1))");
  } else {
    fixes.push_back(
        "jax.checkpoint the largest temporaries listed below, and donate (donate_argnums) "
        "every input the step replaces");
  }
  text.fix = absl::StrCat(absl::StrJoin(fixes, "; "), ".");
  const double to_free = std::max(0.0, whole - target);
  c.blocks_step = !check.fits;
  c.untimed = true;
  text.arithmetic =
      absl::StrCat("no step time; bytes to free for ",
                   format_percent(ctx.limits.memory_min_headroom), " headroom: peak ",
                   format_bytes(whole), " - ", format_percent(1 - ctx.limits.memory_min_headroom),
                   " x ", format_bytes(capacity), " = ", format_bytes(to_free));
  add_candidate(std::move(c), std::move(text), std::move(items), to_free, out,
                static_cast<int64_t>(ctx.memory().peak_buffer_count));
}

void padding_waste(const Context& ctx, std::vector<Candidate>& out) {
  const double factor = ctx.limits.padding_min_factor;
  const double bw = ctx.device.hbm_bandwidth * ctx.device.hbm_efficiency;
  if (bw <= 0) return;
  Candidate c;
  std::vector<AdviceEvidence> items;
  double total = 0, traffic = 0;
  for (const IndexedOp& op : ctx.ops) {
    const OpPrediction& r = *op.record;
    if (r.resource != Bound::kHbm || op_time_s(r) <= 0 || r.collective) continue;
    Bytes bytes = ctx.bytes_of(op.instruction->shape());
    for (const Instruction* o : op.instruction->operands()) {
      const Bytes in = ctx.bytes_of(o->shape());
      bytes.logical += in.logical;
      bytes.padded += in.padded;
    }
    if (bytes.logical <= 0 || bytes.padded < factor * bytes.logical) continue;
    // The HBM term scales with the padded bytes; without the padding it would be
    // logical / padded of it.
    const double waste_share = 1 - bytes.logical / bytes.padded;
    const double per_run = std::min(op_time_s(r), r.hbm_bytes / bw) * waste_share;
    if (per_run <= 0) continue;
    const double saving = per_run * r.multiplier;
    AdviceEvidence e = ctx.evidence(op);
    e.detail = absl::StrCat("memory bound; padded ", format_bytes(bytes.padded), " vs logical ",
                            format_bytes(bytes.logical), " (", format_percent(waste_share),
                            " padding) of its operands and result");
    e.bytes = (bytes.padded - bytes.logical) * r.multiplier;
    e.time_s = op_step_time_s(r);
    e.time_at_stake_s = saving;
    items.push_back(std::move(e));
    c.claims.push_back({op.instruction, saving});
    total += saving;
    traffic += (bytes.padded - bytes.logical) * r.multiplier;
  }
  const bool timed = !items.empty() && total >= ctx.min_time_s();
  if (!timed) {
    items.clear();
    c.claims.clear();
    total = 0;
    traffic = 0;
  }
  const std::string traffic_sum = timed ? sum_text(items, total) : "";
  const double peak = static_cast<double>(memory_peak_bytes(ctx.memory()));
  const double peak_waste = static_cast<double>(ctx.memory().peak_padding_waste_bytes);
  const bool at_peak =
      peak > 0 && peak_waste >= ctx.limits.padding_min_peak_share * peak &&
      peak_waste >= ctx.limits.padding_min_capacity_share * ctx.device.hbm_capacity_bytes;
  if (!timed && !at_peak) return;
  if (at_peak) {
    for (const MemoryBuffer& b : ctx.memory().peak_buffers) {
      if (b.logical_bytes <= 0 ||
          static_cast<double>(b.padded_bytes) < factor * static_cast<double>(b.logical_bytes)) {
        continue;
      }
      AdviceEvidence e = buffer_evidence(
          b, absl::StrCat("live at the memory peak: padded ",
                          format_bytes(static_cast<double>(b.padded_bytes)), " vs logical ",
                          format_bytes(static_cast<double>(b.logical_bytes)), " (",
                          format_percent(static_cast<double>(b.padding_waste_bytes()) /
                                         static_cast<double>(b.padded_bytes)),
                          " padding)"));
      e.bytes = static_cast<double>(b.padding_waste_bytes());
      items.push_back(std::move(e));
    }
  }
  FindingText text;
  text.id = "padding-waste";
  text.title = "Tensors are mostly padding";
  std::vector<std::string> parts;
  if (timed) {
    parts.push_back(absl::StrCat(c.claims.size(), " memory-bound op",
                                 c.claims.size() == 1 ? "" : "s", " move ", format_bytes(traffic),
                                 " of tile padding per step through HBM (", format_seconds(total),
                                 ")"));
  }
  if (at_peak) {
    parts.push_back(absl::StrCat(format_bytes(peak_waste), " of the ", format_bytes(peak),
                                 " memory peak (", format_percent(peak_waste / peak),
                                 ") is tile padding"));
  }
  text.what = absl::StrCat(absl::StrJoin(parts, "; "),
                           ". Dimensions that do not fill the layout's tiles are padded "
                           "to whole tiles.");
  text.fix =
      "Choose shapes that fill the tiles: on TPU make the minor dimension a multiple of 128 and "
      "the second-minor a multiple of 8 (f32) or 16 (bf16): pad the vocabulary to a multiple "
      "of 128, use head_dim 128, a per-device batch that is a multiple of 8; move small "
      "dimensions (heads, a batch of 1) out of the two minor positions by reordering the "
      "einsum or a reshape.";
  c.untimed = !timed;
  text.arithmetic =
      timed ? absl::StrCat("per op, min(its time, HBM bytes / ", format_byte_rate(bw),
                           ") x the padding share of its bytes, x executions: ", traffic_sum)
            : "no step time: padding at the memory peak only";
  add_candidate(std::move(c), std::move(text), std::move(items),
                std::max(traffic, at_peak ? peak_waste : 0.0), out);
}

}  // namespace hloroof::advise_internal
