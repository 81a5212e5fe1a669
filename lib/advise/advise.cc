// advise: runs the rules, then ranks their findings so that no op's time is counted twice.
#include "hloroof/advise.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "advise/advise_internal.h"
#include "hloroof/units.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

using advise_internal::Candidate;
using advise_internal::Claim;
using advise_internal::Context;

// What a candidate's claims add up to once the ops of findings ranked above it are left out.
struct Count {
  double counted_s = 0;
  double elsewhere_s = 0;
  std::vector<std::string> elsewhere_ids;  // the findings that already count the rest
};

Count count(const Candidate& c,
            const absl::flat_hash_map<const Instruction*, std::string_view>& claimed) {
  Count n;
  for (const Claim& claim : c.claims) {
    auto it = claimed.find(claim.op);
    if (it == claimed.end()) {
      n.counted_s += claim.saving_s;
      continue;
    }
    n.elsewhere_s += claim.saving_s;
    if (std::find(n.elsewhere_ids.begin(), n.elsewhere_ids.end(), it->second) ==
        n.elsewhere_ids.end()) {
      n.elsewhere_ids.emplace_back(it->second);
    }
  }
  return n;
}

// Greedy: the finding that keeps the step from running, then the one with the most time not
// yet counted, claims its ops; the rest are counted again without them. Findings about time
// whose remaining time falls below the threshold say nothing new and are dropped.
std::vector<AdviceFinding> rank(const Context& ctx, std::vector<Candidate>& candidates) {
  // The finding that claimed each op: views of `ids`, which holds them whole.
  absl::flat_hash_map<const Instruction*, std::string_view> claimed;
  std::vector<std::string> ids;
  ids.reserve(candidates.size());  // never moved: `claimed` views them
  std::vector<bool> used(candidates.size(), false);
  // Each candidate's count, and the number of ops claimed when it was made: ops are only ever
  // added to `claimed`, so a count is made again only once more ops are claimed.
  std::vector<Count> counts(candidates.size());
  std::vector<size_t> counted_at(candidates.size(), SIZE_MAX);
  std::vector<AdviceFinding> out;
  for (;;) {
    int best = -1;
    std::tuple<bool, bool, double, double> best_key;
    for (size_t k = 0; k < candidates.size(); ++k) {
      if (used[k]) continue;
      const Candidate& c = candidates[k];
      if (counted_at[k] != claimed.size()) {
        counts[k] = count(c, claimed);
        counted_at[k] = claimed.size();
      }
      const std::tuple<bool, bool, double, double> key = {
          c.blocks_step, !c.untimed, counts[k].counted_s, c.finding.bytes_at_stake};
      if (best < 0 || key > best_key) best = static_cast<int>(k), best_key = key;
    }
    if (best < 0) break;
    used[best] = true;
    Candidate& c = candidates[best];
    const Count n = std::move(counts[best]);
    if (!c.untimed && !c.blocks_step && (n.counted_s <= 0 || n.counted_s < ctx.min_time_s())) {
      continue;
    }
    const std::string_view id = ids.emplace_back(c.finding.id);
    claimed.reserve(claimed.size() + c.claims.size());
    for (const Claim& claim : c.claims) claimed.emplace(claim.op, id);
    AdviceFinding f = std::move(c.finding);
    f.time_at_stake_s = n.counted_s;
    f.counted_elsewhere_s = n.elsewhere_s;
    f.step_share = ctx.step_s() > 0 ? n.counted_s / ctx.step_s() : 0;
    f.arithmetic = c.arithmetic;
    if (n.elsewhere_s > 0) {
      absl::StrAppend(&f.arithmetic, "; less ", format_seconds(n.elsewhere_s),
                      " already counted under ", absl::StrJoin(n.elsewhere_ids, ", "), " = ",
                      format_seconds(n.counted_s));
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::vector<std::string> advice_rule_ids() {
  return {"exposed-collective",
          "replicated-weight-gather",
          "layout-copy",
          "padding-waste",
          "small-ops",
          "host-launched-loop",
          "f32-matmul",
          "dense-ragged-dot",
          "unfused-attention",
          "unfused-elementwise",
          "host-transfer",
          "memory-headroom",
          "unknown-cost",
          "scatter-repeats",
          "serial-loop-collective",
          "loop-invariant-gather"};
}

// What AdviceMaker holds between its two steps: the context and the findings of the rules
// that read the prediction alone, kept apart where the memory rules come between them in
// advise()'s order (the ranking breaks ties by that order).
struct AdviceMaker::State {
  State(const Module& module, const Prediction& prediction, const DeviceSpec& device,
        const AdviseOptions& advise_options)
      : options(advise_options), ctx(module, prediction, device, options.thresholds) {}
  AdviseOptions options;
  Context ctx;
  absl::Status status;
  std::vector<Candidate> before_padding, after_padding;
};

AdviceMaker::AdviceMaker(const Module& module, const Prediction& prediction,
                         const DeviceSpec& device, const AdviseOptions& options)
    : state_(std::make_unique<State>(module, prediction, device, options)) {
  Context& ctx = state_->ctx;
  ctx.evidence_rows = options.evidence_rows;
  ctx.ops.reserve(prediction.ops.size());
  for (const OpPrediction& op : prediction.ops) {
    const Instruction* i = op.instruction;
    if (i == nullptr) {
      const Computation* c = module.find_computation(op.computation());
      i = c != nullptr ? c->find_instruction(op.name()) : nullptr;
    }
    if (i == nullptr) {
      state_->status = absl::InvalidArgumentError(
          absl::StrCat("the prediction's op '", sv(op.name()), "' (computation '",
                       sv(op.computation()), "') is not in module '", sv(module.name()),
                       "': advise needs the prediction and memory report of this module"));
      return;
    }
    ctx.ops.push_back({&op, i});
    ctx.by_instruction.add(i, &op);
  }
  std::vector<Candidate>& before = state_->before_padding;
  advise_internal::loop_invariant_gather(ctx, before);
  advise_internal::replicated_weight_gather(ctx, before);
  advise_internal::exposed_collectives(ctx, before);
  advise_internal::host_transfer(ctx, before);
  advise_internal::layout_copy(ctx, before);
  advise_internal::f32_matmul(ctx, before);
  advise_internal::dense_ragged_dot(ctx, before);
  advise_internal::unfused_attention(ctx, before);
  advise_internal::unfused_elementwise(ctx, before);
  advise_internal::small_ops(ctx, state_->after_padding);
  advise_internal::host_launched_loops(ctx, state_->after_padding);
  advise_internal::scatter_repeats(ctx, state_->after_padding);
  advise_internal::unknown_cost(ctx, state_->after_padding);
}

AdviceMaker::~AdviceMaker() = default;

absl::StatusOr<Advice> AdviceMaker::finish(const MemoryReport& memory) {
  if (!state_->status.ok()) return state_->status;
  Context& ctx = state_->ctx;
  const AdviseOptions& options = state_->options;
  const Prediction& prediction = ctx.prediction;
  ctx.memory_report = &memory;
  // advise()'s order: memory headroom, the prediction's rules to unfused-elementwise, padding
  // waste, then the rest.
  std::vector<Candidate> candidates;
  advise_internal::memory_headroom(ctx, candidates);
  for (Candidate& c : state_->before_padding) candidates.push_back(std::move(c));
  advise_internal::padding_waste(ctx, candidates);
  for (Candidate& c : state_->after_padding) candidates.push_back(std::move(c));
  state_->before_padding.clear();
  state_->after_padding.clear();

  Advice advice;
  advice.device = ctx.device.name;
  advice.module_name = std::string(ctx.module.name());
  advice.step_time_s = prediction.step_time_s;
  advice.step_is_lower_bound = prediction.is_lower_bound;
  advice.warnings = prediction.diagnostics.warnings;
  advice.findings = rank(ctx, candidates);
  if (options.top > 0 && advice.findings.size() > options.top) {
    advice.findings.resize(options.top);
  }
  for (AdviceFinding& f : advice.findings) {
    if (options.evidence_rows > 0 && f.evidence.size() > options.evidence_rows) {
      f.evidence.resize(options.evidence_rows);
    }
    advice.time_at_stake_s += f.time_at_stake_s;
  }
  advice.notes.push_back(
      "times at stake are predicted seconds per step on one device (hloroof's expected times: "
      "the roofline and the per-op overhead, raised to what measurements say the device "
      "reaches), what the fix could save at most; no op's time is counted twice");
  if (prediction.is_lower_bound) {
    advice.notes.push_back(
        "the predicted step is a floor (ops of unknown cost or assumed trip counts)");
  }
  return advice;
}

absl::StatusOr<Advice> advise(const Module& module, const Prediction& prediction,
                              const MemoryReport& memory, const DeviceSpec& device,
                              const AdviseOptions& options) {
  return AdviceMaker(module, prediction, device, options).finish(memory);
}

}  // namespace hloroof
