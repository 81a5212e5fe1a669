// Reading profiles and joining them with predictions, on small profiles written by hand.
#include "hloroof/profile.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "hloroof/hlo_text.h"
#include "nlohmann/json.hpp"
#include "predict_on.h"
#include "profile_test_util.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;
using testing::kStepModule;
using testing::kStepTraceJson;
using testing::step_xspace;
using testing::TempDir;
using testing::write_file;

constexpr double us = 1e-6;

const MeasuredOp* find_op(const MeasuredModule& m, std::string_view name) {
  for (const MeasuredOp& op : m.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const JoinedOp* find_joined(const ProfileComparison& c, std::string_view name) {
  for (const JoinedOp& op : c.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

const OpPrediction* find_predicted(const Prediction& p, std::string_view name) {
  for (const OpPrediction& op : p.ops) {
    if (op.name() == name) return &op;
  }
  return nullptr;
}

TEST_CASE("XSpace: GPU kernels join their ops through hlo_op, steps by module executions") {
  absl::StatusOr<Profile> p = parse_xspace(step_xspace(), "step.xplane.pb");
  REQUIRE_OK(p);
  CHECK(p->format == "xplane");
  CHECK(p->planes.size() == 3);
  absl::StatusOr<MeasuredModule> m = measure_module(*p, "jit_step");
  REQUIRE_OK(m);
  CHECK(m->plane == "/device:GPU:0");
  CHECK(m->steps == 3);
  REQUIRE(m->steps_s.size() == 3);
  CHECK(m->steps_s[1] == Approx(60 * us));
  CHECK(m->step_s == Approx(55 * us));  // the median of 50, 60, 55
  REQUIRE(m->ops.size() == 3);
  // dot.1: (20 + 26 + 20) / 3 = 22 us per step, one kernel.
  const MeasuredOp* dot = find_op(*m, "dot.1");
  REQUIRE(dot != nullptr);
  CHECK(dot->time_s == Approx(22 * us));
  CHECK(dot->occurrences == 1);
  CHECK(dot->kernels == 1);
  // add.fusion: two kernels (one hlo_op written "%add.fusion"), 4 + 2 = 6 us: one execution
  // a step (each kernel runs once), two launches.
  const MeasuredOp* add = find_op(*m, "add.fusion");
  REQUIRE(add != nullptr);
  CHECK(add->time_s == Approx(6 * us));
  CHECK(add->occurrences == 1);
  CHECK(add->launches == 2);
  CHECK(add->kernels == 2);
  CHECK(find_op(*m, "memset.7")->time_s == Approx(1 * us));
  CHECK(find_op(*m, "fusion.9") == nullptr);  // another module's kernel
  // The median step (at 200 us): busy [1,21] + [25,29] + [30,32] + [40,41] = 27 us.
  CHECK(m->busy_s == Approx(27 * us));
  REQUIRE(m->median_step.size() == 4);
  CHECK(m->median_step[0].op == "dot.1");
  CHECK(m->median_step[0].start_s == Approx(1 * us));
  CHECK(m->median_step[0].track == "Stream #7(compute)");

  // Device 1: every kernel twice as long; dot.1 (40 + 52 + 40) / 3 = 44 us.
  absl::StatusOr<MeasuredModule> m1 = measure_module(*p, "jit_step", {.device_index = 1});
  REQUIRE_OK(m1);
  CHECK(m1->plane == "/device:GPU:1");
  CHECK(find_op(*m1, "dot.1")->time_s == Approx(44 * us));
}

TEST_CASE("the join: measured, expected and roofline per op, gaps per category") {
  absl::StatusOr<Module> module = parse_module(kStepModule);
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> prediction = testing::predict_on(*module, "h100");
  REQUIRE_OK(prediction);
  absl::StatusOr<Profile> profile = parse_xspace(step_xspace(), "step.xplane.pb");
  REQUIRE_OK(profile);
  absl::StatusOr<ProfileComparison> c = compare_with_profile(*module, *prediction, *profile);
  REQUIRE_OK(c);
  CHECK(c->steps == 3);
  CHECK(c->measured_step_s == Approx(55 * us));
  CHECK(c->expected_step_s == prediction->step_time_s);
  CHECK(c->roofline_step_s == prediction->roofline_step_time_s);
  CHECK(c->busy_s == Approx(27 * us));
  CHECK(c->idle_s == Approx(28 * us));  // 55 - 27

  const OpPrediction* pdot = find_predicted(*prediction, "dot.1");
  const OpPrediction* padd = find_predicted(*prediction, "add.fusion");
  REQUIRE(pdot != nullptr);
  REQUIRE(padd != nullptr);
  // H100 roofline, the floor (a launch overlaps its work): dot 2 x 2048^3 / 9.89e14 = 17.37 us;
  // add: its 8 MiB read may come from L2, 8 MiB / 6.5e12 = 1.291 us, longer than its 4 MiB
  // written at HBM's 3.35e12 (1.252 us).
  CHECK(pdot->roofline_time_s == Approx(2.0 * 2048 * 2048 * 2048 / 9.89e14));
  CHECK(padd->roofline_time_s == Approx(8.0 * 1024 * 1024 / 6.5e12));
  // Expected: the add at 0.87 of HBM bandwidth, 3.756 / 0.87 = 4.317 us + 1 us = 5.317 us,
  // lost 6 - 5.317 = 0.683 us. The dot from H100's measured GEMM table, whose row
  // bf16 1x2048x2048x2048 runs at 6.41e14 FLOP/s: 1.718e10 / 6.41e14 = 26.80 us + 1 us =
  // 27.80 us; the table is read through a regression over the nearest measured shapes, so
  // the dot's time is that row's within 15%, above the roofline. Measured 22 us, the dot
  // beats its expectation (loses a negative time) and ranks after the add.
  CHECK(padd->time_s == Approx(3.0 * 4 * 1024 * 1024 / (0.87 * 3.35e12) + 1e-6));
  CHECK(pdot->model() == "gemm table h100 (measured, interpolated)");
  CHECK(pdot->time_s == Approx(2.0 * 2048 * 2048 * 2048 / 6.41e14 + 1e-6).epsilon(0.15));
  CHECK(pdot->time_s > pdot->roofline_time_s);
  REQUIRE(c->ops.size() == 2);
  CHECK(c->ops[0].name == "add.fusion");  // ranked by time lost
  CHECK(c->ops[1].name == "dot.1");
  const JoinedOp* dot = find_joined(*c, "dot.1");
  CHECK(dot->measured_s == Approx(22 * us));
  CHECK(dot->expected_s == pdot->time_s);
  CHECK(dot->roofline_s == pdot->roofline_time_s);
  CHECK(dot->roofline_s < dot->expected_s);
  CHECK(dot->lost_s == Approx(22 * us - pdot->time_s));
  CHECK(dot->lost_s < 0);
  CHECK(dot->bound == "compute");
  CHECK(dot->opcode == "dot");
  const JoinedOp* add = find_joined(*c, "add.fusion");
  CHECK(add->measured_s == Approx(6 * us));
  CHECK(add->expected_s == padd->time_s);
  CHECK(add->roofline_s == padd->roofline_time_s);
  CHECK(add->occurrences == 1);
  CHECK(add->launches == 2);
  CHECK(add->predicted_occurrences == 1);
  CHECK(add->kernels == 2);
  CHECK(add->lost_s == Approx(0.683 * us).epsilon(0.01));
  CHECK(add->bound == "memory");

  // memset.7 is in the profile only.
  REQUIRE(c->unmatched.size() == 1);
  CHECK(c->unmatched[0].name == "memset.7");
  CHECK(c->unmatched[0].side == "measured");
  CHECK(c->unmatched[0].time_s == Approx(1 * us));

  // Gaps: matmul 22 us vs dot's expectation, memory-bound 6 us vs add's, other ops the
  // unmatched 1 us, no collectives, idle 28 us.
  REQUIRE(c->gaps.size() == 5);
  CHECK(c->gaps[0].category == "matmul");
  CHECK(c->gaps[0].measured_s == Approx(22 * us));
  CHECK(c->gaps[0].expected_s == Approx(pdot->total_time_s()));
  CHECK(c->gaps[1].category == "memory-bound");
  CHECK(c->gaps[1].measured_s == Approx(6 * us));
  CHECK(c->gaps[2].category == "other ops");
  CHECK(c->gaps[2].measured_s == Approx(1 * us));
  CHECK(c->gaps[3].category == "collectives exposed");
  CHECK(c->gaps[3].measured_s == Approx(0).margin(1e-15));
  CHECK(c->gaps[4].category == "idle");
  CHECK(c->gaps[4].measured_s == Approx(28 * us));
  double expected = 0, moved = 0, share = 0;
  for (const GapRow& r : c->gaps) {
    expected += r.expected_s, moved += std::abs(r.gap_s), share += std::abs(r.share);
  }
  CHECK(expected == Approx(c->expected_step_s));  // the expected rows make up the step
  // Each share is the category's gap over the gaps' sizes added up: the sizes' shares make 1.
  CHECK(share == Approx(1));
  for (const GapRow& r : c->gaps) CHECK(r.share == Approx(r.gap_s / moved));
  // idle: 28 us measured, none expected; its share is 28 us over every gap's size.
  CHECK(c->gaps[4].share == Approx(28 * us / moved));
}

TEST_CASE("an async collective is measured on its start, expected to take its latency") {
  constexpr std::string_view kText = R"(HloModule jit_ar, replica_count=8

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p0 = f32[1048576]{0} parameter(0)
  ars = f32[1048576]{0} all-reduce-start(p0), replica_groups={{0,1,2,3,4,5,6,7}}, to_apply=sum
  ROOT ard = f32[1048576]{0} all-reduce-done(ars)
}
)";
  absl::StatusOr<Module> module = parse_module(kText);
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> prediction = testing::predict_on(*module, "h100:8");
  REQUIRE_OK(prediction);
  const OpPrediction* start = find_predicted(*prediction, "ars");
  REQUIRE(start != nullptr);
  REQUIRE(start->async.has_value());
  REQUIRE(start->async->latency_s > 0);

  // One step of 40 us; the NCCL kernel runs 30 us from +1 us, nothing else runs.
  xplane::XSpace space;
  testing::PlaneWriter gpu(space.add_planes(), "/device:GPU:0");
  xplane::XLine* modules = gpu.line("XLA Modules");
  xplane::XLine* stream = gpu.line("Stream #9(nccl)");
  gpu.event(modules, "jit_ar(1)", 0, 40);
  gpu.event(stream, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1, 30, "ars");
  std::string bytes;
  REQUIRE(space.SerializeToString(&bytes));
  absl::StatusOr<Profile> profile = parse_xspace(bytes, "ar.xplane.pb");
  REQUIRE_OK(profile);
  absl::StatusOr<ProfileComparison> c = compare_with_profile(*module, *prediction, *profile);
  REQUIRE_OK(c);
  REQUIRE(c->ops.size() == 1);
  CHECK(c->ops[0].name == "ars");
  CHECK(c->ops[0].measured_s == Approx(30 * us));
  CHECK(c->ops[0].expected_s == start->async->latency_s);
  CHECK(c->ops[0].bound == "collective");
  CHECK(c->unmatched.empty());  // the done's wait is part of the start's work
  const GapRow& collectives = c->gaps[3];
  CHECK(collectives.category == "collectives exposed");
  CHECK(collectives.measured_s == Approx(30 * us));  // nothing else runs beside it
  CHECK(collectives.expected_s == Approx(prediction->breakdown.collective_exposed_s));
  CHECK(c->idle_s == Approx(10 * us));  // 40 - 30
}

TEST_CASE("JSON and trace outputs of the join") {
  absl::StatusOr<Module> module = parse_module(kStepModule);
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> prediction = testing::predict_on(*module, "h100");
  REQUIRE_OK(prediction);
  absl::StatusOr<Profile> profile = parse_xspace(step_xspace(), "step.xplane.pb");
  REQUIRE_OK(profile);
  absl::StatusOr<ProfileComparison> c = compare_with_profile(*module, *prediction, *profile);
  REQUIRE_OK(c);
  const nlohmann::json j = nlohmann::json::parse(profile_comparison_to_json(*c));
  CHECK(j["step"]["measured_s"].get<double>() == Approx(55 * us));
  CHECK(j["step"]["expected_s"].get<double>() == prediction->step_time_s);
  CHECK(j["step"]["roofline_s"].get<double>() == prediction->roofline_step_time_s);
  CHECK(j["idle_s"].get<double>() == Approx(28 * us));
  REQUIRE(j["ops"].size() == 2);
  for (const char* key :
       {"name", "opcode", "measured_s", "expected_s", "roofline_s", "occurrences", "launches",
        "bound"}) {
    CHECK(j["ops"][0].contains(key));
  }
  // Ranked by time lost: add.fusion (6 - 5.317 = 0.683 us) before dot.1 (below its expected).
  CHECK(j["ops"][0]["name"] == "add.fusion");
  CHECK(j["ops"][0]["occurrences"].get<double>() == 1);
  CHECK(j["ops"][0]["launches"].get<double>() == 2);
  const OpPrediction* pdot = find_predicted(*prediction, "dot.1");
  REQUIRE(pdot != nullptr);
  CHECK(j["ops"][1]["name"] == "dot.1");
  CHECK(j["ops"][1]["expected_s"].get<double>() == pdot->time_s);
  CHECK(j["ops"][1]["roofline_s"].get<double>() == pdot->roofline_time_s);
  CHECK(j["unmatched"][0]["name"] == "memset.7");

  const nlohmann::json trace =
      nlohmann::json::parse(profile_comparison_to_trace_json(*c, *prediction));
  std::map<int64_t, std::string> tracks;
  std::vector<std::pair<std::string, std::string>> slices;  // track, name
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      tracks[e["tid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
    }
  }
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "X") slices.emplace_back(tracks[e["tid"].get<int64_t>()], e["name"]);
  }
  auto has = [&](std::string_view track, std::string_view name) {
    return std::find(slices.begin(), slices.end(),
                     std::pair{std::string(track), std::string(name)}) != slices.end();
  };
  CHECK(has("measured: Stream #7(compute)", "dot.1"));
  CHECK(has("predicted: compute", "dot.1"));
  CHECK(has("measured: Stream #7(compute)", "add.fusion"));
  CHECK(has("predicted: compute", "add.fusion"));

  const std::string text = render_profile_comparison(*c);
  CHECK(absl::StrContains(text, "memset.7"));
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    CHECK(line.size() <= 100);
  }
}

