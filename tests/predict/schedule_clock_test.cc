// The async overlap clock (docs/prediction-model.md, "Async pairs and the schedule"), as XLA's
// LatencyHidingStatistics keeps it.
#include "hloroof/schedule_clock.h"

#include <catch2/catch.hpp>
#include <cmath>
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;
using E = ScheduledEvent;

ScheduleTiming timing(std::vector<ScheduledEvent> events) {
  absl::StatusOr<ScheduleTiming> t = time_schedule(events);
  INFO(t.status().ToString());
  REQUIRE_OK(t);
  return *std::move(t);
}

std::string error(std::vector<ScheduledEvent> events) {
  absl::StatusOr<ScheduleTiming> t = time_schedule(events);
  REQUIRE(!t.ok());
  return std::string(t.status().message());
}

TEST_CASE("S1: a done waits only for what is left of its collective") {
  // worked example S1: ag-start (0), A (3), B (2), ag-done, C (4), latency 6:
  // clock 0, 3, 5, wait max(0, 6 - 5) = 1 -> 6, then 10. Serial: 15; perfect overlap: 9.
  ScheduleTiming t =
      timing({E::start(1), E::op(3, "A"), E::op(2, "B"), E::done(1, 6), E::op(4, "C")});
  CHECK(t.total_s == 10);
  CHECK(t.end_s == std::vector<double>{0, 3, 5, 6, 10});
  CHECK(t.busy_s == 9);
  CHECK(t.exposed_s == 1);
  CHECK(t.hidden_s == 5);
  REQUIRE(t.pairs.size() == 1);
  CHECK(t.pairs[0].start_s == 0);
  CHECK(t.pairs[0].done_s == 5);
  CHECK(t.pairs[0].exposed_s == 1);
}

TEST_CASE("events made one at a time give the clock of the list") {
  // S1 again, each event made when the clock reaches it (the order asked for is checked):
  // 0, 3, 5, wait 1 -> 6, 10.
  const std::vector<ScheduledEvent> events = {E::start(1), E::op(3), E::op(2), E::done(1, 6),
                                              E::op(4)};
  std::vector<size_t> asked;
  absl::StatusOr<ScheduleTiming> t = time_schedule(events.size(), [&](size_t k) {
    asked.push_back(k);
    const ScheduledEvent& e = events[k];
    return ClockEvent{e.kind, e.cost_s, e.async_id, e.latency_s};
  });
  REQUIRE_OK(t);
  CHECK(asked == std::vector<size_t>{0, 1, 2, 3, 4});
  CHECK(t->end_s == std::vector<double>{0, 3, 5, 6, 10});
  CHECK(t->total_s == 10);
  REQUIRE(t->pairs.size() == 1);
  CHECK(t->pairs[0].exposed_s == 1);
  // An error names the event as the list's does.
  absl::StatusOr<ScheduleTiming> bad =
      time_schedule(2, [](size_t k) {
        return k == 0 ? ClockEvent{E::Kind::kOp, 1, 0, 0}
                      : ClockEvent{E::Kind::kAsyncDone, 0, 4, 1};  // no start of id 4
      });
  REQUIRE(!bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Contains("event 1"));
}

TEST_CASE("enough work between start and done hides the whole latency") {
  // start, 7 s of work, done (latency 6): no wait; total 7.
  ScheduleTiming t = timing({E::start(1), E::op(7), E::done(1, 6)});
  CHECK(t.total_s == 7);
  CHECK(t.exposed_s == 0);
  CHECK(t.pairs[0].hidden_s == 6);
}

TEST_CASE("start and done costs count, and the start's own cost is not overlap") {
  // start costs 1 (recorded at t = 1), done costs 2 (t = 3 before the wait): 2 s of overlap,
  // latency 5 leaves 3 s to wait: total 6.
  ScheduleTiming t = timing({E::start(7, 1), E::done(7, 5, 2)});
  CHECK(t.pairs[0].start_s == 1);
  CHECK(t.pairs[0].done_s == 3);
  CHECK(t.pairs[0].exposed_s == 3);
  CHECK(t.total_s == 6);
}

TEST_CASE("several collectives in flight overlap each other and the work") {
  // a-start, b-start, op 4, a-done (latency 3: hidden), op 1, b-done (latency 8: 5 s elapsed,
  // waits 3): total 8. Then a back-to-back pair with no work exposes its whole latency 2: 10.
  ScheduleTiming t = timing({E::start(1), E::start(2), E::op(4), E::done(1, 3), E::op(1),
                             E::done(2, 8), E::start(1), E::done(1, 2)});
  CHECK(t.total_s == 10);
  REQUIRE(t.pairs.size() == 3);
  CHECK(t.pairs[0].exposed_s == 0);
  CHECK(t.pairs[1].exposed_s == 3);
  CHECK(t.pairs[2].exposed_s == 2);
  CHECK(t.exposed_s == 5);
  CHECK(t.total_s == t.busy_s + t.exposed_s);
  CHECK(timing({}).total_s == 0);
}

