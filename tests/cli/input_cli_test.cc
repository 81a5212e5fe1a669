// What the commands say about their input and their device: no ENTRY computation, HLO before
// optimization, XLA dump directories, unknown work by target, one DEVICE[:TOPOLOGY] syntax.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using hloroof::testing::run_cli;

// Only a fused computation: the text was cut off before its ENTRY.
constexpr const char* kNoEntry = R"(HloModule cut, is_scheduled=true
fused_negate {
  p = f32[1024] parameter(0)
  ROOT n = f32[1024] negate(p)
}
)";

// Unfused elementwise chains, not scheduled: what XLA dumps before optimization.
constexpr const char* kUnfused = R"(HloModule jit_f
ENTRY main {
  a = f32[1024] parameter(0)
  b = f32[1024] exponential(a)
  c = f32[1024] add(b, a)
  ROOT d = f32[1024] multiply(c, c)
}
)";

// A scheduled module with a fusion: what XLA dumps after optimization.
constexpr const char* kFused = R"(HloModule jit_g, is_scheduled=true
fused {
  p = f32[1024] parameter(0)
  e = f32[1024] exponential(p)
  ROOT m = f32[1024] multiply(e, p)
}
ENTRY main {
  a = f32[1024] parameter(0)
  ROOT f = f32[1024] fusion(a), kind=kLoop, calls=fused
}
)";

// Two kinds of kernel hloroof cannot cost, three ops in all.
constexpr const char* kUnknownKernels = R"(HloModule kernels, is_scheduled=true
ENTRY main {
  a = f32[65536] parameter(0)
  k1 = f32[65536] custom-call(a), custom_call_target="my_kernel"
  k2 = f32[65536] custom-call(k1), custom_call_target="my_kernel"
  ROOT k3 = f32[65536] custom-call(k2), custom_call_target="other_kernel"
}
)";

// A cuBLAS GEMM: a GPU module.
constexpr const char* kGpu = R"(HloModule gpu, is_scheduled=true
ENTRY main {
  a = f32[64,128]{1,0} parameter(0)
  b = f32[128,256]{1,0} parameter(1)
  g = (f32[64,256]{1,0}, s8[1024]{0}) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  ROOT r = f32[64,256]{1,0} get-tuple-element(g), index=0
}
)";

// Tiled layouts: a TPU module, on 4 devices.
constexpr const char* kTpu = R"(HloModule tpu, is_scheduled=true, num_partitions=4
ENTRY main {
  a = bf16[256,256]{1,0:T(8,128)(2,1)} parameter(0)
  ROOT n = bf16[256,256]{1,0:T(8,128)(2,1)} negate(a)
}
)";

std::string out_dir() {
  const std::string dir = std::string(HLOROOF_TEST_OUT) + "/input_cli_test_files";
  fs::create_directories(dir);
  return dir;
}

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

nlohmann::json json_of(const std::string& text) { return nlohmann::json::parse(text); }

bool any_contains(const nlohmann::json& list, const std::string& part) {
  for (const auto& s : list) {
    if (s.get<std::string>().find(part) != std::string::npos) return true;
  }
  return false;
}

constexpr const char* kNoEntryWords = "no computation is marked ENTRY";

