// The predicted step as an XSpace: the planes, lines, stats and event metadata XProf reads
// (docs/xspace.md), each op's events adding up to its predicted time, and the file read back by
// hloroof's own profile reader as a measured run of the same module.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/xspace.h"
#include "deterministic_bytes.h"
#include "predict_on.h"
#include "proto/xplane.pb.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace xp = hloroof::xplane;

// A loop of 10 iterations (known_trip_count) whose body runs an inner loop of 7; only the
// first 2 iterations of each are laid out one by one, the rest is one summary slice.
constexpr char kNested[] = R"(HloModule nested, is_scheduled=true
icond {
  s.0 = (s32[], f32[1024]) parameter(0)
  i.0 = s32[] get-tuple-element(s.0), index=0
  n.0 = s32[] constant(7)
  ROOT lt = pred[] compare(i.0, n.0), direction=LT
}
ibody {
  s.1 = (s32[], f32[1024]) parameter(0)
  i.1 = s32[] get-tuple-element(s.1), index=0
  x.1 = f32[1024] get-tuple-element(s.1), index=1
  one.1 = s32[] constant(1)
  i1 = s32[] add(i.1, one.1)
  x1 = f32[1024] multiply(x.1, x.1)
  ROOT r.1 = (s32[], f32[1024]) tuple(i1, x1)
}
cond {
  s.2 = (s32[], f32[1024]) parameter(0)
  i.2 = s32[] get-tuple-element(s.2), index=0
  n.2 = s32[] constant(10)
  ROOT lt2 = pred[] compare(i.2, n.2), direction=LT
}
body {
  s.3 = (s32[], f32[1024]) parameter(0)
  i.3 = s32[] get-tuple-element(s.3), index=0
  x.3 = f32[1024] get-tuple-element(s.3), index=1
  one.3 = s32[] constant(1)
  i2 = s32[] add(i.3, one.3)
  x2 = f32[1024] add(x.3, x.3)
  z = s32[] constant(0)
  t = (s32[], f32[1024]) tuple(z, x2)
  w2 = (s32[], f32[1024]) while(t), condition=icond, body=ibody, backend_config={"known_trip_count":{"n":"7"}}
  x3 = f32[1024] get-tuple-element(w2), index=1
  ROOT r.3 = (s32[], f32[1024]) tuple(i2, x3)
}
ENTRY e {
  x = f32[1024] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[1024]) tuple(zero, x)
  w = (s32[], f32[1024]) while(s), condition=cond, body=body, backend_config={"known_trip_count":{"n":"10"}}
  ROOT y = f32[1024] get-tuple-element(w), index=1
})";

struct Case {
  Module module;
  DeviceSpec spec;
  Prediction prediction;
};

Case predict_nested(std::string_view device_name) {
  absl::StatusOr<Module> m = parse_module(kNested);
  REQUIRE_OK(m);
  absl::StatusOr<DeviceSpec> spec = device(device_name);
  REQUIRE_OK(spec);
  // At the roofline, without the per-op overhead: each op's time is its bytes over the HBM
  // bandwidth, derived by hand below.
  PredictOptions options;
  options.include_overhead = false;
  options.roofline_only = true;
  options.max_expanded_iterations = 2;
  absl::StatusOr<Prediction> p = testing::predict_on(*m, *spec, options);
  REQUIRE_OK(p);
  return {*std::move(m), *std::move(spec), *std::move(p)};
}

xp::XSpace parse_space(const std::string& bytes) {
  xp::XSpace space;
  REQUIRE(space.ParseFromString(bytes));
  return space;
}

// `text` predicted on a TPU v5e with the default options.
Case predict_tpu(std::string_view text) {
  absl::StatusOr<Module> m = parse_module(text);
  REQUIRE_OK(m);
  absl::StatusOr<DeviceSpec> spec = device("tpu_v5e");
  REQUIRE_OK(spec);
  absl::StatusOr<Prediction> p = testing::predict_on(*m, *spec);
  REQUIRE_OK(p);
  return {*std::move(m), *std::move(spec), *std::move(p)};
}

// The XSpace of `text`'s prediction on a TPU v5e, with the default options, parsed.
xp::XSpace tpu_space(std::string_view text) {
  const Case c = predict_tpu(text);
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(file);
  return parse_space(file->bytes);
}

const xp::XPlane& plane_named(const xp::XSpace& space, std::string_view name) {
  for (const xp::XPlane& p : space.planes()) {
    if (p.name() == name) return p;
  }
  FAIL("no plane " << name);
  return space.planes(0);
}

const xp::XLine& line_named(const xp::XPlane& plane, std::string_view name) {
  for (const xp::XLine& l : plane.lines()) {
    if (l.name() == name) return l;
  }
  FAIL("no line " << name);
  return plane.lines(0);
}

std::string stat_name(const xp::XPlane& plane, const xp::XStat& stat) {
  return plane.stat_metadata().at(stat.metadata_id()).name();
}

const xp::XStat* find_stat(const xp::XPlane& plane,
                           const google::protobuf::RepeatedPtrField<xp::XStat>& stats,
                           std::string_view name) {
  for (const xp::XStat& s : stats) {
    if (stat_name(plane, s) == name) return &s;
  }
  return nullptr;
}

