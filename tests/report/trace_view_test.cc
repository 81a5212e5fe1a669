// The predicted timeline is a well-formed Chrome trace: tracks, nested slices with their cost
// records, and counters of cumulative work (figures from sample_prediction.h).
#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/report.h"
#include "nlohmann/json.hpp"
#include "predict_on.h"
#include "sample_prediction.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using nlohmann::json;
using testing::sample_prediction;
using testing::set_text;

// Rounding slack when comparing microsecond sums: a picosecond.
constexpr double kSlackUs = 1e-6;

struct Parsed {
  std::map<int, std::string> tracks;        // tid -> name
  std::map<int, std::vector<json>> slices;  // tid -> slices in file order
  std::map<std::string, std::vector<json>> counters;
};

Parsed parse(const std::string& text) {
  Parsed p;
  json trace = json::parse(text);
  for (const json& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e.at("name") == "thread_name") p.tracks[e.at("tid")] = e["args"]["name"];
    if (ph == "X") p.slices[e.at("tid")].push_back(e);
    if (ph == "C") p.counters[e.at("name")].push_back(e);
  }
  return p;
}

// Every slice lasts a non-negative time, starts no earlier than the one before it on its track,
// and lies within every open slice it starts inside (slices nest, never straddle).
void check_well_formed(const Parsed& p) {
  for (const auto& [tid, slices] : p.slices) {
    std::vector<std::pair<double, double>> open;  // [start, end] of enclosing slices
    double last_start = -1;
    for (const json& s : slices) {
      const double start = s.at("ts"), dur = s.at("dur"), end = start + dur;
      INFO("track " << p.tracks.at(tid) << " slice " << s.at("name") << " at " << start);
      CHECK(dur >= 0);
      CHECK(start >= last_start);
      last_start = start;
      while (!open.empty() && start >= open.back().second - kSlackUs) open.pop_back();
      if (!open.empty()) {
        CHECK(start >= open.back().first - kSlackUs);
        CHECK(end <= open.back().second + kSlackUs);
      }
      open.push_back({start, end});
    }
  }
}

std::vector<json> slices_named(const Parsed& p, const std::string& name) {
  std::vector<json> out;
  for (const auto& [tid, slices] : p.slices) {
    for (const json& s : slices) {
      if (s.at("name") == name) out.push_back(s);
    }
  }
  return out;
}

TEST_CASE("trace has the compute and async tracks and a step slice") {
  Parsed p = parse(prediction_to_trace_json(sample_prediction()));
  REQUIRE(p.tracks.size() == 3);
  CHECK(p.tracks.at(0) == "Steps");
  CHECK(p.tracks.at(1) == "compute");
  CHECK(p.tracks.at(2) == "async all-gather");
  check_well_formed(p);
  auto step = slices_named(p, "predicted step");
  REQUIRE(step.size() == 1);
  CHECK(step[0]["dur"].get<double>() == Approx(12002));  // 12.002 ms in us
  CHECK(step[0]["args"]["device"] == "tpu_v5e");
  // fusion.embed, the done, while.1, 4 iterations of 3 ops, copy.3; the all-gather's stream.
  CHECK(p.slices.at(1).size() == 2 + 1 + 4 * 4 + 1);
  CHECK(p.slices.at(2).size() == 1);
}

