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
                           R"((n|u|m)?s\*?,?|links|GPUs|devices|chips|axes|one|per)")));
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
  auto one = nlohmann::json::parse(run_cli("devices tpu_v5p --json").out);
  CHECK(one["name"] == "tpu_v5p");
  REQUIRE(one["figures"].is_array());
  for (const auto& f : one["figures"]) {
    CHECK(!f["unit"].get<std::string>().empty());
    CHECK(!f["source"].get<std::string>().empty());
  }
}

TEST_CASE("devices with an unknown name exits 1, with extra words 2") {
  auto r = run_cli("devices tpu_v9");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("error: unknown device 'tpu_v9'"));
  CHECK(run_cli("devices a b").exit_code == 2);
  CHECK(run_cli("devices --frobnicate").exit_code == 2);
}

}  // namespace
