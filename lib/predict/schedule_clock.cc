#include "hloroof/schedule_clock.h"

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace hloroof {

ScheduledEvent ScheduledEvent::op(double cost_s, std::string label) {
  return {Kind::kOp, cost_s, 0, 0, std::move(label)};
}

ScheduledEvent ScheduledEvent::start(int64_t id, double cost_s, std::string label) {
  return {Kind::kAsyncStart, cost_s, id, 0, std::move(label)};
}

ScheduledEvent ScheduledEvent::queued_start(int64_t id, int queue, double latency_s,
                                            double cost_s, std::string label) {
  return {Kind::kAsyncStart, cost_s, id, latency_s, std::move(label), queue};
}

ScheduledEvent ScheduledEvent::done(int64_t id, double latency_s, double cost_s,
                                    std::string label) {
  return {Kind::kAsyncDone, cost_s, id, latency_s, std::move(label)};
}

absl::StatusOr<ScheduleTiming> time_schedule(absl::Span<const ScheduledEvent> events) {
  return time_schedule(events.size(), [events](size_t i) {
    const ScheduledEvent& e = events[i];
    return ClockEvent{e.kind, e.cost_s, e.async_id, e.latency_s, e.queue, e.hbm_s};
  });
}

absl::StatusOr<ScheduleTiming> time_schedule(size_t count,
                                             absl::FunctionRef<ClockEvent(size_t)> event) {
  ScheduleTiming timing;
  timing.end_s.reserve(count);
  struct Open {
    double start_s = 0;
    double queued_s = 0;   // a queued pair's wait for its engine
    double latency_s = 0;  // a queued pair's (its start gives it)
    bool queued = false;
    double start_hbm_s = 0;  // the memory occupancy counted when it started
    double hbm_s = 0;        // its work's occupancy
  };
  absl::flat_hash_map<int64_t, Open> open;  // async id -> its start
  absl::flat_hash_map<int, double> engine_free_s;  // queue -> when its last work ends
  double t = 0;
  double hbm = 0;  // the memory occupancy so far
  for (size_t i = 0; i < count; ++i) {
    const ClockEvent e = event(i);
    if (!std::isfinite(e.cost_s) || e.cost_s < 0 || !std::isfinite(e.latency_s) ||
        e.latency_s < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("event ", i, ": cost and latency must be finite and non-negative"));
    }
    if (!std::isfinite(e.hbm_s) || e.hbm_s < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("event ", i, ": memory occupancy must be finite and non-negative"));
    }
    if (e.queue < 0) {
      return absl::InvalidArgumentError(absl::StrCat("event ", i, ": queue ", e.queue,
                                                     " is negative (0: no queue)"));
    }
    t += e.cost_s;
    timing.busy_s += e.cost_s;
    if (e.kind == ScheduledEvent::Kind::kOp) hbm += e.hbm_s;
    if (e.kind == ScheduledEvent::Kind::kAsyncStart) {
      Open o{.start_s = t, .start_hbm_s = hbm, .hbm_s = e.hbm_s};
      if (e.queue > 0) {
        double& free_s = engine_free_s[e.queue];
        o.queued = true;
        o.latency_s = e.latency_s;
        o.queued_s = std::max(0.0, free_s - t);
        free_s = t + o.queued_s + e.latency_s;
      }
      if (!open.emplace(e.async_id, o).second) {
        return absl::InvalidArgumentError(absl::StrCat("event ", i, ": async id ", e.async_id,
                                                       " is started again before its done"));
      }
    } else if (e.kind == ScheduledEvent::Kind::kAsyncDone) {
      auto it = open.find(e.async_id);
      if (it == open.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("event ", i, ": done of async id ", e.async_id, " has no open start"));
      }
      const Open& o = it->second;
      if (o.queued && e.latency_s != 0 && e.latency_s != o.latency_s) {
        return absl::InvalidArgumentError(absl::StrCat(
            "event ", i, ": done of queued async id ", e.async_id, " gives latency ",
            e.latency_s, " s, its start ", o.latency_s, " s"));
      }
      AsyncPairTiming p;
      p.async_id = e.async_id;
      p.start_s = o.start_s;
      p.done_s = t;
      p.latency_s = o.queued ? o.latency_s : e.latency_s;
      p.queued_s = o.queued_s;
      const double span_s = p.queued_s + p.latency_s;
      const double window_s = t - o.start_s;
      const double free_s = std::max(0.0, window_s - (hbm - o.start_hbm_s));
      // Both waits are at most the span (the window is never negative), the memory's at least 0.
      p.contended_s = std::min(span_s, std::max(0.0, o.hbm_s - free_s));
      p.exposed_s = std::max(span_s - window_s, p.contended_s);
      p.hidden_s = span_s - p.exposed_s;
      hbm += o.hbm_s;
      open.erase(it);
      t += p.exposed_s;
      timing.exposed_s += p.exposed_s;
      timing.hidden_s += p.hidden_s;
      timing.pairs.push_back(p);
    }
    timing.end_s.push_back(t);
  }
  if (!open.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("async id ", open.begin()->first, " is started but never done"));
  }
  timing.total_s = t;
  timing.hbm_s = hbm;
  return timing;
}

}  // namespace hloroof