TEST_CASE("op slices carry their cost records, iteration slices their depth") {
  Parsed p = parse(prediction_to_trace_json(sample_prediction()));
  auto conv = slices_named(p, "convolution.1");
  REQUIRE(conv.size() == 4);
  const json& args = conv[1]["args"];
  CHECK(conv[1]["ts"].get<double>() == Approx(4500));  // 2 ms + one 2.5 ms iteration
  CHECK(conv[1]["dur"].get<double>() == Approx(1000));
  CHECK(args["bound"] == "compute");
  CHECK(args["resource"] == "matrix");
  CHECK(args["category"] == "convolution fusion");
  CHECK(args["flops"].get<double>() == Approx(1.97e11));
  CHECK(args["hbm_bytes"].get<double>() == Approx(4.095e8));
  CHECK(args["occurrences"].get<double>() == 4);
  CHECK(args["op_name"] == "jit(train_step)/layer_0/attention/dot_general");
  CHECK_THAT(args["explanation"].get<std::string>(), Catch::Contains("1.97e14"));

  auto gather = slices_named(p, "all-gather-start.1");
  REQUIRE(gather.size() == 1);
  CHECK(gather[0]["args"]["collective"] == "all-gather");
  CHECK(gather[0]["args"]["group_size"] == 4);
  CHECK(gather[0]["args"]["exposed_s"].get<double>() == Approx(0.5e-3));
  CHECK(gather[0]["args"]["bound"] == "collective");

  auto iteration = slices_named(p, "while.1 iteration 2");
  REQUIRE(iteration.size() == 1);
  CHECK(iteration[0]["args"]["depth"] == 1);
  CHECK_FALSE(iteration[0]["args"].contains("flops"));
}

// An op's args are written as they are listed, which must be the order of their keys (the
// writer sorts no more): every optional one present, the text read back in its order holds
// them sorted, each once, and group_size as the integer it is.
TEST_CASE("an op's args come in the order of their keys") {
  Prediction prediction = sample_prediction();
  for (OpPrediction& op : prediction.ops) {
    op.host_bytes = 1;
    op.on_chip_bytes = 2;
    op.transcendentals = 3;
    if (op.computation().empty()) set_text(op, &OpTexts::computation, "main");
    if (op.op_name().empty()) set_text(op, &OpTexts::op_name, "jit(f)/op");
    if (op.explanation().empty()) set_text(op, &OpTexts::explanation, "why");
  }
  const nlohmann::ordered_json trace =
      nlohmann::ordered_json::parse(prediction_to_trace_json(prediction));
  bool collective_seen = false, async_seen = false;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "X" || !e.at("args").contains("opcode")) continue;
    std::vector<std::string> keys;
    for (const auto& [key, value] : e.at("args").items()) keys.push_back(key);
    INFO(e.at("name"));
    CHECK(std::is_sorted(keys.begin(), keys.end()));
    CHECK(std::adjacent_find(keys.begin(), keys.end()) == keys.end());
    CHECK(e.at("args").contains("transcendentals"));
    const bool async = e.at("args").contains("async.stream");
    async_seen = async_seen || async;
    if (e.at("args").contains("collective")) {
      collective_seen = true;
      // Every arg: 22 of the op and its collective, and 6 of an async pair's record.
      CHECK(keys.size() == (async ? 28u : 22u));
      CHECK(e.at("args").at("group_size").is_number_integer());
    }
  }
  CHECK(collective_seen);
  CHECK(async_seen);
}

TEST_CASE("counters accumulate FLOPs and HBM bytes to the step's totals") {
  const Prediction prediction = sample_prediction();
  Parsed p = parse(prediction_to_trace_json(prediction));
  for (const char* name : {"cumulative FLOPs", "cumulative HBM bytes"}) {
    INFO(name);
    const auto& samples = p.counters[name];
    // A zero at the start, then one sample as each op with work ends: fusion.embed, the
    // 4 x 3 loop ops and copy.3 (the all-gather's ops move no HBM bytes of their own).
    REQUIRE(samples.size() == 1 + 1 + 12 + 1);
    double last_ts = -1, last = -1;
    for (const json& s : samples) {
      CHECK(s["ts"].get<double>() >= last_ts);
      CHECK(s["args"]["value"].get<double>() >= last);
      last_ts = s["ts"];
      last = s["args"]["value"];
    }
  }
  // The while loop's slices enclose its ops and add nothing of their own.
  CHECK(p.counters["cumulative FLOPs"].back()["args"]["value"].get<double>() ==
        Approx(prediction.flops));
  CHECK(p.counters["cumulative HBM bytes"].back()["args"]["value"].get<double>() ==
        Approx(prediction.hbm_bytes));
}

