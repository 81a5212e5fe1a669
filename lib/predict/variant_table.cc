// VariantTable (hloroof/variant_table.h): the step's ops and their roofline terms, kept from one
// expected walk, re-timed and scheduled again for each device variant.
#include "hloroof/variant_table.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "hloroof/schedule_clock.h"
#include "predict/predict_internal.h"

namespace hloroof {
namespace {

using predict::FlowTiming;
using predict::InstructionTiming;
using predict::Role;
using Kind = ScheduledEvent::Kind;

enum Scaling : uint8_t { kNone = 0, kWork = 1, kCollective = 2 };

bool is_compute(Bound b) {
  return b == Bound::kMatrix || b == Bound::kVector || b == Bound::kTranscendental;
}

// The op's roofline terms at the speed of light (VariantTable::Op's compute_s ... overhead_s).
void keep_terms(const InstructionTiming& t, const DeviceSpec& device, bool include_overhead,
                VariantTable::Op& op) {
  if (t.collective) {
    op.scaling = kCollective;  // its 1/link terms come from the second walk (build)
    return;
  }
  if (t.cost == nullptr || t.instruction == nullptr) return;
  const bool overhead = t.instruction->opcode() != Opcode::kCopyStart && include_overhead;
  const RooflineEstimate e = predict::op_roofline(*t.instruction, *t.cost, device, overhead);
  op.scaling = kWork;
  for (const RooflineTerm& term : e.terms) {
    if (is_compute(term.bound)) {
      op.compute_s = std::max(op.compute_s, term.time_s);
    } else if (term.bound == Bound::kHbm) {
      op.hbm_s = std::max(op.hbm_s, term.time_s);
    } else {
      op.rest_s = std::max(op.rest_s, term.time_s);
    }
  }
  op.overhead_s = e.overhead_s;
}

// `op`'s expected and roofline times (an async start's latencies) on `v`.
void retime(const VariantTable::Op& op, const DeviceVariant& v, double& expected_s,
            double& roofline_s) {
  if (op.scaling == kWork) {
    const double before = std::max({op.compute_s, op.hbm_s, op.rest_s}) + op.overhead_s;
    const double after = std::max({op.compute_s / v.flop_rate_scale,
                                   op.hbm_s / v.hbm_bandwidth_scale, op.rest_s}) +
                         op.overhead_s;
    const double ratio = before > 0 ? after / before : 1.0;
    expected_s = op.time_s * ratio;
    roofline_s = op.roofline_s * ratio;
    return;
  }
  if (op.scaling == kCollective) {
    // t(l) = t(1) + b (1/l - 1): exact at the device as it is and at twice its links.
    const double change = 1 / v.link_bandwidth_scale - 1;
    expected_s = std::max(0.0, op.time_s + op.compute_s * change);
    roofline_s = std::max(0.0, op.roofline_s + op.rest_s * change);
    return;
  }
  expected_s = op.time_s;
  roofline_s = op.roofline_s;
}

// The device with its links (ICI, NVLink) twice as fast; false when it has none.
bool double_links(DeviceSpec& spec) {
  bool any = false;
  if (spec.torus) {
    spec.torus->link_bandwidth *= 2;
    if (spec.torus->core_link_bandwidth) *spec.torus->core_link_bandwidth *= 2;
    any = true;
  }
  if (spec.gpu) {
    spec.gpu->nvlink_bandwidth *= 2;
    any = true;
  }
  return any;
}

// The time a collective op takes in a walk: an async start's latency, else its time.
void collective_times(const InstructionTiming& t, double& expected_s, double& roofline_s) {
  if (t.role == Role::kAsyncStart) {
    expected_s = t.flow().latency_s;
    roofline_s = t.flow().roofline_latency_s;
  } else {
    expected_s = t.time_s;
    roofline_s = t.roofline_time_s;
  }
}

}  // namespace

absl::StatusOr<VariantTable> VariantTable::build(const Module& module, const DeviceTarget& target,
                                                 const PredictOptions& options) {
  VariantTable table;
  absl::Status built = predict::walk_step(
      module, target, options,
      [&](const DeviceSpec& device, const Topology&, const predict::TimingMap& timings) {
        absl::flat_hash_map<const hloroof::Computation*, int32_t> index;
        auto index_of = [&index](const hloroof::Computation* c) {
          auto it = c ? index.find(c) : index.end();
          return it == index.end() ? -1 : it->second;
        };
        // Callees come before their callers (time_computations' order).
        for (const hloroof::Computation* c : module.computations()) {
          auto it = timings.find(c);
          if (it == timings.end()) continue;
          const predict::ComputationTiming& ct = it->second;
          Computation kept{.first = table.ops_.size(), .count = ct.instructions.size()};
          for (const InstructionTiming& t : ct.instructions) {
            const FlowTiming& flow = t.flow();
            Op op;
            op.role = static_cast<uint8_t>(t.role);
            op.partner = static_cast<int32_t>(flow.partner);
            op.occupancy_s = t.hbm_s;
            op.trips = static_cast<double>(flow.trip_count);
            switch (t.role) {
              case Role::kWhile:
                op.body = index_of(flow.body);
                op.condition = index_of(flow.condition);
                break;
              case Role::kCall:
                op.body = index_of(flow.body);
                break;
              case Role::kConditional:
                op.branches = static_cast<int32_t>(table.branches_.size());
                for (const hloroof::Computation* b : t.instruction->called_computations()) {
                  table.branches_.push_back(index_of(b));
                  ++op.branch_count;
                }
                break;
              case Role::kAsyncStart:
                op.body = index_of(flow.async_computation);
                op.queue = flow.queue;
                op.time_s = flow.latency_s;
                op.roofline_s = flow.roofline_latency_s;
                if (op.body < 0) keep_terms(t, device, options.include_overhead, op);
                break;
              case Role::kOp:
              case Role::kCollective:
                op.body = index_of(flow.async_computation);
                op.time_s = t.time_s;
                op.roofline_s = t.roofline_time_s;
                if (op.body < 0) keep_terms(t, device, options.include_overhead, op);
                break;
              case Role::kAsyncDone:
                break;
              case Role::kFree:
                op.time_s = t.time_s;  // nothing runs: no roofline
                break;
            }
            table.ops_.push_back(op);
          }
          index.emplace(c, static_cast<int32_t>(table.computations_.size()));
          table.computations_.push_back(kept);
          table.max_count_ = std::max(table.max_count_, kept.count);
        }
        table.entry_ = static_cast<size_t>(std::max(0, index_of(module.entry())));
      });
  if (!built.ok()) return built;
  if (table.computations_.empty()) {
    return absl::FailedPreconditionError("the module's entry computation is not scheduled");
  }
  // Each collective's time as t(1) + b (1/l - 1) for links l times as fast: b from a second
  // walk with the links twice as fast, t(2) = t(1) - b / 2 (the roofline's and the measured
  // models' own forms, a latency plus bytes over the bandwidth, are of this shape).
  DeviceTarget faster = target;
  if (double_links(faster.spec)) {
    absl::Status again = predict::walk_step(
        module, faster, options,
        [&](const DeviceSpec&, const Topology&, const predict::TimingMap& timings) {
          size_t at = 0;
          for (const hloroof::Computation* c : module.computations()) {
            auto it = timings.find(c);
            if (it == timings.end()) continue;
            for (const InstructionTiming& t : it->second.instructions) {
              if (at >= table.ops_.size()) return;
              Op& op = table.ops_[at++];
              if (op.scaling != kCollective) continue;
              double expected = 0;
              double roofline = 0;
              collective_times(t, expected, roofline);
              op.compute_s = 2 * (op.time_s - expected);
              op.rest_s = 2 * (op.roofline_s - roofline);
            }
          }
        });
    if (!again.ok()) return again;
  }
  return table;
}

absl::StatusOr<VariantTime> VariantTable::time(const DeviceVariant& v) const {
  for (const auto& [name, scale] : {std::pair{"flop_rate_scale", v.flop_rate_scale},
                                    std::pair{"hbm_bandwidth_scale", v.hbm_bandwidth_scale},
                                    std::pair{"link_bandwidth_scale", v.link_bandwidth_scale}}) {
    if (!std::isfinite(scale) || scale <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s wants a finite number above 0, got %g", name, scale));
    }
  }
  const bool identity =
      v.flop_rate_scale == 1 && v.hbm_bandwidth_scale == 1 && v.link_bandwidth_scale == 1;
  std::vector<double> expected(computations_.size(), 0.0);
  std::vector<double> roofline(computations_.size(), 0.0);
  // Each computation's memory occupancy in the expected pass (the roofline's schedule takes
  // none, as roofline_schedule).
  std::vector<double> occupancy(computations_.size(), 0.0);
  std::vector<double> own_expected(max_count_), own_roofline(max_count_), time_s(max_count_),
      latency_s(max_count_), hbm_s(max_count_);
  for (size_t ci = 0; ci < computations_.size(); ++ci) {
    const Computation& c = computations_[ci];
    const Op* ops = ops_.data() + c.first;
    for (size_t k = 0; k < c.count; ++k) {
      if (identity) {
        own_expected[k] = ops[k].time_s;
        own_roofline[k] = ops[k].roofline_s;
      } else {
        retime(ops[k], v, own_expected[k], own_roofline[k]);
      }
    }
    for (int pass = 0; pass < 2; ++pass) {
      const std::vector<double>& totals = pass == 0 ? expected : roofline;
      auto total = [&totals](int32_t i) { return i < 0 ? 0.0 : totals[static_cast<size_t>(i)]; };
      auto held = [&occupancy](int32_t i) {
        return i < 0 ? 0.0 : occupancy[static_cast<size_t>(i)];
      };
      // How long an op holds the memory (the expected pass alone): its own traffic scales with
      // the memory's bandwidth, at most its time; a computation run holds what its schedule held.
      auto own_hbm = [&](const Op& op, size_t k) {
        return op.body >= 0 ? held(op.body)
                            : std::min(op.occupancy_s / v.hbm_bandwidth_scale, own_expected[k]);
      };
      for (size_t k = 0; k < c.count; ++k) {
        const Op& op = ops[k];
        double t = 0;
        double hbm = 0;
        latency_s[k] = 0;
        switch (static_cast<Role>(op.role)) {
          case Role::kWhile:
            t = op.trips * total(op.body) + (op.trips + 1) * total(op.condition);
            hbm = op.trips * held(op.body) + (op.trips + 1) * held(op.condition);
            break;
          case Role::kConditional:
            // The slowest branch on this variant (the first of equals, as the walk takes it),
            // and the memory its schedule held.
            for (int32_t b = 0; b < op.branch_count; ++b) {
              const int32_t branch = branches_[static_cast<size_t>(op.branches + b)];
              if (b == 0 || total(branch) > t) t = total(branch), hbm = held(branch);
            }
            break;
          case Role::kCall:
            t = total(op.body);
            hbm = held(op.body);
            break;
          case Role::kAsyncStart:
            latency_s[k] =
                op.body >= 0 ? total(op.body) : (pass == 0 ? own_expected[k] : own_roofline[k]);
            hbm = own_hbm(op, k);
            break;
          case Role::kAsyncDone:
            break;
          case Role::kFree:
            t = pass == 0 ? op.time_s : 0.0;
            break;
          case Role::kOp:
          case Role::kCollective:
            t = op.body >= 0 ? total(op.body) : (pass == 0 ? own_expected[k] : own_roofline[k]);
            hbm = own_hbm(op, k);
            break;
        }
        time_s[k] = t;
        hbm_s[k] = pass == 0 ? hbm : 0.0;
      }
      absl::StatusOr<ScheduleTiming> clock = time_schedule(c.count, [&](size_t k) {
        const Op& op = ops[k];
        switch (static_cast<Role>(op.role)) {
          case Role::kAsyncStart:
            return ClockEvent{Kind::kAsyncStart, 0, static_cast<int64_t>(k), latency_s[k],
                              op.queue, hbm_s[k]};
          case Role::kAsyncDone:
            return ClockEvent{Kind::kAsyncDone, 0, op.partner,
                              latency_s[static_cast<size_t>(op.partner)]};
          default:
            return ClockEvent{Kind::kOp, time_s[k], 0, 0, 0, hbm_s[k]};
        }
      });
      if (!clock.ok()) return clock.status();
      (pass == 0 ? expected : roofline)[ci] = clock->total_s;
      if (pass == 0) occupancy[ci] = clock->hbm_s;
    }
  }
  VariantTime out;
  out.step_time_s = expected[entry_];
  out.roofline_step_time_s = std::min(out.step_time_s, roofline[entry_]);
  return out;
}

}  // namespace hloroof
