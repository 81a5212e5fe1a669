// What a first run-through trips over: the platform a module is for, grouped notes, `memory`
// without a device, layout copies that keep the layout, help, mistyped options and dump
// directories compiled twice.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using hloroof::testing::run_cli;

nlohmann::json json_of(const std::string& text) { return nlohmann::json::parse(text); }

bool any_contains(const nlohmann::json& list, const std::string& part) {
  for (const auto& s : list) {
    if (s.get<std::string>().find(part) != std::string::npos) return true;
  }
  return false;
}

int count_containing(const nlohmann::json& list, const std::string& part) {
  int n = 0;
  for (const auto& s : list) n += s.get<std::string>().find(part) != std::string::npos;
  return n;
}

// A module whose only GPU marker is a TransformerEngine custom call, as in XLA's LLM benchmark
// modules.
std::string with_target(const std::string& target) {
  return "HloModule m, is_scheduled=true\nENTRY main {\n"
         "  q = bf16[8,1024,128]{2,1,0} parameter(0)\n"
         "  ROOT o = bf16[8,1024,128]{2,1,0} custom-call(q), custom_call_target=\"" +
         target + "\"\n}\n";
}

// Nothing in it tells its platform.
constexpr const char* kPlain = R"(HloModule plain, is_scheduled=true
ENTRY main {
  a = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(a)
}
)";

// XLA:CPU's backend config.
constexpr const char* kCpu = R"(HloModule cpu, is_scheduled=true
ENTRY main {
  a = f32[1024]{0} parameter(0)
  ROOT n = f32[1024]{0} negate(a), backend_config={"outer_dimension_partitions":["2"]}
}
)";

TEST_CASE("a custom call only one platform has decides the platform") {
  for (const std::string gpu : {"te_fused_attn_forward_ffi", "te_fused_attn_backward_ffi",
                                "__cudnn$fmhaSoftmax", "cu_threefry2x32_ffi"}) {
    INFO(gpu);
    auto p = run_cli("predict - --json", with_target(gpu));
    REQUIRE(p.exit_code == 0);
    const nlohmann::json j = json_of(p.out);
    CHECK(j["device"] == "h100");
    CHECK(any_contains(j["assumptions"], "compiled for GPU (custom call \"" + gpu + "\""));
    CHECK(j["warnings"].empty());
  }
  auto tpu = json_of(run_cli("predict - --json", with_target("tpu_custom_call")).out);
  CHECK(tpu["device"] == "tpu_v5e");
  CHECK(any_contains(tpu["assumptions"], "compiled for TPU (custom call \"tpu_custom_call\""));
  CHECK(tpu["warnings"].empty());
  // memory infers the device the same way, and gives the fit verdict on it.
  auto memory = run_cli("memory - --json", with_target("te_fused_attn_forward_ffi"));
  REQUIRE(memory.exit_code == 0);
  const nlohmann::json m = json_of(memory.out);
  CHECK(m["device"] == "h100");
  CHECK(m["fits"] == true);
  CHECK(any_contains(m["notes"], "compiled for GPU"));
  auto memory_text = run_cli("memory -", with_target("te_fused_attn_forward_ffi"));
  CHECK_THAT(memory_text.out, Catch::Contains("capacity     h100 HBM") &&
                                  Catch::Contains("so it is predicted on h100"));
}

TEST_CASE("when nothing decides the platform, the reports say so at their top") {
  auto text = run_cli("predict -", kPlain);
  REQUIRE(text.exit_code == 0);
  // The line after the device's: before any figure.
  const std::string second = text.out.substr(text.out.find('\n') + 1, 60);
  CHECK_THAT(second, Catch::StartsWith("warning: no --device given and nothing in the module"));
  auto json = json_of(run_cli("predict - --json", kPlain).out);
  CHECK(count_containing(json["warnings"], "a guess") == 1);
  auto advise = run_cli("advise -", kPlain);
  CHECK_THAT(advise.out, Catch::StartsWith("warning: no --device given"));
  auto memory = run_cli("memory -", kPlain);
  CHECK_THAT(memory.out, Catch::StartsWith("warning: no --device given"));
  // A CPU module has no built-in device: predicted on the default, and said first.
  auto cpu = json_of(run_cli("predict - --json", kCpu).out);
  CHECK(any_contains(cpu["warnings"], "compiled for CPU (backend config "
                                      "\"outer_dimension_partitions\""));
  // A device named: nothing to warn about.
  CHECK(json_of(run_cli("predict - --json --device tpu_v6e", kPlain).out)["warnings"].empty());
}

