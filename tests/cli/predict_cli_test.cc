// `hloroof predict`: the report, the JSON keys, the trace and exit codes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

// An all-gather of f32[67500] -> f32[135000] (540,000 B) started before an add of 12 x 204750 B
// and waited for after it. Roofline: 6 us along a v5e line of 2; the add 3 us plus the 1 us
// per-op overhead; 4 us of the 6 hidden, a 6 us step. Expected (the TPU7x fits, borrowed;
// docs/prediction-model.md): the all-gather 13.48 us of fitted latency + 6 us / 0.993 = 19.5 us;
// the add 3 us / 0.869 of HBM + the fitted 1.8 us fixed cost = 5.25 us, hidden under it; 14.3 us
// exposed; the step 19.5 us.
constexpr const char* kStep = R"(HloModule step, num_partitions=2, is_scheduled=true
ENTRY main {
  x = f32[67500] parameter(0)
  a0 = f32[204750] parameter(1)
  ags = (f32[67500], f32[135000]) all-gather-start(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, dimensions={0}
  a = f32[204750] add(a0, a0)
  agd = f32[135000] all-gather-done(ags)
  ROOT t = (f32[135000], f32[204750]) tuple(agd, a)
}
)";

std::string example(const char* name) {
  return std::string(HLOROOF_SOURCE_DIR) + "/examples/" + name;
}

TEST_CASE("predict prints the step, its breakdown, MFU and the costliest ops") {
  auto r = run_cli("predict - --device tpu_v5e:1x2", kStep);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("(tpu_v5e:1x2)"));
  CHECK_THAT(r.out, Catch::Contains("step time"));
  CHECK_THAT(r.out, Catch::Contains("19.5 us  expected, 6 us at the roofline"));
  CHECK_THAT(r.out, Catch::Contains("hardware FLOP utilization"));
  // The collectives table: the all-gather's 19.5 us, 14.3 exposed, 5.25 hidden behind the add.
  const std::string collectives = r.out.substr(r.out.find("Collectives:"));
  CHECK_THAT(collectives, Catch::Contains("ags") && Catch::Contains("all-gather") &&
                              Catch::Contains("19.5 us") && Catch::Contains("14.3 us") &&
                              Catch::Contains("5.25 us"));
  CHECK_THAT(r.out, Catch::Contains("HLO op stats by op: 3 ops"));
  CHECK_THAT(r.out, Catch::Contains("per_op_overhead"));  // an assumed figure, said so
  CHECK(r.err.empty());
}

TEST_CASE("predict --json has the documented keys") {
  auto r = run_cli("predict - --device tpu_v5e --topology 1x2 --json", kStep);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["device"] == "tpu_v5e");
  CHECK(j["topology"] == "1x2");
  CHECK(j["step_time_s"].get<double>() == Approx(19.52e-6).epsilon(0.002));
  const nlohmann::json& b = j["breakdown"];
  CHECK(b["collective_exposed_s"].get<double>() == Approx(14.27e-6).epsilon(0.002));
  CHECK(b["collective_hidden_s"].get<double>() == Approx(5.248e-6).epsilon(0.002));
  CHECK(b["compute_s"].get<double>() + b["memory_s"].get<double>() +
            b["collective_exposed_s"].get<double>() + b["overhead_s"].get<double>() ==
        Approx(j["step_time_s"].get<double>()));
  for (const char* key : {"hfu", "mfu", "flops", "hbm_bytes", "unknown_ops", "assumptions", "ops"}) {
    CHECK(j.contains(key));
  }
  REQUIRE(j["ops"].size() == 3);
  CHECK(j["ops"][0]["name"] == "agd");  // the wait for the all-gather: 14.3 us
  const nlohmann::json& top = j["ops"][1];  // the add: 5.25 us
  CHECK(top["name"] == "a");
  CHECK(top["opcode"] == "add");
  CHECK(top["bound"] == "memory");
  // Expected and roofline side by side: the roofline 3 us (its HBM term; the 1 us launch
  // overlaps it), the expected 5.25 us.
  CHECK(j["roofline_step_time_s"].get<double>() == Approx(6e-6));
  CHECK(top["roofline_time_s"].get<double>() == Approx(3e-6));
  CHECK(top["total_roofline_time_s"].get<double>() == Approx(3e-6));
  CHECK(top["efficiency"].get<double>() == Approx(3.0 / 5.248).epsilon(0.002));
  CHECK(top["model"] == "achievable HBM (measured on tpu7x, borrowed)");
  CHECK(top["multiplier"] == 1);
  CHECK(top["time_s"].get<double>() == Approx(5.248e-6).epsilon(0.002));
  CHECK(top["total_time_s"].get<double>() == Approx(5.248e-6).epsilon(0.002));
  CHECK(top["flops"] == 204750);
  CHECK(top["hbm_bytes"] == 12 * 204750);
  CHECK(top["collective"].is_null());
  bool start = false;
  for (const nlohmann::json& op : j["ops"]) {
    if (op["name"] != "ags") continue;
    start = true;
    CHECK(op["bound"] == "collective");
    CHECK(op["collective"]["kind"] == "all-gather");
    CHECK(op["collective"]["payload_bytes"] == 540000);
    CHECK(op["collective"]["group_size"] == 2);
    CHECK(op["collective"]["time_s"].get<double>() == Approx(19.52e-6).epsilon(0.002));
    CHECK(op["collective"]["exposed_s"].get<double>() == Approx(14.27e-6).epsilon(0.002));
    CHECK(!op["collective"]["formula"].get<std::string>().empty());
  }
  CHECK(start);
}

