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

ScheduledEvent ScheduledEvent::done(int64_t id, double latency_s, double cost_s,
                                    std::string label) {
  return {Kind::kAsyncDone, cost_s, id, latency_s, std::move(label)};
}

absl::StatusOr<ScheduleTiming> time_schedule(absl::Span<const ScheduledEvent> events) {
  return time_schedule(events.size(), [events](size_t i) {
    const ScheduledEvent& e = events[i];
    return ClockEvent{e.kind, e.cost_s, e.async_id, e.latency_s};
  });
}

absl::StatusOr<ScheduleTiming> time_schedule(size_t count,
                                             absl::FunctionRef<ClockEvent(size_t)> event) {
  ScheduleTiming timing;
  timing.end_s.reserve(count);
  absl::flat_hash_map<int64_t, double> open;  // async id -> clock at its start
  double t = 0;
  for (size_t i = 0; i < count; ++i) {
    const ClockEvent e = event(i);
    if (!std::isfinite(e.cost_s) || e.cost_s < 0 || !std::isfinite(e.latency_s) ||
        e.latency_s < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("event ", i, ": cost and latency must be finite and non-negative"));
    }
    t += e.cost_s;
    timing.busy_s += e.cost_s;
    if (e.kind == ScheduledEvent::Kind::kAsyncStart) {
      if (!open.emplace(e.async_id, t).second) {
        return absl::InvalidArgumentError(absl::StrCat("event ", i, ": async id ", e.async_id,
                                                       " is started again before its done"));
      }
    } else if (e.kind == ScheduledEvent::Kind::kAsyncDone) {
      auto it = open.find(e.async_id);
      if (it == open.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("event ", i, ": done of async id ", e.async_id, " has no open start"));
      }
      AsyncPairTiming p;
      p.async_id = e.async_id;
      p.start_s = it->second;
      p.done_s = t;
      p.latency_s = e.latency_s;
      p.hidden_s = std::min(e.latency_s, t - it->second);
      p.exposed_s = e.latency_s - p.hidden_s;
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
  return timing;
}

}  // namespace hloroof
