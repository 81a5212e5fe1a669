// `hloroof devices`: every number it prints carries a unit, and --json names units in keys.
#include <catch2/catch.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

// Every number in `text` is followed by a unit (or is part of a word such as "tpu_v5e",
// "2D" or "4x4x4").
void check_numbers_have_units(const std::string& text) {
  static const std::regex number(R"((^|[\s(;,])([0-9]+(\.[0-9]+)?)(\s+(\S+)|$))");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    for (std::sregex_iterator it(line.begin(), line.end(), number), end; it != end; ++it) {
      const std::string unit = (*it)[5];
      INFO("line: " << line << "\nnumber: " << (*it)[2]);
      CHECK(std::regex_match(
          unit, std::regex(R"((k|M|G|T|P)?(FLOP/s|OP/s|op/s|B/s|B)\*?,?|(Ki|Mi|Gi|Ti)B\*?,?|)"
                           R"((n|u|m)?s\*?,?|links|GPUs|devices|TensorCores|chips|axes|one|per)")));
    }
  }
}

TEST_CASE("devices lists every built-in device with units on its figures") {
  auto r = run_cli("devices");
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"tpu_v5e", "tpu_v5p", "tpu7x", "h100", "gb200"}) {
    CHECK_THAT(r.out, Catch::Contains(name));
  }
  CHECK_THAT(r.out, Catch::Contains("197 TFLOP/s"));  // v5e bf16 peak
  CHECK_THAT(r.out, Catch::Contains("819 GB/s"));     // v5e HBM bandwidth
  CHECK_THAT(r.out, Catch::Contains("3.35 TB/s"));    // H100 HBM bandwidth
  CHECK_THAT(r.out, Catch::Contains("wraps on axes of 16"));
  // Table rows only: the header and footnote lines hold no figures.
  check_numbers_have_units(
      r.out.substr(r.out.find("name"), r.out.find("\n* ") - r.out.find("name")));
}

TEST_CASE("devices NAME lists every figure with unit and source") {
  auto r = run_cli("devices h100");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("hbm.bandwidth"));
  CHECK_THAT(r.out, Catch::Contains("SB-roof"));
  CHECK_THAT(r.out, Catch::Contains("interconnect.xla_sol.rtt"));
  CHECK_THAT(r.out, Catch::Contains("31 us"));
  auto alias = run_cli("devices V5E");
  CHECK(alias.exit_code == 0);
  CHECK_THAT(alias.out, Catch::Contains("tpu_v5e"));
}

TEST_CASE("devices --json names the unit of every number in its keys") {
  auto r = run_cli("devices --json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() >= 12);
  for (const auto& d : j) {
    CHECK(d["bf16_peak_flop_per_s"].get<double>() > 0);
    CHECK(d["hbm_capacity_bytes"].get<double>() > 0);
    CHECK(d["hbm_bandwidth_bytes_per_s"].get<double>() > 0);
    CHECK(d.contains("interconnect"));
  }
  // One device: the spec itself, every figure with its unit and source.
  auto one = nlohmann::json::parse(run_cli("devices tpu_v5p --json").out);
  CHECK(one["name"] == "tpu_v5p");
  CHECK(one["schema_version"] == 1);
  CHECK(one["hbm"]["bandwidth"]["unit"] == "B/s");
  CHECK(!one["hbm"]["bandwidth"]["source"].get<std::string>().empty());
}

TEST_CASE("devices NAME --json reads back as a device; --set changes a figure everywhere") {
  const std::string path = std::string(HLOROOF_TEST_OUT) + "/h100_set.json";
  // 12.5e9 B/s: a 100 Gb/s NIC per GPU in place of the spec's 400 Gb/s (5e10 B/s).
  auto written =
      run_cli("devices h100 --set interconnect.scale_out_bandwidth=12.5e9 --json > " + path);
  REQUIRE(written.exit_code == 0);
  auto back = run_cli("devices " + path);
  REQUIRE(back.exit_code == 0);
  CHECK_THAT(back.out, Catch::Contains("interconnect.scale_out_bandwidth") &&
                           Catch::Contains("12.5 GB/s*") && Catch::Contains("set by the user"));
  // The same through --set on a command, and the same device read from the file.
  auto set = nlohmann::json::parse(
      run_cli("devices h100 --set interconnect.scale_out_bandwidth=12.5e9 --json").out);
  CHECK(set["interconnect"]["scale_out_bandwidth"]["value"] == 12.5e9);
  CHECK(set["interconnect"]["scale_out_bandwidth"]["source"] == "set");
  // The built-in spec, unchanged, reads back too.
  const std::string plain = std::string(HLOROOF_TEST_OUT) + "/a100_plain.json";
  REQUIRE(run_cli("devices a100 --json > " + plain).exit_code == 0);
  CHECK(run_cli("devices " + plain).exit_code == 0);

  auto bad_path = run_cli("devices h100 --set hbm.speed=1");
  CHECK(bad_path.exit_code == 1);
  CHECK_THAT(bad_path.err, Catch::Contains("no such figure") && Catch::Contains("hbm.bandwidth"));
  CHECK(run_cli("devices h100 --set hbm.bandwidth=fast").exit_code == 1);
  CHECK(run_cli("devices h100 --set hbm.bandwidth").exit_code == 1);
  // A value the spec's checks refuse: a bandwidth of 1 B/s.
  CHECK(run_cli("devices h100 --set hbm.bandwidth=1").exit_code == 1);
}

// Two GPUs on two nodes exchanging 64 MiB: the scale-out link carries it.
constexpr const char* kTwoNodes = R"(HloModule m, num_partitions=16
ENTRY e {
  a = bf16[32,1048576]{1,0} parameter(0)
  ROOT g = bf16[512,1048576]{1,0} all-gather(a), dimensions={0}, replica_groups=[1,16]<=[16], channel_id=1, use_global_device_ids=true
})";