TEST_CASE("predict on the examples, with the device's topology inferred or named") {
  auto tpu =
      run_cli("predict " + example("tpu_v5e_train_step.hlo") + " --device tpu_v5e:2x2 --top 5");
  REQUIRE(tpu.exit_code == 0);
  CHECK_THAT(tpu.out, Catch::Contains("top 5 of"));
  CHECK_THAT(tpu.out, Catch::Contains("collective-permute"));
  // Without --device the default is tpu_v5e; the topology is then inferred and said so.
  auto inferred = run_cli("predict " + example("tpu_v5e_train_step.hlo") + " --top 0");
  REQUIRE(inferred.exit_code == 0);
  CHECK_THAT(inferred.out, Catch::Contains("(tpu_v5e:2x2)"));
  CHECK_THAT(inferred.out, Catch::Contains("topology 2x2 (x:2 ICI line, y:2 ICI line) inferred"));
  CHECK_THAT(inferred.out, !Catch::Contains("top 0"));
  auto gpu =
      run_cli("predict " + example("h100_gemm_step.hlo") + " --device h100 --formula xla-gpu-nccl");
  REQUIRE(gpu.exit_code == 0);
  CHECK_THAT(gpu.out, Catch::Contains("(h100:1x8)"));
  // XLA's NCCL model is NVIDIA's: an AMD GPU is refused by name, not given NVLink constants.
  auto amd = run_cli("predict " + example("h100_gemm_step.hlo") +
                     " --device mi300x --formula xla-gpu-nccl");
  CHECK(amd.exit_code != 0);
  CHECK_THAT(amd.err, Catch::Contains("XLA's NCCL model describes NVIDIA GPUs; mi300x is an AMD"));
}

TEST_CASE("predict --trace writes a Chrome trace of the timeline") {
  char path[] = "/tmp/hloroof_trace_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  auto r = run_cli(std::string("predict - --device tpu_v5e:1x2 --trace ") + path, kStep);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  bool stream = false;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["args"].contains("name") && e["args"]["name"] == "async all-gather") {
      stream = true;
    }
  }
  CHECK(stream);
}

TEST_CASE("predict --xspace writes the run XProf opens and says what it leaves empty") {
  char dir[] = "/tmp/hloroof_xspace_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string file = std::string(dir) +
                           "/plugins/profile/predicted_tpu_v5e/hloroof-predicted.xplane.pb";
  auto r = run_cli(std::string("predict - --device tpu_v5e:1x2 --xspace ") + dir, kStep);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("XSpace written (predicted by hloroof, not measured)"));
  CHECK_THAT(r.out, Catch::Contains(std::string("xprof --logdir ") + dir));
  CHECK_THAT(r.out, Catch::Contains("XProf views this file leaves empty or partial:"));
  std::ifstream in(file, std::ios::binary);
  CHECK(in.good());
  // --json keeps standard output JSON: the summary goes to standard error.
  auto json = run_cli(std::string("predict - --device tpu_v5e:1x2 --json --steps 2 --xspace ") +
                          dir,
                      kStep);
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out).contains("step_time_s"));
  CHECK_THAT(json.err, Catch::Contains("XSpace written"));
  std::remove(file.c_str());
  CHECK(run_cli("predict - --steps 2", kStep).exit_code == 2);  // --steps needs --xspace
  CHECK(run_cli(std::string("predict - --steps 0 --xspace ") + dir, kStep).exit_code == 2);
}