// Per op, the time its events on `line` take alone: an event's duration less the events it
// encloses, as XProf's op profile counts it (xprof/convert/xplane_to_op_metrics_db.cc).
std::map<std::string, double> self_seconds(const xp::XPlane& plane, const xp::XLine& line) {
  std::map<std::string, double> out;
  struct Open {
    std::string name;
    int64_t end;
    int64_t children = 0;
    int64_t duration = 0;
  };
  std::vector<Open> open;
  auto close = [&] {
    const Open& o = open.back();
    out[o.name] += static_cast<double>(o.duration - o.children) * 1e-12;
    open.pop_back();
  };
  for (const xp::XEvent& e : line.events()) {
    const int64_t end = e.offset_ps() + e.duration_ps();
    while (!open.empty() && open.back().end <= e.offset_ps()) close();
    if (!open.empty()) {
      REQUIRE(end <= open.back().end);  // events nest, never straddle
      open.back().children += e.duration_ps();
    }
    const xp::XEventMetadata& m = plane.event_metadata().at(e.metadata_id());
    open.push_back({m.display_name().empty() ? m.name() : m.display_name(), end, 0,
                    e.duration_ps()});
  }
  while (!open.empty()) close();
  return out;
}

TEST_CASE("TPU: every op's XLA Ops events add up to its predicted time, loops stretched") {
  Case c = predict_nested("tpu_v5e");
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(file);
  const xp::XSpace space = parse_space(file->bytes);
  const xp::XPlane& tpu = plane_named(space, "/device:TPU:0");
  const std::map<std::string, double> self = self_seconds(tpu, line_named(tpu, "XLA Ops"));
  // x1 runs 10 x 7 = 70 times, i1 as often; lt (the inner condition) 10 x 8 = 80 times; the
  // outer loop's ops 10 times, its condition lt2 11 times. Only 2 of each loop's iterations are
  // laid out one by one; the rest are the last one stretched.
  std::map<std::string, double> runs;
  for (const OpPrediction& op : c.prediction.ops) runs[std::string(op.name())] = op.multiplier;
  CHECK(runs["x1"] == 70);
  CHECK(runs["lt"] == 80);
  CHECK(runs["lt2"] == 11);
  for (const OpPrediction& op : c.prediction.ops) {
    INFO(op.name());
    // One picosecond of rounding per event at most.
    CHECK(self.count(std::string(op.name())) == (op.total_time_s() > 0 ? 1 : 0));
    if (op.total_time_s() > 0) {
      CHECK(self.at(std::string(op.name())) ==
            Approx(op.total_time_s()).margin(op.multiplier * 2e-12));
    }
  }
  // The loops themselves take no time of their own: their ops fill them.
  CHECK(self.at("w") == Approx(0).margin(1e-9));
  CHECK(self.at("w2") == Approx(0).margin(1e-9));
  // x2 = add(x, x): two f32[1024] operands read and one written, 12,288 B at 819 GB/s
  // (tpu_v5e's HBM), ten times.
  CHECK(self.at("x2") == Approx(10 * 12288 / 8.19e11));
}

TEST_CASE("TPU: op metadata carries the text, program id, category and costs") {
  Case c = predict_nested("tpu_v5e");
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(file);
  const xp::XSpace space = parse_space(file->bytes);
  const xp::XPlane& tpu = plane_named(space, "/device:TPU:0");
  std::set<uint64_t> symbols;
  bool saw_x1 = false;
  for (const auto& [id, m] : tpu.event_metadata()) {
    const xp::XStat* symbol = find_stat(tpu, m.stats(), "symbol_id");
    if (symbol == nullptr) continue;
    CHECK(symbol->uint64_value() != 0);  // 0 is XProf's root, skipped
    CHECK(symbols.insert(symbol->uint64_value()).second);
    CHECK(find_stat(tpu, m.stats(), "program_id")->uint64_value() == file->program_id);
    if (m.display_name() != "x1") continue;
    saw_x1 = true;
    // As XLA names an op in a TPU profile: each operand's shape before its name.
    CHECK(m.name() == "%x1 = f32[1024] multiply(f32[1024] %x.1, f32[1024] %x.1)");
    CHECK(find_stat(tpu, m.stats(), "hlo_category")->str_value() == "non-fusion elementwise");
    // One execution: 1,024 multiplies; 3 x 4,096 B read and written.
    CHECK(find_stat(tpu, m.stats(), "flops")->int64_value() == 1024);
    CHECK(find_stat(tpu, m.stats(), "model_flops")->int64_value() == 1024);
    CHECK(find_stat(tpu, m.stats(), "bytes_accessed")->int64_value() == 3 * 4096);
  }
  CHECK(saw_x1);
  // The modules line names the module as XProf does, NAME(PROGRAM_ID).
  const xp::XLine& modules = line_named(tpu, "XLA Modules");
  REQUIRE(modules.events_size() == 1);
  CHECK(tpu.event_metadata().at(modules.events(0).metadata_id()).name() ==
        "nested(" + std::to_string(file->program_id) + ")");
}