TEST_CASE("collapsed iterations carry the work their ops' slices leave out") {
  Prediction prediction = sample_prediction();
  // Iterations 3 and 4 as one slice from 7 ms to 12 ms, as with max_expanded_iterations = 2.
  std::vector<TimelineEvent> timeline;
  for (const TimelineEvent& e : prediction.timeline) {
    if (e.track == "compute" && e.depth > 0 && e.start_s >= 7e-3 - 1e-12) continue;
    timeline.push_back(e);
  }
  timeline.push_back({"while.1 iterations 3-4", "compute", 7e-3, 5e-3, 1, nullptr});
  prediction.timeline = timeline;
  Parsed p = parse(prediction_to_trace_json(prediction));
  check_well_formed(p);
  const auto& flops = p.counters["cumulative FLOPs"];
  CHECK(flops.back()["args"]["value"].get<double>() == Approx(prediction.flops));
  // Two iterations of 1.9751e11 FLOPs by 7 ms, where the expanded ones end; the other two as the
  // collapsed slice ends at 12 ms.
  REQUIRE(flops.size() >= 3);
  const json& before = flops[flops.size() - 3];
  const json& collapsed = flops[flops.size() - 2];
  CHECK(before["ts"].get<double>() == Approx(7000));
  CHECK(before["args"]["value"].get<double>() == Approx(2 * 1.9751e11));
  CHECK(collapsed["ts"].get<double>() == Approx(12000));
  CHECK(collapsed["args"]["value"].get<double>() == Approx(4 * 1.9751e11));
  CHECK(p.counters["cumulative HBM bytes"].back()["args"]["value"].get<double>() ==
        Approx(prediction.hbm_bytes));
}

TEST_CASE("a slice that rounding pushed past its parent is kept inside it") {
  Prediction prediction = sample_prediction();
  // The last fusion.tanh ends 1 ns after its iteration and the loop (12 ms).
  for (TimelineEvent& e : prediction.timeline) {
    if (e.name == "fusion.tanh" && e.start_s > 11e-3) e.duration_s += 1e-9;
  }
  // And an event with a negative duration lasts no time.
  prediction.timeline.push_back({"copy.3", "compute", 12.1e-3, -1e-6, 0, nullptr});
  Parsed p = parse(prediction_to_trace_json(prediction));
  check_well_formed(p);
  auto tanh = slices_named(p, "fusion.tanh");
  CHECK(tanh.back()["ts"].get<double>() + tanh.back()["dur"].get<double>() ==
        Approx(12000).margin(kSlackUs));
  CHECK(slices_named(p, "copy.3").back()["dur"] == 0);
}

// A timeline in time order is written as it comes, one out of order sorted first: the same
// trace either way. The compute track's events reversed in their places (the tracks are still
// met in the same order); the sample's events differ in start or length: no ties to keep in
// order.
TEST_CASE("a timeline out of order makes the trace one in order makes") {
  const Prediction prediction = sample_prediction();
  Prediction reversed = sample_prediction();
  std::vector<size_t> places;
  for (size_t k = 0; k < reversed.timeline.size(); ++k) {
    if (reversed.timeline[k].track == "compute") places.push_back(k);
  }
  REQUIRE(places.size() >= 2);
  for (size_t a = 0, b = places.size() - 1; a < b; ++a, --b) {
    std::swap(reversed.timeline[places[a]], reversed.timeline[places[b]]);
  }
  CHECK(prediction_to_trace_json(reversed) == prediction_to_trace_json(prediction));
}

TEST_CASE("a prediction without a timeline still makes a loadable trace") {
  Parsed p = parse(prediction_to_trace_json(Prediction{}));
  CHECK(p.tracks.at(1) == "compute");
  CHECK(p.counters["cumulative FLOPs"].size() == 1);
}

