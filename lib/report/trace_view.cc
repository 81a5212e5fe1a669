// The predicted timeline as a Chrome trace: what Trace Viewer shows of a profiled step, drawn
// from the prediction before anything runs.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "hloroof/report.h"
#include "predict/op_index.h"
#include "report/op_terms.h"
#include "report/trace_writer.h"
#include "util/string_view_hash.h"
#include "hloroof/threads.h"

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
  if (const AsyncPrediction* a = op.async.get()) {
    writer.arg("async.contended_s", a->contended_s);
    writer.arg("async.exposed_s", a->exposed_s);
    writer.arg("async.hidden_s", a->hidden_s);
    writer.arg("async.latency_s", a->latency_s);
    writer.arg("async.queued_s", a->queued_s);
    writer.arg("async.stream", a->stream);
  }
  writer.arg("bound", op_bound_name(op));
  writer.arg("category", op.category());
  if (c != nullptr) writer.arg("collective", c->kind);
  if (!op.computation().empty()) writer.arg("computation", op.computation());
  writer.arg("efficiency", op.efficiency);
  // Explanations repeat (a few hundred texts of the pool for thousands of ops).
  if (!op.explanation().empty()) writer.repeated_arg("explanation", op.explanation());
  if (c != nullptr) writer.arg("exposed_s", c->exposed_s);
  writer.arg("flops", op.flops);
  if (c != nullptr) {
    writer.arg("formula", c->formula);
    writer.arg("group_size", c->group_size);
  }
  writer.arg("hbm_bytes", op.hbm_bytes);
  if (c != nullptr) writer.arg("hidden_s", c->hidden_s);
  if (op.host_bytes > 0) writer.arg("host_bytes", op.host_bytes);
  writer.arg("model", op.model());
  writer.arg("occurrences", op.multiplier);
  if (op.on_chip_bytes > 0) writer.arg("on_chip_bytes", op.on_chip_bytes);
  if (!op.op_name().empty()) writer.arg("op_name", op.op_name());
  writer.arg("opcode", op.opcode());
  if (c != nullptr) writer.arg("payload_bytes", c->payload_bytes);
  writer.arg("resource", resource_name(op));
  writer.arg("roofline_time_s", op.roofline_time_s);
  if (const std::optional<TimeRange> r = op.time_range()) {
    writer.arg("time_range.high", r->high);
    writer.arg("time_range.high_s", r->high_s);
    writer.arg("time_range.low", r->low);
    writer.arg("time_range.low_s", r->low_s);
  }
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
// Both counters are sampled at once: a sample of each, written one after the other.
struct WorkSample {
  double time_s, flops, hbm_bytes;
};
// A sample of the live HBM bytes counter.
struct LiveSample {
  double time_s, bytes;
};

void add_work_counters(const Prediction& p, std::vector<const TraceSlice*> leaves,
                       std::vector<WorkSample>& samples) {
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
  samples.push_back({0, 0, 0});
  for (const TraceSlice* s : leaves) {
    const double duration = s->end_s - s->start_s;
    const double added_flops = s->op != nullptr ? s->op->flops : flops_per_s * duration;
    const double added_bytes = s->op != nullptr ? s->op->hbm_bytes : bytes_per_s * duration;
    if (added_flops == 0 && added_bytes == 0) continue;
    flops += added_flops;
    bytes += added_bytes;
    samples.push_back({s->end_s, flops, bytes});
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
                            std::vector<LiveSample>& samples) {
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
    if (pending && (at != t || !one_per_time)) samples.push_back({t, *pending});
    t = at;
    pending = static_cast<double>(point.device_bytes);
  }
  if (pending) samples.push_back({t, *pending});
}

// A slice as it is written: the step's (no `slice`) or a timeline event's.
struct Written {
  int track;
  const TraceSlice* slice;
  double start_s, duration_s;
};

// The trace's events made ready, in the order they are written: each track's two metadata
// events, the slices in time order, then the counter samples. Any run of them can then be
// written on its own (pieces of one trace on several threads at once).
class TraceEvents {
 public:
  TraceEvents(const Prediction& p, const MemoryReport* memory);
  TraceEvents(const TraceEvents&) = delete;
  TraceEvents& operator=(const TraceEvents&) = delete;

  // Tracks, slices and counter samples: the events write() counts (a work sample is one,
  // written as a sample of each of its two counters).
  size_t size() const {
    return track_names_.size() + written_.size() + work_.size() + live_.size();
  }
  size_t slices() const { return written_.size(); }
  // About how many bytes of text event `i` takes (pieces of a trace are cut by it).
  size_t text_bytes(size_t i) const;
  // Events [begin, end) into `writer`.
  void write(TraceWriter& writer, size_t begin, size_t end) const;
  // Every event into `writer`, then the document's end.
  void write_all(TraceWriter& writer) const {
    writer.expect_slices(slices());
    write(writer, 0, size());
    writer.finish();
  }

