// `hloroof cost`: the table, the JSON keys and exit codes.
#include <catch2/catch.hpp>
#include <string>

#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::run_cli;

// A dot in a loop of 3 trips with an all-reduce: per trip the dot is 2*8*16*16 = 4096 FLOPs.
constexpr const char* kLoop = R"(HloModule loop, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[8,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[8,16]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[8,16] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  d = f32[8,16] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ar = f32[8,16] all-reduce(d), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT t = (s32[], f32[8,16]) tuple(next, ar)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8,16]) tuple(zero, x)
  loop = (s32[], f32[8,16]) while(init), condition=cond, body=body
  ROOT r = f32[8,16] get-tuple-element(loop), index=1
}
)";

TEST_CASE("cost prints a table with units and the totals") {
  auto r = run_cli("cost -", kLoop);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("module loop"));
  CHECK_THAT(r.out, Catch::Contains("3 trips (derived)"));
  CHECK_THAT(r.out, Catch::Contains("all-reduce N=4 512 B"));  // f32[8,16]
  CHECK_THAT(r.out, Catch::Contains("4.1 kFLOP"));             // one dot
  CHECK_THAT(r.out, Catch::Contains("3x"));                    // the body runs 3 times
  CHECK_THAT(r.out, Catch::Contains("one step (loops expanded)"));
  // 3 dots of 4096 FLOPs: 12288 = 12.3 kFLOP of matrix work.
  CHECK_THAT(r.out, Catch::Contains("matrix 12.3 kFLOP"));
}

TEST_CASE("cost --json has the documented keys and per-execution figures") {
  auto r = run_cli("cost --json -", kLoop);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  const auto& t = j["totals"];
  for (const char* key : {"flops", "matrix_flops", "transcendentals", "bytes", "padded_bytes",
                          "hbm_bytes", "unknown_ops"}) {
    CHECK(t.contains(key));
  }
  // 3 dots (4096) + 3 all-reduces (128, one add per element) + 3 increments + 4 compares.
  CHECK(t["flops"] == 3 * 4096 + 3 * 128 + 3 + 4);
  CHECK(t["matrix_flops"] == 3 * 4096);
  CHECK(t["unknown_ops"] == 0);
  bool saw_dot = false, saw_all_reduce = false;
  for (const auto& i : j["instructions"]) {
    for (const char* key : {"computation", "name", "opcode", "multiplier", "flops", "matrix_flops",
                            "transcendentals", "bytes_read", "bytes_written", "padded_bytes",
                            "hbm_bytes", "onchip_bytes", "host_bytes", "unknown", "collective"}) {
      CHECK(i.contains(key));
    }
    if (i["name"] == "d") {
      saw_dot = true;
      CHECK(i["computation"] == "body");
      CHECK(i["opcode"] == "dot");
      CHECK(i["multiplier"] == 3);
      CHECK(i["flops"] == 4096);  // per execution
      CHECK(i["collective"].is_null());
    }
    if (i["name"] == "ar") {
      saw_all_reduce = true;
      const auto& c = i["collective"];
      CHECK(c["kind"] == "all-reduce");
      CHECK(c["payload_bytes"] == 512);
      CHECK(c["group_size"] == 4);
      CHECK(c["groups"] == nlohmann::json::parse("[[0,1,2,3]]"));
    }
  }
  CHECK(saw_dot);
  CHECK(saw_all_reduce);
}

TEST_CASE("cost reports unknown custom calls and assumed trip counts") {
  auto r = run_cli("cost --json -", R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT k = f32[4] custom-call(p), custom_call_target="mystery"
}
)");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["totals"]["unknown_ops"] == 1);
  CHECK(j["totals"]["lower_bound"] == true);
  REQUIRE(j["notes"].size() == 1);
  CHECK_THAT(j["notes"][0].get<std::string>(), Catch::Contains("mystery"));
}

TEST_CASE("cost errors: bad input exits 1, bad usage 2") {
  auto bad = run_cli("cost -", "HloModule m\nENTRY e {\n  ROOT x = f32[2] bogus()\n}\n");
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("error"));
  CHECK(run_cli("cost /no/such/file.hlo").exit_code == 1);
  CHECK(run_cli("cost").exit_code == 2);
  CHECK(run_cli("cost --trip-count=-1 -", kLoop).exit_code == 2);
  CHECK(run_cli("cost --frobnicate -", kLoop).exit_code == 2);
  auto help = run_cli("cost --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("example"));
}

}  // namespace