TEST_CASE("TPU: an op is named as XLA names it in a real TPU profile") {
  // The TPU v6e profile of ../shared/profiles (openxla/xprof's test data), written by XLA's
  // own profiler: each op of its XLA Ops line is named by its instruction's text with the
  // operands' shapes and without metadata or backend config, e.g. `%broadcast_add_fusion.1 =
  // f32[5,1024,1024,256]{3,2,1,0:T(8,128)} fusion(f32[5,1024,1024,256]{3,2,1,0:T(8,128)}
  // %copy-done.2), kind=kLoop, calls=%fused_computation.1` (its HloProto gives the fusion a
  // metadata op_name and source_file, and a backend config). The module it carries,
  // predicted and written as an XSpace, names each op alike.
  const std::filesystem::path path =
      std::filesystem::path(HLOROOF_SHARED_PROFILES) / "tpu_v6e" / "tpu_inference_2.xplane.pb";
  if (!std::filesystem::exists(path)) {
    WARN("no " << path << ": not checked");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string real_bytes((std::istreambuf_iterator<char>(in)), {});
  // The real profile's op names by instruction name.
  std::map<std::string, std::set<std::string>> real;
  const xp::XSpace real_space = parse_space(real_bytes);
  for (const auto& [id, m] : plane_named(real_space, "/device:TPU:0").event_metadata()) {
    const size_t eq = m.name().find(" = ");
    if (m.name().rfind('%', 0) != 0 || eq == std::string::npos) continue;
    real[m.name().substr(1, eq - 1)].insert(m.name());
  }
  REQUIRE(real.size() >= 10);
  absl::StatusOr<Profile> profile = read_profile(path.string());
  REQUIRE_OK(profile);
  absl::StatusOr<const ProfileModuleProto*> carried = pick_profile_module(*profile, "jit_f");
  REQUIRE_OK(carried);
  absl::StatusOr<Module> module = parse_hlo_proto((*carried)->hlo_proto);
  REQUIRE_OK(module);
  absl::StatusOr<DeviceSpec> spec = device("tpu_v6e");
  REQUIRE_OK(spec);
  absl::StatusOr<Prediction> p = testing::predict_on(*module, *spec);
  REQUIRE_OK(p);
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(*module, *p, *spec);
  REQUIRE_OK(file);
  const xp::XSpace ours = parse_space(file->bytes);
  int named = 0;
  for (const auto& [id, m] : plane_named(ours, "/device:TPU:0").event_metadata()) {
    auto it = real.find(m.display_name());
    if (it == real.end()) continue;
    INFO(m.display_name());
    CHECK(it->second.count(m.name()) == 1);
    ++named;
  }
  // jit_f's seven ops: four copy-starts and copy-dones of the host offload, three fusions.
  CHECK(named == 7);
}

TEST_CASE("TPU: two instructions of the same text have an event metadata each") {
  // Both conditions hold `%done = pred[] compare(%i, %n), direction=LT`: the same text, two
  // instructions (a hand-written module may reuse names across computations).
  constexpr std::string_view kTwins = R"(HloModule twins
inner_cond {
  t = (s32[]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT done = pred[] compare(i, n), direction=LT
}
inner_body {
  t = (s32[]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT out = (s32[]) tuple(next)
}
outer_cond {
  t = (s32[]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT done = pred[] compare(i, n), direction=LT
}
outer_body {
  t = (s32[]) parameter(0)
  ROOT w = (s32[]) while(t), condition=inner_cond, body=inner_body
}
ENTRY e {
  p = (s32[]) parameter(0)
  ROOT w = (s32[]) while(p), condition=outer_cond, body=outer_body
})";
  const xp::XSpace space = tpu_space(kTwins);
  const xp::XPlane& tpu = plane_named(space, "/device:TPU:0");
  // Each `done` the XLA Ops line runs names its own instruction: two symbol ids, not one.
  std::set<uint64_t> done_symbols;
  for (const xp::XEvent& e : line_named(tpu, "XLA Ops").events()) {
    const xp::XEventMetadata& md = tpu.event_metadata().at(e.metadata_id());
    if (md.display_name() != "done") continue;
    CHECK(md.name() == "%done = pred[] compare(s32[] %i, s32[] %n), direction=LT");
    done_symbols.insert(find_stat(tpu, md.stats(), "symbol_id")->uint64_value());
  }
  CHECK(done_symbols.size() == 2);
}

TEST_CASE("TPU: a call named as the op it calls carries no op's costs") {
  // The call and the all-reduce it runs share a name (a hand-written module may reuse names
  // across computations; XLA's collective_quantizer_test does). The call is no op of the
  // prediction: its event metadata has the call's category and no costs, not the all-reduce's.
  constexpr std::string_view kNamesake = R"(HloModule namesake, num_partitions=4
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
reduce {
  x = f32[1024] parameter(0)
  ROOT reduced = f32[1024] all-reduce(x), to_apply=max, replica_groups={{0,1,2,3}}
}
ENTRY e {
  p = f32[1024] parameter(0)
  ROOT reduced = f32[1024] call(p), to_apply=reduce
})";
  const xp::XSpace space = tpu_space(kNamesake);
  const xp::XPlane& tpu = plane_named(space, "/device:TPU:0");
  int calls = 0, all_reduces = 0;
  for (const auto& [id, md] : tpu.event_metadata()) {
    if (md.display_name() != "reduced") continue;
    const std::string category = find_stat(tpu, md.stats(), "hlo_category")->str_value();
    const int64_t bytes = find_stat(tpu, md.stats(), "bytes_accessed")->int64_value();
    if (md.name().find(" call(") != std::string::npos) {
      ++calls;
      CHECK(category == "call");
      CHECK(bytes == 0);
      CHECK(find_stat(tpu, md.stats(), "memory_access_breakdown") == nullptr);
    } else {
      ++all_reduces;
      CHECK(category == "all-reduce");
      // One execution reads and writes its 4,096 bytes: 8,192 B.
      CHECK(bytes == 2 * 4096);
    }
  }
  CHECK(calls == 1);
  CHECK(all_reduces == 1);
}

TEST_CASE("TPU: the device's peaks where XProf's roofline reads them") {
  Case c = predict_nested("tpu_v5e");
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(file);
  const xp::XSpace space = parse_space(file->bytes);
  const xp::XPlane& tpu = plane_named(space, "/device:TPU:0");
  // data/hardware/tpu_v5e.json: bf16 1.97e14 FLOP/s, HBM 8.19e11 B/s.
  CHECK(find_stat(tpu, tpu.stats(), "peak_teraflops_per_second")->double_value() ==
        Approx(197));
  CHECK(find_stat(tpu, tpu.stats(), "peak_hbm_bw_gigabytes_per_second")->double_value() ==
        Approx(819));
  const std::string type = find_stat(tpu, tpu.stats(), "device_type_string")->str_value();
  CHECK(type.find("TPU") != std::string::npos);  // XProf's hardware type test
  CHECK(type.find("predicted") != std::string::npos);
  REQUIRE(space.hostnames_size() == 1);
  CHECK(space.hostnames(0) == "hloroof-predicted");
  REQUIRE(space.warnings_size() > 0);
  CHECK(space.warnings(0).find("predicted by hloroof, not measured") != std::string::npos);
  // Three boxes above XProf's overview, not one per assumption: the run, the assumptions (a
  // TPU prediction has several), what the file does not fill.
  REQUIRE(space.warnings_size() == 3);
  CHECK(space.warnings(1).starts_with("assumptions of the prediction ("));
  CHECK(space.warnings(2).starts_with("not filled in this predicted run: "));
}

TEST_CASE("steps are laid end to end, each one the predicted step") {
  Case c = predict_nested("tpu_v5e");
  absl::StatusOr<XSpaceFile> one = prediction_to_xspace(c.module, c.prediction, c.spec);
  absl::StatusOr<XSpaceFile> three =
      prediction_to_xspace(c.module, c.prediction, c.spec, {.steps = 3});
  REQUIRE_OK(one);
  REQUIRE_OK(three);
  const xp::XSpace space = parse_space(three->bytes);
  const xp::XPlane& tpu = plane_named(space, "/device:TPU:0");
  const xp::XLine& modules = line_named(tpu, "XLA Modules");
  REQUIRE(modules.events_size() == 3);
  const int64_t step_ps = modules.events(0).duration_ps();
  CHECK(static_cast<double>(step_ps) * 1e-12 == Approx(c.prediction.step_time_s).margin(1e-11));
  for (int k = 0; k < 3; ++k) CHECK(modules.events(k).offset_ps() == k * step_ps);
  const auto self = self_seconds(tpu, line_named(tpu, "XLA Ops"));
  CHECK(self.at("x1") == Approx(3 * 70 * 3 * 4096 / 8.19e11));
  // Three times the events of one step, and the module line's two more.
  CHECK(three->events == 3 * one->events);
  CHECK(!prediction_to_xspace(c.module, c.prediction, c.spec, {.steps = 0}).ok());
  CHECK(!prediction_to_xspace(c.module, c.prediction, c.spec, {.steps = kMaxXSpaceSteps + 1})
             .ok());
}

// The file of `c`'s prediction.
XSpaceFile written(const Case& c, const XSpaceOptions& options) {
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec, options);
  REQUIRE_OK(file);
  return *std::move(file);
}

TEST_CASE("written a plane at a time, the bytes are protobuf's own, the same every time") {
  // Each plane's metadata serialized as it is made and its map entries written in order of
  // their keys: the bytes are protobuf's deterministic serialization of what they parse to, and
  // the same from one writing to the next; on two or three threads too.
  for (std::string_view device_name : {"tpu_v5e", "h100"}) {
    INFO(device_name);
    const Case c = predict_nested(device_name);
    const XSpaceFile file = written(c, {.steps = 2});
    const xp::XSpace space = parse_space(file.bytes);
    CHECK(space.planes_size() >= 3);
    CHECK(testing::deterministic_bytes(space) == file.bytes);
    size_t entries = 0;
    for (const xp::XPlane& plane : space.planes()) entries += plane.event_metadata_size();
    CHECK(entries > 5);  // maps of several entries, in order
    for (int threads : {2, 3}) {
      const XSpaceFile again = written(c, {.steps = 2, .threads = threads});
      CHECK(again.bytes == file.bytes);
      CHECK(again.unfilled == file.unfilled);
    }
  }
}

TEST_CASE("ops' event metadata made again lie in order among the kept ones") {
  // 1,200 ops in the entry and 300 in a loop's body: their event metadata (about 1,500,
  // counted as they are met and made again when the plane is written) lie among kept ones
  // (the loop's iterations, ops whose slices name no instruction): the plane's map entries
  // are in order of their ids, protobuf's own bytes, on any number of threads.
  std::string text = "HloModule many, is_scheduled=true\ncond {\n";
  absl::StrAppend(&text, "  s.0 = (s32[], f32[256]) parameter(0)\n",
                  "  i.0 = s32[] get-tuple-element(s.0), index=0\n",
                  "  n.0 = s32[] constant(3)\n",
                  "  ROOT lt = pred[] compare(i.0, n.0), direction=LT\n}\nbody {\n",
                  "  s.1 = (s32[], f32[256]) parameter(0)\n",
                  "  i.1 = s32[] get-tuple-element(s.1), index=0\n",
                  "  b0 = f32[256] get-tuple-element(s.1), index=1\n");
  for (int k = 1; k <= 300; ++k) {
    absl::StrAppend(&text, "  b", k, " = f32[256] exponential(b", k - 1, ")\n");
  }
  absl::StrAppend(&text, "  one = s32[] constant(1)\n  i1 = s32[] add(i.1, one)\n",
                  "  ROOT r = (s32[], f32[256]) tuple(i1, b300)\n}\nENTRY e {\n",
                  "  e0 = f32[256] parameter(0)\n");
  for (int k = 1; k <= 1200; ++k) {
    absl::StrAppend(&text, "  e", k, " = f32[256] negate(e", k - 1, ")\n");
  }
  absl::StrAppend(&text, "  zero = s32[] constant(0)\n",
                  "  s = (s32[], f32[256]) tuple(zero, e1200)\n",
                  "  w = (s32[], f32[256]) while(s), condition=cond, body=body, "
                  "backend_config={\"known_trip_count\":{\"n\":\"3\"}}\n",
                  "  ROOT y = f32[256] get-tuple-element(w), index=1\n}\n");
  Case c = predict_tpu(text);
  // Every seventh op's slice named after no instruction: its event metadata, named by the
  // slice alone, is kept, among those made again.
  int ops = 0, kept = 0;
  for (TimelineEvent& e : c.prediction.timeline) {
    if (e.instruction == nullptr || e.iterations > 0 || ++ops % 7 != 0) continue;
    e.instruction = nullptr;
    e.name = absl::StrCat("slice.", ops);
    ++kept;
  }
  CHECK(kept > 200);
  const auto bytes = [&](int threads) {
    absl::StatusOr<XSpaceFile> file =
        prediction_to_xspace(c.module, c.prediction, c.spec, {.steps = 2, .threads = threads});
    REQUIRE_OK(file);
    return file->bytes;
  };
  const std::string one = bytes(1);
  const xp::XSpace space = parse_space(one);
  CHECK(testing::deterministic_bytes(space) == one);
  const xp::XPlane* tpu = nullptr;
  for (const xp::XPlane& plane : space.planes()) {
    if (plane.name() == "/device:TPU:0") tpu = &plane;
  }
  REQUIRE(tpu != nullptr);
  CHECK(tpu->event_metadata_size() > 1500);
  for (int threads : {2, 3, 8}) {
    INFO("threads " << threads);
    CHECK(bytes(threads) == one);
  }
}

TEST_CASE("hloroof's own reader takes the predicted file for a measured run of the module") {
  for (std::string_view device_name : {"tpu_v5e", "h100"}) {
    INFO(device_name);
    Case c = predict_nested(device_name);
    const XSpaceFile file = written(c, {.steps = 2});
    absl::StatusOr<Profile> profile = parse_xspace(file.bytes, "predicted.xplane.pb");
    REQUIRE_OK(profile);
    absl::StatusOr<MeasuredModule> measured = measure_module(*profile, c.module);
    REQUIRE_OK(measured);
    CHECK(measured->steps == 2);
    CHECK(measured->step_s == Approx(c.prediction.step_time_s).margin(1e-11));
    // On a TPU the reader counts a loop's summary slice (stretched iterations) as one
    // execution of each op, and times ops per execution; GPU kernels are summed per op.
    if (c.spec.kind == DeviceKind::kTpu) continue;
    std::map<std::string, double> times;
    for (const MeasuredOp& op : measured->ops) times[op.name] = op.time_s;
    for (const OpPrediction& op : c.prediction.ops) {
      if (op.total_time_s() <= 0) continue;
      INFO(op.name());
      CHECK(times[std::string(op.name())] ==
            Approx(op.total_time_s()).margin(op.multiplier * 2e-12));
    }
  }
}

TEST_CASE("the metadata plane's HloProto carries hloroof's buffer assignment") {
  for (std::string_view device_name : {"tpu_v5e", "h100"}) {
    INFO(device_name);
    Case c = predict_nested(device_name);
    absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
    REQUIRE_OK(file);
    for (const std::string& gap : file->unfilled) {
      CHECK(gap.find("buffer assignment") == std::string::npos);
    }
    absl::StatusOr<Profile> profile = parse_xspace(file->bytes, "predicted.xplane.pb");
    REQUIRE_OK(profile);
    REQUIRE(profile->module_protos.size() == 1);
    absl::StatusOr<XlaBufferAssignment> read =
        read_xla_buffer_assignment(profile->module_protos[0].hlo_proto);
    REQUIRE_OK(read);
    // The allocations of the module's own memory analysis, in its order and sizes.
    absl::StatusOr<MemoryReport> memory = analyze_memory(c.module, {.top_buffers = 0});
    REQUIRE_OK(memory);
    REQUIRE(read->allocations.size() == memory->allocations.size());
    for (size_t k = 0; k < read->allocations.size(); ++k) {
      CHECK(read->allocations[k].size_bytes == memory->allocations[k].bytes);
      CHECK(read->allocations[k].buffers.size() <=
            static_cast<size_t>(memory->allocations[k].buffer_count));
    }
    CHECK(read->temp_bytes == memory->temp_bytes);
    int64_t total = 0;
    for (const MemoryAllocation& a : memory->allocations) total += a.bytes;
    CHECK(read->total_bytes() == total);
    // The module read back from the same bytes is the one written.
    absl::StatusOr<Module> back = parse_hlo_proto(profile->module_protos[0].hlo_proto);
    REQUIRE_OK(back);
    CHECK(back->name() == c.module.name());
  }
}

TEST_CASE("a module of more buffers than max_assigned_buffers: the largest, no heap trace") {
  Case c = predict_nested("h100");
  absl::StatusOr<MemoryReport> memory = analyze_memory(c.module, {.top_buffers = 0});
  REQUIRE_OK(memory);
  REQUIRE(memory->buffer_count > 2);
  absl::StatusOr<XSpaceFile> file =
      prediction_to_xspace(c.module, c.prediction, c.spec, {.max_assigned_buffers = 2});
  REQUIRE_OK(file);
  const std::string said = absl::StrCat("the buffer assignment holds the 2 largest of ",
                                        memory->buffer_count, " buffers and no heap trace");
  CHECK(std::any_of(file->unfilled.begin(), file->unfilled.end(), [&](const std::string& gap) {
    return gap.rfind(said, 0) == 0;
  }));
  absl::StatusOr<Profile> profile = parse_xspace(file->bytes, "predicted.xplane.pb");
  REQUIRE_OK(profile);
  REQUIRE(profile->module_protos.size() == 1);
  absl::StatusOr<XlaBufferAssignment> read =
      read_xla_buffer_assignment(profile->module_protos[0].hlo_proto);
  REQUIRE_OK(read);
  // Every allocation, with its size; buffers named for the 2 largest only.
  REQUIRE(read->allocations.size() == memory->allocations.size());
  size_t named = 0;
  for (size_t k = 0; k < read->allocations.size(); ++k) {
    CHECK(read->allocations[k].size_bytes == memory->allocations[k].bytes);
    named += read->allocations[k].buffers.size();
  }
  CHECK(named == 2);
}

TEST_CASE("a memory analysis the caller made is the one the buffer assignment comes from") {
  // `hloroof predict --xspace` makes it beside the prediction, with xspace_memory_options().
  Case c = predict_nested("h100");
  const XSpaceOptions options = {.max_assigned_buffers = 2};
  absl::StatusOr<MemoryReport> memory =
      analyze_memory(c.module, c.spec, xspace_memory_options(options));
  REQUIRE_OK(memory);
  XSpaceOptions given = options;
  given.memory = &*memory;
  absl::StatusOr<XSpaceFile> made = prediction_to_xspace(c.module, c.prediction, c.spec, options);
  absl::StatusOr<XSpaceFile> from_given =
      prediction_to_xspace(c.module, c.prediction, c.spec, given);
  REQUIRE_OK(made);
  REQUIRE_OK(from_given);
  CHECK(from_given->unfilled == made->unfilled);
  absl::StatusOr<Profile> a = parse_xspace(made->bytes, "a.xplane.pb");
  absl::StatusOr<Profile> b = parse_xspace(from_given->bytes, "b.xplane.pb");
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE(a->module_protos.size() == 1);
  REQUIRE(b->module_protos.size() == 1);
  // The same file (its bytes are deterministic), and the same assignment read back.
  CHECK(from_given->bytes == made->bytes);
  absl::StatusOr<XlaBufferAssignment> read_a =
      read_xla_buffer_assignment(a->module_protos[0].hlo_proto);
  absl::StatusOr<XlaBufferAssignment> read_b =
      read_xla_buffer_assignment(b->module_protos[0].hlo_proto);
  REQUIRE_OK(read_a);
  REQUIRE_OK(read_b);
  CHECK(b->module_protos[0].hlo_proto.size() == a->module_protos[0].hlo_proto.size());
  REQUIRE(read_b->allocations.size() == read_a->allocations.size());
  for (size_t k = 0; k < read_a->allocations.size(); ++k) {
    CHECK(read_b->allocations[k].size_bytes == read_a->allocations[k].size_bytes);
    CHECK(read_b->allocations[k].buffers.size() == read_a->allocations[k].buffers.size());
  }
  CHECK(read_b->temp_bytes == read_a->temp_bytes);

  // And it is the one used: a report of every buffer names them all.
  absl::StatusOr<MemoryReport> every = analyze_memory(c.module, c.spec, {.top_buffers = 0});
  REQUIRE_OK(every);
  REQUIRE(every->buffer_count > 2);
  given.memory = &*every;
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec, given);
  REQUIRE_OK(file);
  absl::StatusOr<Profile> profile = parse_xspace(file->bytes, "c.xplane.pb");
  REQUIRE_OK(profile);
  REQUIRE(profile->module_protos.size() == 1);
  absl::StatusOr<XlaBufferAssignment> read =
      read_xla_buffer_assignment(profile->module_protos[0].hlo_proto);
  REQUIRE_OK(read);
  size_t named = 0;
  for (const auto& allocation : read->allocations) named += allocation.buffers.size();
  CHECK(named > 2);
}

