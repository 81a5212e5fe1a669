// Op stats: the prediction's ops, filtered, grouped and ranked as XProf's HLO Op Stats.
#include <algorithm>
#include <cmath>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "hloroof/report.h"
#include "report/op_terms.h"

namespace hloroof {
namespace {

using report_internal::off_roofline;
using report_internal::run_time;

// The framework scope of an op_name: its first `depth` components (0: all but the last),
// split at '/' outside parentheses, never including the primitive itself.
std::string scope_of(std::string_view op_name, int depth) {
  if (op_name.empty()) return "(no op_name)";
  std::vector<size_t> cuts;  // positions of the separating '/'
  int nesting = 0;
  for (size_t i = 0; i < op_name.size(); ++i) {
    if (op_name[i] == '(' || op_name[i] == '[') ++nesting;
    if ((op_name[i] == ')' || op_name[i] == ']') && nesting > 0) --nesting;
    if (op_name[i] == '/' && nesting == 0) cuts.push_back(i);
  }
  if (cuts.empty()) return std::string(op_name);
  size_t keep = cuts.size();  // components before the last
  if (depth > 0) keep = std::min(keep, static_cast<size_t>(depth));
  return std::string(op_name.substr(0, cuts[keep - 1]));
}

// Sums of the ops of one row, before rates and shares are derived.
struct Group {
  OpStatsRow row;
  double ideal_s = 0;   // roofline time of the ops on the roofline
  double roofed_s = 0;  // their predicted time
  std::map<std::string, double> time_by_category, time_by_bound;
};

std::string largest(const std::map<std::string, double>& time_by) {
  std::string best;
  double most = -1;
  for (const auto& [key, time] : time_by) {
    if (time > most) {
      best = key;
      most = time;
    }
  }
  return best;
}

}  // namespace

std::string_view op_grouping_name(OpGrouping by) {
  switch (by) {
    case OpGrouping::kOp:
      return "op";
    case OpGrouping::kCategory:
      return "category";
    case OpGrouping::kScope:
      return "scope";
  }
  return "?";
}

absl::StatusOr<OpStats> op_stats(const Prediction& prediction, const DeviceSpec& device,
                                 const OpStatsOptions& options) {
  absl::StatusOr<report_internal::OpFilter> filter =
      report_internal::OpFilter::compile(options.filter);
  if (!filter.ok()) return filter.status();
  const double peak = prediction.peak_flop_rate, vector = device.vector_flops_per_s,
               bandwidth = device.hbm_bandwidth;

  std::vector<Group> groups;
  absl::flat_hash_map<std::string, size_t> index;
  for (const OpPrediction& op : prediction.ops) {
    if (!filter->keeps(op)) continue;
    std::string key = op.name;
    if (options.by == OpGrouping::kCategory) key = op.category;
    if (options.by == OpGrouping::kScope) key = scope_of(op.op_name, options.scope_depth);
    auto [it, added] = index.try_emplace(key, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().row.name = key;
      if (options.by == OpGrouping::kOp) groups.back().row.op_name = op.op_name;
    }
    Group& g = groups[it->second];
    OpStatsRow& r = g.row;
    r.ops += 1;
    r.occurrences += op.multiplier;
    r.total_time_s += run_time(op);
    r.step_time_s += op.total_time_s;
    r.flops += op.flops * op.multiplier;
    r.hbm_bytes += op.hbm_bytes * op.multiplier;
    g.time_by_category[op.category] += run_time(op);
    g.time_by_bound[std::string(op_bound_name(op))] += run_time(op);
    if (!off_roofline(op) && op.total_time_s > 0) {
      double ideal = 0;
      if (peak > 0) ideal = std::max(ideal, op.matrix_flops / peak);
      if (vector > 0) ideal = std::max(ideal, (op.flops - op.matrix_flops) / vector);
      if (bandwidth > 0) ideal = std::max(ideal, op.hbm_bytes / bandwidth);
      g.ideal_s += ideal * op.multiplier;
      g.roofed_s += op.total_time_s;
    }
  }

  OpStats stats;
  stats.total_ops = prediction.ops.size();
  stats.matched = groups.size();
  stats.filter = options.filter;
  stats.by = options.by;
  stats.peak_flop_rate = peak;
  stats.peak_flop_rate_type = prediction.peak_flop_rate_type;
  stats.vector_flop_rate = vector;
  stats.hbm_bandwidth = bandwidth;
  for (Group& g : groups) {
    OpStatsRow& r = g.row;
    r.category = largest(g.time_by_category);
    r.bound = largest(g.time_by_bound);
    if (r.occurrences > 0) r.avg_time_s = r.total_time_s / r.occurrences;
    if (r.total_time_s > 0) {
      r.flop_rate = r.flops / r.total_time_s;
      r.hbm_bandwidth = r.hbm_bytes / r.total_time_s;
    }
    if (r.hbm_bytes > 0) r.intensity = r.flops / r.hbm_bytes;
    if (prediction.step_time_s > 0) r.step_share = r.step_time_s / prediction.step_time_s;
    if (g.roofed_s > 0) r.roofline_efficiency = g.ideal_s / g.roofed_s;
    stats.rows.push_back(std::move(r));
  }
  std::stable_sort(stats.rows.begin(), stats.rows.end(),
                   [](const OpStatsRow& a, const OpStatsRow& b) {
                     if (a.step_time_s != b.step_time_s) return a.step_time_s > b.step_time_s;
                     return a.total_time_s > b.total_time_s;
                   });
  double cumulative = 0;
  for (size_t i = 0; i < stats.rows.size(); ++i) {
    stats.rows[i].rank = static_cast<int>(i) + 1;
    cumulative += stats.rows[i].step_share;
    stats.rows[i].cumulative_share = cumulative;
  }
  if (options.top > 0 && stats.rows.size() > options.top) stats.rows.resize(options.top);
  return stats;
}

}  // namespace hloroof