// Three loops whose trip count cannot be told.
constexpr const char* kLoops = R"(HloModule loops, is_scheduled=true
cond {
  s = (s32[], s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[], f32[1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  n = s32[] get-tuple-element(s), index=1
  x = f32[1024] get-tuple-element(s), index=2
  y = f32[1024] negate(x)
  ROOT t = (s32[], s32[], f32[1024]) tuple(i2, n, y)
}
ENTRY main {
  x = f32[1024] parameter(0)
  n = s32[] parameter(1)
  zero = s32[] constant(0)
  t0 = (s32[], s32[], f32[1024]) tuple(zero, n, x)
  w1 = (s32[], s32[], f32[1024]) while(t0), condition=cond, body=body
  w2 = (s32[], s32[], f32[1024]) while(w1), condition=cond, body=body
  w3 = (s32[], s32[], f32[1024]) while(w2), condition=cond, body=body
  ROOT r = f32[1024] get-tuple-element(w3), index=2
}
)";

// Three custom calls hloroof cannot cost, all of one target.
constexpr const char* kKernels = R"(HloModule kernels, is_scheduled=true
ENTRY main {
  a = f32[1024] parameter(0)
  k1 = f32[1024] custom-call(a), custom_call_target="my_kernel"
  k2 = f32[1024] custom-call(k1), custom_call_target="my_kernel"
  ROOT k3 = f32[1024] custom-call(k2), custom_call_target="my_kernel"
}
)";

TEST_CASE("the same assumption about many ops is one line, in text and JSON") {
  auto p = json_of(run_cli("predict - --device tpu_v5e --json", kLoops).out);
  CHECK(count_containing(p["assumptions"], "trip count unknown") == 1);
  CHECK(any_contains(p["assumptions"], "3 loops: trip count unknown; assumed 1"));
  CHECK(any_contains(p["assumptions"], "e.g. w1, w2, w3"));
  auto text = run_cli("predict - --device tpu_v5e", kLoops);
  CHECK_THAT(text.out, Catch::Contains("3 loops: trip count unknown"));
  CHECK_THAT(text.out, !Catch::Contains("w2: trip count"));

  auto cost = json_of(run_cli("cost - --json", kKernels).out);
  CHECK(count_containing(cost["notes"], "is not understood") == 1);
  CHECK(any_contains(cost["notes"], "3 custom calls: custom call target \"my_kernel\""));
  auto cost_loops = json_of(run_cli("cost - --json", kLoops).out);
  CHECK(any_contains(cost_loops["notes"], "3 loops: trip count unknown, counted 1 time"));
}

// HLO before layout assignment: `same` copies `a` into the layout it has; `moved` re-lays out
// `b` for the second dot.
constexpr const char* kCopies = R"(HloModule jit_copies
ENTRY main {
  a = f32[2048,2048]{1,0} parameter(0)
  b = f32[2048,2048]{1,0} parameter(1)
  same = f32[2048,2048]{1,0} copy(a)
  d1 = f32[2048,2048]{1,0} dot(same, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  moved = f32[2048,2048]{0,1} copy(b)
  ROOT d2 = f32[2048,2048]{1,0} dot(d1, moved), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

TEST_CASE("advise: a copy that keeps the layout is not a layout copy") {
  auto advice = json_of(run_cli("advise - --device tpu_v5e --json", kCopies).out);
  const nlohmann::json* layout = nullptr;
  for (const auto& f : advice["findings"]) {
    if (f["id"] == "layout-copy") layout = &f;
  }
  REQUIRE(layout != nullptr);
  CHECK((*layout)["op_count"] == 1);
  REQUIRE((*layout)["evidence"].size() == 1);
  CHECK((*layout)["evidence"][0]["op"] == "moved");
}

TEST_CASE("help COMMAND, mistyped options and usage lines") {
  auto help = run_cli("help predict");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::StartsWith("usage: hloroof predict"));
  CHECK(run_cli("help nothing").exit_code == 2);

  auto typo = run_cli("predict - --devic h100", kPlain);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("unknown option '--devic'; did you mean '--device'?"));
  auto far = run_cli("predict - --colour", kPlain);
  CHECK_THAT(far.err, !Catch::Contains("did you mean"));

  // Every command that takes --module says so in its usage line.
  for (const std::string command : {"predict", "memory", "cost", "advise", "compare"}) {
    INFO(command);
    auto usage = run_cli(command + " a b c");
    CHECK(usage.exit_code == 2);
    CHECK_THAT(usage.err, Catch::Contains("[--module"));
  }
}

