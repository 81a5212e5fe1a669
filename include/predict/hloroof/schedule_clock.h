// Sequential composition with async overlap (docs/prediction-model.md, "Async pairs and the
// schedule"): the clock XLA's LatencyHidingStatistics keeps over a scheduled instruction sequence.
//
// Walk the events in order with a clock t = 0. Every event adds its own cost to t. An async
// start then records t. At the matching done, after the done's own cost, the collective has run
// for (t - t_start); if its latency is longer, the done waits for the rest:
//   t += max(0, latency - (t - t_start)).
// Work between a start and its done hides the latency; the wait is exposed.
//
// A queued pair (queue > 0) shares one engine with every pair of its queue, as host-offload
// copies share one direction of the host link: the engine runs their work one at a time, in
// the order of their starts. Its work begins at max(t_start, the queue's previous work's end)
// and ends its latency later; the done waits for that end. Its start gives the latency.
//
//   {start(1), op(3), op(2), done(1, latency 6), op(4)} -> 0, 3, 5, wait 1 -> 6, 10.
//
// Memory is shared too. Every event may say how long its traffic occupies the device memory
// (hbm_s: an op's own, a start's for the work it launches). The ops between a start and its
// done leave the memory free for (t - t_start) less their own occupancy; async work that needs
// more waits for the rest: the done waits max(latency - (t - t_start), hbm - free, 0). Two
// memory-bound kernels running at once take the sum of their traffic's times, not the longer.
//
//   {start(1, hbm 4), op(3, hbm 3), op(2, hbm 0), done(1, latency 4)} -> 0, 3, 5, wait 2 -> 7.
#ifndef HLOROOF_SCHEDULE_CLOCK_H_
#define HLOROOF_SCHEDULE_CLOCK_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace hloroof {

struct ScheduledEvent {
  enum class Kind { kOp, kAsyncStart, kAsyncDone };
  Kind kind = Kind::kOp;
  double cost_s = 0;     // the event's own time on the device
  int64_t async_id = 0;  // pairs a start with its done (any id, unique among open pairs)
  double latency_s = 0;  // how long the async work takes: a done's, or a queued start's
  std::string label;     // optional, for reports
  int queue = 0;         // a start: 0, or the engine its work queues on (see above)
  double hbm_s = 0;      // how long its traffic occupies the memory (a start: its work's)

  static ScheduledEvent op(double cost_s, std::string label = "");
  static ScheduledEvent start(int64_t id, double cost_s = 0, std::string label = "");
  // A start whose work queues on engine `queue` (> 0) and takes `latency_s`; its done's
  // latency is 0 or the same.
  static ScheduledEvent queued_start(int64_t id, int queue, double latency_s, double cost_s = 0,
                                     std::string label = "");
  static ScheduledEvent done(int64_t id, double latency_s, double cost_s = 0,
                             std::string label = "");
};

// The timing of one async pair.
struct AsyncPairTiming {
  int64_t async_id = 0;
  double start_s = 0;  // clock when the start finished
  double done_s = 0;   // clock when the done finished its own cost, before any wait
  double latency_s = 0;
  double queued_s = 0;   // a queued pair: how long its work waited for the engine
  // The pair's span from its start (queue wait and work) overlapped with other work, and the
  // done's wait for the rest: hidden_s + exposed_s = queued_s + latency_s.
  double hidden_s = 0;   // unqueued, memory to spare: min(latency, done_s - start_s)
  double exposed_s = 0;  // max(0, start_s + queued_s + latency_s - done_s, contended_s)
  // The wait the work's memory traffic needs: its occupancy less the memory the ops in between
  // left free (0 when they left enough), at most its span; at most exposed_s.
  double contended_s = 0;
};

struct ScheduleTiming {
  double total_s = 0;                  // the final clock
  double busy_s = 0;                   // sum of every event's own cost
  double exposed_s = 0;                // sum of waits (total_s = busy_s + exposed_s)
  double hidden_s = 0;                 // async spans hidden behind other work
  double hbm_s = 0;                    // every event's memory occupancy, async work's included
  std::vector<AsyncPairTiming> pairs;  // in the order their dones appear
  std::vector<double> end_s;           // clock after each event, waits included
};

// Errors: a done without an open start of its id, a start whose id is already open, a start
// never done, a negative or non-finite cost or latency, a negative queue, a queued pair whose
// done gives another latency than its start.
absl::StatusOr<ScheduleTiming> time_schedule(absl::Span<const ScheduledEvent> events);
// An event as the clock reads it: a ScheduledEvent without its label.
struct ClockEvent {
  ScheduledEvent::Kind kind = ScheduledEvent::Kind::kOp;
  double cost_s = 0;
  int64_t async_id = 0;
  double latency_s = 0;
  int queue = 0;
  double hbm_s = 0;
};

// The same over `count` events, event(k) making the k-th when the clock reaches it: no list of
// them is held (a computation of thousands of instructions).
absl::StatusOr<ScheduleTiming> time_schedule(size_t count,
                                             absl::FunctionRef<ClockEvent(size_t)> event);

}  // namespace hloroof

#endif  // HLOROOF_SCHEDULE_CLOCK_H_