TEST_CASE("trace-event JSON, gzipped: TPU ops by name, loop events count as their children") {
  TempDir dir;
  const auto run = dir.path() / "plugins" / "profile" / "2026_01_01_00_00_00";
  write_file(run / "perfetto_trace.json.gz", testing::gzip(std::string(kStepTraceJson)));
  absl::StatusOr<Profile> p = read_profile(dir.path().string());
  REQUIRE_OK(p);
  CHECK(p->format == "trace-json");
  absl::StatusOr<MeasuredModule> m = measure_module(*p, "jit_step");
  REQUIRE_OK(m);
  CHECK(m->plane == "/device:TPU:0");
  CHECK(m->steps == 2);
  CHECK(m->step_s == Approx(40 * us));  // the lower of 40 and 44
  REQUIRE(m->ops.size() == 2);          // while.3 encloses ops: not an op of its own
  CHECK(find_op(*m, "dot.1")->time_s == Approx(32 * us));  // (30 + 34) / 2
  CHECK(find_op(*m, "add.fusion")->time_s == Approx(5 * us));
  CHECK(m->busy_s == Approx(35 * us));  // step 0: [2,32] + [33,38]

  absl::StatusOr<Module> module = parse_module(kStepModule);
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> prediction = testing::predict_on(*module, "tpu_v5e");
  REQUIRE_OK(prediction);
  absl::StatusOr<ProfileComparison> c = compare_with_profile(*module, *prediction, *p);
  REQUIRE_OK(c);
  CHECK(c->idle_s == Approx(5 * us));  // 40 - 35
  CHECK(c->unmatched.empty());
  CHECK(find_joined(*c, "dot.1")->measured_s == Approx(32 * us));

  // The same text, not gzipped, read as a file.
  write_file(dir.path() / "plain.trace.json", std::string(kStepTraceJson));
  absl::StatusOr<Profile> plain = read_profile((dir.path() / "plain.trace.json").string());
  REQUIRE_OK(plain);
  CHECK(plain->planes.size() == p->planes.size());
}

