// The predicted timeline as a Chrome trace: what Trace Viewer shows of a profiled step, drawn
// from the prediction before anything runs.
#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "hloroof/report.h"
#include "hloroof/trace.h"
#include "report/op_terms.h"

namespace hloroof {
namespace {

using Args = std::vector<TraceBuilder::Arg>;

// Event times are sums of op times; differences below a picosecond are rounding.
constexpr double kRoundingSeconds = 1e-12;

Args op_args(const OpPrediction& op) {
  Args args = {{"opcode", op.opcode},
               {"category", op.category},
               {"bound", std::string(op_bound_name(op))},
               {"resource", std::string(resource_name(op))},
               {"occurrences", op.multiplier},
               {"roofline_time_s", op.roofline_time_s},
               {"efficiency", op.efficiency},
               {"model", op.model},
               {"flops", op.flops},
               {"hbm_bytes", op.hbm_bytes}};
  if (!op.op_name.empty()) args.push_back({"op_name", op.op_name});
  if (!op.computation.empty()) args.push_back({"computation", op.computation});
  if (op.transcendentals > 0) args.push_back({"transcendentals", op.transcendentals});
  if (op.on_chip_bytes > 0) args.push_back({"on_chip_bytes", op.on_chip_bytes});
  if (op.host_bytes > 0) args.push_back({"host_bytes", op.host_bytes});
  if (op.collective) {
    const CollectivePrediction& c = *op.collective;
    args.push_back({"collective", c.kind});
    args.push_back({"payload_bytes", c.payload_bytes});
    args.push_back({"group_size", c.group_size});
    args.push_back({"formula", c.formula});
    args.push_back({"exposed_s", c.exposed_s});
    args.push_back({"hidden_s", c.hidden_s});
  }
  if (!op.explanation.empty()) args.push_back({"explanation", op.explanation});
  return args;
}

// A timeline event made ready for the trace: clamped into its parent, with its op record.
struct TraceSlice {
  const TimelineEvent* event;
  const OpPrediction* op;  // null for iteration and summary slices
  double start_s, end_s;
  bool leaf = true;
};

// Counter tracks of the work done so far, sampled as each op ends. Loop iterations past the
// expanded ones are one slice without ops: the work the ops' slices leave out of the step's
// totals is spread over those slices by their duration (every iteration does the same work).
void add_work_counters(const Prediction& p, std::vector<const TraceSlice*> leaves,
                       TraceBuilder& trace) {
  double op_flops = 0, op_bytes = 0, collapsed_s = 0;
  for (const TraceSlice* s : leaves) {
    if (s->op != nullptr) {
      op_flops += s->op->flops;
      op_bytes += s->op->hbm_bytes;
    } else {
      collapsed_s += s->end_s - s->start_s;
    }
  }
  const double flops_per_s = collapsed_s > 0 ? std::max(0.0, p.flops - op_flops) / collapsed_s : 0;
  const double bytes_per_s =
      collapsed_s > 0 ? std::max(0.0, p.hbm_bytes - op_bytes) / collapsed_s : 0;

  std::stable_sort(leaves.begin(), leaves.end(),
                   [](const TraceSlice* a, const TraceSlice* b) { return a->end_s < b->end_s; });
  double flops = 0, bytes = 0;
  trace.add_counter("cumulative FLOPs", 0, 0);
  trace.add_counter("cumulative HBM bytes", 0, 0);
  for (const TraceSlice* s : leaves) {
    const double duration = s->end_s - s->start_s;
    const double added_flops = s->op != nullptr ? s->op->flops : flops_per_s * duration;
    const double added_bytes = s->op != nullptr ? s->op->hbm_bytes : bytes_per_s * duration;
    if (added_flops == 0 && added_bytes == 0) continue;
    flops += added_flops;
    bytes += added_bytes;
    trace.add_counter("cumulative FLOPs", s->end_s, flops);
    trace.add_counter("cumulative HBM bytes", s->end_s, bytes);
  }
}

// Samples of the live HBM counter written one per instruction; beyond, one per time.
constexpr size_t kMaxLiveSamples = 50000;

// The live HBM bytes of the memory analysis' timeline, one sample where each instruction
// starts on the compute track (a body's instructions where their first slice starts);
// instructions without a slice of their own (parameters, tuples...) take the time of the last
// one that had one, so the counter never goes back in time.
void add_live_bytes_counter(const Prediction& p, const MemoryReport& memory, TraceBuilder& trace) {
  // Instruction names are unique in a module; a body's first iteration comes first.
  absl::flat_hash_map<std::string_view, double> start_of;
  for (const TimelineEvent& e : p.timeline) {
    if (e.track == "compute") start_of.emplace(e.name, std::max(0.0, e.start_s));
  }
  // More samples than a trace holds slices (a module fanning out 3 ways 20 deep: 200,000
  // samples at 20 times): of samples at one time only the last is written, the one a viewer
  // shows.
  double t = 0;
  std::optional<double> pending;
  const std::vector<LiveBytesPoint>& points =
      memory.live_timeline.empty() ? memory.live_curve : memory.live_timeline;
  const bool one_per_time = points.size() > kMaxLiveSamples;
  for (const LiveBytesPoint& point : points) {
    double at = t;
    if (auto it = start_of.find(point.instruction); it != start_of.end()) {
      at = std::max(t, it->second);
    }
    if (pending && (at != t || !one_per_time)) trace.add_counter("live HBM bytes", t, *pending);
    t = at;
    pending = static_cast<double>(point.device_bytes);
  }
  if (pending) trace.add_counter("live HBM bytes", t, *pending);
}

}  // namespace

std::string prediction_to_trace_json(const Prediction& p, const MemoryReport* memory) {
  absl::flat_hash_map<const Instruction*, const OpPrediction*> by_instruction;
  absl::flat_hash_map<std::string_view, const OpPrediction*> by_name;
  for (const OpPrediction& op : p.ops) {
    if (op.instruction != nullptr) by_instruction.emplace(op.instruction, &op);
    by_name.emplace(op.name, &op);
  }
  auto op_of = [&](const TimelineEvent& e) -> const OpPrediction* {
    if (e.instruction != nullptr) {
      auto it = by_instruction.find(e.instruction);
      if (it != by_instruction.end()) return it->second;
    }
    auto it = by_name.find(e.name);
    return it == by_name.end() ? nullptr : it->second;
  };

  TraceBuilder trace;
  const int steps = trace.add_track("Steps");
  trace.add_slice(steps, "predicted step", 0, std::max(0.0, p.step_time_s),
                  {{"device", p.device},
                   {"topology", p.topology},
                   {"step_time_s", p.step_time_s},
                   {"roofline_step_time_s", p.roofline_step_time_s},
                   {"hfu", p.hfu},
                   {"flops", p.flops},
                   {"hbm_bytes", p.hbm_bytes}});

  // The compute stream first, then the async streams in order of first use.
  std::map<std::string, int, std::less<>> tracks;
  tracks["compute"] = trace.add_track("compute");
  std::map<std::string, std::vector<TraceSlice>, std::less<>> by_track;
  for (const TimelineEvent& e : p.timeline) {
    if (!tracks.count(e.track)) tracks[e.track] = trace.add_track(e.track);
    const double start = std::max(0.0, e.start_s);
    by_track[e.track].push_back({&e, op_of(e), start, start + std::max(0.0, e.duration_s)});
  }

  // Nest each track's slices, keeping a child within its parent when rounding pushed it out
  // (viewers nest by time alone); a slice that encloses another is no leaf.
  std::vector<const TraceSlice*> leaves;
  for (auto& [track, slices] : by_track) {
    std::stable_sort(slices.begin(), slices.end(), [](const TraceSlice& a, const TraceSlice& b) {
      if (a.start_s != b.start_s) return a.start_s < b.start_s;
      return a.end_s - a.start_s > b.end_s - b.start_s;
    });
    std::vector<TraceSlice*> open;
    for (TraceSlice& s : slices) {
      // A slice starting within rounding of an open one's end follows it: trim that one.
      while (!open.empty() && s.start_s >= open.back()->end_s - kRoundingSeconds) {
        open.back()->end_s = std::min(open.back()->end_s, s.start_s);
        open.pop_back();
      }
      if (!open.empty()) {
        open.back()->leaf = false;
        s.end_s = std::min(s.end_s, open.back()->end_s);
      }
      open.push_back(&s);
    }
    for (const TraceSlice& s : slices) {
      trace.add_slice(tracks[track], s.event->name, s.start_s, s.end_s - s.start_s,
                      s.op != nullptr ? op_args(*s.op) : Args{{"depth", int64_t{s.event->depth}}});
      if (s.leaf) leaves.push_back(&s);
    }
  }
  add_work_counters(p, std::move(leaves), trace);
  if (memory != nullptr) add_live_bytes_counter(p, *memory, trace);
  return trace.to_json();
}

}  // namespace hloroof