// Each line of `text` fits 100 columns.
void check_width(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
}

// `text`'s words, its lines joined: what wrapping must keep.
std::string words_of(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  for (std::string word; in >> word;) out += (out.empty() ? "" : " ") + word;
  return out;
}

TEST_CASE("error messages fit 100 columns, wrapped with their continuation lines indented") {
  // A long path: 150 letters of folder name, cut at the right edge and continued.
  const std::string folder = "/tmp/" + std::string(150, 'd');
  auto path = run_cli("predict " + folder + "/x.hlo");
  CHECK(path.exit_code == 1);
  check_width(path.err);
  CHECK_THAT(path.err, Catch::StartsWith("error: cannot read '/tmp/ddd"));
  // Every line after the first is indented (a continuation), and no letter is lost.
  CHECK(path.err.find("\n  ") != std::string::npos);
  std::string joined;
  for (char c : path.err) {
    if (c != '\n' && c != ' ') joined += c;
  }
  CHECK_THAT(joined, Catch::Contains(folder + "/x.hlo"));

  // A long list of names: the figures a device has, for a --set it does not.
  auto set = run_cli("predict - --device h100 --set hbm.bandwith=1", kPlain);
  CHECK(set.exit_code == 1);
  check_width(set.err);
  CHECK_THAT(set.err, Catch::StartsWith("error: --set hbm.bandwith: h100 has no such figure; "
                                        "its figures: "));
  CHECK_THAT(words_of(set.err), Catch::Contains("hbm.capacity, hbm.bandwidth,"));
  std::istringstream lines(set.err);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK_THAT(second, Catch::StartsWith("  ") && !Catch::StartsWith("   "));

  // A usage error with a long message, and a command mistyped.
  auto usage = run_cli("predict - --device " + std::string(120, 'x'), kPlain);
  check_width(usage.err);
  auto command = run_cli("predcit -");
  CHECK(command.exit_code == 2);
  CHECK_THAT(command.err, Catch::StartsWith("error: unknown command 'predcit'; did you mean "
                                            "'predict'?"));
  check_width(command.err);

  // A parse error on a line of 400 columns: the source line under the caret is cut to fit.
  std::string wide =
      "HloModule m\nENTRY e {\n  a = f32[8] parameter(0)\n  ROOT b = f32[8] add(a, ";
  for (int k = 0; k < 40; ++k) wide += "a, ";
  wide += "nothing)\n}\n";
  auto parse = run_cli("predict -", wide);
  CHECK(parse.exit_code == 1);
  check_width(parse.err);
  CHECK_THAT(parse.err, Catch::Contains("...") && Catch::Contains("^"));
}

