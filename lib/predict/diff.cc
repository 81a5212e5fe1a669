// diff_predictions: two predictions of one device matched op by op.
#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hloroof/diff.h"

namespace hloroof {
namespace {

DiffSide side_of(const Prediction& p, std::optional<int64_t> peak_bytes) {
  return {.step_time_s = p.step_time_s,
          .roofline_step_time_s = p.roofline_step_time_s,
          .flops = p.flops,
          .hbm_bytes = p.hbm_bytes,
          .op_count = static_cast<int64_t>(p.ops.size()),
          .peak_bytes = peak_bytes,
          .warnings = p.diagnostics.warnings,
          .assumptions = p.diagnostics.notes};
}

// Per-step figures of one op.
double flops_of(const OpPrediction& op) { return op.flops * op.multiplier; }
double bytes_of(const OpPrediction& op) { return op.hbm_bytes * op.multiplier; }

// The computation an op is matched in: the entry's name often differs between two compiles
// (`main.34_spmd`, `main.2_spmd`), so every entry matches every other.
std::string_view computation_key(const OpPrediction& op) {
  return op.in_entry ? std::string_view("ENTRY") : std::string_view(op.computation());
}

// Equal within the rounding of two computations of one formula (relative 1e-9).
bool same(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({std::abs(a), std::abs(b), 1e-30});
}

}  // namespace

std::string_view op_change_name(OpChange change) {
  switch (change) {
    case OpChange::kChanged:
      return "changed";
    case OpChange::kUnchanged:
      return "unchanged";
    case OpChange::kAdded:
      return "added";
    case OpChange::kRemoved:
      return "removed";
  }
  return "changed";
}

PredictionDiff diff_predictions(const Prediction& before, const Prediction& after,
                                std::optional<int64_t> before_peak_bytes,
                                std::optional<int64_t> after_peak_bytes) {
  PredictionDiff d;
  const auto device_of = [](const Prediction& p) {
    return p.topology.empty() ? p.device : absl::StrCat(p.device, ":", p.topology);
  };
  d.before = side_of(before, before_peak_bytes);
  d.after = side_of(after, after_peak_bytes);
  d.before.device = device_of(before);
  d.after.device = device_of(after);
  d.device = d.before.device == d.after.device
                 ? d.after.device
                 : absl::StrCat(d.before.device, " -> ", d.after.device);

  // Four passes, each over the ops the earlier ones left, first come first matched:
  //   1. the same name and the same figures (the same op);
  //   2. the same opcode, op_name and figures under another name (renumbered by a pass);
  //   3. the same name, opcode and op_name (the op whose shape or cost changed);
  //   4. the same opcode and op_name (renamed and changed).
  // Two compiles number their instructions apart (`custom-call.46` is one GEMM in one and
  // another in the other), so a name alone is not enough. All keys include the computation.
  std::vector<int64_t> match(after.ops.size(), -1);  // after op -> before op
  std::vector<bool> taken(before.ops.size(), false);
  // An op's figures as text (6 significant digits each: figures that round alike match),
  // made once per op for the two passes that compare them.
  auto figures_of = [](const Prediction& p) {
    std::vector<std::string> texts;
    texts.reserve(p.ops.size());
    for (const OpPrediction& op : p.ops) {
      texts.push_back(absl::StrCat(op.total_time_s(), "/", flops_of(op), "/", bytes_of(op)));
    }
    return texts;
  };
  const std::vector<std::string> before_figures = figures_of(before);
  const std::vector<std::string> after_figures = figures_of(after);
  // A pass's key: up to four texts of the op (its computation's key first), compared whole.
  using Key = std::tuple<std::string_view, std::string_view, std::string_view, std::string_view>;
  auto pass = [&](auto key_of, bool renames) {
    absl::flat_hash_map<Key, std::vector<size_t>> open;  // untaken, last first
    for (size_t k = before.ops.size(); k > 0; --k) {
      if (!taken[k - 1]) open[key_of(before.ops[k - 1], before_figures[k - 1])].push_back(k - 1);
    }
    for (size_t k = 0; k < after.ops.size(); ++k) {
      if (match[k] >= 0) continue;
      auto it = open.find(key_of(after.ops[k], after_figures[k]));
      if (it == open.end() || it->second.empty()) continue;
      const size_t b = it->second.back();
      it->second.pop_back();
      match[k] = static_cast<int64_t>(b);
      taken[b] = true;
      if (renames && before.ops[b].name() != after.ops[k].name()) ++d.renamed;
    }
  };
  pass([](const OpPrediction& op, std::string_view figures) {
    return Key(computation_key(op), op.name(), figures, {});
  }, false);
  pass([](const OpPrediction& op, std::string_view figures) {
    return Key(computation_key(op), op.opcode(), op.op_name(), figures);
  }, true);
  pass([](const OpPrediction& op, std::string_view) {
    return Key(computation_key(op), op.opcode(), op.op_name(), op.name());
  }, false);
  pass([](const OpPrediction& op, std::string_view) {
    // Without an op_name, only the name can tell two ops of one opcode apart (a key no
    // computation has: computation keys are never empty).
    return op.op_name().empty() ? Key({}, op.name(), {}, {})
                                : Key(computation_key(op), op.opcode(), op.op_name(), {});
  }, true);

  for (size_t k = 0; k < after.ops.size(); ++k) {
    const OpPrediction& a = after.ops[k];
    OpDelta delta{.name = std::string(a.name()),
                  .computation = std::string(a.computation()),
                  .opcode = std::string(a.opcode()),
                  .change = OpChange::kAdded,
                  .after_time_s = a.total_time_s(),
                  .after_flops = flops_of(a),
                  .after_hbm_bytes = bytes_of(a)};
    if (match[k] >= 0) {
      const OpPrediction& b = before.ops[static_cast<size_t>(match[k])];
      if (b.name() != a.name()) delta.before_name = std::string(b.name());
      delta.before_time_s = b.total_time_s();
      delta.before_flops = flops_of(b);
      delta.before_hbm_bytes = bytes_of(b);
      const bool unchanged = same(delta.before_time_s, delta.after_time_s) &&
                             same(delta.before_flops, delta.after_flops) &&
                             same(delta.before_hbm_bytes, delta.after_hbm_bytes);
      delta.change = unchanged ? OpChange::kUnchanged : OpChange::kChanged;
    }
    ++(delta.change == OpChange::kAdded       ? d.added
       : delta.change == OpChange::kUnchanged ? d.unchanged
                                              : d.changed);
    d.ops.push_back(std::move(delta));
  }
  for (size_t k = 0; k < before.ops.size(); ++k) {
    if (taken[k]) continue;
    const OpPrediction& b = before.ops[k];
    d.ops.push_back({.name = std::string(b.name()),
                     .computation = std::string(b.computation()),
                     .opcode = std::string(b.opcode()),
                     .change = OpChange::kRemoved,
                     .before_time_s = b.total_time_s(),
                     .before_flops = flops_of(b),
                     .before_hbm_bytes = bytes_of(b)});
    ++d.removed;
  }
  // The largest change of time first (ties: by computation and name), sorted as indices and
  // moved into place once: the records are large.
  std::vector<size_t> order(d.ops.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    const OpDelta& x = d.ops[i];
    const OpDelta& y = d.ops[j];
    const double dx = std::abs(x.delta_time_s()), dy = std::abs(y.delta_time_s());
    if (dx != dy) return dx > dy;
    return std::tie(x.computation, x.name) < std::tie(y.computation, y.name);
  });
  std::vector<OpDelta> sorted;
  sorted.reserve(d.ops.size());
  for (size_t k : order) sorted.push_back(std::move(d.ops[k]));
  d.ops = std::move(sorted);
  return d;
}

}  // namespace hloroof