TEST_CASE("read_profile takes the file, the run folder, the profile directory, a capture") {
  TempDir dir;
  const std::string bytes = step_xspace();
  const auto run = dir.path() / "trace" / "plugins" / "profile" / "2026_05_01_10_00_00";
  write_file(run / "host0.xplane.pb", bytes);
  // An older run with a JSON trace only: the newest run is read.
  write_file(dir.path() / "trace" / "plugins" / "profile" / "2025_01_01_00_00_00" /
                 "perfetto_trace.json.gz",
             testing::gzip(std::string(kStepTraceJson)));
  for (const std::filesystem::path& path : {run / "host0.xplane.pb", run, dir.path() / "trace"}) {
    absl::StatusOr<Profile> p = read_profile(path.string());
    REQUIRE_OK(p);
    CHECK(p->format == "xplane");
    CHECK(absl::EndsWith(p->origin, "host0.xplane.pb"));
  }
  // A capture folder: DIR/profile/plugins/profile/RUN.
  const auto capture = dir.path() / "capture";
  write_file(capture / "profile" / "plugins" / "profile" / "r1" / "h.xplane.pb", bytes);
  absl::StatusOr<Profile> p = read_profile(capture.string());
  REQUIRE_OK(p);
  CHECK(p->format == "xplane");

  std::filesystem::create_directories(dir.path() / "empty");
  absl::StatusOr<Profile> none = read_profile((dir.path() / "empty").string());
  CHECK(none.status().code() == absl::StatusCode::kNotFound);
  CHECK(absl::StrContains(none.status().message(), "xplane.pb"));
}