TEST_CASE("--set on every command that takes a device: applied, and the report says so") {
  // h100 at a third of its HBM bandwidth (1e12 of 3.35e12 B/s): every HBM-bound op is slower,
  // so every predicted step is longer than the built-in device's.
  const std::string set = " --set hbm.bandwidth=1e12";
  const std::string said = "device figures set: hbm.bandwidth=1e12";
  const std::string gemm = std::string(HLOROOF_SOURCE_DIR) + "/examples/h100_gemm_step.hlo";
  auto step = [](const nlohmann::json& j) { return j["step_time_s"].get<double>(); };

  const std::string predict = "predict " + gemm + " --device h100 --json";
  const nlohmann::json p0 = json_of(run_cli(predict).out), p1 = json_of(run_cli(predict + set).out);
  CHECK(step(p1) > step(p0));
  CHECK(any_contains(p1["assumptions"], said));

  const std::string advise = "advise " + gemm + " --device h100 --json";
  const nlohmann::json a0 = json_of(run_cli(advise).out), a1 = json_of(run_cli(advise + set).out);
  CHECK(step(a1) > step(a0));
  CHECK(a1["notes"][0] == said);
  CHECK_THAT(run_cli("advise " + gemm + " --device h100" + set).out, Catch::Contains(said));

  const std::string compare = "compare " + gemm + " --devices h100,a100";
  const nlohmann::json c0 = json_of(run_cli(compare + " --json").out);
  const nlohmann::json c1 = json_of(run_cli(compare + " --json" + set).out);
  CHECK(step(c1[0]) > step(c0[0]));
  CHECK(step(c1[1]) > step(c0[1]));
  CHECK_THAT(run_cli(compare + set).out, Catch::Contains(said + ", on every device"));

  const std::string diff = "diff " + gemm + " " + gemm + " --device h100";
  const nlohmann::json d0 = json_of(run_cli(diff + " --json").out);
  const nlohmann::json d1 = json_of(run_cli(diff + " --json" + set).out);
  CHECK(step(d1["after"]) > step(d0["after"]));
  // In both sides' assumptions, said once in the text.
  CHECK(any_contains(d1["before"]["assumptions"], said));
  CHECK(any_contains(d1["after"]["assumptions"], said));
  const std::string diff_text = run_cli(diff + set).out;
  CHECK_THAT(diff_text, Catch::Contains("Assumptions:\n") && Catch::Contains("  - " + said));
  CHECK(diff_text.find(said) == diff_text.rfind(said));

  // memory: the capacity the fit verdict checks, 1e9 B: 1.59 GiB does not fit.
  auto memory =
      json_of(run_cli("memory " + gemm + " --device h100 --json --set hbm.capacity=1e9").out);
  CHECK(memory["capacity_bytes"] == 1e9);
  CHECK(memory["fits"] == false);

  const std::string capture = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/axpy";
  const std::string profile = "profile " + capture + " --device h100 --json";
  const nlohmann::json r0 = json_of(run_cli(profile).out), r1 = json_of(run_cli(profile + set).out);
  CHECK(r1["step"]["roofline_s"].get<double>() > r0["step"]["roofline_s"].get<double>());
  CHECK(r1["notes"][0] == said);
}

TEST_CASE("a dump directory with a module compiled twice reads the latest; --module takes ids") {
  const std::string dir = std::string(HLOROOF_TEST_OUT) + "/first_run_recompiled";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The first compilation is the larger file; the recompile is the one that ran last.
  std::ofstream(dir + "/module_0001.jit_step.tpu_after_optimizations.txt")
      << "HloModule jit_step, is_scheduled=true\n// the first compilation, a longer file\n"
      << "ENTRY main {\n  a = f32[8] parameter(0)\n  ROOT n = f32[8] negate(a)\n}\n";
  std::ofstream(dir + "/module_0004.jit_step.tpu_after_optimizations.txt")
      << "HloModule jit_step, is_scheduled=true\n"
      << "ENTRY main {\n  a = f32[16] parameter(0)\n  ROOT n = f32[16] negate(a)\n}\n";
  auto latest = run_cli("cost " + dir + " --json");
  REQUIRE(latest.exit_code == 0);
  CHECK_THAT(latest.err, Catch::Contains("module_0004"));
  // f32[16]: 64 B written, the recompile's.
  CHECK(json_of(latest.out)["totals"]["bytes_written"] == 64);
  auto by_id = run_cli("cost " + dir + " --module 0001 --json");
  REQUIRE(by_id.exit_code == 0);
  CHECK(json_of(by_id.out)["totals"]["bytes_written"] == 32);
  CHECK(run_cli("cost " + dir + " --module module_0004 --json").exit_code == 0);
  auto missing = run_cli("cost " + dir + " --module 0009");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("0001") && Catch::Contains("0004"));
}

