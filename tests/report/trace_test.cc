// The trace is well-formed Chrome trace-event JSON.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

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

// The document the writer's text stands for, built as a JSON value and dumped: keys sorted,
// the last of equal keys kept, invalid UTF-8 replaced, non-finite numbers null.
TEST_CASE("the trace text is nlohmann's dump of the same document") {
  using nlohmann::json;
  TraceBuilder t;
  const int a = t.add_track("tab\there \"q\" back\\slash \x01 \xc3\xa9 \xff");
  t.add_slice(a, "s\r\n\b\f\x7f", 1.5e-6, 0.25e-6,
              {{"zeta", 1e300}, {"alpha", int64_t{-7}}, {"alpha", 2.0}, {"nan", std::nan("")},
               {"text", std::string("a\x1f" "b\xe2\x82")}, {"Upper", std::string()}});
  t.add_slice(a, "second", 0, 1e-3);
  t.add_counter("c", 2e-6, 12345678901.0);
  t.add_counter("c", 1e-6, -0.0);

  json events = json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
                    {"args", {{"name", "hloroof predicted step"}}}});
  events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_name"},
                    {"args", {{"name", "tab\there \"q\" back\\slash \x01 \xc3\xa9 \xff"}}}});
  events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_sort_index"},
                    {"args", {{"sort_index", 0}}}});
  // "second" starts first; the counters in time order.
  events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 0}, {"name", "second"}, {"ts", 0.0},
                    {"dur", 1e-3 * 1e6}, {"args", json::object()}});
  events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 0}, {"name", "s\r\n\b\f\x7f"},
                    {"ts", 1.5e-6 * 1e6}, {"dur", 0.25e-6 * 1e6},
                    {"args", {{"zeta", 1e300}, {"alpha", 2.0}, {"nan", std::nan("")},
                              {"text", "a\x1f" "b\xe2\x82"}, {"Upper", ""}}}});
  events.push_back({{"ph", "C"}, {"pid", 1}, {"name", "c"}, {"ts", 1e-6 * 1e6},
                    {"args", {{"value", -0.0}}}});
  events.push_back({{"ph", "C"}, {"pid", 1}, {"name", "c"}, {"ts", 2e-6 * 1e6},
                    {"args", {{"value", 12345678901.0}}}});
  const json trace = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  CHECK(t.to_json() == trace.dump(-1, ' ', false, json::error_handler_t::replace));
}

// Args given in the order of their keys are written as they come; keys whose first bytes tie,
// or a byte above 0x7f (after ASCII, as std::string orders it), out of order or twice, are
// sorted first: either way the text is nlohmann's dump.
TEST_CASE("slice args in key order, or not, read as nlohmann's dump") {
  using nlohmann::json;
  using Args = std::vector<TraceBuilder::Arg>;
  const std::vector<Args> cases = {
      {{"bound", std::string("memory")}, {"hbm_bytes", 1.0}, {"hidden_s", 2.5},
       {"host_bytes", int64_t{3}}, {"z", 4.0}, {"\xc3\xa9", 5.0}},
      {{"hidden_s", 2.5}, {"hbm_bytes", 1.0}, {"host_bytes", int64_t{3}}},
      {{"\xc3\xa9", 5.0}, {"z", 4.0}},
      {{"a", 1.0}, {"a", 2.0}, {"b", 3.0}},
      {{"", 1.0}, {"a", 2.0}},
  };
  for (const Args& args : cases) {
    TraceBuilder t;
    const int a = t.add_track("compute");
    json object = json::object();
    for (const auto& [key, value] : args) {
      std::visit([&](const auto& v) { object[key] = v; }, value);
    }
    t.add_slice(a, "s", 0, 1e-6, args);
    json events = json::array();
    events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
                      {"args", {{"name", "hloroof predicted step"}}}});
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_name"},
                      {"args", {{"name", "compute"}}}});
    events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_sort_index"},
                      {"args", {{"sort_index", 0}}}});
    events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 0}, {"name", "s"}, {"ts", 0.0},
                      {"dur", 1e-6 * 1e6}, {"args", object}});
    const json trace = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
    CHECK(t.to_json() == trace.dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

// Counters at the times slices start copy the text written for those starts: more distinct
// starts than the writer's table of numbers holds (4096), counters at each of them, between
// them, and at 0 and -0 (two texts), read as nlohmann's dump of the same document.
TEST_CASE("counters at the slices' start times read as those times written anew") {
  using nlohmann::json;
  TraceBuilder t;
  const int a = t.add_track("compute");
  json events = json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"name", "process_name"},
                    {"args", {{"name", "hloroof predicted step"}}}});
  events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_name"},
                    {"args", {{"name", "compute"}}}});
  events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_sort_index"},
                    {"args", {{"sort_index", 0}}}});
  json counters = json::array();
  auto counter = [&](double time_s, double value) {
    t.add_counter("c", time_s, value);
    counters.push_back({{"ph", "C"}, {"pid", 1}, {"name", "c"}, {"ts", time_s * 1e6},
                        {"args", {{"value", value}}}});
  };
  counter(-0.0, 1);
  counter(0.0, 2);
  for (int k = 0; k < 6000; ++k) {
    const double start = k / 7.0 * 1e-6;  // fractions: written through grisu2
    t.add_slice(a, "s", start, 1e-7);
    events.push_back({{"ph", "X"}, {"pid", 1}, {"tid", 0}, {"name", "s"}, {"ts", start * 1e6},
                      {"dur", 1e-7 * 1e6}, {"args", json::object()}});
    counter(start, k);
    if (k % 3 == 0) counter(start + 1e-9, k);
  }
  for (json& c : counters) events.push_back(std::move(c));
  const json trace = {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
  CHECK(t.to_json() == trace.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace
}  // namespace hloroof