TEST_CASE("--set works on every command that takes a device") {
  auto base = nlohmann::json::parse(run_cli("predict - --device h100:2x8 --json", kTwoNodes).out);
  auto slow = nlohmann::json::parse(
      run_cli("predict - --device h100:2x8 --json --set interconnect.scale_out_bandwidth=12.5e9",
              kTwoNodes)
          .out);
  // A quarter of the scale-out bandwidth: the all-gather across nodes takes longer.
  CHECK(slow["step_time_s"].get<double>() > base["step_time_s"].get<double>());
  bool said = false;
  for (const auto& a : slow["assumptions"]) {
    said = said || a.get<std::string>().find("interconnect.scale_out_bandwidth=12.5e9") !=
                       std::string::npos;
  }
  CHECK(said);
  for (const std::string command : {"advise - --device h100:2x8", "memory - --device h100",
                                    "compare - --devices h100:2x8,a100:2x8"}) {
    INFO(command);
    CHECK(run_cli(command + " --set hbm.bandwidth=4e12", kTwoNodes).exit_code == 0);
    CHECK(run_cli(command + " --set hbm.nothing=4e12", kTwoNodes).exit_code == 1);
  }
  auto memory = nlohmann::json::parse(
      run_cli("memory - --device h100 --json --set hbm.capacity=1e9", kTwoNodes).out);
  CHECK(memory["capacity_bytes"] == 1e9);
}

TEST_CASE("devices with an unknown name exits 1, with extra words 2") {
  auto r = run_cli("devices tpu_v9");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("error: unknown device 'tpu_v9'"));
  CHECK(run_cli("devices a b").exit_code == 2);
  CHECK(run_cli("devices --frobnicate").exit_code == 2);
  auto typo = run_cli("devices tpu_v6");
  CHECK(typo.exit_code == 1);
  CHECK_THAT(typo.err,
             Catch::StartsWith("error: unknown device 'tpu_v6'; did you mean 'tpu_v6e'?"));
}

TEST_CASE("devices takes JAX device kinds and Cloud TPU accelerator types") {
  auto kind = run_cli("devices 'TPU v6 lite'");
  REQUIRE(kind.exit_code == 0);
  CHECK_THAT(kind.out, Catch::Contains("tpu_v6e"));
  // v5litepod-16: 16 chips, the 4x4 slice (cloud.google.com/tpu/docs/v5e).
  auto pod = run_cli("devices v5litepod-16");
  REQUIRE(pod.exit_code == 0);
  CHECK_THAT(pod.out, Catch::Contains("topology 4x4: 16 devices"));
  CHECK(run_cli("devices v5litepod-12").exit_code == 1);
}

}  // namespace
