// The step as XLA schedules it (docs/prediction-model.md, "Async pairs and the schedule"): every
// computation that runs as a schedule is walked in printed order with the LatencyHidingStatistics
// clock, async pairs overlapping the ops between them; while loops, conditionals and calls take
// their callees' times.
#include <algorithm>
#include <cmath>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "hloroof/schedule_clock.h"
#include "predict/predict_internal.h"
#include "util/number_text.h"

namespace hloroof::predict {
namespace {

using Kind = ScheduledEvent::Kind;

// Runs the clock over `ct`'s instructions as they stand (a start launches its latency, a done
// waits for it, any other op takes its time): sets each async pair's hidden and exposed time (a
// done's time becomes its exposed wait), every instruction's begin and the total. `what` names
// the walk in an error. Returns the pairs, in the order of their dones.
absl::StatusOr<std::vector<AsyncPairTiming>> run_clock(ComputationTiming& ct,
                                                       std::string_view what) {
  std::vector<InstructionTiming>& timings = ct.instructions;
  absl::StatusOr<ScheduleTiming> clock = time_schedule(timings.size(), [&timings](size_t k) {
    const InstructionTiming& t = timings[k];
    switch (t.role) {
      case Role::kAsyncStart:
        return ClockEvent{Kind::kAsyncStart, 0, static_cast<int64_t>(k), t.flow().latency_s,
                          t.flow().queue, t.hbm_s};
      case Role::kAsyncDone:
        return ClockEvent{Kind::kAsyncDone, 0, t.partner(),
                          timings[t.partner()].flow().latency_s};
      default:
        return ClockEvent{Kind::kOp, t.time_s, 0, 0, 0, t.hbm_s};
    }
  });
  if (!clock.ok()) {
    // Legal loops nested deep enough multiply their trip counts past what a double holds.
    for (const InstructionTiming& t : timings) {
      if (!std::isfinite(t.time_s) && t.role == Role::kWhile) {
        return absl::InvalidArgumentError(absl::StrCat(
            "loop %", sv(t.instruction->name()), " in ", sv(ct.computation->name()),
            ": its trip count times its body's time passes 1e308 s (the trip counts of the "
            "loops around it multiply past what a double holds); no step time to give"));
      }
    }
    return absl::InternalError(absl::StrCat(sv(what), " of ", sv(ct.computation->name()), ": ",
                                            clock.status().message()));
  }
  for (const AsyncPairTiming& p : clock->pairs) {
    InstructionTiming& start = timings[p.async_id];
    InstructionTiming& done = timings[start.partner()];
    start.mutable_flow().queued_s = done.mutable_flow().queued_s = p.queued_s;
    start.mutable_flow().hidden_s = done.mutable_flow().hidden_s = p.hidden_s;
    start.mutable_flow().exposed_s = done.mutable_flow().exposed_s = p.exposed_s;
    start.mutable_flow().contended_s = done.mutable_flow().contended_s = p.contended_s;
    done.time_s = p.exposed_s;  // the wait is the done's time on the compute track
  }
  ct.begin_s = std::move(clock->end_s);  // each instruction's end, less its time
  for (size_t k = 0; k < timings.size(); ++k) ct.begin_s[k] -= timings[k].time_s;
  ct.total_s = clock->total_s;
  ct.hbm_s = clock->hbm_s;
  return std::move(clock->pairs);
}

// The host's launch time the ops of `ct` include (InstructionTiming::host_launch_s).
double host_launch_total(const ComputationTiming& ct) {
  double host = 0;
  for (const InstructionTiming& t : ct.instructions) host += t.host_launch_s;
  return host;
}

double total_of(const TimingMap& timings, const Computation* c) {
  auto it = c ? timings.find(c) : timings.end();
  return it == timings.end() ? 0 : it->second.total_s;
}

double hbm_of(const TimingMap& timings, const Computation* c) {
  auto it = c ? timings.find(c) : timings.end();
  return it == timings.end() ? 0 : it->second.hbm_s;
}

// Takes `s` off `t`'s time and off both ends of its range.
void shorten(InstructionTiming& t, double s) {
  t.time_s -= s;
  if (t.time_range) {
    t.time_range->low_s -= s;
    t.time_range->high_s -= s;
  }
}

// A computation the host launches kernel by kernel (gpu_families.h: loop_host_gap_s, a small
// loop's body; program_launch_s, a small program): the host runs ahead of the device, so a run
// takes the longer of the host's launches H and the kernels D, not their sum. Each op keeps its
// kernel and the exposed share of its launch, max(0, 1 - D / H): the computation's ops then
// add up to max(D, H).
void expose_host_launches(ComputationTiming& ct, CombinedModel& model) {
  const double host = host_launch_total(ct);
  ct.host_launch_s = host;
  if (host <= 0) return;
  double kernels = 0;
  for (const InstructionTiming& t : ct.instructions) kernels += t.time_s - t.host_launch_s;
  const double exposed = std::max(0.0, 1 - kernels / host);
  if (exposed >= 1) return;
  for (InstructionTiming& t : ct.instructions) {
    if (t.host_launch_s <= 0) continue;
    const double hidden = (1 - exposed) * t.host_launch_s;
    shorten(t, hidden);
    if (model.explain()) {
      t.explanation = model.save(absl::StrFormat(
          "%s\n  of the host's %.3g us, %.3g us exposed: the %s's kernels (%.4g s) hide its "
          "launches (%.4g s) for x%.2f",
          t.explanation, t.host_launch_s * 1e6, exposed * t.host_launch_s * 1e6,
          ct.computation != nullptr && ct.computation->is_entry() ? "program" : "body", kernels,
          host, 1 - exposed));
    }
    t.host_launch_s *= exposed;
  }
}

// Whether the host waits at `i` for the device to reach it, so that nothing stays queued ahead
// of the host: a host callback (jax.pure_callback, io_callback: the host runs Python between the
// kernels), an infeed or outfeed, a send or recv to or from the host.
bool host_waits_at(const Instruction& i) {
  if (i.opcode() == Opcode::kCustomCall) {
    return absl::StrContains(sv(i.custom_call_target()), "callback");
  }
  return i.opcode() == Opcode::kInfeed || i.opcode() == Opcode::kOutfeed ||
         (opcode_category(i.opcode()) == OpCategory::kCommunication &&
          i.bool_attribute(AttrId::kIsHostTransfer));
}

// The host runs ahead of the device across a computation too: it launches a counted loop's
// kernels while the device still runs the work queued before the loop, so the launches the
// loop's body exposes (expose_host_launches) hide behind that work, up to its length. With the
// host's clock and the device's apart by `lead` (the device time queued ahead of the host) when
// a loop of n trips begins, the loop ends max(n D, n H - lead) later, D a trip's device time and
// H its launches, where it took n max(D, H); then the device is lead + that - n H ahead. The
// lead starts at 0 with the computation, grows by every op's time (the host's launches of ops
// outside small loops are not modelled: XLA's command buffers launch them as one graph) and
// falls to 0 where the host waits for the device: a loop whose condition it reads every trip, a
// conditional's predicate, a host callback or transfer (host_waits_at). A body that one loop
// alone runs and that holds no async pair gives up the hidden time from its ops with launches,
// in proportion to them, so that the table of ops still adds up to the step.
absl::Status hide_launches_behind_queued_work(ComputationTiming& ct, TimingMap& timings,
                                              CombinedModel& model) {
  double lead = 0;
  for (InstructionTiming& t : ct.instructions) {
    if (t.instruction != nullptr && host_waits_at(*t.instruction)) {
      lead = 0;
      continue;
    }
    switch (t.role) {
      case Role::kOp:
      case Role::kCollective:
      case Role::kCall:
        lead += t.time_s;
        break;
      case Role::kConditional:
        lead = 0;
        break;
      case Role::kWhile: {
        const FlowTiming& flow = t.flow();
        auto it = flow.body ? timings.find(flow.body) : timings.end();
        if (flow.condition != nullptr || it == timings.end()) {
          lead = 0;
          break;
        }
        ComputationTiming& body = it->second;
        const double trips = static_cast<double>(flow.trip_count);
        const double trip = body.total_s;              // max(D, H)
        const double exposed = host_launch_total(body);  // max(0, H - D)
        const bool pairs = absl::c_any_of(body.instructions, [](const InstructionTiming& b) {
          return b.role == Role::kAsyncStart;
        });
        // A body other instructions run too: its ops' times are not this call site's.
        const bool shared = flow.body->callers().size() > 1;
        const double hidden = pairs || shared ? 0 : std::min(lead, trips * exposed);
        if (hidden > 0) {
          const double share = hidden / (trips * exposed);
          for (InstructionTiming& b : body.instructions) {
            if (b.host_launch_s <= 0) continue;
            const double cut = share * b.host_launch_s;
            shorten(b, cut);
            b.host_launch_s -= cut;
            if (model.explain()) {
              b.explanation = model.save(absl::StrFormat(
                  "%s\n  %.3g us of it hidden behind the work queued before loop %s: the host "
                  "launches ahead of the device",
                  b.explanation, cut * 1e6, sv(t.instruction->name())));
            }
          }
          absl::StatusOr<std::vector<AsyncPairTiming>> rerun = run_clock(body, "schedule");
          if (!rerun.ok()) return rerun.status();
          t.time_s = trips * body.total_s;
          if (model.explain()) {
            t.explanation = model.save(absl::StrFormat(
                "%s; %.4g s of the host's launches hidden behind the %.4g s of work queued "
                "before the loop (the host launches ahead of the device)",
                t.explanation, hidden, lead));
          }
        }
        lead = std::max(0.0, lead + trips * (trip - body.host_launch_s) - hidden);
        break;
      }
      default:
        break;
    }
  }
  return absl::OkStatus();
}

// The host's launches a loop's body exposes each trip, for the loop's explanation.
std::string host_note(const TimingMap& timings, const Computation* body) {
  auto it = body ? timings.find(body) : timings.end();
  if (it == timings.end()) return "";
  const double host = host_launch_total(it->second);
  if (host <= 0) return "";
  return absl::StrFormat(
      "; the body holds %.4g s of the host's launches, not hidden by its kernels", host);
}

InstructionTiming time_control_flow(const Instruction& i, const TimingMap& timings,
                                    CombinedModel& model) {
  InstructionTiming t;
  t.instruction = &i;
  t.cost = model.cost_of(i);
  t.bound = BoundBy::kCompute;
  FlowTiming& flow = t.mutable_flow();
  switch (i.opcode()) {
    case Opcode::kWhile: {
      t.role = Role::kWhile;
      flow.body = i.computation_attribute(AttrId::kBody);
      flow.condition = i.computation_attribute(AttrId::kCondition);
      if (t.cost != nullptr && t.cost->trip_count) {
        flow.trip_count = t.cost->trip_count->count;
        if (t.cost->trip_count->source == TripCountSource::kAssumed) {
          model.assume(
              absl::StrFormat("%s: trip count unknown; assumed %d (the step time is a lower bound)",
                              sv(i.name()), flow.trip_count));
        }
      }
      const double n = static_cast<double>(flow.trip_count);
      // XLA's GPU runtime runs a loop whose trip count the compiler knows (backend_config
      // known_trip_count) by that count, its condition never; other loops run the condition
      // once more than the body.
      const bool counted = model.device().kind == DeviceKind::kGpu && t.cost != nullptr &&
                           t.cost->trip_count &&
                           t.cost->trip_count->source == TripCountSource::kBackendConfig;
      if (counted) {
        flow.condition = nullptr;
        t.time_s = n * total_of(timings, flow.body);
        t.hbm_s = n * hbm_of(timings, flow.body);
        if (model.explain()) {
          t.explanation = model.save(absl::StrFormat(
              "%.0f x body %.4g s = %.4g s (a GPU loop of known trip count: the condition does "
              "not run)%s",
              n, total_of(timings, flow.body), t.time_s, host_note(timings, flow.body)));
        }
        break;
      }
      const double body = total_of(timings, flow.body);
      const double condition = total_of(timings, flow.condition);
      t.time_s = n * body + (n + 1) * condition;
      t.hbm_s = n * hbm_of(timings, flow.body) + (n + 1) * hbm_of(timings, flow.condition);
      if (model.explain()) {
        t.explanation = model.save(
            absl::StrFormat("%.0f x body %.4g s + %.0f x condition %.4g s = %.4g s%s", n, body,
                            n + 1, condition, t.time_s, host_note(timings, flow.body)));
      }
      break;
    }
    case Opcode::kConditional: {
      t.role = Role::kConditional;
      for (const Computation* branch : i.called_computations()) {
        if (flow.body == nullptr || total_of(timings, branch) > total_of(timings, flow.body)) {
          flow.body = branch;
        }
      }
      t.time_s = total_of(timings, flow.body);
      t.hbm_s = hbm_of(timings, flow.body);
      if (flow.body != nullptr && model.explain()) {
        t.explanation = model.save(absl::StrFormat("the slowest of %d branches, %s: %.4g s",
                                                           i.called_computations().size(),
                                                           sv(flow.body->name()), t.time_s));
      }
      break;
    }
    default: {  // kCall
      t.role = Role::kCall;
      flow.body = i.to_apply();
      if (flow.body == nullptr && !i.called_computations().empty()) {
        flow.body = i.called_computations()[0];
      }
      t.time_s = total_of(timings, flow.body);
      t.hbm_s = hbm_of(timings, flow.body);
      if (flow.body != nullptr && model.explain()) {
        t.explanation = model.save(
            absl::StrFormat("calls %s: %.4g s", sv(flow.body->name()), t.time_s));
      }
    }
  }
  return t;
}

// Makes start `t` an op of the compute track that takes its whole latency.
void expose_whole(InstructionTiming& t) {
  t.role = t.collective ? Role::kCollective : Role::kOp;
  FlowTiming& flow = t.mutable_flow();
  t.time_s = flow.latency_s;
  t.roofline_time_s = flow.roofline_latency_s;
  flow.exposed_s = flow.latency_s;
  flow.stream = {};
}

// A start whose done is not in the same computation runs synchronously: the schedule cannot
// hide what it cannot see end.
void run_synchronously(InstructionTiming& t, CombinedModel& model) {
  model.assume(absl::StrCat(sv(t.instruction->name()),
                               ": no matching done in its computation; its latency is exposed"));
  expose_whole(t);
}

// Whether the async work `start` launches (an async-start, a fusion-start or another wrapped op
// that is no collective) runs in line on a GPU's compute stream: XLA gives it a stream of its
// own, but in every measured GPU program that has them (the dynamic-slices of stacked weights
// XLA wraps in fusion-starts: three decode steps, two GEMV stacks, the mlp steps of the H100 and
// H200 captures) it hid nothing: with command buffers its kernels ran on the compute stream one
// after another, and without them the compute stream waited for them on streams of their own
// (docs/prediction-model.md, "Async pairs and the schedule"). Work the program pins to a stream
// (`_xla_stream_annotation`) keeps its overlap.
bool runs_in_line(const InstructionTiming& start, const DeviceSpec& device) {
  if (device.kind != DeviceKind::kGpu || start.collective ||
      start.instruction->opcode() != Opcode::kAsyncStart) {
    return false;
  }
  const FrontendAttributes* attributes = start.instruction->frontend_attributes();
  return attributes == nullptr || !attributes->find("_xla_stream_annotation");
}

// An async computation run in line (runs_in_line): its start takes the computation's time on
// the compute track; its done waits for nothing.
void run_in_line(InstructionTiming& start, InstructionTiming& done, CombinedModel& model) {
  model.assume(absl::StrCat(
      model.device().name,
      " async computations (fusion-start and the like, not collectives or copies) run in line "
      "on the compute stream, as in every GPU program measured"));
  expose_whole(start);
  start.mutable_flow().partner = -1;
  if (model.explain()) {
    start.explanation = model.save(absl::StrCat(
        sv(start.explanation), "\n  run in line on the compute stream: its ",
        util::general_text(start.time_s, 4), " s are not hidden"));
  }
  done.role = Role::kFree;
  done.mutable_flow().partner = -1;
}

absl::StatusOr<ComputationTiming> time_computation(const Computation& c, TimingMap& timings,
                                                   CombinedModel& model) {
  ComputationTiming ct;
  ct.computation = &c;
  absl::Span<Instruction* const> instructions = c.instructions();
  ct.instructions.reserve(instructions.size());
  // Async starts seen so far, by instruction: what a done looks its start up in.
  absl::flat_hash_map<const Instruction*, int64_t> starts;
  for (const Instruction* i : instructions) {
    const auto position = static_cast<int64_t>(ct.instructions.size());
    const Opcode op = i->opcode();
    if (op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall) {
      ct.instructions.push_back(time_control_flow(*i, timings, model));
      continue;
    }
    if (is_async_done(op)) {
      InstructionTiming t;
      t.instruction = i;
      t.cost = model.cost_of(*i);
      t.role = Role::kAsyncDone;
      const Instruction* start = i->async_start();
      auto it = start ? starts.find(start) : starts.end();
      if (it != starts.end() && ct.instructions[it->second].role == Role::kAsyncStart &&
          ct.instructions[it->second].partner() < 0) {
        InstructionTiming& s = ct.instructions[it->second];
        s.mutable_flow().partner = position;
        FlowTiming& flow = t.mutable_flow();
        flow.partner = it->second;
        t.bound = s.bound;
        t.resource = s.resource;
        flow.stream = s.flow().stream;
        t.model = s.model;
      } else {
        t.role = Role::kFree;
        model.assume(
            absl::StrCat(sv(i->name()),
                         ": its start is not in the same computation; it waits for "
                         "nothing"));
      }
      ct.instructions.push_back(std::move(t));
      continue;
    }
    absl::StatusOr<InstructionTiming> t = model.time_instruction(*i, timings);
    if (!t.ok()) return t.status();
    if (t->role == Role::kAsyncStart) starts.emplace(i, position);
    ct.instructions.push_back(*std::move(t));
  }

  for (InstructionTiming& t : ct.instructions) {
    if (t.role != Role::kAsyncStart) continue;
    if (t.partner() < 0) {
      run_synchronously(t, model);
    } else if (runs_in_line(t, model.device())) {
      run_in_line(t, ct.instructions[static_cast<size_t>(t.partner())], model);
    }
  }
  expose_host_launches(ct, model);
  if (absl::Status s = hide_launches_behind_queued_work(ct, timings, model); !s.ok()) return s;
  absl::StatusOr<std::vector<AsyncPairTiming>> pairs = run_clock(ct, "schedule");
  if (!pairs.ok()) return pairs.status();
  for (const AsyncPairTiming& p : *pairs) {
    InstructionTiming& start = ct.instructions[p.async_id];
    InstructionTiming& done = ct.instructions[start.partner()];
    if (start.collective) {
      start.collective->hidden_s = p.hidden_s;
      start.collective->exposed_s = p.exposed_s;
    }
    if (!model.explain()) continue;
    // (StrCat and to_chars: a sharded module has thousands of pairs.)
    const std::string queued =
        p.queued_s > 0 ? absl::StrCat(" after ", util::general_text(p.queued_s, 4),
                                      " s queued behind the host link's earlier copies")
                       : "";
    const std::string shared =
        p.contended_s > 0
            ? absl::StrCat("; its memory traffic (", util::general_text(start.hbm_s, 4),
                           " s) shares the memory with them, ",
                           util::general_text(p.contended_s, 4), " s of it not hidden")
            : "";
    done.explanation = model.save(absl::StrCat(
        "waits for ", sv(start.instruction->name()), ": latency ",
        util::general_text(p.latency_s, 4), " s", queued, ", ", util::general_text(p.hidden_s, 4),
        " s hidden behind the ops in between, ", util::general_text(p.exposed_s, 4), " s exposed",
        shared));
  }
  for (InstructionTiming& t : ct.instructions) {
    if (t.role == Role::kCollective && t.collective) t.collective->exposed_s = t.time_s;
  }
  return ct;
}

// One computation of the expected walk scheduled with roofline times; `done` holds the
// roofline schedules of its callees. Runs the clock as run_clock does, on the roofline's times.
absl::StatusOr<RooflineTiming> roofline_computation(const ComputationTiming& expected,
                                                    const RooflineMap& done) {
  RooflineTiming rt;
  const size_t n = expected.instructions.size();
  rt.time_s.assign(n, 0.0);
  rt.latency_s.assign(n, 0.0);
  auto total = [&done](const Computation* c) {
    auto it = c ? done.find(c) : done.end();
    return it == done.end() ? 0.0 : it->second.total_s;
  };
  for (size_t k = 0; k < n; ++k) {
    const InstructionTiming& x = expected.instructions[k];
    const FlowTiming& flow = x.flow();
    double& time_s = rt.time_s[k];
    switch (x.role) {
      case Role::kWhile: {
        const double trips = static_cast<double>(flow.trip_count);
        time_s = trips * total(flow.body) + (trips + 1) * total(flow.condition);
        break;
      }
      case Role::kConditional:
        // The slowest branch at the roofline, which need not be the expected one.
        for (const Computation* branch : x.instruction->called_computations()) {
          time_s = std::max(time_s, total(branch));
        }
        break;
      case Role::kCall:
        time_s = total(flow.body);
        break;
      case Role::kAsyncStart:
        rt.latency_s[k] = flow.async_computation != nullptr ? total(flow.async_computation)
                                                            : flow.roofline_latency_s;
        break;
      case Role::kAsyncDone:
      case Role::kFree:
        break;
      case Role::kOp:
      case Role::kCollective:
        // A start run synchronously that runs a computation takes that computation's time.
        time_s = flow.async_computation != nullptr ? total(flow.async_computation)
                                                   : x.roofline_time_s;
        break;
    }
  }
  absl::StatusOr<ScheduleTiming> clock = time_schedule(n, [&expected, &rt](size_t k) {
    const InstructionTiming& x = expected.instructions[k];
    switch (x.role) {
      case Role::kAsyncStart:
        return ClockEvent{Kind::kAsyncStart, 0, static_cast<int64_t>(k), rt.latency_s[k],
                          x.flow().queue};
      case Role::kAsyncDone:
        return ClockEvent{Kind::kAsyncDone, 0, x.partner(), rt.latency_s[x.partner()]};
      default:
        return ClockEvent{Kind::kOp, rt.time_s[k], 0, 0};
    }
  });
  if (!clock.ok()) {
    return absl::InternalError(absl::StrCat("roofline schedule of ",
                                            sv(expected.computation->name()), ": ",
                                            clock.status().message()));
  }
  for (const AsyncPairTiming& p : clock->pairs) {
    // The wait is the done's time on the compute track.
    rt.time_s[static_cast<size_t>(expected.instructions[p.async_id].partner())] = p.exposed_s;
  }
  rt.total_s = clock->total_s;
  return rt;
}

}  // namespace

absl::StatusOr<RooflineMap> roofline_schedule(const Module& module, const TimingMap& expected) {
  RooflineMap timings;
  // Callees before callers, as in time_computations.
  for (const Computation* c : module.computations()) {
    auto it = expected.find(c);
    if (it == expected.end()) continue;
    absl::StatusOr<RooflineTiming> t = roofline_computation(it->second, timings);
    if (!t.ok()) return t.status();
    timings.emplace(c, *std::move(t));
  }
  return timings;
}

absl::StatusOr<TimingMap> time_computations(CombinedModel& model) {
  TimingMap timings;
  // Callees come before their callers, so every callee is timed when its caller is.
  for (const Computation* c : model.in().module.computations()) {
    const ComputationCost* role = model.in().cost.find(c);
    if (role == nullptr || role->role != CostRole::kScheduled) continue;
    absl::StatusOr<ComputationTiming> t = time_computation(*c, timings, model);
    if (!t.ok()) return t.status();
    timings.emplace(c, *std::move(t));
  }
  return timings;
}

absl::flat_hash_map<const Computation*, double> executions_per_step(const Module& module,
                                                                    const TimingMap& timings) {
  absl::flat_hash_map<const Computation*, double> runs;
  runs[module.entry()] = 1;
  absl::Span<Computation* const> computations = module.computations();
  for (auto it = computations.rbegin(); it != computations.rend(); ++it) {
    const double m = runs.contains(*it) ? runs[*it] : 0;
    auto timing = timings.find(*it);
    if (m <= 0 || timing == timings.end()) continue;
    for (const InstructionTiming& t : timing->second.instructions) {
      const FlowTiming& flow = t.flow();
      const double n = static_cast<double>(flow.trip_count);
      switch (t.role) {
        case Role::kWhile:
          if (flow.body) runs[flow.body] += m * n;
          if (flow.condition) runs[flow.condition] += m * (n + 1);
          break;
        case Role::kConditional:
        case Role::kCall:
          if (flow.body) runs[flow.body] += m;
          break;
        default:
          break;
      }
    }
  }
  return runs;
}

}  // namespace hloroof::predict
