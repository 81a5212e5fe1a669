// The trace is well-formed Chrome trace-event JSON.
#include <catch2/catch.hpp>

#include "hloroof/trace.h"
#include "nlohmann/json.hpp"

namespace hloroof {
namespace {

TEST_CASE("trace has named tracks, ordered slices with args, and counters") {
  TraceBuilder t;
  int compute = t.add_track("compute");
  int comms = t.add_track("async collectives");
  t.add_slice(compute, "fusion.2", 3e-6, 2e-6, {{"flops", 1e9}, {"bound", std::string("memory")}});
  t.add_slice(compute, "while.1", 0, 10e-6);
  t.add_slice(comms, "all-gather-start.1", 1e-6, 4e-6, {{"payload_bytes", int64_t{4096}}});
  t.add_counter("cumulative FLOPs", 5e-6, 1e9);
  t.add_counter("cumulative FLOPs", 0, 0);
  t.add_slice(compute, "bad \xff name", 11e-6, 1e-6);  // invalid UTF-8 must not throw

  auto j = nlohmann::json::parse(t.to_json());
  const auto& events = j["traceEvents"];
  std::vector<std::string> names;
  double last_ts = -1;
  int slices = 0, counters = 0, thread_names = 0;
  for (const auto& e : events) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e["pid"] == 1);
    if (e["ph"] == "M" && e["name"] == "thread_name") ++thread_names;
    if (e["ph"] == "X") {
      ++slices;
      CHECK(e["ts"].get<double>() >= last_ts);  // ordered by start time
      last_ts = e["ts"].get<double>();
      CHECK(e["dur"].get<double>() >= 0);
      names.push_back(e["name"]);
    }
    if (e["ph"] == "C") ++counters;
  }
  CHECK(thread_names == 2);
  CHECK(slices == 4);
  CHECK(counters == 2);
  // while.1 starts at 0 and encloses fusion.2 (3 us .. 5 us), so it comes first.
  CHECK(names.front() == "while.1");
  // Times are microseconds.
  for (const auto& e : events) {
    if (e["ph"] == "X" && e["name"] == "fusion.2") {
      CHECK(e["ts"].get<double>() == Approx(3.0));
      CHECK(e["dur"].get<double>() == Approx(2.0));
      CHECK(e["args"]["bound"] == "memory");
      CHECK(e["args"]["flops"].get<double>() == Approx(1e9));
    }
  }
}

}  // namespace
}  // namespace hloroof
