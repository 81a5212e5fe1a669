// The predicted step as trace slices: the compute track in schedule order, one track per async
// stream, loops opened up iteration by iteration (up to PredictOptions::max_expanded_iterations;
// the rest as one slice), a conditional's slowest branch and a call's callee nested inside them.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "predict/predict_internal.h"

namespace hloroof::predict {
namespace {

// Bounds on what one trace holds, so that deep or wide loop nests stay drawable: 50,000 slices
// make a trace of about 25 MB (a module of 3.2 KB fanning out 3 ways 20 deep wrote 98 MB at
// 200,000 slices, taking 1 GB to write).
constexpr size_t kMaxEvents = 50000;
constexpr int kMaxDepth = 32;

class TimelineBuilder {
 public:
  // `keep`: the slices are made; else only counted (whether the timeline is cut). `slices`:
  // how many will be made (room for them is made at once), when known.
  TimelineBuilder(const TimingMap& timings, const PredictOptions& options, bool keep,
                  size_t slices = 0)
      : timings_(timings), options_(options), keep_(keep) {
    if (keep) events_.reserve(slices);
  }

  void place(const Computation* c, double offset, int depth) {
    auto it = c ? timings_.find(c) : timings_.end();
    if (it == timings_.end()) return;
    const ComputationTiming& ct = it->second;
    // Once the trace is full, nothing more is placed: the walk stops too, so a computation
    // reached along 2^k paths (k levels each calling the next twice) costs at most kMaxEvents
    // placements, not 2^k.
    for (size_t k = 0; k < ct.instructions.size() && !truncated_; ++k) {
      const InstructionTiming& t = ct.instructions[k];
      const double begin = offset + ct.begin_s[k];
      if (t.role == Role::kAsyncStart && t.partner() >= 0) {
        // A queued copy's work begins when its direction of the host link is free.
        add(t.instruction->name(), t.flow().stream, begin + t.flow().queued_s,
            t.flow().latency_s, depth, t.instruction);
      }
      if (t.role == Role::kFree || t.role == Role::kAsyncStart || t.time_s <= 0) continue;
      add(t.instruction->name(), "compute", begin, t.time_s, depth, t.instruction);
      if (depth + 1 >= kMaxDepth) continue;
      if (t.role == Role::kWhile) {
        place_loop(t, begin, depth);
      } else if (t.role == Role::kConditional || t.role == Role::kCall) {
        place(t.flow().body, begin, depth + 1);
      }
    }
  }

  std::vector<TimelineEvent> take() && {
    // Placed depth first, the slices are already in start order but for rounding: sort only
    // then.
    auto by_start = [](const TimelineEvent& a, const TimelineEvent& b) {
      return a.start_s < b.start_s;
    };
    if (!std::is_sorted(events_.begin(), events_.end(), by_start)) {
      std::stable_sort(events_.begin(), events_.end(), by_start);
    }
    return std::move(events_);
  }
  bool truncated() const { return truncated_; }
  size_t placed() const { return placed_; }

 private:
  // Iteration k runs the condition, then the body; the last condition ends the loop.
  void place_loop(const InstructionTiming& t, double begin, int depth) {
    const FlowTiming& loop = t.flow();
    const double body = total(loop.body), condition = total(loop.condition);
    const double iteration = body + condition;
    const int64_t shown =
        std::min(loop.trip_count, std::max<int64_t>(0, options_.max_expanded_iterations));
    const std::string name(t.instruction->name());
    double at = begin;
    for (int64_t k = 0; k < shown && !truncated_; ++k) {
      add(absl::StrCat(name, " iteration ", k + 1), "compute", at, iteration, depth + 1, nullptr,
          1);
      place(loop.condition, at, depth + 2);
      place(loop.body, at + condition, depth + 2);
      at += iteration;
    }
    const double rest = begin + t.time_s - at;
    if (shown < loop.trip_count) {
      add(absl::StrCat(name, " iterations ", shown + 1, "-", loop.trip_count), "compute", at, rest,
          depth + 1, nullptr, loop.trip_count - shown);
    } else if (rest > 0) {
      place(loop.condition, at, depth + 1);
    }
  }

  double total(const Computation* c) const {
    auto it = c ? timings_.find(c) : timings_.end();
    return it == timings_.end() ? 0 : it->second.total_s;
  }

  void add(std::string_view name, std::string_view track, double start, double duration,
           int depth, const Instruction* instruction, int64_t iterations = 0) {
    if (placed_ >= kMaxEvents) {
      truncated_ = true;
      return;
    }
    ++placed_;
    if (!keep_) return;
    events_.push_back({std::string(name), std::string(track), start, duration, depth,
                       instruction, iterations});
  }

  const TimingMap& timings_;
  const PredictOptions& options_;
  const bool keep_;
  size_t placed_ = 0;  // slices placed (made, or counted only)
  std::vector<TimelineEvent> events_;
  bool truncated_ = false;
};

}  // namespace

std::vector<TimelineEvent> build_timeline(const TimingMap& timings, CombinedModel& model) {
  const PredictionInputs& inputs = model.in();
  const Module& module = inputs.module;
  const bool keep = inputs.options.timeline;
  // The slices counted first: a timeline not kept is only counted (whether it is cut), a kept
  // one is then made in a vector of its size (grown as the slices came, it held up to twice
  // that).
  TimelineBuilder counter(timings, inputs.options, false);
  counter.place(module.entry(), 0, 0);
  std::vector<TimelineEvent> events;
  if (keep) {
    TimelineBuilder builder(timings, inputs.options, true, counter.placed() + 1);
    builder.place(module.entry(), 0, 0);
    events = std::move(builder).take();
  }
  if (counter.truncated()) {
    // Said without the timeline too: the outputs do not depend on whether it was kept.
    const std::string cut = absl::StrCat("the timeline holds its first ", kMaxEvents,
                                         " slices; later ones are left out");
    model.assume(cut);
    if (!keep) return events;
    // Said in the trace too: a slice over the whole step on a track of its own, first (the
    // slices are in start order).
    auto entry = timings.find(module.entry());
    const double step_s = entry == timings.end() ? 0 : entry->second.total_s;
    events.insert(events.begin(), {absl::StrCat("timeline cut: ", cut), "timeline cut", 0,
                                   step_s, 0, nullptr});
  }
  return events;
}

}  // namespace hloroof::predict