TEST_CASE("queued pairs run their work one at a time, in the order of their starts") {
  // Three copies of 2 s started together on queue 1, one of 3 s on queue 2, then 1 s of work
  // and the dones in order. Queue 1 runs [0, 2], [2, 4], [4, 6]; queue 2 runs [0, 3] beside it.
  // Done a at 1: waits 1 -> 2. Done b: waits 4 - 2 = 2 -> 4. Done c: waits 2 -> 6. Done d: its
  // work ended at 3: no wait. Total 6 (unqueued: 3, every copy ending at 2 and d at 3).
  ScheduleTiming t = timing({E::queued_start(1, 1, 2), E::queued_start(2, 1, 2),
                             E::queued_start(3, 1, 2), E::queued_start(4, 2, 3), E::op(1),
                             E::done(1, 2), E::done(2, 0), E::done(3, 2), E::done(4, 3)});
  CHECK(t.total_s == 6);
  REQUIRE(t.pairs.size() == 4);
  CHECK(t.pairs[0].queued_s == 0);
  CHECK(t.pairs[1].queued_s == 2);
  CHECK(t.pairs[2].queued_s == 4);
  CHECK(t.pairs[3].queued_s == 0);
  CHECK(t.pairs[0].exposed_s == 1);
  CHECK(t.pairs[1].exposed_s == 2);
  CHECK(t.pairs[2].exposed_s == 2);
  CHECK(t.pairs[3].exposed_s == 0);
  // The span (queue wait and work) is either hidden or exposed: b's 4 s = 2 s + 2 s.
  CHECK(t.pairs[1].latency_s == 2);
  CHECK(t.pairs[1].hidden_s == 2);
  for (const AsyncPairTiming& p : t.pairs) {
    CHECK(p.hidden_s + p.exposed_s == p.queued_s + p.latency_s);
  }
  CHECK(t.total_s == t.busy_s + t.exposed_s);
  // A queue frees as its work ends: a copy started after the engine is idle waits for nothing
  // (start at 0, 2 s of work, op 5, done; start at 5: its 2 s run at once, 2 s exposed: 7).
  ScheduleTiming idle = timing({E::queued_start(1, 1, 2), E::op(5), E::done(1, 0),
                                E::queued_start(2, 1, 2), E::done(2, 0)});
  CHECK(idle.pairs[1].queued_s == 0);
  CHECK(idle.total_s == 7);
}

TEST_CASE("async work shares the memory with the ops it overlaps") {
  // The example of schedule_clock.h: start (its work holds the memory 4 s), op 3 (holding it
  // 3 s), op 2 (none), done (latency 4). In the 5 s between, the memory is free for 5 - 3 =
  // 2 s: the work's other 2 s wait after the ops. Latency alone would hide it (4 < 5).
  E start = E::start(1);
  start.hbm_s = 4;
  E a = E::op(3);
  a.hbm_s = 3;
  ScheduleTiming t = timing({start, a, E::op(2), E::done(1, 4)});
  CHECK(t.total_s == 7);
  REQUIRE(t.pairs.size() == 1);
  CHECK(t.pairs[0].contended_s == 2);
  CHECK(t.pairs[0].exposed_s == 2);
  CHECK(t.pairs[0].hidden_s == 2);
  CHECK(t.hbm_s == 7);  // the op's 3 s and the work's 4 s
  // Ops that leave the memory free hide it: op 2 holding none, op 3 holding 1: free 4 s.
  E light = E::op(3);
  light.hbm_s = 1;
  CHECK(timing({start, light, E::op(2), E::done(1, 4)}).total_s == 5);
  // The wait is the longer of the latency's and the memory's: latency 9 leaves 4 s to wait
  // beyond the 5 s of ops, more than the memory's 2 s.
  CHECK(timing({start, a, E::op(2), E::done(1, 9)}).total_s == 9);
  // Two pairs in one window: the second finds the memory the first's work took.
  E second = E::start(2);
  second.hbm_s = 1;
  E wide = E::op(6);
  wide.hbm_s = 2;
  // Free 6 - 2 = 4 s: the first work's 4 s fit (done at 6); the second then finds none left
  // (its window 6 s held by the op's 2 and the first's 4): it waits its 1 s. Total 7.
  ScheduleTiming both = timing({start, second, wide, E::done(1, 4), E::done(2, 1)});
  CHECK(both.pairs[0].exposed_s == 0);
  CHECK(both.pairs[1].contended_s == 1);
  CHECK(both.total_s == 7);
}

TEST_CASE("malformed schedules are errors") {
  CHECK_THAT(error({E::done(3, 1)}), Contains("event 0: done of async id 3 has no open start"));
  CHECK_THAT(error({E::start(3), E::start(3)}), Contains("async id 3 is started again"));
  CHECK_THAT(error({E::start(3), E::op(1)}), Contains("async id 3 is started but never done"));
  CHECK_THAT(error({E::op(-1)}), Contains("event 0: cost and latency must be finite"));
  E held = E::op(1);
  held.hbm_s = -1;
  CHECK_THAT(error({held}), Contains("event 0: memory occupancy must be finite"));
  CHECK_THAT(error({E::start(1), E::done(1, std::nan(""))}), Contains("event 1"));
  CHECK_THAT(error({E::queued_start(1, -1, 1), E::done(1, 0)}), Contains("queue -1 is negative"));
  CHECK_THAT(error({E::queued_start(1, 1, 2), E::done(1, 3)}),
             Contains("done of queued async id 1 gives latency 3 s, its start 2 s"));
}

}  // namespace
}  // namespace hloroof