 private:
  const Prediction& p_;
  std::vector<std::string_view> track_names_;
  // Each track's slices (the written ones point into them).
  std::map<std::string_view, std::vector<TraceSlice>, std::less<>> by_track_;
  std::vector<Written> written_;
  // The samples of the two kinds, each in time order, and where each comes in the order
  // written: a bit per sample, set for a live one (the work samples at a time before the live
  // ones). Held apart, a sample takes 24 or 16 bytes, not 32 for each counter's value.
  std::vector<WorkSample> work_;
  std::vector<LiveSample> live_;
  std::vector<uint64_t> live_at_;

  // Whether sample `k` (in time order) is a live-bytes one.
  bool live_sample(size_t k) const { return (live_at_[k / 64] >> (k % 64)) & 1; }
};

TraceEvents::TraceEvents(const Prediction& p, const MemoryReport* memory) : p_(p) {
  const predict::OpIndex by_instruction(p.ops);
  detail::StringViewMap<const OpPrediction*> by_name;  // names hashed a word at a time
  for (const OpPrediction& op : p.ops) by_name.emplace(op.name(), &op);
  auto op_of = [&](const TimelineEvent& e) -> const OpPrediction* {
    if (const OpPrediction* op = by_instruction.find(e.instruction)) return op;
    auto it = by_name.find(e.name);
    return it == by_name.end() ? nullptr : it->second;
  };

  // The Steps track, the compute stream, then the async streams in order of first use.
  track_names_ = {"Steps", "compute"};
  std::map<std::string_view, int, std::less<>> tracks = {{"compute", 1}};
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
    for (const auto& [track, n] : counts) by_track_[track].reserve(n);
  }
  for (const TimelineEvent& e : p.timeline) {
    auto [it, added] = tracks.try_emplace(e.track, static_cast<int>(track_names_.size()));
    if (added) track_names_.push_back(e.track);
    const double start = std::max(0.0, e.start_s);
    by_track_[e.track].push_back({&e, op_of(e), start, start + std::max(0.0, e.duration_s)});
  }

  // Nest each track's slices, keeping a child within its parent when rounding pushed it out
  // (viewers nest by time alone); a slice that encloses another is no leaf.
  written_.reserve(1 + p.timeline.size());
  written_.push_back({0, nullptr, 0, std::max(0.0, p.step_time_s)});
  std::vector<const TraceSlice*> leaves;
  // Where each track's slices begin in `written_` (the step's slice is the first run).
  std::vector<size_t> runs = {0};
  for (auto& [track, slices] : by_track_) {
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
    runs.push_back(written_.size());
    for (const TraceSlice& s : slices) {
      written_.push_back({tid, &s, s.start_s, s.end_s - s.start_s});
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
  runs.push_back(written_.size());
  bool runs_sorted = std::none_of(written_.begin(), written_.end(), [](const Written& w) {
    return std::isnan(w.start_s) || std::isnan(w.duration_s);
  });
  for (size_t r = 0; r + 1 < runs.size() && runs_sorted; ++r) {
    runs_sorted = std::is_sorted(written_.begin() + static_cast<std::ptrdiff_t>(runs[r]),
                                 written_.begin() + static_cast<std::ptrdiff_t>(runs[r + 1]),
                                 first);
  }
  if (runs_sorted) {
    for (size_t r = 1; r + 1 < runs.size(); ++r) {
      std::inplace_merge(written_.begin(),
                         written_.begin() + static_cast<std::ptrdiff_t>(runs[r]),
                         written_.begin() + static_cast<std::ptrdiff_t>(runs[r + 1]), first);
    }
  } else {
    std::stable_sort(written_.begin(), written_.end(), first);
  }

  // A work sample to begin with and at most one at each leaf's end; at most one live-bytes
  // sample a point.
  work_.reserve(1 + leaves.size());
  add_work_counters(p, std::move(leaves), work_);
  if (memory != nullptr) {
    live_.reserve(live_points(*memory).size());
    add_live_bytes_counter(p, *memory, live_);
  }
  // Merged in time order, the work sample first at one time (each list is made in time order:
  // the live one never goes back, the work one follows the leaves' ends; a work sample at a
  // time that is not a number goes before the live samples not yet placed).
  const size_t samples = work_.size() + live_.size();
  live_at_.assign((samples + 63) / 64, 0);
  for (size_t k = 0, w = 0, l = 0; k < samples; ++k) {
    if (l < live_.size() && (w == work_.size() || live_[l].time_s < work_[w].time_s)) {
      live_at_[k / 64] |= uint64_t{1} << (k % 64);
      ++l;
    } else {
      ++w;
    }
  }
}

size_t TraceEvents::text_bytes(size_t i) const {
  // Measured on the corpus's largest modules: a counter sample ~100 bytes, a slice without an
  // op record ~150, an op's slice ~400 and its explanation.
  if (i < track_names_.size()) return 200;
  i -= track_names_.size();
  if (i >= written_.size()) return live_sample(i - written_.size()) ? 100 : 200;
  const TraceSlice* s = written_[i].slice;
  return s == nullptr || s->op == nullptr ? 150 : 400 + s->op->explanation().size();
}

void TraceEvents::write(TraceWriter& writer, size_t begin, size_t end) const {
  const size_t tracks = track_names_.size(), slices = tracks + written_.size();
  for (size_t t = begin; t < std::min(end, tracks); ++t) {
    writer.track(static_cast<int64_t>(t), track_names_[t]);
  }
  std::vector<TraceArg> args;
  for (size_t i = std::max(begin, tracks); i < std::min(end, slices); ++i) {
    const Written& w = written_[i - tracks];
    if (w.slice == nullptr) {
      args = {{"device", p_.device},
              {"topology", p_.topology},
              {"step_time_s", p_.step_time_s},
              {"roofline_step_time_s", p_.roofline_step_time_s},
              {"hfu", p_.hfu},
              {"flops", p_.flops},
              {"hbm_bytes", p_.hbm_bytes}};
      if (const std::optional<TimeRange>& r = p_.step_time_range) {
        args.push_back({"step_time_range.low_s", r->low_s});
        args.push_back({"step_time_range.high_s", r->high_s});
      }
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
  if (end <= slices) return;
  // The samples of each kind before the first one asked for: the live ones counted by their
  // bits.
  const size_t first = std::max(begin, slices) - slices;
  size_t live = 0;
  for (size_t word = 0; word < first / 64; ++word) live += std::popcount(live_at_[word]);
  if (first % 64 != 0) {
    live += std::popcount(live_at_[first / 64] & ((uint64_t{1} << (first % 64)) - 1));
  }
  size_t work = first - live;
  for (size_t k = first; k < end - slices; ++k) {
    if (live_sample(k)) {
      const LiveSample& s = live_[live++];
      writer.counter("live HBM bytes", s.time_s, s.bytes);
    } else {
      const WorkSample& s = work_[work++];
      writer.counter("cumulative FLOPs", s.time_s, s.flops);
      writer.counter("cumulative HBM bytes", s.time_s, s.hbm_bytes);
    }
  }
}

// Pieces of the text a thread makes before it writes them, in bytes: large enough that
// threads seldom wait for each other's turn, small enough to be held at once by each.
constexpr size_t kPieceBytes = 256 << 10;

// The events written as pieces of about kPieceBytes, made by `threads` threads at once (each
// takes the next piece not taken, makes it, then writes it when every piece before it is
// written), between the document's head and tail.
void write_in_pieces(std::ostream& out, const TraceEvents& events, int threads) {
  // Where each piece begins: events [starts[k], starts[k + 1]).
  std::vector<size_t> starts = {0};
  size_t bytes = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    if (bytes >= kPieceBytes) {
      starts.push_back(i);
      bytes = 0;
    }
    bytes += events.text_bytes(i);
  }
  starts.push_back(events.size());
  const size_t pieces = starts.size() - 1;
  // No more threads than pieces (a small trace is one).
  const int workers = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), pieces));

  out.write(TraceWriter::kHead.data(), static_cast<std::streamsize>(TraceWriter::kHead.size()));
  const size_t slices_each = events.slices() / static_cast<size_t>(workers) + 1;
  // Each thread's writer (made where it stays: it writes into the spill beside it).
  struct Maker {
    explicit Maker(size_t slices) { writer.expect_slices(slices); }
    std::string spill;
    // Room for a piece and an event past it (an event is written whole once begun).
    TraceWriter writer{spill, TraceWriter::Piece{2 * kPieceBytes}};
  };
  detail::make_pieces_in_order(
      pieces, workers, [&] { return Maker(slices_each); },
      [&](Maker& m, size_t k) { events.write(m.writer, starts[k], starts[k + 1]); },
      [&](Maker& m) { m.writer.write_piece_to(out); });
  out.write(TraceWriter::kTail.data(), static_cast<std::streamsize>(TraceWriter::kTail.size()));
}

}  // namespace

std::string prediction_to_trace_json(const Prediction& p, const MemoryReport* memory) {
  std::string out;
  TraceWriter writer(out, nullptr);
  TraceEvents(p, memory).write_all(writer);
  return out;
}

void write_prediction_trace_json(std::ostream& out, const Prediction& p,
                                 const MemoryReport* memory, int threads) {
  const TraceEvents events(p, memory);
  if (threads > 1) {
    write_in_pieces(out, events, threads);
    return;
  }
  std::string buffer;
  TraceWriter writer(buffer, &out);
  events.write_all(writer);
}

}  // namespace hloroof