TEST_CASE("no ENTRY computation: no step time unless --entry names one; a banner on top") {
  auto parse = run_cli("parse - --json", kNoEntry);
  REQUIRE(parse.exit_code == 0);
  CHECK(json_of(parse.out)["entry_marked"] == false);
  CHECK(json_of(run_cli("parse - --json", kFused).out)["entry_marked"] == true);
  // What the parser saw, not the text's look: a commented-out ENTRY line marks nothing.
  const std::string commented = std::string("HloModule cut\n/*\nENTRY main {\n*/\n") +
                                (std::string(kNoEntry).substr(std::string(kNoEntry).find('\n')));
  CHECK(json_of(run_cli("parse - --json", commented).out)["entry_marked"] == false);

  // The commands whose figure is a step refuse, saying how to name one; nothing on stdout.
  for (const char* command :
       {"predict -", "predict - --json", "predict - --csv", "advise -",
        "compare - --devices tpu_v5e,tpu_v6e --json"}) {
    INFO(command);
    auto refused = run_cli(command, kNoEntry);
    CHECK(refused.exit_code != 0);
    CHECK(refused.out.empty());
    CHECK_THAT(refused.err, Catch::Contains(kNoEntryWords) && Catch::Contains("fused_negate") &&
                                Catch::Contains("--entry NAME"));
  }

  // Asked: the step is the named computation, and the header's first line under the title
  // says so, as the JSON's first warning.
  auto predict = run_cli("predict - --entry fused_negate", kNoEntry);
  REQUIRE(predict.exit_code == 0);
  // The warning right under the title, unwrapped.
  std::string banner = predict.out.substr(predict.out.find('\n') + 1);
  banner = banner.substr(0, banner.find("\nwarning: no --device"));
  for (size_t at; (at = banner.find("\n  ")) != std::string::npos;) banner.replace(at, 3, " ");
  CHECK_THAT(banner, Catch::StartsWith("warning: " + std::string(kNoEntryWords)) &&
                         Catch::Contains("--entry takes fused_negate as the step"));
  auto predict_json = run_cli("predict - --json --entry fused_negate", kNoEntry);
  REQUIRE(predict_json.exit_code == 0);
  const nlohmann::json p = json_of(predict_json.out);
  CHECK_THAT(p["warnings"][0].get<std::string>(), Catch::Contains("--entry takes fused_negate"));
  CHECK(p["step_time_s"].get<double>() > 0);
  auto advise = run_cli("advise - --entry fused_negate --json", kNoEntry);
  CHECK(advise.exit_code == 0);
  CHECK(any_contains(json_of(advise.out)["warnings"], "--entry takes fused_negate"));
  auto compare = run_cli("compare - --devices tpu_v5e,tpu_v6e --entry fused_negate", kNoEntry);
  REQUIRE(compare.exit_code == 0);
  CHECK_THAT(compare.out, Catch::StartsWith("NOT A WHOLE STEP: " + std::string(kNoEntryWords)));

  // memory and cost read the last computation, with the banner on top of the text and the
  // entry in the JSON.
  for (const char* command : {"memory -", "cost -"}) {
    INFO(command);
    auto text = run_cli(command, kNoEntry);
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::StartsWith("NOT A WHOLE STEP: " + std::string(kNoEntryWords)));
    auto json = run_cli(std::string(command) + " --json", kNoEntry);
    REQUIRE(json.exit_code == 0);
    const nlohmann::json j = json_of(json.out);
    CHECK(j["entry"] == "fused_negate");
    CHECK(j["entry_marked"] == false);
    CHECK(any_contains(j["notes"], kNoEntryWords));
    // CSV rows have no top: the banner goes to stderr.
    auto csv = run_cli(std::string(command) + " --csv", kNoEntry);
    REQUIRE(csv.exit_code == 0);
    CHECK_THAT(csv.err, Catch::Contains(kNoEntryWords));
  }
  // A module with its ENTRY: no banner, entry_marked; --entry another computation says so.
  const nlohmann::json whole = json_of(run_cli("memory - --json", kFused).out);
  CHECK(whole["entry_marked"] == true);
  CHECK_THAT(run_cli("cost -", kFused).out, !Catch::Contains("NOT A WHOLE STEP"));
  auto other = run_cli("cost - --json --entry fused", kFused);
  REQUIRE(other.exit_code == 0);
  CHECK(json_of(other.out)["entry"] == "fused");
  CHECK(json_of(other.out)["entry_marked"] == false);
  CHECK_THAT(run_cli("predict - --entry fused", kFused).out,
             Catch::Contains("--entry takes fused as the step, not the module's ENTRY main"));
  // A name that is no computation's: the error lists those there are.
  auto missing = run_cli("predict - --entry nope", kNoEntry);
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err, Catch::Contains("--entry: no computation is named 'nope'") &&
                              Catch::Contains("fused_negate"));
}

