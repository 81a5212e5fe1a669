// `hloroof memory` as a user runs it: the summary, the JSON keys and the exit codes.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_split.h"
#include "cli_runner.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"
#include "nlohmann/json.hpp"
#include "require_ok.h"

namespace {

using hloroof::testing::run_cli;

// Straight-line code whose peak is derived in tests/memory/memory_test.cc: p 1024 B, then
// temporaries a 2048, b 2048, c 4096; at c all four are live: 9216 B.
// Buffer assignment: r (1024 B) gets the output allocation; d [4,5] goes into it, since
// r = add(d, p) writes over d; a [1,3], b [2,3] and c [3,4] all meet at c and share nothing
// (b's operand a lives on to c): temp 2048 + 2048 + 4096 = 8192 B.
// Footprint: 1024 + 1024 + 8192 = 10240 B.
constexpr const char* kModule = R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[512]{0} concatenate(p, p), dimensions={0}
  b = f32[512]{0} exponential(a)
  c = f32[1024]{0} concatenate(a, b), dimensions={0}
  d = f32[256]{0} slice(c), slice={[0:256]}
  ROOT r = f32[256]{0} add(d, p)
}
)";

// Two 20 GiB arrays live together: 42949672960 B, more than a v5e's 16 GB.
constexpr const char* kTooBig = R"(
HloModule big, is_scheduled=true
ENTRY e {
  p = f32[5,1024,1024,1024]{3,2,1,0} parameter(0)
  ROOT r = f32[5,1024,1024,1024]{3,2,1,0} negate(p)
}
)";

TEST_CASE("memory prints the peak, where it is and the verdict, with units") {
  auto r = run_cli("memory - --device tpu_v5e", kModule);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("9 KiB (9216 B)"));
  CHECK_THAT(r.out, Catch::Contains("at c"));
  CHECK_THAT(r.out, Catch::Contains("tpu_v5e HBM"));
  CHECK_THAT(r.out, Catch::Contains("fits"));
  CHECK_THAT(r.out, Catch::Contains("10 KiB (10240 B) held for the whole step"));
  CHECK_THAT(r.out, Catch::Contains("temp 8 KiB"));
  // The verdict names the figure it checked, over the capacity, in one unit family.
  CHECK_THAT(r.out, Catch::Contains("footprint 10 KiB is 0.0% of it"));
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(r.out, '\n'))) {
    if (line.find("capacity") == 0) CHECK(line.find(" GB") == std::string::npos);
  }
  // Breakdown at the peak: parameters 1 KiB of 9 KiB = 11.1%, temporaries 8 KiB = 88.9%.
  CHECK_THAT(r.out, Catch::Contains("parameters 1 KiB (11.1%)"));
  CHECK_THAT(r.out, Catch::Contains("temporaries 8 KiB (88.9%)"));
  CHECK_THAT(r.out, Catch::Contains("largest buffers live at the peak"));
  CHECK_THAT(r.out, Catch::Contains("live from"));
}

TEST_CASE("memory says when a module does not fit, and by how much") {
  auto r = run_cli("memory - --device v5e", kTooBig);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("DOES NOT FIT"));
  // The footprint is p and r, 40 GiB = 42949672960 B, against v5e's 16e9 B = 14.9 GiB:
  // 42949672960 / 16e9 = 268.4% of the capacity, 26949672960 B = 25.1 GiB over.
  CHECK_THAT(r.out,
             Catch::Contains("DOES NOT FIT, footprint 40 GiB is 268.4% of it, 25.1 GiB over"));
  auto p = run_cli("memory - --device tpu_v5p", kTooBig);
  REQUIRE(p.exit_code == 0);
  // The footprint is p and r, each in its own allocation: 40 GiB of 95 GiB = 42.1%.
  CHECK_THAT(p.out, Catch::Contains("fits, footprint 40 GiB is 42.1% of it, 55 GiB free"));
}

