// compare_with_profile: the prediction and the measured step, joined per HLO op.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/profile.h"
#include "profile/profile_internal.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace profile_internal {

OpClass op_class(const OpPrediction& op) {
  if (op.bound == BoundBy::kCollective || op.collective) return OpClass::kCollective;
  if (op.resource == Bound::kMatrix) return OpClass::kMatmul;
  if (op.bound == BoundBy::kMemory) return OpClass::kMemory;
  return OpClass::kOther;
}

std::string_view op_class_name(OpClass c) {
  switch (c) {
    case OpClass::kMatmul:
      return "matmul";
    case OpClass::kMemory:
      return "memory-bound";
    case OpClass::kCollective:
      return "collectives exposed";
    case OpClass::kOther:
      return "other ops";
  }
  return "?";
}

bool is_async_start(const OpPrediction& op) { return op.async && op.async->start == op.name(); }
bool is_async_done(const OpPrediction& op) { return op.async && op.async->done == op.name(); }

// An async start's: its work's span from the start, a queued copy's wait for the host link
// included (a profile times a copy from its start to its done's end).
double expected_execution_s(const OpPrediction& op) {
  return is_async_start(op) ? op.async->queued_s + op.async->latency_s : op.time_s;
}

double roofline_execution_s(const OpPrediction& op) {
  return is_async_start(op) ? op.async->roofline_latency_s : op.roofline_time_s;
}

}  // namespace profile_internal

using profile_internal::OpClass;

namespace {

using XlaCosts = absl::flat_hash_map<std::string_view, const XlaOpCost*>;

// XLA's own cost of each op, where the op metadata of `plane` gives it (TPU), of the program
// `program_id` (0: any).
XlaCosts xla_costs_of(const Profile& profile, std::string_view plane, uint64_t program_id) {
  XlaCosts xla_costs;
  for (const ProfilePlane& p : profile.planes) {
    if (p.name != plane) continue;
    for (const XlaOpCost& cost : p.xla_op_costs) {
      if (program_id != 0 && cost.program_id != 0 && cost.program_id != program_id) continue;
      xla_costs.emplace(cost.op, &cost);
    }
  }
  return xla_costs;
}

// The measured op `m` beside its prediction `op`.
JoinedOp joined_op(const MeasuredOp& m, const OpPrediction& op, const XlaCosts& xla_costs) {
  JoinedOp j;
  j.name = m.name;
  j.opcode = op.opcode();
  j.category = op.category();
  j.bound = std::string(op_bound_name(op));
  // An async start whose work the profile shows apart (a TPU copy's transfer) is compared
  // there: its own event is the issue, and its done's event the wait.
  j.measured_async = m.async_s > 0 && profile_internal::is_async_start(op);
  j.measured_s = j.measured_async ? m.async_s : m.time_s;
  if (j.measured_async && op.async) j.async_done = op.async->done;
  j.expected_s = profile_internal::expected_execution_s(op) * op.multiplier;
  j.roofline_s = profile_internal::roofline_execution_s(op) * op.multiplier;
  j.occurrences = m.occurrences;
  j.launches = m.launches;
  j.predicted_occurrences = op.multiplier;
  j.kernels = m.kernels;
  j.lost_s = j.measured_s - j.expected_s;
  j.flops = op.flops;
  j.bytes_accessed = op.hbm_bytes + op.host_bytes;
  if (auto cost = xla_costs.find(m.name); cost != xla_costs.end()) {
    j.xla_flops = cost->second->flops;
    j.xla_model_flops = cost->second->model_flops;
    j.xla_bytes_accessed = cost->second->bytes_accessed;
  }
  j.alignment_uncertain = m.alignment_uncertain;
  return j;
}

}  // namespace

