// diff_predictions on hand-made pairs of modules: what is matched, added and removed, and the
// arithmetic of each change.
#include <catch2/catch.hpp>
#include <algorithm>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hloroof/device.h"
#include "hloroof/diff.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "predict_on.h"
#include "require_ok.h"

namespace {

using hloroof::OpChange;
using hloroof::OpDelta;
using hloroof::PredictionDiff;

// Both modules stay alive while their predictions are compared.
struct Pair {
  hloroof::Module before;
  hloroof::Module after;
  PredictionDiff diff;
};

hloroof::Module parse(std::string_view text) {
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(text);
  INFO(m.status().ToString());
  REQUIRE_OK(m);
  return *std::move(m);
}

hloroof::Prediction predict(const hloroof::Module& m) {
  absl::StatusOr<hloroof::DeviceSpec> h100 = hloroof::device("h100");
  REQUIRE_OK(h100);
  absl::StatusOr<hloroof::Prediction> p = hloroof::testing::predict_on(m, *h100, {});
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  return *std::move(p);
}

const OpDelta& op(const PredictionDiff& d, std::string_view name) {
  for (const OpDelta& o : d.ops) {
    if (o.name == name) return o;
  }
  FAIL("no op " << name);
  return d.ops.front();
}

TEST_CASE("removing a copy saves exactly its time and bytes") {
  // f32[16777216] is 64 MiB. The copy reads 64 MiB and writes 64 MiB: 128 MiB (134217728 B)
  // of HBM traffic, and its time per step is all the step loses; negate is the same op on both
  // sides (same name, shape and bytes). (The kernels, tens of microseconds, hide the host's
  // launch of the second: a program of two short ones would wait on it.)
  hloroof::Module before = parse(R"(
HloModule m, is_scheduled=true
ENTRY e {
  p = f32[16777216]{0} parameter(0)
  c = f32[16777216]{0} copy(p)
  ROOT n = f32[16777216]{0} negate(c)
}
)");
  hloroof::Module after = parse(R"(
HloModule m, is_scheduled=true
ENTRY main.2 {
  p = f32[16777216]{0} parameter(0)
  ROOT n = f32[16777216]{0} negate(p)
}
)");
  const hloroof::Prediction b = predict(before), a = predict(after);
  const PredictionDiff d = hloroof::diff_predictions(b, a, 100, 60);
  CHECK(d.removed == 1);
  CHECK(d.added == 0);
  const OpDelta& copy = op(d, "c");
  CHECK(copy.change == OpChange::kRemoved);
  CHECK(copy.before_hbm_bytes == 134217728);
  CHECK(copy.after_time_s == 0);
  // The entries have different names (e, main.2) and still match.
  CHECK(op(d, "n").change == OpChange::kUnchanged);
  CHECK(d.unchanged >= 1);
  // The step lost the copy's time, and nothing else changed.
  CHECK(d.after.step_time_s - d.before.step_time_s ==
        Approx(-copy.before_time_s).epsilon(1e-9));
  CHECK(d.before.hbm_bytes - d.after.hbm_bytes == Approx(134217728));
  CHECK(d.before.peak_bytes == 100);
  CHECK(d.after.peak_bytes == 60);
  // The largest change comes first.
  CHECK(d.ops.front().name == "c");

  // The trace: before's slices (c, n) on "before: compute", after's (n) on "after: compute",
  // each from 0; the copy's slice says it was removed and what that bought, n that it stayed.
  const nlohmann::json trace = nlohmann::json::parse(hloroof::diff_to_trace_json(d, b, a));
  std::map<int, std::string> tracks;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      tracks[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
  }
  std::vector<std::string> slices;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const std::string track = tracks[e["tid"].get<int>()];
    const std::string name = e["name"].get<std::string>();
    slices.push_back(track + " " + name);
    if (name == "c") {
      CHECK(track == "before: compute");
      CHECK(e["args"]["change"] == "removed");
      CHECK(e["args"]["delta_time_s"].get<double>() == Approx(-copy.before_time_s));
      CHECK(e["ts"].get<double>() == 0);  // the first op of its side
    }
    if (name == "n") CHECK(e["args"]["change"] == "unchanged");
  }
  std::sort(slices.begin(), slices.end());
  CHECK(slices == std::vector<std::string>{"after: compute n", "before: compute c",
                                           "before: compute n"});
}