TEST_CASE("a memory analysis still running when the XSpace begins: the planes do not wait") {
  // `hloroof predict --xspace` begins the XSpace as soon as the prediction is made, its memory
  // analysis on another thread: the same bytes as from the report given, on one thread or two.
  Case c = predict_nested("tpu_v5e");
  const XSpaceOptions options = {.max_assigned_buffers = 3};
  // A report of every buffer: told apart from the one the writer would make (three buffers).
  absl::StatusOr<MemoryReport> memory = analyze_memory(c.module, c.spec, {.top_buffers = 0});
  REQUIRE_OK(memory);
  REQUIRE(memory->buffer_count > 3);
  XSpaceOptions given = options;
  given.memory = &*memory;
  absl::StatusOr<XSpaceFile> expected =
      prediction_to_xspace(c.module, c.prediction, c.spec, given);
  absl::StatusOr<XSpaceFile> own = prediction_to_xspace(c.module, c.prediction, c.spec, options);
  REQUIRE_OK(expected);
  REQUIRE_OK(own);
  REQUIRE(expected->bytes != own->bytes);
  for (int threads : {1, 2, 3}) {
    INFO("threads " << threads);
    // The command frees every buffer described as soon as memory_read is called: nothing of
    // the report may be read after it (here it is emptied: a later read would find none).
    MemoryReport held = *memory;
    std::promise<const MemoryReport*> made;
    XSpaceOptions later = options;
    later.threads = threads;
    later.memory_future = made.get_future().share();
    int reads = 0;
    later.memory_read = [&] {
      ++reads;
      held = MemoryReport{};
    };
    std::thread analysis([&] { made.set_value(&held); });
    absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec, later);
    analysis.join();
    REQUIRE_OK(file);
    CHECK(reads == 1);
    CHECK(held.largest_buffers.empty());
    CHECK(file->bytes == expected->bytes);
    CHECK(file->unfilled == expected->unfilled);
  }
  // A failed analysis (null) is made again by the writer: the file of no report given, and
  // no memory_read (the report is the writer's own).
  std::promise<const MemoryReport*> failed;
  failed.set_value(nullptr);
  XSpaceOptions none = options;
  none.memory_future = failed.get_future().share();
  int reads = 0;
  none.memory_read = [&] { ++reads; };
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec, none);
  REQUIRE_OK(file);
  CHECK(file->bytes == own->bytes);
  CHECK(reads == 0);
  // So is a promise given up without a report (its future throws): no crash, the same file.
  XSpaceOptions abandoned = options;
  {
    std::promise<const MemoryReport*> given_up;
    abandoned.memory_future = given_up.get_future().share();
  }
  for (int threads : {1, 3}) {
    abandoned.threads = threads;
    absl::StatusOr<XSpaceFile> again =
        prediction_to_xspace(c.module, c.prediction, c.spec, abandoned);
    REQUIRE_OK(again);
    CHECK(again->bytes == own->bytes);
  }
}