// Every plane, line and event of two profiles, field by field.
void check_same_profile(const Profile& a, const Profile& b) {
  REQUIRE(a.planes.size() == b.planes.size());
  for (size_t k = 0; k < a.planes.size(); ++k) {
    CHECK(a.planes[k].name == b.planes[k].name);
    REQUIRE(a.planes[k].lines.size() == b.planes[k].lines.size());
    for (size_t l = 0; l < a.planes[k].lines.size(); ++l) {
      const ProfileLine& x = a.planes[k].lines[l];
      const ProfileLine& y = b.planes[k].lines[l];
      CHECK(x.name == y.name);
      REQUIRE(x.events.size() == y.events.size());
      for (size_t e = 0; e < x.events.size(); ++e) {
        CHECK(x.events[e].name == y.events[e].name);
        CHECK(x.events[e].start_s == y.events[e].start_s);
        CHECK(x.events[e].duration_s == y.events[e].duration_s);
        CHECK(x.events[e].hlo_op == y.events[e].hlo_op);
        CHECK(x.events[e].hlo_module == y.events[e].hlo_module);
        CHECK(x.events[e].correlation_id == y.events[e].correlation_id);
      }
    }
  }
}

TEST_CASE("a trace gzipped in several members reads whole, as zcat reads it") {
  const std::string text(kStepTraceJson);
  absl::StatusOr<Profile> whole = parse_trace_json(testing::gzip(text), "one.json.gz");
  REQUIRE_OK(whole);
  // `cat a.gz b.gz c.gz`: the members' texts one after the other. Its later members were
  // ignored (the first third alone is not JSON).
  const size_t third = text.size() / 3;
  const std::string members = testing::gzip(text.substr(0, third)) +
                              testing::gzip(text.substr(third, third)) +
                              testing::gzip(text.substr(2 * third));
  absl::StatusOr<Profile> cat = parse_trace_json(members, "cat.json.gz");
  INFO(cat.status().ToString());
  REQUIRE_OK(cat);
  check_same_profile(*whole, *cat);
  CHECK(!whole->planes.empty());
  // A member cut short is still an error.
  absl::StatusOr<Profile> cut =
      parse_trace_json(members.substr(0, members.size() - 10), "cut.json.gz");
  REQUIRE(!cut.ok());
  CHECK_THAT(std::string(cut.status().message()), Contains("gzip stream is truncated"));
}