TEST_CASE("predict errors: bad input exits 1, bad usage 2") {
  auto unknown = run_cli("predict - --device tpu_v99", kStep);
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.err, Catch::StartsWith("error: unknown device 'tpu_v99'"));
  auto small = run_cli("predict - --device tpu_v5e --topology 1x1", kStep);
  CHECK(small.exit_code == 1);
  CHECK_THAT(small.err, Catch::Contains("has 1 devices, but the module runs on 2"));
  auto garbled = run_cli("predict - --device tpu_v5e", "HloModule m\nENTRY e {\n  x = f32[");
  CHECK(garbled.exit_code == 1);
  CHECK_THAT(garbled.err, Catch::Contains("error"));
  CHECK(run_cli("predict").exit_code == 2);
  // A value not of its flag's type is a usage error that names the flag and the value.
  auto lots = run_cli("predict - --top lots", kStep);
  CHECK(lots.exit_code == 2);
  CHECK_THAT(lots.err, Catch::StartsWith("error: --top wants a non-negative integer, got 'lots'"));
  auto by = run_cli("predict - --by opcode", kStep);
  CHECK(by.exit_code == 2);
  CHECK_THAT(by.err, Catch::StartsWith("error: --by wants op, category or scope, got 'opcode'"));
  auto flops = run_cli("predict - --model-flops -3", kStep);
  CHECK(flops.exit_code == 2);
  CHECK_THAT(flops.err, Catch::Contains("--model-flops wants a positive number (1.2e15), got '-3'"));
  // --help is answered before the values are checked.
  CHECK(run_cli("predict - --top lots --help", kStep).exit_code == 0);
  CHECK(run_cli("predict - --formula magic", kStep).exit_code == 2);
  CHECK(run_cli("predict - --bogus", kStep).exit_code == 2);
  auto help = run_cli("predict --help");
  CHECK(help.exit_code == 0);
  // The help's options are wrapped to fit: its words, whatever the line breaks.
  std::string words;
  std::istringstream in(help.out);
  for (std::string w; in >> w;) words += (words.empty() ? "" : " ") + w;
  CHECK_THAT(words, Catch::Contains("h100 for a GPU module") && Catch::Contains("else tpu_v5e"));
  // Each option's default, as it is declared, and as the command takes it.
  CHECK_THAT(words, Catch::Contains("rows of the op stats and collectives; 0: all (default 20)"));
}

}  // namespace

TEST_CASE("predict --csv: every op of --json, one row each, the JSON's op keys as columns") {
  auto json = run_cli("predict - --device tpu_v5e:1x2 --json", kStep);
  auto csv = run_cli("predict - --device tpu_v5e:1x2 --csv", kStep);
  REQUIRE(json.exit_code == 0);
  REQUIRE(csv.exit_code == 0);
  const nlohmann::json ops = nlohmann::json::parse(json.out)["ops"];
  // An explanation may span lines inside its quotes: records are read quote by quote.
  const hloroof::testing::Csv table = hloroof::testing::parse_csv(csv.out);
  CHECK(table.well_formed);
  const auto& rows = table.records;
  REQUIRE(rows.size() == ops.size() + 1);  // a header, then one row per op
  // Every scalar key of a JSON op is a column; nested ones are flattened (collective.kind).
  const std::vector<std::string>& header = rows[0];
  auto has_column = [&](const std::string& key) {
    return std::find(header.begin(), header.end(), key) != header.end();
  };
  for (const auto& [key, value] : ops[0].items()) {
    if (value.is_object() || value.is_null()) continue;
    INFO(key);
    CHECK(has_column(key));
  }
  // And every key of a nested object, wherever an op has one.
  int nested = 0;
  for (const nlohmann::json& op : ops) {
    for (const char* object : {"collective", "async", "time_range"}) {
      if (!op[object].is_object()) continue;
      for (const auto& [key, value] : op[object].items()) {
        INFO(object << "." << key);
        CHECK(has_column(absl::StrCat(object, ".", key)));
        ++nested;
      }
    }
  }
  CHECK(nested > 0);
  CHECK(has_column("collective.payload_bytes"));
  // The rows in the JSON's order, named alike.
  for (size_t k = 0; k < ops.size(); ++k) {
    CHECK(rows[k + 1][0] == ops[k]["name"].get<std::string>());
  }
  CHECK(run_cli("predict - --device tpu_v5e:1x2 --csv --json", kStep).exit_code == 2);
}