// Two devices, each running one bf16 dot of 2 x 1024^3 = 2147483648 FLOPs.
constexpr const char* kDot = R"(HloModule m, num_partitions=2
ENTRY e {
  a = bf16[1024,1024]{1,0} parameter(0)
  b = bf16[1024,1024]{1,0} parameter(1)
  ROOT d = bf16[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

TEST_CASE("HFU is named HFU everywhere; MFU when the model's FLOPs are given") {
  auto plain = json_of(run_cli("predict - --device h100 --json", kDot).out);
  CHECK(plain["hfu"].get<double>() > 0);
  CHECK(plain["mfu"].is_null());
  CHECK(plain["devices"] == 2);
  auto text = run_cli("predict - --device h100", kDot);
  CHECK_THAT(text.out, Catch::Contains("  HFU ") && !Catch::Contains("  MFU "));

  // 6 x N x D with N = 1e6 parameters, D = 715.827882667 tokens: 4294967296 FLOPs, what the
  // two devices run, so MFU = HFU.
  auto six = json_of(
      run_cli("predict - --device h100 --json --params 1e6 --tokens 715.827882667", kDot).out);
  CHECK(six["model_flops"].get<double>() == Approx(4294967296.0));
  CHECK(six["mfu"].get<double>() == Approx(six["hfu"].get<double>()));
  CHECK(any_contains(six["assumptions"], "6 x N x D"));
  auto given = json_of(run_cli("predict - --device h100 --json --model-flops 2147483648", kDot).out);
  CHECK(given["mfu"].get<double>() == Approx(given["hfu"].get<double>() / 2));
  auto shown = run_cli("predict - --device h100 --model-flops 2147483648", kDot);
  CHECK_THAT(shown.out, Catch::Contains("  MFU ") && Catch::Contains("over 2 devices"));
  auto compare = run_cli("compare - --devices h100,a100 --model-flops 2147483648", kDot);
  REQUIRE(compare.exit_code == 0);
  CHECK_THAT(compare.out, Catch::Contains("\nMFU ") && Catch::Contains("\nHFU "));

  CHECK(run_cli("predict - --params 1e6", kDot).exit_code == 2);
  CHECK(run_cli("predict - --model-flops -3", kDot).exit_code == 2);
  CHECK(run_cli("predict - --model-flops 1e9 --params 1 --tokens 2", kDot).exit_code == 2);
}

// partition-id reads the device's own id: no communication.
constexpr const char* kPartitionId = R"(HloModule m, is_scheduled=true, num_partitions=2
ENTRY e {
  id = u32[] partition-id()
  b = u32[1024]{0} broadcast(id), dimensions={}
  ROOT n = u32[1024]{0} add(b, b)
})";

TEST_CASE("partition-id is not a collective") {
  auto p = json_of(run_cli("predict - --device tpu_v5e --json", kPartitionId).out);
  bool found = false;
  for (const auto& op : p["ops"]) {
    if (op["name"] != "id") continue;
    found = true;
    CHECK(op["category"] == "partition-id");
    CHECK(op["bound"] != "collective");
  }
  CHECK(found);
}

// The same step, its negate dropped and an exponential added.
constexpr const char* kBefore = R"(HloModule m, is_scheduled=true
ENTRY e {
  a = f32[4096]{0} parameter(0)
  n = f32[4096]{0} negate(a)
  ROOT m = f32[4096]{0} multiply(n, a)
})";
constexpr const char* kAfter = R"(HloModule m, is_scheduled=true
ENTRY e {
  a = f32[4096]{0} parameter(0)
  x = f32[4096]{0} exponential(a)
  ROOT m = f32[4096]{0} multiply(x, a)
})";

TEST_CASE("diff says what each prediction warns of and assumes, in text and JSON") {
  // A GPU module diffed on a TPU: predict warns that the module is another platform's; so does
  // diff, once for both sides, with the assumptions of both.
  const std::string data = std::string(HLOROOF_SOURCE_DIR) + "/tests/data/h100/default/";
  const std::string gemm = data + "gemm/module.hlo", f32 = data + "gemm_f32/module.hlo";
  const auto text = run_cli("diff " + gemm + " " + f32 + " --device tpu_v5e");
  INFO(text.err);
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::StartsWith("Diff of two predicted steps on tpu_v5e:1x1\n"
                                         "ops: 1 changed, 0 added, 0 removed, 0 unchanged\n"
                                         "warning: the module was compiled for GPU"));
  CHECK_THAT(text.out, Catch::Contains("\nAssumptions:\n  - "));
  CHECK_THAT(text.out, Catch::Contains("tpu_v5e expected times borrow the tpu7x microbenchmarks"));
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 100);
  const nlohmann::json json =
      json_of(run_cli("diff " + gemm + " " + f32 + " --device tpu_v5e --json").out);
  for (const char* side : {"before", "after"}) {
    CHECK(any_contains(json[side]["warnings"], "the module was compiled for GPU"));
    CHECK(any_contains(json[side]["assumptions"], "tpu_v5e expected times borrow"));
  }
}