TEST_CASE("memory --json has the documented keys") {
  auto r = run_cli("memory - --device tpu_v5e --json --top 2", kModule);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["peak_bytes"] == 9216);
  CHECK(j["peak_at"] == "c");
  CHECK(j["capacity_bytes"] == 16000000000LL);
  CHECK(j["fits"] == true);
  CHECK(j["breakdown"]["parameters"] == 1024);
  CHECK(j["breakdown"]["outputs"] == 0);
  CHECK(j["breakdown"]["temporaries"] == 8192);
  CHECK(j["padding_waste_bytes"] == 0);
  REQUIRE(j["buffers"].size() == 2);  // --top 2
  const auto& first = j["buffers"][0];
  CHECK(first["name"] == "c");
  CHECK(first["logical_bytes"] == 4096);
  CHECK(first["padded_bytes"] == 4096);
  CHECK(first["memory_space"] == 0);
  CHECK(first["live_from"] == "c");
  CHECK(first["live_to"] == "d");
  CHECK(j["live_bytes"].size() == 6);
  CHECK(j["live_bytes"][3]["device_bytes"] == 9216);
  CHECK(j["argument_bytes"] == 1024);
  CHECK(j["output_bytes"] == 1024);
  CHECK(j["alias_bytes"] == 0);
  CHECK(j["temp_bytes"] == 8192);
  CHECK(j["footprint_bytes"] == 10240);
  CHECK(j["capacity_basis"] == "footprint_bytes");
  CHECK(j["checked_bytes"] == 10240);
  CHECK(j["memory_analysis"]["temp_bytes"] == 8192);
  // Allocations: parameter p, output r (holding d), one temp.
  REQUIRE(j["allocations"].size() == 3);
  CHECK(first["allocation"].is_number_integer());
  REQUIRE(j["live_timeline"].size() == 6);
  CHECK(j["live_timeline"][3]["instruction"] == "c");
  CHECK(j["live_timeline"][3]["depth"] == 0);
  CHECK(j["live_timeline"][3]["device_bytes"] == 9216);
  REQUIRE(!j["peak_buffers"].empty());
}

TEST_CASE("memory --csv: the buffers of --json, one row each, the JSON's keys as columns") {
  auto json = run_cli("memory - --device tpu_v5e --json --top 0", kModule);
  auto csv = run_cli("memory - --device tpu_v5e --csv --top 0", kModule);
  REQUIRE(json.exit_code == 0);
  REQUIRE(csv.exit_code == 0);
  const auto buffers = nlohmann::json::parse(json.out)["buffers"];
  // A shape "f32[8,16]" is quoted: cells are read quote by quote.
  const hloroof::testing::Csv table = hloroof::testing::parse_csv(csv.out);
  CHECK(table.well_formed);
  const auto& rows = table.records;
  REQUIRE(rows.size() == buffers.size() + 1);
  const std::vector<std::string>& header = rows[0];
  for (const auto& [key, value] : buffers[0].items()) {
    INFO(key);
    CHECK(std::find(header.begin(), header.end(), key) != header.end());
  }
  for (size_t k = 0; k < buffers.size(); ++k) {
    const std::vector<std::string>& cells = rows[k + 1];
    REQUIRE(cells.size() == 15);
    CHECK(cells[0] == buffers[k]["name"].get<std::string>());
    CHECK(std::stod(cells[5]) == buffers[k]["padded_bytes"].get<double>());  // padded_bytes
  }
  CHECK(run_cli("memory - --json --csv", kModule).exit_code == 2);
}

TEST_CASE("memory --device takes a topology as predict does") {
  auto r = run_cli("memory - --device tpu_v5e:2x2 --json", kModule);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["device"] == "tpu_v5e");
  CHECK(j["fits"] == true);
  auto bad = run_cli("memory - --device tpu_v5e:banana", kModule);
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::StartsWith("error:"));
}

TEST_CASE("memory without a device checks the device predict would pick, and says so") {
  auto r = run_cli("memory - --json", kModule);
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  // Nothing in kModule tells its platform: tpu_v5e, the default, a guess said first.
  CHECK(j["device"] == "tpu_v5e");
  CHECK(j["fits"] == true);
  REQUIRE(j["warnings"].size() == 1);
  CHECK(j["warnings"][0].get<std::string>().find("a guess") != std::string::npos);
  CHECK(j["peak_bytes"] == 9216);
}

TEST_CASE("memory on the TPU example reads the file and its tiles") {
  auto r = run_cli(std::string("memory '") + HLOROOF_SOURCE_DIR +
                   "/examples/tpu_v5e_train_step.hlo' --device tpu_v5e --json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  // Arguments derived in tests/memory/memory_corpus_test.cc: 235085824 B.
  CHECK(j["memory_analysis"]["argument_bytes"] == 235085824);
  CHECK(j["peak_bytes"].get<int64_t>() > 235085824);
  CHECK(j["fits"] == true);
}

TEST_CASE("memory: bad input exits 1, bad usage exits 2") {
  auto missing = run_cli("memory /no/such/file.hlo");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::StartsWith("error:"));
  auto bad_device = run_cli("memory - --device no_such_chip", kModule);
  CHECK(bad_device.exit_code == 1);
  CHECK_THAT(bad_device.err, Catch::Contains("no_such_chip"));
  auto bad_text = run_cli("memory -", "HloModule m\nENTRY e {\n  ROOT p = f33[] parameter(0)\n}\n");
  CHECK(bad_text.exit_code == 1);
  CHECK_THAT(bad_text.err, Catch::Contains("3:"));  // located at the bad line
  CHECK(run_cli("memory").exit_code == 2);
  CHECK(run_cli("memory - --top many", kModule).exit_code == 2);
  CHECK(run_cli("memory a.hlo b.hlo").exit_code == 2);
  auto help = run_cli("memory --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("example"));
}

}  // namespace

