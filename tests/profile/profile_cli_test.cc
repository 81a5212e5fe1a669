// `hloroof profile` and `hloroof calibrate` on small hand-made profiles.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "../cli/cli_runner.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "examples.h"
#include "nlohmann/json.hpp"
#include "profile_test_util.h"

namespace hloroof {
namespace {

using testing::read_file;
using testing::run_cli;
using testing::TempDir;
using testing::write_file;

struct Files {
  TempDir dir;
  std::string hlo, profile;
  Files() {
    hlo = (dir.path() / "module.hlo").string();
    profile = (dir.path() / "profile" / "plugins" / "profile" / "r1" / "host0.xplane.pb").string();
    write_file(hlo, std::string(testing::kStepModule));
    write_file(profile, testing::step_xspace());
  }
};

void check_width(const std::string& text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    INFO(std::string(line));
    CHECK(line.size() <= 100);
  }
}

TEST_CASE("hloroof profile joins the profile with the prediction") {
  Files f;
  testing::CliResult r = run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(absl::StrContains(r.out, "median of 3"));
  CHECK(absl::StrContains(r.out, "dot.1"));
  CHECK(absl::StrContains(r.out, "memset.7"));
  CHECK(absl::StrContains(r.out, "idle"));
  check_width(r.out);

  // The capture folder: module.hlo beside profile/.
  testing::CliResult folder =
      run_cli(absl::StrCat("profile ", f.dir.path().string(), " --device h100 --json"));
  INFO(folder.err);
  REQUIRE(folder.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(folder.out);
  CHECK(j["step"]["measured_s"].get<double>() == Approx(55e-6));  // the median of 50, 60, 55 us
  CHECK(j["idle_s"].get<double>() == Approx(28e-6));              // 55 - 27 us busy
  CHECK(j["ops"].size() == 2);
  CHECK(j["unmatched"].size() == 1);

  const std::string trace = (f.dir.path() / "out.trace.json").string();
  testing::CliResult traced =
      run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --trace ", trace));
  REQUIRE(traced.exit_code == 0);
  std::ifstream in(trace);
  const nlohmann::json t = nlohmann::json::parse(in, nullptr, false);
  REQUIRE(!t.is_discarded());
  CHECK(t["traceEvents"].size() > 4);

  // Device 1 of the profile.
  testing::CliResult one = run_cli(
      absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --device-index 1 --json"));
  REQUIRE(one.exit_code == 0);
  CHECK(nlohmann::json::parse(one.out)["plane"] == "/device:GPU:1");
}

TEST_CASE("profile --xspace: the measured and the predicted run side by side in one log dir") {
  Files f;
  const std::filesystem::path log = f.dir.path() / "side";
  testing::CliResult r = run_cli(
      absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --xspace ", log.string()));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  check_width(r.out);
  // The measured run keeps its folder's name (r1) and host (host0), copied byte for byte.
  const std::filesystem::path measured = log / "plugins/profile/measured_r1/host0.xplane.pb";
  CHECK(read_file(measured) == read_file(f.profile));
  CHECK(absl::StrContains(r.out, "(copied)"));
  // The predicted run: its module carries the measured program id (the profile's "jit_step(3)").
  xplane::XSpace predicted;
  REQUIRE(predicted.ParseFromString(
      read_file(log / "plugins/profile/predicted_h100/hloroof-predicted.xplane.pb")));
  bool named = false;
  for (const xplane::XPlane& plane : predicted.planes()) {
    for (const auto& [id, m] : plane.event_metadata()) named |= m.name() == "jit_step(3)";
  }
  CHECK(named);

  // Given the log directory the profile already lies in, the measured file stays where it is.
  const std::filesystem::path own = f.dir.path() / "profile";
  testing::CliResult in_place = run_cli(absl::StrCat(
      "profile ", f.hlo, " ", f.profile, " --device h100 --json --steps 2 --xspace ",
      own.string()));
  INFO(in_place.err);
  REQUIRE(in_place.exit_code == 0);
  CHECK(absl::StrContains(in_place.err, "(left where it is)"));
  CHECK(!std::filesystem::exists(own / "plugins/profile/measured_r1"));
  CHECK(std::filesystem::exists(own / "plugins/profile/predicted_h100" /
                                "hloroof-predicted.xplane.pb"));
  CHECK(nlohmann::json::parse(in_place.out)["step"]["measured_s"].get<double>() ==
        Approx(55e-6));

  // XProf opens XSpaces only: a trace JSON is refused with what to do instead.
  const std::string trace = (f.dir.path() / "step.trace.json").string();
  write_file(trace, std::string(testing::kStepTraceJson));
  testing::CliResult json_profile = run_cli(absl::StrCat(
      "profile ", f.hlo, " ", trace, " --device tpu_v5e --xspace ", log.string()));
  CHECK(json_profile.exit_code == 1);
  CHECK(absl::StrContains(json_profile.err, "XProf does not open"));
  CHECK(run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --steps 2"))
            .exit_code == 2);  // --steps needs --xspace
}

TEST_CASE("profile --csv: the joined ops of --json, one row each, the JSON's keys as columns") {
  Files f;
  testing::CliResult json =
      run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --json"));
  testing::CliResult csv =
      run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --csv"));
  REQUIRE(json.exit_code == 0);
  REQUIRE(csv.exit_code == 0);
  const nlohmann::json ops = nlohmann::json::parse(json.out)["ops"];
  const testing::Csv table = testing::parse_csv(csv.out);
  CHECK(table.well_formed);
  const auto& rows = table.records;
  REQUIRE(rows.size() == ops.size() + 1);  // dot.1 and add.fusion, after the header
  const std::vector<std::string>& header = rows[0];
  for (const auto& [key, value] : ops[0].items()) {
    INFO(key);
    CHECK(std::find(header.begin(), header.end(), key) != header.end());
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    CHECK(rows[k + 1][0] == ops[k]["name"].get<std::string>());
    CHECK(std::stod(rows[k + 1][4]) == Approx(ops[k]["measured_s"].get<double>()));  // measured_s
  }
  CHECK(run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --csv --json"))
            .exit_code == 2);
}

TEST_CASE("hloroof profile: usage and input errors") {
  Files f;
  CHECK(run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile)).exit_code == 2);  // no --device
  CHECK(run_cli("profile --device h100").exit_code == 2);
  testing::CliResult missing =
      run_cli(absl::StrCat("profile ", f.hlo, " /nonexistent/x.xplane.pb --device h100"));
  CHECK(missing.exit_code == 1);
  // The message every input file gets (read_input_file).
  CHECK(absl::StrContains(missing.err,
                          "cannot read '/nonexistent/x.xplane.pb': no such file; check the path"));
  testing::CliResult module =
      run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device h100 --module jit_other"));
  CHECK(module.exit_code == 1);
  CHECK(absl::StrContains(module.err, "jit_step"));
}

TEST_CASE("calibrate: an nccl-tests log among profiles or on standard input is named as one") {
  Files f;
  // 2 hosts of one A100 each; 1 GiB in 6759 us: 158.86 GB/s, x 2 x 1/2 = 158.86 busbw.
  const std::string log =
      "# Collective test starting: all_reduce_perf\n# Using devices\n"
      "#  Rank  0 Group  0 Pid   1000 on node-a device  0 [0000:04:00] NVIDIA A100-SXM4-80GB\n"
      "#  Rank  1 Group  0 Pid   1001 on node-b device  0 [0000:04:00] NVIDIA A100-SXM4-80GB\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
      "  1073741824     268435456     float     sum      -1   6759.0  158.86  158.86      0\n";
  const std::string path = (f.dir.path() / "all_reduce_perf.log").string();
  write_file(path, log);
  // With a profile: a usage error that names both, not "not an XSpace protobuf".
  testing::CliResult mixed =
      run_cli(absl::StrCat("calibrate ", path, " ", f.profile, " --device a100"));
  INFO(mixed.err);
  CHECK(mixed.exit_code == 2);
  // Messages are wrapped at 100 columns: their lines joined.
  const auto joined = [](const std::string& err) {
    return absl::StrReplaceAll(err, {{"\n  ", " "}});
  };
  CHECK(absl::StrContains(joined(mixed.err), "is an nccl-tests log, but '"));
  CHECK_FALSE(absl::StrContains(mixed.err, "XSpace"));
  // On standard input, read as a profile: the reader says what it holds.
  testing::CliResult piped = run_cli("calibrate - --hlo " + f.hlo + " --device a100", log);
  INFO(piped.err);
  CHECK(piped.exit_code == 1);
  CHECK(absl::StrContains(joined(piped.err), "standard input: an nccl-tests log, not a profile"));
  // `profile` given the log says the same of the file.
  testing::CliResult profiled = run_cli(absl::StrCat("profile ", f.hlo, " ", path,
                                                     " --device a100"));
  CHECK(profiled.exit_code == 1);
  CHECK(absl::StrContains(joined(profiled.err), "all_reduce_perf.log: an nccl-tests log, not a "
                                                "profile"));
}

TEST_CASE("hloroof calibrate writes a device that predict reads") {
  Files f;
  const std::string out = (f.dir.path() / "my_h100.json").string();
  testing::CliResult r = run_cli(absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo,
                                              " --device h100 -o ", out, " --name my_h100"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(absl::StrContains(r.out, "matmul_efficiency"));
  CHECK(absl::StrContains(r.out, "per_op_overhead"));
  check_width(r.out);
  testing::CliResult devices = run_cli(absl::StrCat("devices ", out));
  INFO(devices.err);
  CHECK(devices.exit_code == 0);
  CHECK(absl::StrContains(devices.out, "my_h100"));
  CHECK(run_cli(absl::StrCat("predict ", f.hlo, " --device ", out)).exit_code == 0);
  // Without -o: the report alone.
  testing::CliResult report = run_cli(absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo,
                                                   " --device h100"));
  CHECK(report.exit_code == 0);
  CHECK(absl::StrContains(report.out, "not written (no -o OUT.json)"));
}

TEST_CASE("calibrate --set: the fit starts from the figures set, and the device written keeps "
          "them") {
  Files f;
  // The given matmul efficiency: H100's measured GEMM table ("measured*"), or 50% once set;
  // the HBM bandwidth, which calibrate does not fit, written as set: 6.7e12 B/s, not H100's
  // 3.35e12.
  const std::string out = (f.dir.path() / "set.json").string();
  const std::string base =
      absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo, " --device h100");
  testing::CliResult given = run_cli(base);
  REQUIRE(given.exit_code == 0);
  testing::CliResult set = run_cli(absl::StrCat(
      base, " --set matmul_efficiency=0.5 --set hbm.bandwidth=6.7e12 -o ", out));
  INFO(set.out << set.err);
  REQUIRE(set.exit_code == 0);
  auto row = [](const std::string& report) {
    for (absl::string_view line : absl::StrSplit(report, '\n')) {
      if (absl::StartsWith(line, "matmul_efficiency")) return std::string(line);
    }
    return std::string();
  };
  CHECK(absl::StrContains(row(given.out), "measured*"));
  CHECK(absl::StrContains(row(set.out), " 50.0% "));
  CHECK(!absl::StrContains(row(set.out), "measured*"));
  CHECK(absl::StrContains(set.out, "the fit starts from h100 with figures set: "
                                   "matmul_efficiency=0.5, hbm.bandwidth=6.7e12"));
  check_width(set.out);
  std::ifstream in(out);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["hbm"]["bandwidth"]["value"].get<double>() == 6.7e12);
  CHECK(j["hbm"]["bandwidth"]["source"] == "set");
  CHECK(j["notes"].dump().find("with figures set (--set matmul_efficiency=0.5, --set "
                               "hbm.bandwidth=6.7e12)") != std::string::npos);
  testing::CliResult shown = run_cli(absl::StrCat("devices ", out));
  CHECK(absl::StrContains(shown.out, "6.7 TB/s*  set"));
  // A figure the device lacks is an error that names it, as on every command.
  testing::CliResult typo = run_cli(absl::StrCat(base, " --set hbm.bandwith=1"));
  CHECK(typo.exit_code == 1);
  CHECK(absl::StrContains(typo.err, "--set hbm.bandwith: h100 has no such figure"));
}