TEST_CASE("trace JSON: keys given twice keep their last value, odd types are absent") {
  // As the JSON document reads: the last "ph", "args" and "ts" count; a "name" that is an
  // object is no name; "pid" numbers print as integers; an args that is not an object has no
  // fields; a second "traceEvents" replaces the first.
  absl::StatusOr<Profile> p = parse_trace_json(
      R"({"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1}],
          "traceEvents": [
            {"ph": "B", "ph": "X", "pid": 7, "tid": "t", "ts": "x", "ts": 3, "dur": 2,
             "name": {"a": [1, {"b": 2}]}, "args": {"hlo_op": "old"},
             "args": {"hlo_op": "fusion.1", "hlo_module": 12, "correlation_id": 99,
                      "deep": [{"hlo_op": "no"}]}},
            {"ph": "X", "pid": 7.5, "tid": true, "ts": 0, "dur": 0, "name": "k",
             "args": "not an object"},
            {"ph": "M", "pid": 7, "name": "process_name", "args": {"name": "/device:GPU:0"}},
            {"ph": "M", "pid": 7, "tid": "t", "name": "thread_name", "args": {"name": "s1"}}
          ]})",
      "dup.json");
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  REQUIRE(p->planes.size() == 2);
  CHECK(p->planes[0].name == "/device:GPU:0");
  REQUIRE(p->planes[0].lines.size() == 1);
  CHECK(p->planes[0].lines[0].name == "s1");
  const ProfileEvent& e = p->planes[0].lines[0].events.at(0);
  CHECK(e.name.empty());
  CHECK(e.start_s == Approx(3e-6));
  CHECK(e.duration_s == Approx(2e-6));
  CHECK(e.hlo_op == "fusion.1");
  CHECK(e.hlo_module == "12");
  CHECK(e.correlation_id == 99);
  CHECK(p->planes[1].name == "pid 7.5");
  CHECK(p->planes[1].lines[0].name == "tid ");
  CHECK(p->planes[1].lines[0].events.at(0).hlo_op.empty());
}