TEST_CASE("the prediction's timeline freed once it is read: the same bytes") {
  // `hloroof predict --xspace` frees the timeline when timeline_read is called: nothing written
  // after may come from it. Here its texts are first overwritten (a slice still viewing them
  // would write other names), then it is freed. Loops' iteration slices have names of their
  // own; a prediction whose records carry no instruction pointers is written by name.
  absl::StatusOr<Prediction> from_text = testing::predict_text(kNested, "tpu_v5e");
  REQUIRE_OK(from_text);
  for (OpPrediction& op : from_text->ops) op.instruction = nullptr;
  for (TimelineEvent& e : from_text->timeline) e.instruction = nullptr;
  for (std::string_view device_name : {"tpu_v5e", "h100", "text"}) {
    INFO(device_name);
    const bool text = device_name == "text";
    const Case c = predict_nested(text ? "tpu_v5e" : device_name);
    const Prediction& made = text ? *from_text : c.prediction;
    const XSpaceFile expected = *prediction_to_xspace(c.module, made, c.spec, {.steps = 2});
    for (int threads : {1, 3}) {
      INFO("threads " << threads);
      Prediction p = made;
      const size_t events = p.timeline.size();
      REQUIRE(events > 10);
      int reads = 0;
      XSpaceOptions options = {.steps = 2, .threads = threads};
      options.timeline_read = [&] {
        ++reads;
        for (TimelineEvent& e : p.timeline) {
          std::fill(e.name.begin(), e.name.end(), '?');
          std::fill(e.track.begin(), e.track.end(), '?');
        }
        std::vector<TimelineEvent>().swap(p.timeline);
      };
      absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, p, c.spec, options);
      REQUIRE_OK(file);
      CHECK(reads == 1);
      CHECK(p.timeline.empty());
      CHECK(file->bytes == expected.bytes);
      CHECK(file->events == expected.events);
      CHECK(file->unfilled == expected.unfilled);
    }
  }
}