TEST_CASE("a larger dot changes by its FLOPs, and a renamed op is matched by op_name") {
  // Before: [256,512] x [512,128]: 2 * 256 * 512 * 128 = 33554432 FLOPs.
  // After:  [256,1024] x [1024,128]: 2 * 256 * 1024 * 128 = 67108864 FLOPs; +33554432.
  // The exponential is renamed (x.3 -> x.7) but keeps its op_name: matched, unchanged.
  hloroof::Module before = parse(R"(
HloModule m, is_scheduled=true
ENTRY e {
  a = f32[256,512]{1,0} parameter(0)
  b = f32[512,128]{1,0} parameter(1)
  d = f32[256,128]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT x.3 = f32[256,128]{1,0} exponential(d), metadata={op_name="jit(f)/exp"}
}
)");
  hloroof::Module after = parse(R"(
HloModule m, is_scheduled=true
ENTRY e {
  a = f32[256,1024]{1,0} parameter(0)
  b = f32[1024,128]{1,0} parameter(1)
  d = f32[256,128]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT x.7 = f32[256,128]{1,0} exponential(d), metadata={op_name="jit(f)/exp"}
}
)");
  const hloroof::Prediction b = predict(before), a = predict(after);
  const PredictionDiff d = hloroof::diff_predictions(b, a);
  const OpDelta& dot = op(d, "d");
  CHECK(dot.change == OpChange::kChanged);
  CHECK(dot.before_flops == 33554432);
  CHECK(dot.after_flops == 67108864);
  CHECK(d.after.flops - d.before.flops == Approx(33554432));
  const OpDelta& exp = op(d, "x.7");
  CHECK(exp.before_name == "x.3");
  CHECK(exp.change == OpChange::kUnchanged);
  CHECK(d.renamed == 1);
  CHECK(d.added == 0);
  CHECK(d.removed == 0);
  CHECK(!d.before.peak_bytes.has_value());

  // The JSON carries the same figures under the names of the C++ fields.
  const nlohmann::json j = nlohmann::json::parse(hloroof::diff_to_json(d));
  CHECK(j["renamed"] == 1);
  CHECK(j["before"]["peak_bytes"].is_null());
  CHECK(j["delta_step_time_s"].get<double>() ==
        Approx(d.after.step_time_s - d.before.step_time_s));
  bool found = false;
  for (const auto& o : j["ops"]) {
    if (o["name"] == "d") {
      found = true;
      CHECK(o["after_flops"].get<double>() - o["before_flops"].get<double>() == 33554432);
      CHECK(o["change"] == "changed");
    }
  }
  CHECK(found);
  // Written as it is made: the text nlohmann writes of the same document, one space of
  // indentation per level, and that text again through a stream.
  const std::string json_text = hloroof::diff_to_json(d);
  CHECK(json_text == nlohmann::ordered_json::parse(json_text).dump(1) + "\n");
  std::ostringstream streamed;
  hloroof::write_diff_json(d, streamed);
  CHECK(streamed.str() == json_text);
  // The text names the changed op and fits 100 columns.
  const std::string text = hloroof::render_diff(d);
  CHECK(text.find(" d ") != std::string::npos);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    CHECK(end - start <= 100);
    start = end + 1;
  }
}

TEST_CASE("identical modules differ in nothing") {
  constexpr std::string_view kText = R"(
HloModule m, is_scheduled=true
ENTRY e {
  p = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(p)
}
)";
  hloroof::Module one = parse(kText), two = parse(kText);
  const PredictionDiff d = hloroof::diff_predictions(predict(one), predict(two));
  CHECK(d.changed == 0);
  CHECK(d.added == 0);
  CHECK(d.removed == 0);
  CHECK(d.after.step_time_s == d.before.step_time_s);
  CHECK(hloroof::render_diff(d).find("No op's time, FLOPs or bytes changed.") !=
        std::string::npos);
  const std::string json_text = hloroof::diff_to_json(d);
  CHECK(json_text == nlohmann::ordered_json::parse(json_text).dump(1) + "\n");
}

}  // namespace

namespace {

TEST_CASE("a diff says each side's warnings and assumptions, what both say once") {
  constexpr std::string_view kText = R"(
HloModule m, is_scheduled=true
ENTRY e {
  p = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(p)
}
)";
  hloroof::Module one = parse(kText), two = parse(kText);
  hloroof::Prediction before = predict(one), after = predict(two);
  before.diagnostics = {.notes = {"shared note", "before note"}, .warnings = {"both warn"}};
  after.diagnostics = {.notes = {"shared note", "after note"}, .warnings = {"both warn", "late"}};
  const PredictionDiff d = hloroof::diff_predictions(before, after);
  CHECK(d.before.assumptions == std::vector<std::string>{"shared note", "before note"});
  CHECK(d.after.warnings == std::vector<std::string>{"both warn", "late"});
  const std::string text = hloroof::render_diff(d);
  // Warnings under the first lines, before the step table; assumptions at the end.
  CHECK(text.find("warning: both warn\nwarning: after: late\n") != std::string::npos);
  CHECK(text.find("warning: both warn") < text.find("step time, expected"));
  CHECK(text.substr(text.find("Assumptions:\n")) ==
        "Assumptions:\n  - shared note\n  - before: before note\n  - after: after note\n");
  const nlohmann::json json = nlohmann::json::parse(hloroof::diff_to_json(d));
  CHECK(json["before"]["warnings"] == nlohmann::json::array({"both warn"}));
  CHECK(json["after"]["assumptions"] == nlohmann::json::array({"shared note", "after note"}));
}

}  // namespace
