// `hloroof advise` as a user runs it: the findings with their ids, time at stake, fix, the
// JSON keys, --top, the exit codes; and the section `predict` ends with.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

// b is copied from {1,0} to {0,1} for the dot: 16 MiB read + 16 MiB written = 33554432 B at
// 0.869 of 8.19e11 B/s (the expected time, borrowing the TPU7x HBM fit) = 47.1 us, plus the
// fitted 1.8 us per-op fixed cost = 48.9 us at stake (tests/advise has the rule's own tests).
constexpr const char* kCopyBeforeDot = R"(HloModule m
ENTRY e {
  a = f32[2048,2048]{1,0} parameter(0)
  b = f32[2048,2048]{1,0} parameter(1)
  t = f32[2048,2048]{0,1} copy(b)
  ROOT d = f32[2048,2048]{1,0} dot(a, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

constexpr const char* kClean = R"(HloModule m
ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0)
  ROOT n = f32[1024,1024]{1,0} negate(p)
})";

void check_width(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
}

TEST_CASE("advise prints ranked findings with time at stake, evidence and fix") {
  auto r = run_cli("advise - --device tpu_v5e", kCopyBeforeDot);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("#1 layout-copy:"));
  CHECK_THAT(r.out, Catch::Contains("   at stake    48.9 us (33.4% of the step)"));
  CHECK_THAT(r.out, Catch::Contains("   evidence    t in e: copy {1,0} -> {0,1}"));
  CHECK_THAT(r.out, Catch::Contains("   fix         Store the operand"));
  CHECK_THAT(r.out, Catch::Contains("AUTO"));
  check_width(r.out);
}

TEST_CASE("advise says so when there is nothing to fix") {
  auto r = run_cli("advise - --device tpu_v5e", kClean);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("nothing to fix"));
}

TEST_CASE("advise --json has the documented keys") {
  auto r = run_cli("advise - --device tpu_v5e --json", kCopyBeforeDot);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["device"] == "tpu_v5e");
  REQUIRE(j["findings"].size() >= 1);
  const auto& f = j["findings"][0];
  CHECK(f["id"] == "layout-copy");
  CHECK(f["time_at_stake_s"].get<double>() ==
        Approx(33554432 / (0.869 * 8.19e11) + 1.8e-6).epsilon(0.003));
  CHECK(f["evidence"][0]["op"] == "t");
  for (const char* key : {"title", "what", "fix", "step_share", "counted_elsewhere_s", "arithmetic",
                          "bytes_at_stake", "op_count"}) {
    CHECK(f.contains(key));
  }
  for (const char* key : {"op", "computation", "scope", "shape", "detail", "bytes", "time_s",
                          "multiplier", "time_at_stake_s"}) {
    CHECK(f["evidence"][0].contains(key));
  }
}

TEST_CASE("advise --top keeps the best ranked findings; bad usage exits 2") {
  auto r = run_cli("advise " HLOROOF_SOURCE_DIR
                   "/examples/tpu_v5e_train_step.hlo"
                   " --device tpu_v5e:2x2 --json --top 1");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["findings"].size() <= 1);
  CHECK(run_cli("advise").exit_code == 2);
  CHECK(run_cli("advise - --top x", kClean).exit_code == 2);
  CHECK(run_cli("advise - --device nosuch", kClean).exit_code == 1);
  CHECK(run_cli("advise /nonexistent.hlo").exit_code == 1);
}

TEST_CASE("the example's advice fits 100 columns, and predict ends with it") {
  auto r = run_cli("advise " HLOROOF_SOURCE_DIR
                   "/examples/tpu_v5e_train_step.hlo"
                   " --device tpu_v5e:2x2");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("advice: "));
  check_width(r.out);
  auto p = run_cli("predict - --device tpu_v5e", kCopyBeforeDot);
  REQUIRE(p.exit_code == 0);
  CHECK_THAT(p.out, Catch::Contains("#1 layout-copy:"));
}

}  // namespace