TEST_CASE("predict --csv of many ops: the rows in the JSON's order, made in pieces") {
  // 700 ops (two kinds, so that the order by time interleaves them): three pieces of 256 rows
  // or fewer, made by as many threads as the machine has; each row must be its JSON op's, in
  // the same place.
  std::string module = "HloModule many\n\nENTRY e {\n  v0 = f32[64] parameter(0)\n";
  for (int k = 1; k <= 700; ++k) {
    module += "  v" + std::to_string(k) + " = f32[64] " + (k % 3 == 0 ? "exponential" : "negate") +
              "(v" + std::to_string(k - 1) + ")\n";
  }
  module += "}\n";
  auto json = run_cli("predict - --device tpu_v5e --json", module);
  auto csv = run_cli("predict - --device tpu_v5e --csv", module);
  REQUIRE(json.exit_code == 0);
  REQUIRE(csv.exit_code == 0);
  const nlohmann::json ops = nlohmann::json::parse(json.out)["ops"];
  REQUIRE(ops.size() == 700);
  const hloroof::testing::Csv table = hloroof::testing::parse_csv(csv.out);
  CHECK(table.well_formed);
  REQUIRE(table.records.size() == ops.size() + 1);
  size_t alike = 0;
  for (size_t k = 0; k < ops.size(); ++k) {
    alike += table.records[k + 1][0] == ops[k]["name"].get<std::string>() &&
                     table.records[k + 1].back() == ops[k]["explanation"].get<std::string>()
                 ? 1
                 : 0;
  }
  CHECK(alike == ops.size());
}

namespace hloroof {
namespace {

TEST_CASE("a module compiled for one platform, predicted on another's device, is a warning") {
  // The H100 GEMM capture (custom call __cublas$lt$matmul) on a TPU; on an H100, no warning.
  const std::string gemm =
      std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/gemm/module.hlo";
  testing::CliResult tpu = testing::run_cli("predict " + gemm + " --device tpu_v5e");
  INFO(tpu.out << tpu.err);
  CHECK(tpu.exit_code == 0);
  const std::string said = absl::StrReplaceAll(tpu.out + tpu.err, {{"\n  ", " "}});
  CHECK(absl::StrContains(said, "the module was compiled for GPU (custom call "
                                "\"__cublas$lt$matmul\""));
  CHECK(absl::StrContains(said, "and is predicted on tpu_v5e, a TPU"));
  testing::CliResult gpu = testing::run_cli("predict " + gemm + " --device h100");
  CHECK(gpu.exit_code == 0);
  CHECK_FALSE(absl::StrContains(gpu.out + gpu.err, "the module was compiled for"));
}

}  // namespace
}  // namespace hloroof

namespace hloroof {
namespace {

TEST_CASE("the op table's category column holds the longest category whole") {
  // A negate outside any fusion: "non-fusion elementwise" (22 characters) was cut to
  // "non-fusion elemen~" by an 18-character column.
  const std::string module =
      "HloModule m\nENTRY e {\n  x = f32[1024] parameter(0)\n  ROOT n = f32[1024] negate(x)\n}\n";
  testing::CliResult r = testing::run_cli("predict - --device h100", module);
  REQUIRE(r.exit_code == 0);
  CHECK(absl::StrContains(r.out, "non-fusion elementwise"));
  CHECK_FALSE(absl::StrContains(r.out, "elemen~"));
}

}  // namespace
}  // namespace hloroof