TEST_CASE("HLO before optimization is detected by its shape and by its file name") {
  auto unfused = run_cli("predict - --json", kUnfused);
  REQUIRE(unfused.exit_code == 0);
  CHECK_THAT(unfused.err, Catch::Contains("looks like HLO before optimization") &&
                              Catch::Contains("after_optimizations.txt"));
  CHECK(any_contains(json_of(unfused.out)["assumptions"], "before optimization"));

  const std::string named =
      write(out_dir() + "/module_0001.jit_g.before_optimizations.txt", kFused);
  auto by_name = run_cli("memory " + named);
  REQUIRE(by_name.exit_code == 0);
  CHECK_THAT(by_name.err, Catch::Contains("named as XLA's dump before optimization"));

  // Fused and scheduled: nothing to say.
  auto fused = run_cli("predict -", kFused);
  REQUIRE(fused.exit_code == 0);
  CHECK(fused.err.empty());

  // `parse` says what parsing found, not what a prediction would assume: no such warning.
  auto parsed = run_cli("parse -", kUnfused);
  REQUIRE(parsed.exit_code == 0);
  CHECK(parsed.err.empty());
  auto parsed_json = run_cli("parse - --json", kUnfused);
  REQUIRE(parsed_json.exit_code == 0);
  CHECK(json_of(parsed_json.out)["warnings"].empty());
}

TEST_CASE("a dump directory: its optimized modules, the largest jit_* by default, --module") {
  const std::string dir = out_dir() + "/dump";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write(dir + "/module_0001.jit_g.before_optimizations.txt", kUnfused);
  write(dir + "/module_0001.jit_g.tpu_after_optimizations.txt", kFused);
  write(dir + "/module_0002.jit_f.tpu_after_optimizations.txt", kUnfused);
  write(dir + "/module_0001.jit_g.tpu_after_optimizations-buffer-assignment.txt", "not HLO");

  // kFused is the larger file of the two optimized modules.
  auto chosen = run_cli("cost " + dir);
  REQUIRE(chosen.exit_code == 0);
  CHECK_THAT(chosen.err, Catch::Contains("read module jit_g") &&
                             Catch::Contains("2 optimized module(s)") &&
                             Catch::Contains("--module NAME"));
  CHECK_THAT(chosen.out, Catch::Contains("module jit_g"));

  auto picked = run_cli("predict " + dir + " --module jit_f --json");
  REQUIRE(picked.exit_code == 0);
  CHECK_THAT(picked.err, Catch::Contains("read module jit_f"));

  auto missing = run_cli("memory " + dir + " --module jit_h");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("no module named 'jit_h'") &&
                              Catch::Contains("jit_g") && Catch::Contains("jit_f"));

  // parse lists every optimized module of the directory.
  auto listed = run_cli("parse " + dir);
  REQUIRE(listed.exit_code == 0);
  CHECK_THAT(listed.out, Catch::Contains("module jit_g") && Catch::Contains("module jit_f"));
  CHECK_THAT(listed.out, !Catch::Contains("before_optimizations"));

  auto not_a_dump = run_cli("predict " + out_dir() + "/nothing_here_" + " --module x");
  CHECK(not_a_dump.exit_code == 1);
}

