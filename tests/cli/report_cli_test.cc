// The report views as a user reaches them: `hloroof predict` with its report options, and
// `hloroof compare`, on the bundled examples.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_split.h"
#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

const std::string kTrainStep = std::string(HLOROOF_SOURCE_DIR) + "/examples/tpu_v5e_train_step.hlo";

std::vector<std::string> lines_of(const std::string& text) { return absl::StrSplit(text, '\n'); }

void check_fits_100_columns(const std::string& text) {
  for (const std::string& line : lines_of(text)) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
}

// A file name in the temporary directory, removed when the test ends.
struct TempFile {
  explicit TempFile(const std::string& name)
      : path((std::filesystem::temp_directory_path() /
              ("hloroof_report_cli_" + std::to_string(::getpid()) + "_" + name))
                 .string()) {}
  ~TempFile() { std::remove(path.c_str()); }
  std::string read() const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string path;
};

TEST_CASE("predict prints the overview, op stats, roofline and collectives in 100 columns") {
  auto r = run_cli("predict " + kTrainStep + " --device tpu_v5e:2x2");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("Predicted step of one device: Google TPU v5e (tpu_v5e:2x2)"));
  CHECK_THAT(r.out, Catch::Contains("HFU"));
  CHECK_THAT(r.out, Catch::Contains("HLO op stats by op: top 20 of"));
  CHECK_THAT(r.out, Catch::Contains("roofline eff."));
  // 10 all-gather-start, 3 all-reduce-start, 1 all-reduce, 1 collective-permute-start,
  // 5 reduce-scatter and the reduce-scatter async-start in examples/tpu_v5e_train_step.hlo.
  CHECK_THAT(r.out, Catch::Contains("Collectives: top 20 of 21"));
  check_fits_100_columns(r.out);
}

TEST_CASE("predict groups by category or scope, keeps the top rows and filters") {
  auto by_category = run_cli("predict " + kTrainStep + " --by category");
  REQUIRE(by_category.exit_code == 0);
  CHECK_THAT(by_category.out, Catch::Contains("HLO op stats by category"));
  CHECK_THAT(by_category.out, Catch::Contains("convolution fusion"));
  check_fits_100_columns(by_category.out);

  // --depth 4 keeps "jit(train_step)/jit(main)/jvp(transformer)/while" of the forward loop's
  // op_names (examples/tpu_v5e_train_step.hlo).
  auto by_scope = run_cli("predict " + kTrainStep + " --by scope --depth 4");
  REQUIRE(by_scope.exit_code == 0);
  CHECK_THAT(by_scope.out, Catch::Contains("jit(train_step)/jit(main)/jvp(transformer)/while "));
  check_fits_100_columns(by_scope.out);

  auto top = run_cli("predict " + kTrainStep + " --top 3 --filter 'dot_'");
  REQUIRE(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("top 3 of") && Catch::Contains("of the ops matching 'dot_'"));
  // Rows 1 to 3 name dot fusions, and there is no row 4.
  const std::string table = top.out.substr(top.out.find("HLO op stats"));
  CHECK_THAT(table, !Catch::Contains("\n4  "));
  CHECK_THAT(table.substr(0, table.find("Roofline")), Catch::Contains("dot_add_fusion.1"));
}

TEST_CASE("predict rejects bad report options with exit code 2") {
  auto bad_regex = run_cli("predict " + kTrainStep + " --filter 'dot_('");
  CHECK(bad_regex.exit_code == 2);
  CHECK_THAT(bad_regex.err, Catch::Contains("--filter"));
  CHECK(run_cli("predict " + kTrainStep + " --by layer").exit_code == 2);
  CHECK(run_cli("predict " + kTrainStep + " --depth 3").exit_code == 2);  // needs --by scope
  CHECK(run_cli("predict " + kTrainStep + " --top -1").exit_code == 2);
}

TEST_CASE("predict writes the trace and the roofline plot") {
  TempFile trace("trace.json"), plot("roofline.svg");
  auto r = run_cli("predict " + kTrainStep + " --trace " + trace.path + " --roofline " + plot.path +
                   " --top 1");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(trace.read());
  std::set<std::string> tracks;
  size_t slices = 0;
  double live_peak = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"]);
    if (e["ph"] == "X") {
      ++slices;
      CHECK(e["dur"].get<double>() >= 0);
    }
    if (e["ph"] == "C" && e["name"] == "live HBM bytes") {
      live_peak = std::max(live_peak, e["args"]["value"].get<double>());
    }
  }
  // The live-HBM counter peaks where `hloroof memory` says the step peaks.
  auto memory = nlohmann::json::parse(run_cli("memory " + kTrainStep + " --json").out);
  CHECK(live_peak == memory["peak_bytes"].get<double>());
  CHECK(tracks.count("compute") == 1);
  CHECK(tracks.count("async all-gather") == 1);
  CHECK(slices > 100);
  const std::string svg = plot.read();
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK_THAT(svg, Catch::Contains("bf16 matrix: 197 TFLOP/s"));
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") == 0) {
    TempFile png("roofline.png");
    CHECK(std::system(("rsvg-convert -o " + png.path + " " + plot.path).c_str()) == 0);
  }
}