TEST_CASE("an AMD GPU's plane: XProf's vendor and its gfx942 rate give mi300x's peak") {
  Case c = predict_nested("mi300x");
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(file);
  const xp::XSpace space = parse_space(file->bytes);
  const xp::XPlane& gpu = plane_named(space, "/device:GPU:0");
  // XProf reads compute capability 9.4 as gfx942, whose largest per-CU rate is 2,048 f16 matrix
  // FLOPs per clock (xprof/utils/rocm_type_utils.cc): the clock in kHz that gives mi300x's
  // bf16 1.3074e15 FLOP/s on one "core".
  CHECK(find_stat(gpu, gpu.stats(), "device_vendor")->str_value() == "AMD");
  CHECK(find_stat(gpu, gpu.stats(), "core_count")->int64_value() == 1);
  CHECK(find_stat(gpu, gpu.stats(), "clock_rate")->int64_value() ==
        std::llround(1.3074e15 / 2048 / 1e3));
  CHECK(find_stat(gpu, gpu.stats(), "compute_cap_minor")->int64_value() == 4);
}

TEST_CASE("GPU: kernels carry hlo_op, hlo_module and correlation_id; the host launches them") {
  Case c = predict_nested("h100");
  absl::StatusOr<XSpaceFile> file = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(file);
  const xp::XSpace space = parse_space(file->bytes);
  const xp::XPlane& gpu = plane_named(space, "/device:GPU:0");
  const xp::XPlane& host = plane_named(space, "/host:CPU");
  // XProf's peak: core_count x 4,096 FLOPs per SM per clock (compute capability 9.0) x clock:
  // the clock in kHz that gives h100's bf16 9.89e14 FLOP/s on one "core".
  CHECK(find_stat(gpu, gpu.stats(), "core_count")->int64_value() == 1);
  CHECK(find_stat(gpu, gpu.stats(), "clock_rate")->int64_value() ==
        std::llround(9.89e14 / 4096 / 1e3));
  CHECK(find_stat(gpu, gpu.stats(), "compute_cap_major")->int64_value() == 9);
  CHECK(find_stat(gpu, gpu.stats(), "memory_bandwidth")->uint64_value() == 3'350'000'000'000u);
  CHECK(find_stat(gpu, gpu.stats(), "device_vendor")->str_value() == "Nvidia");
  std::set<uint64_t> correlations;
  int64_t kernels = 0;
  for (const xp::XLine& line : gpu.lines()) {
    for (const xp::XEvent& e : line.events()) {
      const xp::XStat* op = find_stat(gpu, e.stats(), "hlo_op");
      if (op == nullptr) continue;  // async work, shown only
      ++kernels;
      CHECK(gpu.stat_metadata().at(static_cast<int64_t>(op->ref_value())).name() ==
            gpu.event_metadata().at(e.metadata_id()).name());
      const xp::XStat* module = find_stat(gpu, e.stats(), "hlo_module");
      REQUIRE(module != nullptr);
      CHECK(gpu.stat_metadata().at(static_cast<int64_t>(module->ref_value())).name() == "nested");
      correlations.insert(find_stat(gpu, e.stats(), "correlation_id")->uint64_value());
    }
  }
  CHECK(kernels > 0);
  CHECK(correlations.size() == static_cast<size_t>(kernels));  // one launch each
  int64_t launches = 0, modules = 0;
  for (const xp::XEvent& e : host.lines(0).events()) {
    const std::string& name = host.event_metadata().at(e.metadata_id()).name();
    if (name == "nested:XLA GPU module") ++modules;
    const xp::XStat* id = find_stat(host, e.stats(), "correlation_id");
    if (id != nullptr) launches += correlations.count(id->uint64_value());
  }
  CHECK(modules == 1);
  CHECK(launches == kernels);
}