namespace {

// `hloroof memory` on an HloProto that carries a buffer assignment: XLA's allocations beside
// hloroof's. The module is written by write_hlo_proto; the buffer assignment (HloProto field
// 3) is appended by hand: protobuf merges a message's fields across concatenated bytes.
TEST_CASE("memory shows XLA's buffer assignment beside its own, and where they differ") {
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(
      "HloModule m\n\nENTRY %e (p: f32[16]) -> f32[16] {\n  %p = f32[16]{0} parameter(0)\n"
      "  ROOT %n = f32[16]{0} negate(%p)\n}\n");
  REQUIRE_OK(module);
  // BufferAllocationProto (xla/service/hlo.proto: index = 1, size = 2,
  // is_entry_computation_parameter = 5, parameter_number = 6, maybe_live_out = 7):
  //   the parameter: 08 00 (index 0) 10 40 (size 64 = 16 x 4 B) 28 01 30 00: 8 bytes;
  //   the output:    08 01 10 40 38 01: 6 bytes;
  //   a temp:        08 02 10 80 08 (size 1024: varint 0x80 0x08): 5 bytes.
  // Each is BufferAssignmentProto.buffer_allocations = 3: tag 0x1a and its length, 8 + 6 + 5
  // + 3 x 2 = 25 (0x19) bytes, inside HloProto.buffer_assignment = 3: 1a 19.
  const std::string assignment(
      "\x1a\x19"
      "\x1a\x08\x08\x00\x10\x40\x28\x01\x30\x00"
      "\x1a\x06\x08\x01\x10\x40\x38\x01"
      "\x1a\x05\x08\x02\x10\x80\x08",
      27);
  const std::string bytes = hloroof::write_hlo_proto(*module) + assignment;
  char path[] = "/tmp/hloroof_ba_XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(path, std::ios::binary) << bytes;
  hloroof::testing::CliResult r = run_cli(std::string("memory ") + path + " --device h100 --json");
  hloroof::testing::CliResult text = run_cli(std::string("memory ") + path + " --device h100");
  std::remove(path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& xla = j["xla_buffer_assignment"];
  REQUIRE(xla.is_object());
  std::map<std::string, nlohmann::json> rows;
  for (const nlohmann::json& row : xla["by_kind"]) {
    if (row["memory"] == "device") rows[row["kind"].get<std::string>()] = row;
  }
  // The parameter and the output: 64 B each on both sides.
  CHECK(rows["parameter"]["xla_bytes"] == 64);
  CHECK(rows["parameter"]["hloroof_bytes"] == 64);
  CHECK(rows["output"]["xla_bytes"] == 64);
  CHECK(rows["output"]["hloroof_bytes"] == 64);
  // The temp of 1024 B is XLA's alone: a difference, said in both outputs.
  CHECK(rows["temp"]["xla_bytes"] == 1024);
  CHECK(rows["temp"]["hloroof_bytes"] == 0);
  CHECK(rows["total"]["xla_bytes"] == 64 + 64 + 1024);
  REQUIRE(!xla["differences"].empty());
  CHECK(xla["differences"][0].get<std::string>().rfind("temp, device memory", 0) == 0);
  CHECK(text.out.find("XLA's own buffer assignment") != std::string::npos);
  CHECK(text.out.find("where they differ") != std::string::npos);
  for (absl::string_view line : absl::StrSplit(text.out, '\n')) CHECK(line.size() <= 100);

  // HLO text carries no buffer assignment: null.
  std::ofstream("/tmp/hloroof_ba_text.hlo") << hloroof::print(*module);
  hloroof::testing::CliResult plain = run_cli("memory /tmp/hloroof_ba_text.hlo --json");
  std::remove("/tmp/hloroof_ba_text.hlo");
  CHECK(nlohmann::json::parse(plain.out)["xla_buffer_assignment"].is_null());
}

}  // namespace