TEST_CASE("XSpace: names that are not UTF-8 are read, their bad bytes replaced") {
  xplane::XSpace space;
  testing::PlaneWriter gpu(space.add_planes(), "/device:GPU:0\xfe");
  xplane::XLine* line = gpu.line("stream\xff");
  gpu.event(line, "kernel\xff\xfe", 1, 2, "fusion\xc3");
  const std::string bytes = space.SerializeAsString();
  absl::StatusOr<Profile> p = parse_xspace(bytes, "bad.xplane.pb");
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  const std::string kBad = "\xef\xbf\xbd";  // U+FFFD
  CHECK(p->planes.at(0).name == "/device:GPU:0" + kBad);
  CHECK(p->planes[0].lines.at(0).name == "stream" + kBad);
  const ProfileEvent& e = p->planes[0].lines[0].events.at(0);
  CHECK(e.name == "kernel" + kBad + kBad);
  CHECK(e.hlo_op == "fusion" + kBad);
  CHECK(device_plane(*p, 0).ok());
}

TEST_CASE("profiles past the bounds are refused before they are decoded") {
  // Planes: 4097 empty ones (2 bytes each: field 1, length 0).
  std::string planes;
  for (int i = 0; i < 4097; ++i) planes += std::string("\x0a\x00", 2);
  absl::StatusOr<Profile> p = parse_xspace(planes, "planes.xplane.pb");
  REQUIRE(!p.ok());
  CHECK(std::string(p.status().message()) ==
        "planes.xplane.pb: holds more than 4096 planes (devices and hosts), more than hloroof "
        "reads from one profile");
  CHECK(parse_xspace(planes.substr(2), "planes.xplane.pb").ok());  // 4096 are read
  // Events: 2^23 + 1 empty events in one line of one plane. The line (field 3 of the plane)
  // and the plane (field 1) are each a tag, a length and the bytes.
  const std::string events = [] {
    std::string e;
    for (int i = 0; i < (1 << 23) + 1; ++i) e += std::string("\x22\x00", 2);
    return e;
  }();
  auto wrap = [](int field, const std::string& payload) {
    std::string out(1, static_cast<char>(field << 3 | 2));
    for (uint64_t n = payload.size(); ; n >>= 7) {
      out += static_cast<char>((n & 0x7F) | (n >= 0x80 ? 0x80 : 0));
      if (n < 0x80) break;
    }
    return out + payload;
  };
  p = parse_xspace(wrap(1, wrap(3, events)), "events.xplane.pb");
  REQUIRE(!p.ok());
  CHECK_THAT(std::string(p.status().message()), Contains("holds more than 8388608 events"));
  // An error about a device lists 16 planes and counts the rest.
  std::string named;
  for (int i = 0; i < 20; ++i) named += wrap(1, wrap(2, "p" + std::to_string(i)));
  p = parse_xspace(named, "named.xplane.pb");
  REQUIRE_OK(p);
  absl::StatusOr<const ProfilePlane*> plane = device_plane(*p, 0);
  REQUIRE(!plane.ok());
  CHECK_THAT(std::string(plane.status().message()), Contains("'p14', 'p15' and 4 more."));
}