TEST_CASE("write_xspace: the run folder JAX writes, and names that stay inside it") {
  Case c = predict_nested("tpu_v5e");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "hloroof_xspace_test";
  std::filesystem::remove_all(dir);
  absl::StatusOr<XSpaceFile> file = write_xspace(c.module, c.prediction, c.spec, dir.string());
  REQUIRE_OK(file);
  CHECK(file->path ==
        (dir / "plugins/profile/predicted_tpu_v5e/hloroof-predicted.xplane.pb").string());
  // Serialized into the file, not held: the file reads as the space prediction_to_xspace
  // makes (its bytes are not compared: the order of its maps' entries varies).
  CHECK(file->bytes.empty());
  std::ifstream in(file->path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<XSpaceFile> made = prediction_to_xspace(c.module, c.prediction, c.spec);
  REQUIRE_OK(made);
  CHECK(bytes.size() == made->bytes.size());
  CHECK(file->events == made->events);
  CHECK(file->unfilled == made->unfilled);
  absl::StatusOr<Profile> read_back = parse_xspace(bytes, "written.xplane.pb");
  REQUIRE_OK(read_back);
  REQUIRE(read_back->module_protos.size() == 1);
  // read_profile finds it in the log directory, as it finds JAX's.
  absl::StatusOr<Profile> profile = read_profile(dir.string());
  REQUIRE_OK(profile);
  CHECK(profile->origin == file->path);
  for (std::string_view bad : {"..", "a/b", ".", "a\\b"}) {
    INFO(bad);
    CHECK(!write_xspace(c.module, c.prediction, c.spec, dir.string(), {.run = std::string(bad)})
               .ok());
    CHECK(!write_xspace(c.module, c.prediction, c.spec, dir.string(), {.host = std::string(bad)})
               .ok());
  }
  CHECK(!write_xspace(c.module, c.prediction, c.spec, dir.string(), {.host = ""}).ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_xspace: never over an input, nor through a link planted in the log folder") {
  Case c = predict_nested("tpu_v5e");
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "hloroof_xspace_inputs_test";
  fs::remove_all(dir);
  const fs::path run = dir / "plugins/profile/predicted_tpu_v5e";
  const fs::path file = run / "hloroof-predicted.xplane.pb";
  fs::create_directories(run);
  // The XSpace file itself predicted again into the same folder: it is the input.
  { std::ofstream(file) << "input"; }
  XSpaceOptions options;
  options.inputs = {file.string()};
  absl::StatusOr<XSpaceFile> over_input =
      write_xspace(c.module, c.prediction, c.spec, dir.string(), options);
  REQUIRE_FALSE(over_input.ok());
  CHECK(over_input.status().message().find("it is an input of this command") !=
        std::string_view::npos);
  // A link named like the file, pointing at the module read: refused, the module kept.
  const fs::path module_file = dir / "module.hlo";
  { std::ofstream(module_file) << "HloModule m"; }
  fs::remove(file);
  fs::create_symlink(module_file, file);
  absl::StatusOr<XSpaceFile> through_link =
      write_xspace(c.module, c.prediction, c.spec, dir.string());
  REQUIRE_FALSE(through_link.ok());
  CHECK(through_link.status().message().find("is a symbolic link inside the log folder") !=
        std::string_view::npos);
  std::ifstream in(module_file);
  std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(kept == "HloModule m");
  // A linked folder of the run likewise.
  fs::remove_all(dir / "plugins");
  fs::create_directories(dir / "elsewhere");
  fs::create_directories(dir / "plugins");
  fs::create_directory_symlink(dir / "elsewhere", dir / "plugins/profile");
  CHECK_FALSE(write_xspace(c.module, c.prediction, c.spec, dir.string()).ok());
  CHECK(fs::is_empty(dir / "elsewhere"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hloroof
