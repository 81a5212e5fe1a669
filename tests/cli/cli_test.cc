// The `hloroof` command as a user runs it: output, JSON keys and exit codes.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

TEST_CASE("shape prints sizes with units") {
  // bf16[3,5] under (8,128)(2,1): one whole 8x128 tile = 2048 B for 30 logical bytes.
  auto r = run_cli("shape 'bf16[3,5]{1,0:T(8,128)(2,1)}'");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bf16[3,5]{1,0:T(8,128)(2,1)}"));
  CHECK_THAT(r.out, Catch::Contains("30 B"));
  CHECK_THAT(r.out, Catch::Contains("2048 B"));
  CHECK_THAT(r.out, Catch::Contains("68.27x"));  // 2048 / 30
}

TEST_CASE("shape --json has the documented keys") {
  // f32[3,5]{1,0:T(2,2)} in on-chip memory: 60 B logical, 96 B padded (worked example P1).
  auto r = run_cli("shape --json 'f32[3,5]{1,0:T(2,2)S(1)}'");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["shape"] == "f32[3,5]{1,0:T(2,2)S(1)}");
  CHECK(j["elements"] == 15);
  CHECK(j["logical_bytes"] == 60);
  CHECK(j["padded_bytes"] == 96);
  CHECK(j["padding_factor"].get<double>() == Approx(1.6));
  CHECK(j["memory_space"] == 1);
}

TEST_CASE("bad input exits 1 with an error on stderr") {
  auto r = run_cli("shape 'f33[2]'");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("error:"));
  CHECK_THAT(r.err, Catch::Contains("f33"));
}

TEST_CASE("bad usage exits 2") {
  CHECK(run_cli("shape").exit_code == 2);
  CHECK(run_cli("shape --nope 'f32[]'").exit_code == 2);
  CHECK(run_cli("no-such-command").exit_code == 2);
  CHECK(run_cli("").exit_code == 2);
}

TEST_CASE("help lists commands and each command explains itself") {
  auto top = run_cli("--help");
  CHECK(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("shape"));
  auto shape = run_cli("shape --help");
  CHECK(shape.exit_code == 0);
  CHECK_THAT(shape.out, Catch::Contains("example"));
}

}  // namespace
