// The predicted timeline as a Chrome trace: what Trace Viewer shows of a profiled step, drawn
// from the prediction before anything runs.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "hloroof/report.h"
#include "report/op_terms.h"
#include "report/trace_writer.h"
#include "util/string_view_hash.h"

namespace hloroof {
namespace {

using report_internal::TraceArg;
using report_internal::TraceWriter;

// Event times are sums of op times; differences below a picosecond are rounding.
constexpr double kRoundingSeconds = 1e-12;

// The op's slice with its cost record as args, written in the order of their keys (as the
// writer wants them); the strings are the op's.
void write_op_slice(TraceWriter& writer, int64_t tid, std::string_view name, double start_s,
                    double duration_s, const OpPrediction& op) {
  const CollectivePrediction* c = op.collective ? &*op.collective : nullptr;
  writer.begin_slice();
  writer.arg("bound", op_bound_name(op));
  writer.arg("category", op.category);
  if (c != nullptr) writer.arg("collective", c->kind);
  if (!op.computation.empty()) writer.arg("computation", op.computation);
  writer.arg("efficiency", op.efficiency);
  // Explanations repeat (a few hundred texts of the pool for thousands of ops).
  if (!op.explanation.empty()) writer.repeated_arg("explanation", op.explanation);
  if (c != nullptr) writer.arg("exposed_s", c->exposed_s);
  writer.arg("flops", op.flops);
  if (c != nullptr) {
    writer.arg("formula", c->formula);
    writer.arg("group_size", c->group_size);
  }
  writer.arg("hbm_bytes", op.hbm_bytes);
  if (c != nullptr) writer.arg("hidden_s", c->hidden_s);
  if (op.host_bytes > 0) writer.arg("host_bytes", op.host_bytes);
  writer.arg("model", op.model);
  writer.arg("occurrences", op.multiplier);
  if (op.on_chip_bytes > 0) writer.arg("on_chip_bytes", op.on_chip_bytes);
  if (!op.op_name.empty()) writer.arg("op_name", op.op_name);
  writer.arg("opcode", op.opcode);
  if (c != nullptr) writer.arg("payload_bytes", c->payload_bytes);
  writer.arg("resource", resource_name(op));
  writer.arg("roofline_time_s", op.roofline_time_s);
  if (op.transcendentals > 0) writer.arg("transcendentals", op.transcendentals);
  writer.end_slice(tid, name, start_s, duration_s);
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
// One sample of a counter track.
struct Sample {
  std::string_view counter;
  double time_s, value;
};

void add_work_counters(const Prediction& p, std::vector<const TraceSlice*> leaves,
                       std::vector<Sample>& samples) {
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
  samples.push_back({"cumulative FLOPs", 0, 0});
  samples.push_back({"cumulative HBM bytes", 0, 0});
  for (const TraceSlice* s : leaves) {
    const double duration = s->end_s - s->start_s;
    const double added_flops = s->op != nullptr ? s->op->flops : flops_per_s * duration;
    const double added_bytes = s->op != nullptr ? s->op->hbm_bytes : bytes_per_s * duration;
    if (added_flops == 0 && added_bytes == 0) continue;
    flops += added_flops;
    bytes += added_bytes;
    samples.push_back({"cumulative FLOPs", s->end_s, flops});
    samples.push_back({"cumulative HBM bytes", s->end_s, bytes});
  }
}

// Samples of the live HBM counter written one per instruction; beyond, one per time.
constexpr size_t kMaxLiveSamples = 50000;

// The points the live HBM counter is made from: the timeline through the bodies, else the
// entry's curve.
const std::vector<LiveBytesPoint>& live_points(const MemoryReport& memory) {
  return memory.live_timeline.empty() ? memory.live_curve : memory.live_timeline;
}

// The live HBM bytes of the memory analysis' timeline, one sample where each instruction
// starts on the compute track (a body's instructions where their first slice starts);
// instructions without a slice of their own (parameters, tuples...) take the time of the last
// one that had one, so the counter never goes back in time.
void add_live_bytes_counter(const Prediction& p, const MemoryReport& memory,
                            std::vector<Sample>& samples) {
  // Instruction names are unique in a module; a body's first iteration comes first.
  detail::StringViewMap<double> start_of;
  for (const TimelineEvent& e : p.timeline) {
    if (e.track == "compute") start_of.emplace(e.name, std::max(0.0, e.start_s));
  }
  // More samples than a trace holds slices (a module fanning out 3 ways 20 deep: 200,000
  // samples at 20 times): of samples at one time only the last is written, the one a viewer
  // shows.
  double t = 0;
  std::optional<double> pending;
  const std::vector<LiveBytesPoint>& points = live_points(memory);
  const bool one_per_time = points.size() > kMaxLiveSamples;
  for (const LiveBytesPoint& point : points) {
    double at = t;
    if (auto it = start_of.find(point.instruction); it != start_of.end()) {
      at = std::max(t, it->second);
    }
    if (pending && (at != t || !one_per_time)) samples.push_back({"live HBM bytes", t, *pending});
    t = at;
    pending = static_cast<double>(point.device_bytes);
  }
  if (pending) samples.push_back({"live HBM bytes", t, *pending});
}

// A slice as it is written: the step's (no `slice`) or a timeline event's.
struct Written {
  int track;
  const TraceSlice* slice;
  double start_s, duration_s;
};

void write_trace(const Prediction& p, const MemoryReport* memory, TraceWriter& writer) {
  absl::flat_hash_map<const Instruction*, const OpPrediction*> by_instruction;
  detail::StringViewMap<const OpPrediction*> by_name;  // names hashed a word at a time
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

  // The Steps track, the compute stream, then the async streams in order of first use.
  std::vector<std::string_view> track_names = {"Steps", "compute"};
  std::map<std::string_view, int, std::less<>> tracks = {{"compute", 1}};
  std::map<std::string_view, std::vector<TraceSlice>, std::less<>> by_track;
  // Each track's slices, and below every slice written and every counter sample, in vectors
  // made at their size: grown by doubling, the old and the new would be held at once.
  {
    std::map<std::string_view, size_t, std::less<>> counts;
    std::string_view last;
    size_t* count = nullptr;
    for (const TimelineEvent& e : p.timeline) {
      if (count == nullptr || e.track != last) count = &counts[last = e.track];
      ++*count;
    }
    for (const auto& [track, n] : counts) by_track[track].reserve(n);
  }
  for (const TimelineEvent& e : p.timeline) {
    auto [it, added] = tracks.try_emplace(e.track, static_cast<int>(track_names.size()));
    if (added) track_names.push_back(e.track);
    const double start = std::max(0.0, e.start_s);
    by_track[e.track].push_back({&e, op_of(e), start, start + std::max(0.0, e.duration_s)});
  }
  for (size_t t = 0; t < track_names.size(); ++t) {
    writer.track(static_cast<int64_t>(t), track_names[t]);
  }

  // Nest each track's slices, keeping a child within its parent when rounding pushed it out
  // (viewers nest by time alone); a slice that encloses another is no leaf.
  std::vector<Written> written;
  written.reserve(1 + p.timeline.size());
  written.push_back({0, nullptr, 0, std::max(0.0, p.step_time_s)});
  writer.expect_slices(1 + p.timeline.size());
  std::vector<const TraceSlice*> leaves;
  // Where each track's slices begin in `written` (the step's slice is the first run).
  std::vector<size_t> runs = {0};
  for (auto& [track, slices] : by_track) {
    // Most often in order already (a timeline is made in time order): then left as it is.
    const auto before = [](const TraceSlice& a, const TraceSlice& b) {
      if (a.start_s != b.start_s) return a.start_s < b.start_s;
      return a.end_s - a.start_s > b.end_s - b.start_s;
    };
    // (A duration that is not a number, of a slice from infinity to infinity, leaves it to
    // the sort, as it did.)
    const bool nan = std::any_of(slices.begin(), slices.end(), [](const TraceSlice& s) {
      return std::isnan(s.end_s - s.start_s);
    });
    if (nan || !std::is_sorted(slices.begin(), slices.end(), before)) {
      std::stable_sort(slices.begin(), slices.end(), before);
    }
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
    const int tid = tracks.find(track)->second;
    runs.push_back(written.size());
    for (const TraceSlice& s : slices) {
      written.push_back({tid, &s, s.start_s, s.end_s - s.start_s});
      if (s.leaf) leaves.push_back(&s);
    }
  }

  // Sorted by start, longer first on ties, so an enclosing slice precedes what it encloses. The
  // tracks' runs are most often each in that order (clamping into a parent seldom moves one):
  // merged then, one after the other, which is the stable sort; else sorted.
  const auto first = [](const Written& a, const Written& b) {
    if (a.start_s != b.start_s) return a.start_s < b.start_s;
    return a.duration_s > b.duration_s;
  };
  runs.push_back(written.size());
  bool runs_sorted = std::none_of(written.begin(), written.end(), [](const Written& w) {
    return std::isnan(w.start_s) || std::isnan(w.duration_s);
  });
  for (size_t r = 0; r + 1 < runs.size() && runs_sorted; ++r) {
    runs_sorted = std::is_sorted(written.begin() + static_cast<std::ptrdiff_t>(runs[r]),
                                 written.begin() + static_cast<std::ptrdiff_t>(runs[r + 1]),
                                 first);
  }
  if (runs_sorted) {
    for (size_t r = 1; r + 1 < runs.size(); ++r) {
      std::inplace_merge(written.begin(),
                         written.begin() + static_cast<std::ptrdiff_t>(runs[r]),
                         written.begin() + static_cast<std::ptrdiff_t>(runs[r + 1]), first);
    }
  } else {
    std::stable_sort(written.begin(), written.end(), first);
  }
  std::vector<TraceArg> args;
  for (const Written& w : written) {
    if (w.slice == nullptr) {
      args = {{"device", p.device},
              {"topology", p.topology},
              {"step_time_s", p.step_time_s},
              {"roofline_step_time_s", p.roofline_step_time_s},
              {"hfu", p.hfu},
              {"flops", p.flops},
              {"hbm_bytes", p.hbm_bytes}};
      writer.slice(w.track, "predicted step", w.start_s, w.duration_s, args);
      continue;
    }
    if (w.slice->op != nullptr) {
      write_op_slice(writer, w.track, w.slice->event->name, w.start_s, w.duration_s,
                     *w.slice->op);
      continue;
    }
    args = {{"depth", int64_t{w.slice->event->depth}}};
    writer.slice(w.track, w.slice->event->name, w.start_s, w.duration_s, args);
  }

  std::vector<Sample> samples;
  // Two work samples to begin with and at most two at each leaf's end; at most one live-bytes
  // sample a point.
  samples.reserve(2 + 2 * leaves.size() + (memory == nullptr ? 0 : live_points(*memory).size()));
  add_work_counters(p, std::move(leaves), samples);
  const size_t work_samples = samples.size();
  if (memory != nullptr) add_live_bytes_counter(p, *memory, samples);
  // In time order, the work counters' before the live bytes' at one time. Each list is made
  // in time order, so merging them (stable, linear) is the stable sort; a time that is not a
  // number leaves the sort to decide, as it did.
  auto earlier = [](const Sample& a, const Sample& b) { return a.time_s < b.time_s; };
  const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(work_samples);
  if (std::none_of(samples.begin(), samples.end(),
                   [](const Sample& s) { return std::isnan(s.time_s); }) &&
      std::is_sorted(samples.begin(), middle, earlier) &&
      std::is_sorted(middle, samples.end(), earlier)) {
    std::inplace_merge(samples.begin(), middle, samples.end(), earlier);
  } else {
    std::stable_sort(samples.begin(), samples.end(), earlier);
  }
  for (const Sample& s : samples) writer.counter(s.counter, s.time_s, s.value);
  writer.finish();
}

}  // namespace

std::string prediction_to_trace_json(const Prediction& p, const MemoryReport* memory) {
  std::string out;
  TraceWriter writer(out, nullptr);
  write_trace(p, memory, writer);
  return out;
}

void write_prediction_trace_json(std::ostream& out, const Prediction& p,
                                 const MemoryReport* memory) {
  std::string buffer;
  TraceWriter writer(buffer, &out);
  write_trace(p, memory, writer);
}

}  // namespace hloroof