TEST_CASE("calibrate writes nothing when the fit predicts the step worse") {
  // The H100 capture of one 4096^3 GEMM (tests/data/h100/default/gemm): the given device
  // predicts its step 10.8% fast (docs/profiling.md, "Measured on an H100"), and none of the four fits
  // does better on it (the GEMM table is already within 1% of its op). The file that was at
  // the output path stays as it was.
  Files f;
  const std::string capture = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/gemm";
  const std::string out = (f.dir.path() / "kept.json").string();
  write_file(out, "previous contents\n");
  testing::CliResult r = run_cli(absl::StrCat("calibrate ", capture, " --device h100 -o ", out));
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(absl::StrContains(r.out, "NOT KEPT"));
  CHECK(absl::StrContains(r.out, "not kept: the fit predicts the profiled steps worse"));
  CHECK(absl::StrContains(r.err, "not written"));
  std::ifstream kept(out);
  std::string line;
  std::getline(kept, line);
  CHECK(line == "previous contents");
  check_width(r.out);
}

TEST_CASE("calibrate infers the device from the capture; a device of another platform fails") {
  // The capture's meta.json says "device_kind": "NVIDIA H100 80GB HBM3" (and its XSpace's GPU
  // plane names the same): without --device, h100 is calibrated, as `profile` infers it.
  const std::string capture = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/gemm";
  testing::CliResult inferred = run_cli(absl::StrCat("calibrate ", capture));
  INFO(inferred.out << inferred.err);
  CHECK(absl::StrContains(inferred.err, "device h100 from the profiles"));
  CHECK(absl::StrContains(inferred.out, "h100"));
  CHECK(!absl::StrContains(inferred.err, "--device is required"));
  check_width(inferred.err);
  // A TPU device for an H100 capture: an error that names both.
  testing::CliResult other = run_cli(absl::StrCat("calibrate ", capture, " --device tpu_v5e"));
  INFO(other.err);
  CHECK(other.exit_code != 0);
  CHECK(absl::StrContains(other.err, "NVIDIA H100 80GB HBM3"));
  CHECK(absl::StrContains(other.err, "tpu_v5e"));
}