TEST_CASE("with the memory analysis, the trace counts live HBM bytes") {
  // Straight-line code on 4 MiB arrays (f32[1024,1024], no tiles): while b is defined, p (a
  // parameter, live all step), a (read by b) and b are live: 3 x 4,194,304 B = 12,582,912 B;
  // at c, a is dead and p, b, c are live: 12,582,912 B again. That is the peak.
  absl::StatusOr<Module> module = parse_module(R"(
HloModule m, is_scheduled=true
ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0)
  a = f32[1024,1024]{1,0} exponential(p)
  b = f32[1024,1024]{1,0} negate(a)
  ROOT c = f32[1024,1024]{1,0} add(b, p)
})");
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> prediction = testing::predict_on(*module, "h100");
  REQUIRE_OK(prediction);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*module);
  REQUIRE_OK(memory);
  CHECK(memory->peak_bytes == 12582912);

  Parsed p = parse(prediction_to_trace_json(*prediction, &*memory));
  check_well_formed(p);
  const auto& live = p.counters["live HBM bytes"];
  REQUIRE(live.size() == 4);  // one sample per entry instruction
  double peak = 0, last_ts = 0;
  for (const auto& sample : live) {
    CHECK(sample["ts"].get<double>() >= last_ts);  // in schedule order
    last_ts = sample["ts"].get<double>();
    peak = std::max(peak, sample["args"]["value"].get<double>());
  }
  CHECK(peak == 12582912);
  CHECK(last_ts <= prediction->step_time_s * 1e6);
  // Without the memory analysis there is no such track.
  CHECK(parse(prediction_to_trace_json(*prediction)).counters.count("live HBM bytes") == 0);
}

TEST_CASE("the live HBM counter goes into loop bodies, never back in time") {
  // Entry p, t, w (the loop), x, o: 5 instructions; the body's 5 (s, v, g, h, r) follow the
  // loop's sample and the condition's 2, so 12 samples in all. The body's temporary g
  // (4 MiB) shows inside: at g, p (4 MiB, whose buffer is the loop state) and g are live.
  absl::StatusOr<Module> module = parse_module(R"(
HloModule loop, is_scheduled=true
%cond (s: (f32[1024,1024])) -> pred[] {
  %s = (f32[1024,1024]{1,0}) parameter(0)
  ROOT %t = pred[] constant(true)
}
%body (s: (f32[1024,1024])) -> (f32[1024,1024]) {
  %s = (f32[1024,1024]{1,0}) parameter(0)
  %v = f32[1024,1024]{1,0} get-tuple-element(%s), index=0
  %g = f32[1024,1024]{1,0} negate(%v)
  %h = f32[1024,1024]{1,0} exponential(%g)
  ROOT %r = (f32[1024,1024]{1,0}) tuple(%h)
}
ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0)
  t = (f32[1024,1024]{1,0}) tuple(p)
  w = (f32[1024,1024]{1,0}) while(t), condition=%cond, body=%body, backend_config={"known_trip_count":{"n":"3"}}
  x = f32[1024,1024]{1,0} get-tuple-element(w), index=0
  ROOT o = f32[1024,1024]{1,0} negate(x)
})");
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> prediction = testing::predict_on(*module, "h100");
  REQUIRE_OK(prediction);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*module);
  REQUIRE_OK(memory);
  REQUIRE(memory->live_timeline.size() == 12);
  Parsed p = parse(prediction_to_trace_json(*prediction, &*memory));
  const auto& live = p.counters["live HBM bytes"];
  REQUIRE(live.size() == 12);
  double last_ts = 0;
  for (const auto& sample : live) {
    CHECK(sample["ts"].get<double>() >= last_ts);
    last_ts = sample["ts"].get<double>();
  }
}