TEST_CASE("an op's bound and resource are the same words in text, JSON and trace") {
  TempFile trace("vocabulary.json");
  auto text = run_cli("predict " + kTrainStep + " --top 0 --trace " + trace.path);
  REQUIRE(text.exit_code == 0);
  auto json = nlohmann::json::parse(run_cli("predict " + kTrainStep + " --json").out);
  std::map<std::string, std::pair<std::string, std::string>> by_name;
  const std::set<std::string> bounds = {"compute", "memory", "collective", "overhead"};
  for (const auto& op : json["ops"]) {
    CHECK(bounds.count(op["bound"].get<std::string>()) == 1);
    by_name[op["name"]] = {op["bound"], op["resource"]};
  }
  size_t compared = 0;
  std::set<std::string> collective_resources;
  const nlohmann::json events = nlohmann::json::parse(trace.read())["traceEvents"];
  for (const auto& e : events) {
    if (e["ph"] != "X" || !e.contains("args") || !e["args"].contains("bound")) continue;
    auto it = by_name.find(e["name"]);
    REQUIRE(it != by_name.end());
    CHECK(e["args"]["bound"] == it->second.first);
    CHECK(e["args"]["resource"] == it->second.second);
    if (it->second.first == "collective") collective_resources.insert(it->second.second);
    ++compared;
  }
  CHECK(compared > 50);
  CHECK(collective_resources == std::set<std::string>{"network"});
  // The text op table names each op's bound with the same words: every op row of the full
  // table (--top 0) carries its JSON bound.
  for (const auto& [name, words] : by_name) {
    bool found = false;
    for (const std::string& line : lines_of(text.out)) {
      if (line.find(" " + name + " ") != std::string::npos &&
          line.find(words.first) != std::string::npos) {
        found = true;
      }
    }
    INFO(name << " bound " << words.first);
    CHECK(found);
  }
}

TEST_CASE("predict fails with exit code 1 when a file cannot be written") {
  auto r = run_cli("predict " + kTrainStep + " --trace /nonexistent-dir/step.json");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("error:") && Catch::Contains("/nonexistent-dir/step.json"));
}

TEST_CASE("compare puts devices side by side, each with its own topology") {
  auto r = run_cli("compare " + kTrainStep + " --devices tpu_v5e:2x2,tpu_v5p:2x2x1,h100:1x4");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("tpu_v5e:2x2") && Catch::Contains("tpu_v5p:2x2x1") &&
                        Catch::Contains("h100:1x4"));
  CHECK_THAT(r.out, Catch::Contains("Top 5 ops on h100:1x4"));
  CHECK_THAT(r.out, Catch::Contains("vs tpu_v5e:2x2"));
  check_fits_100_columns(r.out);

  auto json = run_cli("compare " + kTrainStep + " --devices tpu_v5e,tpu_v6e --json");
  REQUIRE(json.exit_code == 0);
  auto j = nlohmann::json::parse(json.out);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["device"] == "tpu_v5e");
  CHECK(j[1]["device"] == "tpu_v6e");
}

TEST_CASE("compare names the device it cannot use") {
  auto r = run_cli("compare " + kTrainStep + " --devices tpu_v5e,tpu_v99");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("tpu_v99"));
  CHECK(run_cli("compare " + kTrainStep).exit_code == 2);  // no --devices
  CHECK(run_cli("compare " + kTrainStep + " --devices tpu_v5e,,h100").exit_code == 2);
  CHECK(run_cli("compare --devices tpu_v5e").exit_code == 2);  // no file
}

TEST_CASE("help lists every option of predict and compare with an example") {
  auto top = run_cli("--help");
  CHECK_THAT(top.out, Catch::Contains("compare") && Catch::Contains("predict"));
  auto predict = run_cli("predict --help");
  REQUIRE(predict.exit_code == 0);
  for (const char* option : {"--device", "--topology", "--json", "--top", "--by", "--depth",
                             "--filter", "--trace", "--roofline", "--formula", "--trip-count"}) {
    CHECK_THAT(predict.out, Catch::Contains(std::string("  ") + option + " "));
  }
  CHECK_THAT(predict.out, Catch::Contains("examples:"));
  auto compare = run_cli("compare --help");
  REQUIRE(compare.exit_code == 0);
  for (const char* option : {"--devices", "--top", "--trip-count", "--json"}) {
    CHECK_THAT(compare.out, Catch::Contains(std::string("  ") + option + " "));
  }
  CHECK_THAT(compare.out, Catch::Contains("example:"));
}

}  // namespace