TEST_CASE("calibrate: a name of invalid UTF-8, an output path with ':', one module read once") {
  Files f;
  // The fitted device is written with the bad byte replaced, not an abort.
  const std::string out = (f.dir.path() / "named.json").string();
  testing::CliResult named = run_cli(absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo,
                                                  " --device h100 -o ", out,
                                                  " --name 'bad\xff" "name'"));
  INFO(named.err);
  CHECK(named.exit_code == 0);
  // The device text of a path holding ':' is the whole path when that is a file.
  std::filesystem::create_directories(f.dir.path() / "dir:x");
  const std::string colon = (f.dir.path() / "dir:x" / "a:b.json").string();
  testing::CliResult written = run_cli(absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo,
                                                    " --device h100 -o '", colon, "'"));
  INFO(written.err);
  REQUIRE(written.exit_code == 0);
  CHECK(absl::StrContains(written.out, absl::StrCat("--device ", colon)));
  testing::CliResult used =
      run_cli(absl::StrCat("predict ", f.hlo, " --device '", colon, "'"));
  INFO(used.err);
  CHECK(used.exit_code == 0);
  // One --hlo for two profiles: read (and noted) once.
  const std::filesystem::path dump = f.dir.path() / "dump";
  write_file((dump / "module_0001.jit_step.gpu_after_optimizations.txt").string(),
             std::string(testing::kStepModule));
  testing::CliResult twice = run_cli(absl::StrCat("calibrate ", f.profile, " ", f.profile,
                                                  " --hlo ", dump.string(), " --device h100"));
  INFO(twice.err);
  CHECK(twice.exit_code == 0);
  const size_t first = twice.err.find("note: read module jit_step");
  CHECK(first != std::string::npos);
  CHECK(twice.err.find("note: read module jit_step", first + 1) == std::string::npos);
}