TEST_CASE("unknown work is reported by custom-call target with its count and share") {
  auto text = run_cli("predict - --device tpu_v5e", kUnknownKernels);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("Unknown work (3 ops not costed"));
  CHECK_THAT(text.out, Catch::Contains("my_kernel") && Catch::Contains("2 ops") &&
                           Catch::Contains("other_kernel") && Catch::Contains("of the step"));
  auto json = json_of(run_cli("predict - --device tpu_v5e --json", kUnknownKernels).out);
  const nlohmann::json& work = json["unknown_work"];
  REQUIRE(work.size() == 2);
  // my_kernel's two ops take twice other_kernel's time: it comes first.
  CHECK(work[0]["target"] == "my_kernel");
  CHECK(work[0]["count"] == 2);
  CHECK(work[1]["count"] == 1);
  CHECK(work[0]["step_share"].get<double>() + work[1]["step_share"].get<double>() <= 1.0);
  CHECK(work[0]["step_share"].get<double>() > work[1]["step_share"].get<double>());
}

TEST_CASE("no --device: the platform's default device, said in the assumptions") {
  auto gpu = json_of(run_cli("predict - --json", kGpu).out);
  CHECK(gpu["device"] == "h100");
  CHECK(any_contains(gpu["assumptions"], "compiled for GPU"));
  auto tpu = json_of(run_cli("predict - --json", kTpu).out);
  CHECK(tpu["device"] == "tpu_v5e");
  CHECK(any_contains(tpu["assumptions"], "compiled for TPU"));
}

TEST_CASE("DEVICE[:TOPOLOGY] means the same in every command") {
  auto contradiction = run_cli("predict - --device tpu_v5e:2x2 --topology 4x4", kTpu);
  CHECK(contradiction.exit_code == 1);
  CHECK_THAT(contradiction.err, Catch::Contains("says topology 2x2 but --topology says 4x4"));

  auto impossible = run_cli("predict - --device tpu_v5e:3x3", kTpu);
  CHECK(impossible.exit_code == 1);
  CHECK_THAT(impossible.err, Catch::Contains("no tpu_v5e slice is 3x3") &&
                                 Catch::Contains("2x4") && Catch::Contains("16x16"));

  // 3D tori: below the 4x4x4 cube only 2x2x1, 2x2x2, 2x2x4, 2x4x4 (and 1 or 2 chips); above it
  // whole cubes, every side a multiple of 4.
  auto odd_cube = run_cli("predict - --device tpu_v5p:3x4x4", kTpu);
  CHECK(odd_cube.exit_code == 1);
  CHECK_THAT(odd_cube.err, Catch::Contains("no tpu_v5p slice is 3x4x4") &&
                               Catch::Contains("2x4x4") && Catch::Contains("multiple of 4") &&
                               Catch::Contains("16x20x28"));
  CHECK(run_cli("predict - --device tpu_v4:4x4x6", kTpu).exit_code == 1);
  CHECK(run_cli("predict - --device tpu_v4:1x1x4", kTpu).exit_code == 1);
  CHECK(run_cli("devices tpu_v4:2x2x3").exit_code == 1);
  CHECK(run_cli("predict - --device tpu_v5p:1x2x2", kTpu).exit_code == 0);
  auto cubes = json_of(run_cli("predict - --device tpu_v4:4x8x12 --json", kTpu).out);
  CHECK(cubes["topology"] == "4x8x12");

  // 4x4 holds 16 chips; the module runs on 4: 12 idle.
  auto idle = json_of(run_cli("predict - --device tpu_v5e:4x4 --json", kTpu).out);
  CHECK(idle["topology"] == "4x4");
  CHECK(any_contains(idle["assumptions"], "so 12 sit idle"));

  auto memory = run_cli("memory - --device tpu_v5e:2x2 --json", kTpu);
  REQUIRE(memory.exit_code == 0);
  CHECK(json_of(memory.out)["device"] == "tpu_v5e");
  CHECK(run_cli("memory - --device tpu_v5e:3x3", kTpu).exit_code == 1);

  auto devices = run_cli("devices tpu_v5e:4x4");
  REQUIRE(devices.exit_code == 0);
  CHECK_THAT(devices.out, Catch::Contains("topology 4x4: 16 devices"));
  CHECK(run_cli("devices tpu_v5e:3x3").exit_code == 1);

  auto compare = run_cli("compare - --devices 'tpu_v5e:2x2, h100:1x4' --json", kTpu);
  REQUIRE(compare.exit_code == 0);
  const nlohmann::json both = json_of(compare.out);
  CHECK(both[0]["topology"] == "2x2");
  CHECK(both[1]["device"] == "h100");
}

