// `hloroof cost`: the table, the JSON keys and exit codes.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

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

TEST_CASE("cost prints the totals first, then one table of names and figures per step") {
  auto r = run_cli("cost -", kLoop);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("module loop"));
  CHECK_THAT(r.out, Catch::Contains("3 trips (derived)"));
  CHECK_THAT(r.out, Catch::Contains("all-reduce N=4 512 B"));  // f32[8,16]
  CHECK_THAT(r.out, Catch::Contains("3x"));                    // the body runs 3 times
  // 3 dots of 4096 FLOPs: 12288 = 12.3 kFLOP of matrix work.
  CHECK_THAT(r.out, Catch::Contains("matrix 12.3 kFLOP"));
  // The totals come before the table.
  const size_t totals = r.out.find("one step (loops expanded)");
  const size_t table = r.out.find("instructions by FLOPs per step");
  REQUIRE(totals != std::string::npos);
  REQUIRE(table != std::string::npos);
  CHECK(totals < table);
  // One table: the dot's row holds its name and its FLOPs per step, 3 runs x 4096 FLOPs; it
  // ranks second, after the loop that holds it.
  std::istringstream lines(r.out.substr(table));
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  // rows: the title, two lines of legend, the header, its rule, then the instructions.
  REQUIRE(rows.size() > 7);
  CHECK_THAT(rows[5], Catch::StartsWith("loop ") && Catch::Contains("3 trips (derived)"));
  CHECK_THAT(rows[6], Catch::StartsWith("d ") && Catch::Contains("dot") &&
                          Catch::Contains("3x") && Catch::Contains("12.3 kFLOP"));
  for (const std::string& row : rows) CHECK(row.size() <= 100);
}

TEST_CASE("cost's tables wrap text and cut names at separators, within 100 columns") {
  // The example's summary details (the XLA-compatible figures, 83 characters of detail) and
  // its long fusion names: no word, figure or name is cut at a column's edge.
  auto r = run_cli("cost " + std::string(HLOROOF_SOURCE_DIR) + "/examples/tpu_v5e_train_step.hlo");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100);
    // A name too long for its column keeps its start and its end, each ending at a separator:
    // "~" stands between two parts of a name, never at the end of a cell.
    for (size_t at = line.find('~'); at != std::string::npos; at = line.find('~', at + 1)) {
      CHECK(at > 0);
      CHECK(at + 1 < line.size());
      if (at == 0 || at + 1 >= line.size()) continue;
      CHECK(line[at - 1] != ' ');
      CHECK(line[at + 1] != ' ');
    }
  }
  // The detail of a figure goes on below it, word by word: the whole of it is there.
  std::string joined = r.out;
  for (size_t at; (at = joined.find("\n   ")) != std::string::npos;) {
    const size_t end = joined.find_first_not_of(' ', at + 1);
    joined.replace(at, end - at, " ");
  }
  CHECK_THAT(joined, Catch::Contains("transcendentals 1.81 Gops, bytes accessed 32.2 GiB (loops "
                                     "once, as cost_analysis())\n"));
}

TEST_CASE("cost --top keeps the largest rows, ties in program order") {
  // Four adds of equal cost (16 FLOP, 64 B read twice and 64 B written: 192 B) between two
  // parameters, then one of four times the size (768 B): by bytes, `big` first, then the first
  // two adds as the program orders them; by FLOPs the same (64 against 16 FLOP).
  const std::string kTies = R"(HloModule ties, is_scheduled=true

ENTRY main {
  p = f32[16] parameter(0)
  q = f32[64] parameter(1)
  e1 = f32[16] add(p, p)
  e2 = f32[16] add(p, p)
  e3 = f32[16] add(p, p)
  e4 = f32[16] add(p, p)
  big = f32[64] add(q, q)
  ROOT t = (f32[16], f32[16], f32[16], f32[16], f32[64]) tuple(e1, e2, e3, e4, big)
}
)";
  for (const char* sort : {"bytes", "flops"}) {
    auto r = run_cli(std::string("cost - --top 3 --sort ") + sort, kTies);
    REQUIRE(r.exit_code == 0);
    const size_t big = r.out.find("\nbig "), e1 = r.out.find("\ne1 "), e2 = r.out.find("\ne2 ");
    REQUIRE(big != std::string::npos);
    REQUIRE(e1 != std::string::npos);
    REQUIRE(e2 != std::string::npos);
    CHECK(big < e1);
    CHECK(e1 < e2);
    CHECK(r.out.find("\ne3 ") == std::string::npos);
    CHECK(r.out.find("\ne4 ") == std::string::npos);
  }
  // Every row, the four adds in program order after `big`.
  auto all = run_cli("cost - --top 0 --sort bytes", kTies);
  REQUIRE(all.exit_code == 0);
  CHECK(all.out.find("\nbig ") < all.out.find("\ne1 "));
  CHECK(all.out.find("\ne1 ") < all.out.find("\ne2 "));
  CHECK(all.out.find("\ne2 ") < all.out.find("\ne3 "));
  CHECK(all.out.find("\ne3 ") < all.out.find("\ne4 "));
}