TEST_CASE("diff of two modules predicted on two slices names both") {
  // 4 and 8 devices: each side's slice is inferred from its own module (tpu_v5e 2x2 and 2x4),
  // so the header names both, not the second alone.
  const std::string dir = std::string(HLOROOF_TEST_OUT) + "/first_run_diff_slices";
  fs::create_directories(dir);
  std::string four = kBefore, eight = kAfter;
  four.replace(four.find("is_scheduled=true"), 17, "is_scheduled=true, num_partitions=4");
  eight.replace(eight.find("is_scheduled=true"), 17, "is_scheduled=true, num_partitions=8");
  std::ofstream(dir + "/four.hlo") << four;
  std::ofstream(dir + "/eight.hlo") << eight;
  const std::string args = "diff " + dir + "/four.hlo " + dir + "/eight.hlo --device tpu_v5e";
  auto text = run_cli(args);
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::StartsWith("Diff of two predicted steps: before on tpu_v5e:2x2, "
                                         "after on tpu_v5e:2x4\n"));
  const nlohmann::json json = json_of(run_cli(args + " --json").out);
  CHECK(json["device"] == "tpu_v5e:2x2 -> tpu_v5e:2x4");
  CHECK(json["before"]["device"] == "tpu_v5e:2x2");
  CHECK(json["after"]["device"] == "tpu_v5e:2x4");
  // One slice for both: named once.
  const std::string same = "diff " + dir + "/four.hlo " + dir + "/four.hlo --device tpu_v5e";
  CHECK_THAT(run_cli(same).out, Catch::StartsWith("Diff of two predicted steps on tpu_v5e:2x2\n"));
}

TEST_CASE("devices lists a GPU's network figures, those its file leaves out too") {
  // a100's file gives scale_out_bandwidth, not the NICs: the figures a cluster sets are listed,
  // with how to set them and in what unit.
  auto a100 = run_cli("devices a100");
  REQUIRE(a100.exit_code == 0);
  for (const char* path : {"interconnect.nics_per_node", "interconnect.nic_bandwidth",
                           "interconnect.nic_efficiency", "interconnect.scale_out_latency"}) {
    INFO(path);
    CHECK_THAT(a100.out, Catch::Contains(std::string("\n") + path + " "));
  }
  CHECK_THAT(a100.out, Catch::Contains("0.860") && Catch::Contains("200Gb/s") &&
                           Catch::Contains("a number without a unit is in B/s"));
  std::istringstream lines(a100.out);
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 100);
  // A file that gives the NICs lists them once, as figures.
  auto four = run_cli("devices " + std::string(HLOROOF_SOURCE_DIR) + "/examples/a100_4nic.json");
  REQUIRE(four.exit_code == 0);
  const size_t first = four.out.find("\ninterconnect.nic_bandwidth ");
  REQUIRE(first != std::string::npos);
  CHECK(four.out.find("\ninterconnect.nic_bandwidth ", first + 1) == std::string::npos);
}

TEST_CASE("diff --csv: every op's change, one row each, the JSON's op keys as columns") {
  const std::string dir = std::string(HLOROOF_TEST_OUT) + "/first_run_diff";
  fs::create_directories(dir);
  std::ofstream(dir + "/before.hlo") << kBefore;
  std::ofstream(dir + "/after.hlo") << kAfter;
  const std::string args = "diff " + dir + "/before.hlo " + dir + "/after.hlo --device h100";
  auto json = run_cli(args + " --json");
  auto csv = run_cli(args + " --csv");
  REQUIRE(json.exit_code == 0);
  REQUIRE(csv.exit_code == 0);
  const nlohmann::json ops = json_of(json.out)["ops"];
  const hloroof::testing::Csv table = hloroof::testing::parse_csv(csv.out);
  REQUIRE(table.well_formed);
  // A header, then one row per op: n removed, x added, m changed or not.
  REQUIRE(table.records.size() == ops.size() + 1);
  const std::vector<std::string>& header = table.records[0];
  CHECK(header.size() == ops[0].size());
  for (size_t k = 0; k < ops.size(); ++k) {
    for (size_t c = 0; c < header.size(); ++c) {
      INFO(header[c]);
      REQUIRE(ops[k].contains(header[c]));
      const nlohmann::json& want = ops[k][header[c]];
      const std::string& got = table.records[k + 1][c];
      if (want.is_string()) {
        CHECK(got == want.get<std::string>());
      } else {
        CHECK(std::stod(got) == Approx(want.get<double>()));
      }
    }
  }
  CHECK(run_cli(args + " --csv --json").exit_code == 2);
}

