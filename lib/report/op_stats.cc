// Op stats: the prediction's ops, filtered, grouped and ranked as XProf's HLO Op Stats.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "hloroof/report.h"
#include "report/op_terms.h"
#include "util/prefetch.h"
#include "util/string_view_hash.h"

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

// Time per key (category, bound) of one row: a row holds one op or a few kinds, so a short
// list beats a map; the keys are views of the prediction's strings or of static text.
class TimeByKey {
 public:
  void add(std::string_view key, double time) {
    for (auto& [k, t] : entries_) {
      if (k == key) {
        t += time;
        return;
      }
    }
    entries_.emplace_back(key, time);
  }
  // The key with the most time; of equal times, the first in key order.
  std::string largest() const {
    std::string_view best;
    double most = -1;
    for (const auto& [key, time] : entries_) {
      if (time > most || (time == most && key < best)) {
        best = key;
        most = time;
      }
    }
    return std::string(best);
  }

 private:
  absl::InlinedVector<std::pair<std::string_view, double>, 2> entries_;
};

// Sums of the ops of one row, before rates and shares are derived. Its texts, and the time by
// category and by bound that names its category and bound, are made only for the rows kept
// (options.top): grouped by op, a module has a group per op (gemma3 4b: 15,895).
struct Group {
  const OpPrediction* first = nullptr;  // the row's first op
  // The row's sums (OpStatsRow's), made into a row when it is kept.
  int ops = 0;
  double occurrences = 0;
  double total_time_s = 0;
  double step_time_s = 0;
  double flops = 0;
  double hbm_bytes = 0;
  double ideal_s = 0;   // roofline time of the ops on the roofline
  double roofed_s = 0;  // their predicted time
};

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

  // Room for a group per op (pages of it that no group reaches are never touched); grouped by
  // scope, the groups' scopes, which the index's keys view (a deque: none moves).
  std::vector<Group> groups;
  groups.reserve(prediction.ops.size());
  std::deque<std::string> scopes;
  detail::StringViewMap<size_t> index;
  index.reserve(options.by == OpGrouping::kOp ? prediction.ops.size() : 64);
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> group_of(prediction.ops.size(), kNone);  // each op's (filtered: none)
  // Grouped by op, the index of a module of 64k ops and more outgrows the caches: the name
  // eight ops ahead is prefetched.
  const size_t ahead = options.by == OpGrouping::kOp && prediction.ops.size() >= (size_t{1} << 16)
                           ? 8
                           : prediction.ops.size();
  for (size_t k = 0; k < prediction.ops.size(); ++k) {
    if (k + ahead < prediction.ops.size()) {
      detail::prefetch_slots(index, prediction.ops[k + ahead].name());
    }
    const OpPrediction& op = prediction.ops[k];
    if (!filter->keeps(op)) continue;
    std::string scope;
    std::string_view key = op.name();
    if (options.by == OpGrouping::kCategory) key = op.category();
    if (options.by == OpGrouping::kScope) {
      scope = scope_of(op.op_name(), options.scope_depth);
      key = scope;
    }
    size_t at;
    if (options.by != OpGrouping::kScope) {
      // The key views the op's record: looked up and added in one step.
      const auto [it, added] = index.try_emplace(key, groups.size());
      if (added) groups.emplace_back().first = &op;
      at = it->second;
    } else {
      auto it = index.find(key);
      if (it == index.end()) {
        groups.emplace_back().first = &op;
        it = index.emplace(scopes.emplace_back(std::move(scope)), groups.size() - 1).first;
      }
      at = it->second;
    }
    group_of[k] = static_cast<uint32_t>(at);
    Group& g = groups[at];
    g.ops += 1;
    g.occurrences += op.multiplier;
    g.total_time_s += run_time(op);
    g.step_time_s += op.total_time_s();
    g.flops += op.flops * op.multiplier;
    g.hbm_bytes += op.hbm_bytes * op.multiplier;
    if (!off_roofline(op) && op.total_time_s() > 0) {
      double ideal = 0;
      if (peak > 0) ideal = std::max(ideal, op.matrix_flops / peak);
      if (vector > 0) ideal = std::max(ideal, (op.flops - op.matrix_flops) / vector);
      if (bandwidth > 0) ideal = std::max(ideal, op.hbm_bytes / bandwidth);
      g.ideal_s += ideal * op.multiplier;
      g.roofed_s += op.total_time_s();
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
  // The rows kept: the first `top` by step time, then total time, in the groups' order on
  // ties (as a stable sort of them all ranks them).
  std::vector<size_t> ranked(groups.size());
  for (size_t k = 0; k < ranked.size(); ++k) ranked[k] = k;
  const size_t kept =
      options.top > 0 ? std::min(options.top, ranked.size()) : ranked.size();
  const auto before = [&groups](size_t a, size_t b) {
    const Group& x = groups[a];
    const Group& y = groups[b];
    if (x.step_time_s != y.step_time_s) return x.step_time_s > y.step_time_s;
    if (x.total_time_s != y.total_time_s) return x.total_time_s > y.total_time_s;
    return a < b;
  };
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(kept),
                    ranked.end(), before);
  // The kept rows' time by category and by bound, their ops added in the order of the ops.
  std::vector<uint32_t> row_of(groups.size(), kNone);
  for (size_t i = 0; i < kept; ++i) row_of[ranked[i]] = static_cast<uint32_t>(i);
  std::vector<TimeByKey> by_category(kept), by_bound(kept);
  for (size_t k = 0; k < prediction.ops.size(); ++k) {
    if (group_of[k] == kNone || row_of[group_of[k]] == kNone) continue;
    const OpPrediction& op = prediction.ops[k];
    const uint32_t row = row_of[group_of[k]];
    by_category[row].add(op.category(), run_time(op));
    by_bound[row].add(op_bound_name(op), run_time(op));
  }
  stats.rows.reserve(kept);
  double cumulative = 0;
  for (size_t i = 0; i < kept; ++i) {
    const Group& g = groups[ranked[i]];
    OpStatsRow& r = stats.rows.emplace_back();
    r.ops = g.ops;
    r.occurrences = g.occurrences;
    r.total_time_s = g.total_time_s;
    r.step_time_s = g.step_time_s;
    r.flops = g.flops;
    r.hbm_bytes = g.hbm_bytes;
    if (r.occurrences > 0) r.avg_time_s = r.total_time_s / r.occurrences;
    if (r.total_time_s > 0) {
      r.flop_rate = r.flops / r.total_time_s;
      r.hbm_bandwidth = r.hbm_bytes / r.total_time_s;
    }
    if (r.hbm_bytes > 0) r.intensity = r.flops / r.hbm_bytes;
    if (prediction.step_time_s > 0) r.step_share = r.step_time_s / prediction.step_time_s;
    if (g.roofed_s > 0) r.roofline_efficiency = g.ideal_s / g.roofed_s;
    r.rank = static_cast<int>(i) + 1;
    cumulative += r.step_share;
    r.cumulative_share = cumulative;
    switch (options.by) {
      case OpGrouping::kOp:
        r.name = g.first->name();
        r.op_name = g.first->op_name();
        break;
      case OpGrouping::kCategory:
        r.name = g.first->category();
        break;
      case OpGrouping::kScope:
        r.name = std::move(scopes[ranked[i]]);
        break;
    }
    r.category = by_category[i].largest();
    r.bound = by_bound[i].largest();
  }
  return stats;
}

}  // namespace hloroof