TEST_CASE("trace JSON past the bounds is refused, with what it passed") {
  // Text: a gzip bomb of whitespace is cut at 1 GiB of text, with constant memory. Members of
  // 64 MiB of spaces each, 17 of them: 1088 MiB.
  const std::string spaces = testing::gzip(std::string(size_t{64} << 20, ' '));
  std::string bomb = testing::gzip("[");
  for (int i = 0; i < 17; ++i) bomb += spaces;
  absl::StatusOr<Profile> p = parse_trace_json(bomb, "ws.json.gz");
  REQUIRE(!p.ok());
  CHECK(std::string(p.status().message()) ==
        "ws.json.gz: inflates to more than 1 GiB of JSON text, more than hloroof reads from one "
        "trace; not read");
  // A string of 16 MiB + 1 byte (the quotes count).
  const std::string long_string = "[\"" + std::string(size_t{16} << 20, 'a') + "\"]";
  p = parse_trace_json(long_string, "s.json");
  REQUIRE(!p.ok());
  CHECK_THAT(std::string(p.status().message()), Contains("holds a string longer than 16 MiB"));
  CHECK(parse_trace_json("[\"" + std::string((size_t{16} << 20) - 2, 'a') + "\"]", "s.json").ok());
}

TEST_CASE("profile errors say what is wrong") {
  absl::StatusOr<Profile> p = parse_xspace(step_xspace(), "step.xplane.pb");
  REQUIRE_OK(p);
  absl::StatusOr<MeasuredModule> m = measure_module(*p, "jit_train");
  REQUIRE(!m.ok());
  CHECK(absl::StrContains(m.status().message(), "'jit_step'"));  // the modules there are
  CHECK(absl::StrContains(m.status().message(), "--module"));
  m = measure_module(*p, "jit_train", {.module_name = "jit_step"});
  CHECK(m.ok());
  m = measure_module(*p, "jit_step", {.device_index = 7});
  REQUIRE(!m.ok());
  CHECK(absl::StrContains(m.status().message(), "'/device:GPU:1'"));
  CHECK(absl::StrContains(m.status().message(), "--device-index"));

  CHECK(!parse_xspace("\xff\xff\xff\xff garbage", "bad.xplane.pb").ok());
  CHECK(!parse_trace_json("{\"traceEvents\": 3}", "bad.json").ok());
  CHECK(!parse_trace_json("{\"other\": []}", "bad.json").ok());
  CHECK(!parse_trace_json("{not json", "bad.json").ok());
  const std::string gz = testing::gzip(std::string(kStepTraceJson));
  absl::StatusOr<Profile> cut = parse_trace_json(gz.substr(0, gz.size() / 2), "cut.json.gz");
  REQUIRE(!cut.ok());
  CHECK(absl::StrContains(cut.status().message(), "gzip"));
  std::string corrupt = gz;
  corrupt[gz.size() / 2] ^= 0x55;
  corrupt[gz.size() / 2 + 1] ^= 0x55;
  CHECK(!parse_trace_json(corrupt, "corrupt.json.gz").ok());
  // Events of odd shapes are skipped, not trusted.
  absl::StatusOr<Profile> odd = parse_trace_json(
      R"([{"ph": "X", "ts": "soon", "dur": 1}, {"ph": "X", "ts": 1, "dur": -5}, 7, null,
          {"ph": 5, "name": 3}, {"ph": "M", "name": "process_name", "args": "x"}])",
      "odd.json");
  REQUIRE_OK(odd);
  CHECK(odd->planes.empty());
}

}  // namespace
}  // namespace hloroof