absl::StatusOr<ProfileComparison> compare_with_profile(const Module& module,
                                                       const Prediction& prediction,
                                                       const Profile& profile,
                                                       const ProfileOptions& given) {
  if (absl::Status s = predicted_profile_error(profile); !s.ok()) return s;
  // A profile of many programs of the module's name: the one whose entry is this module.
  ProfileOptions options = given;
  std::string program_note;
  if (absl::Status s = profile_internal::join_own_program(profile, module, options,
                                                          &program_note);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<MeasuredModule> measured = measure_module(profile, module, options);
  if (!measured.ok()) return measured.status();
  ProfileComparison c;
  c.device = prediction.topology.empty()
                 ? prediction.device
                 : absl::StrCat(prediction.device, ":", prediction.topology);
  c.plane = measured->plane;
  c.module = measured->module;
  c.profile = profile.origin;
  c.steps = measured->steps;
  c.measured_step_s = measured->step_s;
  c.expected_step_s = prediction.step_time_s;
  c.roofline_step_s = prediction.roofline_step_time_s;
  c.busy_s = measured->busy_s;
  c.idle_s = c.measured_step_s - c.busy_s;
  // Below a picosecond (the XSpace's unit) is rounding, not idle time.
  if (c.idle_s < 1e-12) c.idle_s = 0;
  c.notes = measured->notes;
  if (!program_note.empty()) c.notes.insert(c.notes.begin(), program_note);

  const XlaCosts xla_costs = xla_costs_of(profile, measured->plane, options.program_id);
  absl::flat_hash_map<std::string_view, const OpPrediction*> predicted;
  for (const OpPrediction& op : prediction.ops) predicted[op.name()] = &op;
  absl::flat_hash_map<std::string_view, const MeasuredOp*> seen;
  for (const MeasuredOp& op : measured->ops) seen[op.name] = &op;

  std::map<OpClass, GapRow> rows;
  for (OpClass k : {OpClass::kMatmul, OpClass::kMemory, OpClass::kOther, OpClass::kCollective}) {
    rows[k].category = std::string(profile_internal::op_class_name(k));
  }
  absl::flat_hash_set<std::string_view> collective_ops;
  for (const OpPrediction& op : prediction.ops) {
    const OpClass k = profile_internal::op_class(op);
    rows[k].expected_s += op.total_time_s();
    if (k == OpClass::kCollective) collective_ops.insert(op.name());
  }

  for (const MeasuredOp& m : measured->ops) {
    auto it = predicted.find(m.name);
    if (it == predicted.end()) {
      c.unmatched.push_back({m.name, "measured", "", m.time_s, m.occurrences});
      rows[OpClass::kOther].measured_s += m.time_s;
      continue;
    }
    const OpPrediction& op = *it->second;
    c.ops.push_back(joined_op(m, op, xla_costs));
    const OpClass k = profile_internal::op_class(op);
    if (k != OpClass::kCollective) rows[k].measured_s += m.time_s;
  }
  int64_t silent = 0;
  for (const OpPrediction& op : prediction.ops) {
    if (seen.contains(op.name())) continue;
    // A done whose start ran: the pair's work was measured on the start.
    if (profile_internal::is_async_done(op) && seen.contains(op.async->start)) continue;
    const double expected = profile_internal::expected_execution_s(op) * op.multiplier;
    if (expected <= 0) {
      ++silent;
      continue;
    }
    c.unmatched.push_back(
        {std::string(op.name()), "predicted", std::string(op.opcode()), expected, op.multiplier});
  }
  if (silent > 0) {
    c.notes.push_back(
        absl::StrFormat("%d predicted op%s of no predicted time not in the profile, not listed",
                        silent, silent == 1 ? "" : "s"));
  }

  // Exposed collective time of the median step: when a collective runs and nothing else does.
  std::vector<std::pair<double, double>> all, others;
  for (const MeasuredEvent& e : measured->median_step) {
    all.emplace_back(e.start_s, e.start_s + e.duration_s);
    if (!collective_ops.contains(e.op)) others.emplace_back(e.start_s, e.start_s + e.duration_s);
  }
  rows[OpClass::kCollective].measured_s = profile_internal::union_length(std::move(all)) -
                                          profile_internal::union_length(std::move(others));

  for (OpClass k : {OpClass::kMatmul, OpClass::kMemory, OpClass::kOther, OpClass::kCollective}) {
    c.gaps.push_back(rows[k]);
  }
  c.gaps.push_back({"idle", c.idle_s, 0, 0, 0});
  // Each category's share of all the gaps' sizes: categories can offset each other (ops
  // slower than expected, idle time shorter), and a share of the net step gap then runs to
  // hundreds of percent either way when the net gap is small.
  double moved = 0;
  for (GapRow& r : c.gaps) {
    r.gap_s = r.measured_s - r.expected_s;
    moved += std::abs(r.gap_s);
  }
  for (GapRow& r : c.gaps) r.share = moved > 0 ? r.gap_s / moved : 0;

  std::stable_sort(c.ops.begin(), c.ops.end(), [](const JoinedOp& a, const JoinedOp& b) {
    if (a.alignment_uncertain != b.alignment_uncertain) return b.alignment_uncertain;
    return a.lost_s > b.lost_s;
  });
  std::stable_sort(c.unmatched.begin(), c.unmatched.end(),
                   [](const UnmatchedOp& a, const UnmatchedOp& b) { return a.time_s > b.time_s; });
  c.measured = *std::move(measured);
  return c;
}

}  // namespace hloroof