TEST_CASE("compare --json and --csv: each device as it is made; a failing device ends there") {
  // Three devices, each written once in the order given: the same documents as predict's.
  auto three = run_cli("compare - --devices tpu_v5e:2x2,h100:1x4,tpu_v6e:2x2 --json", kTpu);
  REQUIRE(three.exit_code == 0);
  const nlohmann::json docs = json_of(three.out);
  REQUIRE(docs.size() == 3);
  CHECK(docs[2]["device"] == "tpu_v6e");
  CHECK(docs[1] == json_of(run_cli("predict - --device h100:1x4 --json", kTpu).out));
  // More devices than threads, one of them twice: each document once, in the order given, each
  // the one predict writes for its device.
  const std::vector<std::string> many = {"h100:1x4", "tpu_v5e:2x2", "a100:1x4", "h100:1x4",
                                         "tpu_v6e:2x2", "tpu_v5p:2x2x1"};
  auto six = run_cli("compare - --devices " + absl::StrJoin(many, ",") + " --json", kTpu);
  REQUIRE(six.exit_code == 0);
  const nlohmann::json each = json_of(six.out);
  REQUIRE(each.size() == many.size());
  for (size_t k = 0; k < many.size(); ++k) {
    INFO(many[k]);
    CHECK(each[k] == json_of(run_cli("predict - --device " + many[k] + " --json", kTpu).out));
  }
  auto rows = run_cli("compare - --devices tpu_v5e:2x2,h100:1x4,tpu_v6e:2x2 --csv", kTpu);
  REQUIRE(rows.exit_code == 0);
  // One header, then the one op of each device in turn.
  const hloroof::testing::Csv csv = hloroof::testing::parse_csv(rows.out);
  CHECK(csv.well_formed);
  REQUIRE(csv.records.size() == 4);
  CHECK(csv.records[0][0] == "device");
  for (size_t k = 1; k < 4; ++k) CHECK(csv.records[k][1] == "n");
  CHECK(csv.records[1][0] == "tpu_v5e:2x2");
  CHECK(csv.records[2][0] == "h100:1x4");
  CHECK(csv.records[3][0] == "tpu_v6e:2x2");

  // 1x1 holds one chip; the module runs on 4: that prediction fails. What the devices before
  // it wrote stays, the array is left open, and the error names the device.
  for (const char* format : {"--json", "--csv"}) {
    auto late = run_cli(std::string("compare - --devices tpu_v5e:2x2,tpu_v5e:1x1,h100:1x4 ") +
                            format,
                        kTpu);
    CHECK(late.exit_code == 1);
    CHECK_THAT(late.err, Catch::StartsWith("error: tpu_v5e:1x1: topology tpu_v5e:1x1 has 1"));
    CHECK_THAT(late.out, Catch::Contains("tpu_v5e") && !Catch::Contains("h100"));
    // Failing first: nothing written.
    auto first = run_cli(std::string("compare - --devices tpu_v5e:1x1,h100:1x4 ") + format, kTpu);
    CHECK(first.exit_code == 1);
    CHECK(first.out.empty());
    // A device that cannot be resolved is known before any is predicted: nothing written, and
    // the error is still the first device's (in the order given) that fails.
    auto unknown =
        run_cli(std::string("compare - --devices h100:1x4,tpu_v5e:3x3 ") + format, kTpu);
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.out.empty());
    CHECK_THAT(unknown.err, Catch::StartsWith("error: tpu_v5e:3x3: no tpu_v5e slice is 3x3"));
    auto both = run_cli(std::string("compare - --devices tpu_v5e:1x1,tpu_v5e:3x3 ") + format,
                        kTpu);
    CHECK_THAT(both.err, Catch::StartsWith("error: tpu_v5e:1x1: topology"));
  }
  CHECK(json_of(run_cli("compare - --devices tpu_v5e:2x2,tpu_v5e:1x1 --json", kTpu).out + "]")
            .size() == 1);
}