TEST_CASE("profile and calibrate read XLA dump directories as the other commands do") {
  Files f;
  // A dump: the step after optimization, a smaller module, and the step before optimization.
  const std::filesystem::path dump = f.dir.path() / "dump";
  write_file((dump / "module_0001.jit_step.gpu_after_optimizations.txt").string(),
             std::string(testing::kStepModule));
  write_file((dump / "module_0001.jit_step.before_optimizations.txt").string(),
             std::string(testing::kStepModule));
  write_file((dump / "module_0002.jit_tiny.gpu_after_optimizations.txt").string(),
             "HloModule jit_tiny\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");

  testing::CliResult profiled =
      run_cli(absl::StrCat("profile ", dump.string(), " ", f.profile, " --device h100 --json"));
  INFO(profiled.err);
  REQUIRE(profiled.exit_code == 0);
  CHECK(absl::StrContains(profiled.err, "note: read module jit_step"));
  CHECK(nlohmann::json::parse(profiled.out)["ops"].size() == 2);
  // --module picks the dump's module, which is also the profile's: jit_tiny is not in it.
  testing::CliResult tiny = run_cli(
      absl::StrCat("profile ", dump.string(), " ", f.profile, " --device h100 --module jit_tiny"));
  CHECK(tiny.exit_code == 1);
  CHECK(absl::StrContains(tiny.err, "note: read module jit_tiny"));

  const std::string out = (f.dir.path() / "fitted.json").string();
  testing::CliResult calibrated = run_cli(
      absl::StrCat("calibrate ", f.profile, " --hlo ", dump.string(), " --device h100 -o ", out));
  INFO(calibrated.err);
  REQUIRE(calibrated.exit_code == 0);
  CHECK(absl::StrContains(calibrated.err, "note: read module jit_step"));
  // The file before optimization is read, with the warning every command gives.
  testing::CliResult before =
      run_cli(absl::StrCat("calibrate ", f.profile, " --hlo ",
                           (dump / "module_0001.jit_step.before_optimizations.txt").string(),
                           " --device h100 -o ", out));
  CHECK(before.exit_code == 0);
  CHECK(absl::StrContains(before.err, "warning: the file is named as XLA's dump before"));
  // --module needs a directory.
  CHECK(run_cli(absl::StrCat("calibrate ", f.profile, " --hlo ", f.hlo, " --device h100 -o ", out,
                             " --module jit_step"))
            .exit_code == 2);
}

}  // namespace
TEST_CASE("only the capture's own meta.json names the device, and a long one is clipped") {
  Files f;
  // A meta.json five folders above a profile that is not in a log folder's layout belongs to
  // something else: it named a TPU for this GPU profile.
  const std::filesystem::path stray = f.dir.path() / "a" / "b" / "c" / "d" / "host0.xplane.pb";
  write_file(stray.string(), testing::step_xspace());
  write_file((f.dir.path() / "meta.json").string(), R"({"device_kind": "TPU v5 lite"})");
  testing::CliResult far = run_cli(absl::StrCat("profile ", f.hlo, " ", stray.string()));
  INFO(far.err);
  CHECK(absl::StrContains(far.err, "--device is required: the profile does not name its device"));
  CHECK_FALSE(absl::StrContains(far.err, "meta.json"));
  // The capture's own, above its log folder (CAPTURE/profile/plugins/profile/RUN/FILE), is
  // read and named in the note.
  write_file((f.dir.path() / "meta.json").string(), R"({"device_kind": "NVIDIA H100 80GB HBM3"})");
  testing::CliResult own = run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile));
  INFO(own.err);
  CHECK(own.exit_code == 0);
  CHECK(absl::StrContains(own.err, "meta.json"));
  // A device kind of a megabyte in an error: its head and tail, and the bytes left out.
  write_file((f.dir.path() / "meta.json").string(),
             absl::StrCat(R"({"device_kind": "NVIDIA H100 )", std::string(1 << 20, 'x'), "\"}"));
  testing::CliResult huge =
      run_cli(absl::StrCat("profile ", f.hlo, " ", f.profile, " --device tpu_v5e"));
  CHECK(huge.exit_code == 1);
  CHECK(huge.err.size() < 8192);
  CHECK(absl::StrContains(huge.err, "bytes left out"));
}