TEST_CASE("the collectives' payload of an all-to-all is the group's, and the legend says so") {
  // Each of 4 devices holds f32[4,4194304] = 4 x 4194304 x 4 B = 64 MiB; the all-to-all's
  // payload V is N = 4 times that: 256 MiB (268435456 B).
  const std::string a2a =
      "HloModule a2a, num_partitions=4\nENTRY e {\n  p = f32[4,4194304]{1,0} parameter(0)\n"
      "  ROOT a = f32[4,4194304]{1,0} all-to-all(p), replica_groups={{0,1,2,3}}, "
      "dimensions={0}\n}\n";
  auto json = json_of(run_cli("predict - --device tpu_v5e --json", a2a).out);
  REQUIRE(json["ops"].size() == 1);
  CHECK(json["ops"][0]["collective"]["payload_bytes"] == 268435456);
  auto text = run_cli("predict - --device tpu_v5e", a2a);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("all-to-all  4  256 MiB") &&
                           Catch::Contains("all-to-all: N times one device's"));
}

TEST_CASE("the H100 example's footprint is below its liveness peak, and the report says why") {
  // loop_multiply_fusion writes over an operand that dies there: liveness counts both,
  // buffer assignment holds one (docs/memory.md).
  const std::string gemm = std::string(HLOROOF_SOURCE_DIR) + "/examples/h100_gemm_step.hlo";
  auto m = json_of(run_cli("memory " + gemm + " --device h100 --json").out);
  CHECK(m["footprint_bytes"].get<double>() < m["peak_bytes"].get<double>());
  CHECK(m["peak_at"] == "loop_multiply_fusion");
  CHECK(m["shared_with_operand"].get<int>() >= 1);
  CHECK_THAT(run_cli("memory " + gemm + " --device h100").out,
             Catch::Contains("results over a dying operand: 2"));
}

TEST_CASE("compare --csv: every op of every device, a device column, then predict's columns") {
  auto csv = run_cli("compare - --devices h100,a100 --csv", kDot);
  REQUIRE(csv.exit_code == 0);
  const hloroof::testing::Csv table = hloroof::testing::parse_csv(csv.out);
  REQUIRE(table.well_formed);
  const hloroof::testing::Csv predict =
      hloroof::testing::parse_csv(run_cli("predict - --device a100 --csv", kDot).out);
  REQUIRE(predict.well_formed);
  // The header: `device`, then predict's; every op of each device, in the order given.
  std::vector<std::string> header = predict.records[0];
  header.insert(header.begin(), "device");
  REQUIRE(table.records[0] == header);
  const size_t ops = predict.records.size() - 1;
  REQUIRE(table.records.size() == 1 + 2 * ops);
  const size_t flops = std::find(header.begin(), header.end(), "flops") - header.begin();
  for (size_t k = 1; k < table.records.size(); ++k) {
    CHECK(table.records[k][0] == (k <= ops ? "h100:1x2" : "a100:1x2"));
    // a100's rows are predict's, cell for cell.
    if (k > ops) {
      std::vector<std::string> row = predict.records[k - ops];
      row.insert(row.begin(), "a100:1x2");
      CHECK(table.records[k] == row);
    }
    // The dot: 2 x 1024^3 = 2147483648 FLOPs per device, on either.
    if (table.records[k][1] == "d") CHECK(table.records[k][flops] == "2147483648");
  }
  CHECK(run_cli("compare - --devices h100,a100 --csv --json", kDot).exit_code == 2);
}

}  // namespace