// Twenty loops, each in the body of the next, each of 10^18 trips: the innermost body runs
// 10^360 times, more than a double holds, so its ops run `inf` times and an op of 0 FLOPs costs
// 0 x inf FLOPs per step, not a number. The innermost body holds 40 such copies.
std::string nested_loops() {
  const std::string s = "(s32[], f32[8])";
  std::string text = "HloModule deep, is_scheduled=true\n\n";
  std::string inner;
  for (int d = 0; d < 20; ++d) {
    const std::string name = "l" + std::to_string(d);
    text += name + "_body {\n  p = " + s + " parameter(0)\n" +
            "  i = s32[] get-tuple-element(p), index=0\n" +
            "  x = f32[8] get-tuple-element(p), index=1\n";
    std::string last = "x";
    if (inner.empty()) {
      for (int k = 0; k < 40; ++k) {
        const std::string c = "c" + std::to_string(k);
        text += "  " + c + " = f32[8] copy(" + last + ")\n";
        last = c;
      }
    } else {
      text += "  t0 = " + s + " tuple(i, x)\n  w = " + s + " while(t0), condition=" + inner +
              "_cond, body=" + inner +
              "_body, backend_config={\"known_trip_count\":{\"n\":\"1000000000000000000\"}}\n" +
              "  y = f32[8] get-tuple-element(w), index=1\n";
      last = "y";
    }
    text += "  one = s32[] constant(1)\n  n = s32[] add(i, one)\n  ROOT t = " + s + " tuple(n, " +
            last + ")\n}\n\n" + name + "_cond {\n  p = " + s + " parameter(0)\n" +
            "  i = s32[] get-tuple-element(p), index=0\n  z = s32[] constant(5)\n" +
            "  ROOT lt = pred[] compare(i, z), direction=LT\n}\n\n";
    inner = name;
  }
  return text + "ENTRY main {\n  z = s32[] constant(0)\n  x = f32[8] parameter(0)\n  t = " + s +
         " tuple(z, x)\n  ROOT w = " + s + " while(t), condition=" + inner + "_cond, body=" +
         inner + "_body, backend_config={\"known_trip_count\":{\"n\":\"1000000000000000000\"}}\n}\n";
}

TEST_CASE("cost ranks ops whose figure per step is not a number last") {
  const std::string module = nested_loops();
  auto all = run_cli("cost - --top 0", module);
  REQUIRE(all.exit_code == 0);
  std::istringstream lines(all.out);
  size_t rows = 0, nan_rows = 0;
  bool nan_seen = false, finite_after_nan = false;
  for (std::string line; std::getline(lines, line);) {
    const bool copy = line.rfind("c", 0) == 0 && line.find(" copy ") != std::string::npos;
    const bool nan = line.find("nan FLOP") != std::string::npos;
    if (copy) CHECK(nan);  // 0 FLOPs x inf runs
    if (line.find(" FLOP ") == std::string::npos || line.find("  ") == 0) continue;
    ++rows;
    nan_rows += nan ? 1 : 0;
    if (nan) nan_seen = true;
    if (!nan && nan_seen) finite_after_nan = true;
  }
  CHECK(nan_rows >= 40);
  CHECK(rows > nan_rows);
  CHECK_FALSE(finite_after_nan);
  // By FLOPs the top rows are numbers; by runs, ops of every figure run `inf` times (the key
  // is the runs, and each order is one strict order: no crash, under the sanitizers too).
  auto top = run_cli("cost - --top 10", module);
  REQUIRE(top.exit_code == 0);
  CHECK(top.out.find("nan FLOP") == std::string::npos);
  for (const char* sort : {"bytes", "runs", "transcendentals"}) {
    CHECK(run_cli(std::string("cost - --top 10 --sort ") + sort, module).exit_code == 0);
  }
}

TEST_CASE("cost --top and --sort shape the table; --csv lists every instruction") {
  auto top = run_cli("cost - --top 1", kLoop);
  REQUIRE(top.exit_code == 0);
  CHECK_THAT(top.out, Catch::Contains("top 1 of 7") && Catch::Contains("... 6 more"));
  // By runs, the condition's compare comes first: 4 runs (3 trips, and the condition once more)
  // against the body's 3.
  auto runs = run_cli("cost - --sort runs --top 1", kLoop);
  REQUIRE(runs.exit_code == 0);
  CHECK_THAT(runs.out, Catch::Contains("\nlt ") && Catch::Contains("4x"));
  // By HBM bytes per step: the dot's 3 x 1.5 KiB (two f32[8,16] read, one written) before the
  // all-reduce's 3 x 1 KiB (one read, one written); in program order the dot comes first too,
  // and the loop's counter `next` before both.
  auto bytes = run_cli("cost - --sort bytes --top 0", kLoop);
  REQUIRE(bytes.exit_code == 0);
  CHECK(bytes.out.find("\nd ") < bytes.out.find("\nar "));
  CHECK(bytes.out.find("\nar ") < bytes.out.find("\nnext "));
  auto order = run_cli("cost - --sort order --top 0", kLoop);
  CHECK(order.out.find("\nnext ") < order.out.find("\nd "));
  CHECK(run_cli("cost - --sort size", kLoop).exit_code == 2);
  CHECK(run_cli("cost - --json --csv", kLoop).exit_code == 2);

  auto csv = run_cli("cost - --csv", kLoop);
  REQUIRE(csv.exit_code == 0);
  std::istringstream lines(csv.out);
  std::string header, line;
  std::getline(lines, header);
  CHECK_THAT(header, Catch::StartsWith("computation,name,opcode,role,multiplier,flops,"));
  int rows = 0;
  std::string dot;
  while (std::getline(lines, line)) {
    ++rows;
    if (line.rfind("body,d,", 0) == 0) dot = line;
  }
  CHECK(rows == 20);  // every instruction of the module, as --json lists them
  // body's dot: runs 3 times, 4096 FLOPs per execution.
  CHECK_THAT(dot, Catch::StartsWith("body,d,dot,scheduled,3,4096,4096,"));
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
