// Text output as a user sees it: every command fits a 100-column terminal, and the README's
// sample output is what the tool prints today.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"

namespace {

using hloroof::testing::run_cli;

std::string source(const std::string& relative) {
  return std::string(HLOROOF_SOURCE_DIR) + "/" + relative;
}

// The widest line of `text` and the line itself, for the failure message.
std::pair<size_t, std::string> widest(const std::string& text) {
  std::istringstream lines(text);
  std::pair<size_t, std::string> w{0, ""};
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > w.first) w = {line.size(), line};
  }
  return w;
}

void check_width(const std::string& args, const std::string& stdin_text = "") {
  auto r = run_cli(args, stdin_text);
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const auto [width, line] = widest(r.out);
  INFO("widest line (" << width << " columns): " << line);
  CHECK(width <= 100);
}

const std::string kTpuStep = source("examples/tpu_v5e_train_step.hlo");
const std::string kGpuStep = source("examples/h100_gemm_step.hlo");

TEST_CASE("predict fits 100 columns") {
  check_width("predict " + kTpuStep + " --device tpu_v5e:2x2");
  check_width("predict " + kGpuStep + " --device h100:1x8 --by category");
}

TEST_CASE("cost fits 100 columns") {
  check_width("cost " + kTpuStep);
  check_width("cost " + kGpuStep + " --all");
}

TEST_CASE("memory fits 100 columns") {
  check_width("memory " + kTpuStep + " --device tpu_v5e");
  check_width("memory " + kGpuStep + " --device h100");
}

TEST_CASE("devices fits 100 columns") {
  check_width("devices");
  check_width("devices tpu_v5e:4x4");
  check_width("devices h100");
  check_width("devices tpu_v2");
}

TEST_CASE("devices: one unit in the HBM column") {
  // h100's 80 GB (8e10 bytes) and tpu_v5p's 95 GiB in the same column: both in GiB
  // (8e10 / 2^30 = 74.5).
  auto r = run_cli("devices");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("74.5 GiB") != std::string::npos);
  CHECK(r.out.find("95 GiB") != std::string::npos);
  CHECK(r.out.find(" GB ") == std::string::npos);
}

TEST_CASE("compare fits 100 columns") {
  check_width("compare " + kTpuStep + " --devices tpu_v5e:2x2,tpu_v6e:2x2,tpu_v5p:2x2x1");
}

TEST_CASE("parse and shape fit 100 columns") {
  // From stdin: the summary line starts with the file's path, which is the user's to choose.
  std::ifstream file(kTpuStep);
  std::stringstream text;
  text << file.rdbuf();
  check_width("parse -", text.str());
  check_width("shape 'bf16[4,512,512,64]{3,0,2,1:T(4,128)(2,1)}'");
}

TEST_CASE("a generated module name longer than a line is cut at the edge, not overflowing") {
  // TensorFlow names XLA clusters like this one: 111 characters without a space.
  const std::string name =
      "cluster_0__XlaCompiledKernel_true__XlaHasReferenceVars_false__XlaNumConstantArgs_1__"
      "XlaNumResourceArgs_0_.566";
  const std::string module = "HloModule " + name +
                             "\nENTRY e {\n  a = f32[1024]{0} parameter(0)\n"
                             "  ROOT n = f32[1024]{0} negate(a)\n}\n";
  for (const char* command :
       {"cost -", "cost - --all", "memory - --device h100", "predict - --device h100",
        "advise - --device h100", "compare - --devices h100,b200"}) {
    check_width(command, module);
  }
  // The name is all there, over two lines.
  auto cost = run_cli("cost -", module);
  std::string joined;
  std::istringstream lines(cost.out);
  for (std::string line; std::getline(lines, line) && !line.empty();) {
    joined += line.substr(line.rfind("  ", 0) == 0 ? 2 : 0);
  }
  CHECK_THAT(joined, Catch::Contains("module " + name + ": 2 instructions"));
}

TEST_CASE("the README's sample output is what predict prints") {
  std::ifstream readme(source("README.md"));
  std::stringstream text;
  text << readme.rdbuf();
  const std::string md = text.str();
  const std::string command = "$ build/tools/hloroof predict ";
  const size_t start = md.find(command);
  REQUIRE(start != std::string::npos);
  const size_t command_end = md.find('\n', start);
  const size_t end = md.find("\n...\n", command_end);
  REQUIRE(end != std::string::npos);
  const std::string args = md.substr(start + command.size() - 8,  // from "predict "
                                     command_end - (start + command.size() - 8));
  const std::string sample = md.substr(command_end + 1, end - command_end);

  // The README runs from the source tree's root: its example path is relative to it.
  std::string words = args.substr(args.find("predict"));
  const size_t at = words.find("examples/");
  REQUIRE(at != std::string::npos);
  words.replace(at, 9, source("examples/"));
  auto r = run_cli(words);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(sample);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    INFO("README line not in today's output: " << line);
    CHECK(r.out.find(line) != std::string::npos);
  }
}

}  // namespace