TEST_CASE("calibrate with a module that did not run advises what calibrate takes") {
  // It advised `--module`, then refused `--module` for a file ("picks a module of a dump
  // directory").
  TempDir dir;
  const std::string other = (dir.path() / "other.hlo").string();
  write_file(other, "HloModule other\n\nENTRY e {\n  x = f32[8] parameter(0)\n"
                    "  ROOT n = f32[8] negate(x)\n}\n");
  const std::string capture = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/gemm";
  testing::CliResult r = run_cli(absl::StrCat("calibrate ", capture, " --hlo ", other));
  INFO(r.err);
  CHECK(r.exit_code == 1);
  const std::string said = absl::StrReplaceAll(r.err, {{"\n  ", " "}});
  CHECK(absl::StrContains(said, "the module given is not the one profiled"));
  CHECK_FALSE(absl::StrContains(said, "Give the profile's name with --module"));
  check_width(r.err);
}

TEST_CASE("profile's header fits 100 columns under a long path; op times are said to be means") {
  // A temporary folder 150 characters deep ran the "profile PATH" line past 100 columns.
  Files f;
  const std::filesystem::path deep =
      f.dir.path() / std::string(70, 'a') / std::string(70, 'b') / "profile" / "plugins" /
      "profile" / "r1";
  std::filesystem::create_directories(deep);
  std::filesystem::copy_file(f.profile, deep / "host0.xplane.pb");
  testing::CliResult r = run_cli(absl::StrCat("profile ", f.hlo, " ",
                                              (deep / "host0.xplane.pb").string(),
                                              " --device h100"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  check_width(r.out);
  CHECK(absl::StrContains(r.out, "mean per step over the steps"));
}

TEST_CASE("calibrate reads the module an XSpace carries, and --hlo A B takes both modules") {
  // The H100 capture's XSpace alone (no module.hlo beside it): its /host:metadata plane
  // carries the module, read as `profile` reads it; the device is the one its GPU plane names.
  const std::string capture = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/gemm";
  const std::string xspace =
      capture + "/profile/plugins/profile/2026_11_23_02_19_21/vm.xplane.pb";
  testing::CliResult carried = run_cli(absl::StrCat("calibrate ", xspace));
  INFO(carried.out << carried.err);
  CHECK_FALSE(absl::StrContains(carried.err, "cannot read"));
  CHECK(absl::StrContains(carried.err, "note: read module jit_"));
  CHECK(absl::StrContains(carried.err, "device h100 from the profiles"));
  CHECK(absl::StrContains(carried.out, "fitted "));

  // Two profiles, their modules after one --hlo: B is a module, not a third profile.
  const std::string mlp = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/mlp";
  testing::CliResult both = run_cli(absl::StrCat("calibrate ", capture, " ", mlp, " --hlo ",
                                                 capture, "/module.hlo ", mlp,
                                                 "/module.hlo --device h100"));
  INFO(both.err);
  CHECK_FALSE(absl::StrContains(both.err, "give one --hlo for every profile"));
  CHECK_FALSE(absl::StrContains(both.err, "cannot read"));
  CHECK(absl::StrContains(both.out, "\nmlp "));  // its row of the steps table
  // As two --hlo give them.
  testing::CliResult each = run_cli(absl::StrCat("calibrate ", capture, " ", mlp, " --hlo ",
                                                 capture, "/module.hlo --hlo ", mlp,
                                                 "/module.hlo --device h100"));
  CHECK(both.out == each.out);
}

namespace {

// An all_reduce_perf log over 2 hosts of 8 A100s, 8 B to 1 GiB: `latency_us` plus each size's
// bus bytes, 2 x 15/16 of it, at 86 GB/s; busbw from the printed time.
std::string a100_all_reduce_log(double latency_us) {
  std::string text = "# Collective test starting: all_reduce_perf\n# Using devices\n";
  for (int r = 0; r < 16; ++r) {
    absl::StrAppend(&text, "#  Rank ", r, " Group  0 Pid ", 1000 + r, " on node-",
                    r < 8 ? "a" : "b", " device ", r % 8,
                    " [0000:07:00] NVIDIA A100-SXM4-80GB\n");
  }
  absl::StrAppend(&text, "#       size         count      type   redop    root     time   "
                         "algbw   busbw #wrong\n");
  for (int k = 3; k <= 30; ++k) {
    const double size = static_cast<double>(int64_t{1} << k);
    const double time_us = std::round((latency_us + size * 1.875 / 86e3) * 100) / 100;
    const double algbw = size / (time_us * 1e3);
    absl::StrAppend(&text, absl::StrFormat("%12.0f  %12.0f  float  sum  -1  %.2f  %.2f  %.2f  0\n",
                                           size, size / 4, time_us, algbw, algbw * 1.875));
  }
  return text;
}

TEST_CASE("calibrate on nccl-tests logs: the logs' GPU, each size, kept only when better") {
  TempDir dir;
  const std::string log = (dir.path() / "all_reduce_perf.log").string();
  write_file(log, a100_all_reduce_log(100));
  const std::string nics =
      " --set interconnect.nics_per_node=4 --set interconnect.nic_bandwidth=200Gb/s";
  // No --device: the GPU the rank lines name.
  testing::CliResult named = run_cli("calibrate " + log + nics);
  INFO(named.err);
  REQUIRE(named.exit_code == 0);
  CHECK(absl::StrContains(named.err, "device a100 from the logs, which ran on 'NVIDIA "
                                     "A100-SXM4-80GB'"));
  CHECK(absl::StrContains(named.out, "1 GiB"));
  CHECK(absl::StrContains(named.out, "interconnect.scale_out_latency"));
  CHECK(absl::StrContains(named.out, "kept: the median error falls"));
  check_width(named.out);
  // A device of another GPU: a usage error that names both.
  testing::CliResult h100 = run_cli("calibrate " + log + " --device h100" + nics);
  CHECK(h100.exit_code == 2);
  CHECK(absl::StrContains(h100.err, "ran on 'NVIDIA A100-SXM4-80GB' (a100) and --device h100"));
  // A cluster's own file of that GPU is taken (its display name says A100).
  testing::CliResult file = run_cli("calibrate " + log + " --device " +
                                    std::string(HLOROOF_SOURCE_DIR) + "/examples/a100_4nic.json");
  CHECK(file.exit_code == 0);
  // Written, then fitted again from what was written: nothing gained, so not written (exit 1).
  const std::string fitted = (dir.path() / "fitted.json").string();
  REQUIRE(run_cli("calibrate " + log + nics + " -o " + fitted).exit_code == 0);
  const std::string again = (dir.path() / "again.json").string();
  testing::CliResult refit = run_cli("calibrate " + log + " --device " + fitted + " -o " + again);
  CHECK(refit.exit_code == 1);
  CHECK(absl::StrContains(refit.out, "not kept"));
  CHECK(absl::StrContains(refit.err, "not written"));
  CHECK_FALSE(std::filesystem::exists(again));
}

}  // namespace

}  // namespace hloroof