TEST_CASE("the shared table: the command predicts on the device and slice it names") {
  // tests/data/device_targets/targets.json: the same answers from the C++ API and Python.
  std::ifstream in(std::string(HLOROOF_SOURCE_DIR) + "/tests/data/device_targets/targets.json");
  REQUIRE(in.good());
  const nlohmann::json table = nlohmann::json::parse(in);
  const std::string text =
      absl::StrJoin(table["module"].get<std::vector<std::string>>(), "\n") + "\n";
  for (const nlohmann::json& row : table["targets"]) {
    const std::string device = row["device"];
    INFO("--device '" << device << "'");
    const std::string option = device.empty() ? "" : " --device '" + device + "'";
    auto r = run_cli("predict - --json" + option, text);
    if (row.contains("error")) {
      CHECK(r.exit_code == 1);
      CHECK_THAT(r.err, Catch::Contains(row["error"].get<std::string>()));
    } else {
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      const nlohmann::json p = json_of(r.out);
      CHECK(p["device"] == row["name"]);
      CHECK(p["topology"] == row["topology"]);
    }
  }
}

}  // namespace

namespace {

TEST_CASE("a file cut inside a computation: the whole ones before it are read, the cut dropped") {
  // kNoEntry, then a computation the file cuts off at line 6 (MaxText's reference dumps stop
  // at 2,000 lines): every command stopped at the cut.
  const fs::path dir = fs::temp_directory_path() / "hloroof_cut_dump";
  fs::create_directories(dir);
  const fs::path cut = dir / "cut.hlo";
  std::ofstream(cut) << kNoEntry << "\nfused_add {\n  p = f32[1024] parameter(0)\n";
  auto cost = run_cli("cost " + cut.string() + " --entry fused_negate --json");
  INFO(cost.err);
  CHECK(cost.exit_code == 0);
  std::string said = cost.err;
  for (size_t at; (at = said.find("\n  ")) != std::string::npos;) said.replace(at, 3, " ");
  CHECK_THAT(said, Catch::Contains("the file ends inside computation fused_add (from line 7): "
                                   "a cut dump; it is dropped, and the 1 whole computation "
                                   "before it is read"));
  CHECK(json_of(cost.out)["instructions"].size() == 2);
  // `parse` reads it as the other commands do: the whole computation, with the warning.
  auto parsed = run_cli("parse " + cut.string());
  CHECK(parsed.exit_code == 0);
  CHECK(parsed.out == cut.string() + ": ok, module cut, 1 computations, 2 instructions\n");
  said = parsed.err;
  for (size_t at; (at = said.find("\n  ")) != std::string::npos;) said.replace(at, 3, " ");
  CHECK_THAT(said, Catch::Contains("the file ends inside computation fused_add (from line 7)"));
  auto parsed_json = run_cli("parse --json " + cut.string());
  CHECK(parsed_json.exit_code == 0);
  const nlohmann::json summary = json_of(parsed_json.out);
  CHECK(summary["ok"] == true);
  CHECK(summary["computations"] == 1);
  CHECK(any_contains(summary["warnings"], "a cut dump"));
  // From standard input, where it cannot be read again, the error stands.
  std::ifstream in(cut);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto piped = run_cli("cost -", text);
  CHECK(piped.exit_code == 1);
  CHECK_THAT(piped.err, Catch::Contains("the file ends inside a computation"));
  fs::remove_all(dir);
}

}  // namespace