// sample_prediction() and 2000 ops of about 1 KB of args each (their texts in one pool): a
// trace of about 2 MB.
Prediction large_prediction() {
  Prediction prediction = sample_prediction();
  const OpPrediction op = prediction.ops.front();
  const TimelineEvent event = prediction.timeline.front();
  const auto texts = std::make_shared<TextPool>();
  const std::string explanation = std::string(900, 'x') + "\n\"quoted\" \xff";
  for (int i = 0; i < 2000; ++i) {
    OpPrediction copy = op;
    OpTexts t = copy.all_texts();
    const std::string name = "extra." + std::to_string(i);
    t.name = name;
    t.explanation = explanation;
    copy.set_texts(texts, t);
    prediction.ops.push_back(copy);
    TimelineEvent e = event;
    e.name = copy.name();
    e.instruction = nullptr;
    e.start_s = prediction.step_time_s * i / 2000;
    prediction.timeline.push_back(e);
  }
  return prediction;
}

TEST_CASE("the trace written to a stream is the text prediction_to_trace_json returns") {
  // The writer hands the stream its text in pieces of 64 KiB, so the streamed trace is the
  // joined pieces of about 2 MB.
  const Prediction prediction = large_prediction();
  const std::string text = prediction_to_trace_json(prediction);
  CHECK(text.size() > 2000 * 900);
  std::ostringstream out;
  write_prediction_trace_json(out, prediction);
  CHECK(out.str() == text);
  CHECK(json::parse(text, nullptr, false, false).is_discarded() == false);
}

TEST_CASE("a trace made by several threads is the text one thread makes") {
  // About 2 MB: eight or more pieces of about 256 KiB, each made by whichever thread takes it
  // and written in order; the doubles and repeated texts each thread keeps are its own.
  const Prediction prediction = large_prediction();
  const std::string text = prediction_to_trace_json(prediction);
  for (const int threads : {2, 3, 8}) {
    INFO(threads << " threads");
    std::ostringstream out;
    write_prediction_trace_json(out, prediction, nullptr, threads);
    CHECK(out.str() == text);
  }
}

TEST_CASE("counter samples of both kinds, made by several threads, are the text one makes") {
  // 2000 op slices of about 1 KB (about eight pieces of 256 KiB), then 2001 work samples (two
  // counter events each, about 200 bytes) and 2000 live-bytes samples, one at each op's start
  // (about 100): pieces end among the samples, each taking up the kinds where the one before
  // left them.
  Prediction prediction = large_prediction();
  // Each op's slice on the compute track, where live bytes are sampled at its start, over half
  // the time to the next one's start: every one a leaf, whose end is sampled.
  for (TimelineEvent& e : prediction.timeline) {
    if (!e.name.starts_with("extra.")) continue;
    e.track = "compute";
    e.duration_s = prediction.step_time_s / 4000;
  }
  MemoryReport memory;
  for (int i = 0; i < 2000; ++i) {
    memory.live_timeline.push_back({"extra." + std::to_string(i), int64_t{1000} * i, "main", 0});
  }
  const std::string text = prediction_to_trace_json(prediction, &memory);
  // In time order, written in one order: the work samples at a time before the live ones.
  const json trace = json::parse(text);
  double last_ts = 0;
  std::string last_name;
  size_t live = 0, work = 0;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") != "C") continue;
    const double ts = e.at("ts");
    const std::string name = e.at("name");
    INFO(name << " at " << ts << " after " << last_name << " at " << last_ts);
    CHECK(ts >= last_ts);
    if (ts == last_ts) CHECK_FALSE((last_name == "live HBM bytes" && name != last_name));
    (name == "live HBM bytes" ? live : work) += 1;
    last_ts = ts;
    last_name = name;
  }
  CHECK(live == 2000);
  CHECK(work >= 2 * 2001);  // a FLOPs and an HBM bytes sample at 0 and at each op's end
  for (const int threads : {2, 3, 8}) {
    INFO(threads << " threads");
    std::ostringstream out;
    write_prediction_trace_json(out, prediction, &memory, threads);
    CHECK(out.str() == text);
  }
}

}  // namespace
}  // namespace hloroof
