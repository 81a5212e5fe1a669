// Inputs told by their content: HLO protos and XSpace profiles wherever a module is read, a
// profile alone for `hloroof profile` (its own module, its own device), and files that hold no
// HLO (empty, JSON, StableHLO, binary, truncated text) named for what they are.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "examples.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"
#include "nlohmann/json.hpp"
#include "require_ok.h"

namespace {

using hloroof::testing::read_file;

namespace fs = std::filesystem;
using hloroof::testing::run_cli;

const fs::path kData = fs::path(HLOROOF_SOURCE_DIR) / "tests" / "data";

fs::path write_file(const std::string& name, const std::string& bytes) {
  const fs::path p = fs::path(HLOROOF_TEST_OUT) / name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

// The XSpace of a capture folder.
std::string xspace_of(const fs::path& capture) {
  for (const auto& e : fs::recursive_directory_iterator(capture / "profile")) {
    if (e.path().string().ends_with(".xplane.pb")) return e.path().string();
  }
  return {};
}

}  // namespace

TEST_CASE("predict, cost and memory read an HloProto and an XSpace like the text") {
  const fs::path capture = kData / "h100" / "default" / "gemm";
  const std::string text = (capture / "module.hlo").string();
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(read_file(capture / "module.hlo"));
  REQUIRE_OK(m);
  // Named neither .pb nor .hlo.pb: the content decides.
  const std::string proto = write_file("gemm_module.bin", hloroof::write_hlo_proto(*m)).string();
  const std::string xspace = xspace_of(capture);
  REQUIRE(!xspace.empty());
  for (const char* command : {"predict", "cost", "memory"}) {
    INFO(command);
    const std::string options =
        std::string(command) == "cost" ? " --json" : " --device h100 --json";
    auto from_text = run_cli(std::string(command) + " " + text + options);
    auto from_proto = run_cli(std::string(command) + " " + proto + options);
    auto from_xspace = run_cli(std::string(command) + " " + xspace + options);
    REQUIRE(from_text.exit_code == 0);
    REQUIRE(from_proto.exit_code == 0);
    REQUIRE(from_xspace.exit_code == 0);
    CHECK(from_proto.out == from_text.out);
    if (std::string(command) == "memory") {
      // The XSpace's HloProto carries XLA's buffer assignment (the written HloModuleProto and
      // the text do not): memory shows it beside its own, and is otherwise the same.
      nlohmann::json with = nlohmann::json::parse(from_xspace.out);
      nlohmann::json without = nlohmann::json::parse(from_text.out);
      CHECK(without["xla_buffer_assignment"].is_null());
      CHECK(with["xla_buffer_assignment"].is_object());
      with.erase("xla_buffer_assignment");
      without.erase("xla_buffer_assignment");
      CHECK(with == without);
    } else {
      CHECK(from_xspace.out == from_text.out);
    }
    // The XSpace says which of its modules was read.
    CHECK(from_xspace.err.find("note: read module jit_gemm(0) of the 1 the profile carries") !=
          std::string::npos);
  }
  // parse --print: the same text, less the header attributes XLA keeps in the module config.
  auto printed = run_cli("parse --print " + proto);
  REQUIRE(printed.exit_code == 0);
  CHECK(printed.out.find("ENTRY %main.1 (a.1: bf16[4096,4096], b.1: bf16[4096,4096])") !=
        std::string::npos);
  CHECK(printed.out.find("custom_call_target=\"__cublas$lt$matmul\"") != std::string::npos);
}

TEST_CASE("--module picks a module of an XSpace; an HloProto holds one") {
  const std::string xspace = xspace_of(kData / "h100" / "default" / "gemm");
  CHECK(run_cli("parse " + xspace + " --module jit_gemm").exit_code == 0);
  CHECK(run_cli("parse " + xspace + " --module 0").exit_code == 0);
  auto none = run_cli("predict " + xspace + " --module jit_other --device h100");
  CHECK(none.exit_code != 0);
  CHECK(none.err.find("carries no module named 'jit_other'; it carries jit_gemm(0)") !=
        std::string::npos);
}

TEST_CASE("profile reads a profile alone: its module and its device") {
  const std::string xspace = xspace_of(kData / "h100" / "default" / "gemm");
  auto r = run_cli("profile " + xspace);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("module jit_gemm on h100:1x1") != std::string::npos);
  CHECK(r.err.find("device h100 from the profile, which ran on 'NVIDIA H100 80GB HBM3'") !=
        std::string::npos);
  // The same with the module given as text, and with the capture folder (meta.json).
  CHECK(run_cli("profile " + (kData / "h100" / "default" / "gemm" / "module.hlo").string() +
                " " + xspace)
            .exit_code == 0);
  // A GPU profile is not joined with a TPU prediction.
  auto tpu = run_cli("profile " + xspace + " --device tpu_v5e");
  CHECK(tpu.exit_code != 0);
  CHECK(tpu.err.find("the profile was measured on 'NVIDIA H100 80GB HBM3' (a GPU") !=
        std::string::npos);
  CHECK(tpu.err.find("give --device h100") != std::string::npos);
}

TEST_CASE("files that hold no HLO say what they are, never their bytes") {
  const std::string empty = write_file("empty.hlo", "").string();
  auto r = run_cli("predict " + empty + " --device h100");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("is empty: give an HLO module") != std::string::npos);

  const std::string json = write_file("trace.json", "{\"traceEvents\": []}\n").string();
  r = run_cli("cost " + json);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("is JSON, not an HLO module") != std::string::npos);

  const std::string mlir = write_file(
      "f.mlir", "module @jit_f {\n  func.func public @main(%arg0: tensor<4xf32>) -> "
                "tensor<4xf32> {\n    return %arg0 : tensor<4xf32>\n  }\n}\n").string();
  r = run_cli("parse " + mlir);
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("is StableHLO/MLIR text") != std::string::npos);
  CHECK(r.err.find("@") == std::string::npos);  // no "unexpected character '@'"

  // HLO as XLA's own test files write it: no header, and FileCheck lines that name MLIR
  // (emitters/tests/concatenate/concat_1d.hlo and kin were refused as StableHLO/MLIR).
  const std::string checked = write_file(
      "concat_1d.hlo", "// RUN: fusion_to_mlir %s | FileCheck %s\n\nfusion {\n"
                       "  p0 = f32[200] parameter(0)\n  p1 = f32[400] parameter(1)\n"
                       "  ROOT c = f32[600] concatenate(p0, p1), dimensions={0}\n}\n"
                       "// CHECK: func.func @main\n// CHECK: mhlo.constant\n").string();
  r = run_cli("parse " + checked);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("ok, module") != std::string::npos);

  // Bytes that are neither text nor a proto (xz's magic number, then garbage): said so, and
  // none of them reach the terminal.
  // (xz's stream header: FD 37 7A 58 5A 00, then flags 00 04 and a CRC32.)
  std::string binary("\xfd" "7zXZ\x00\x00\x04\xe6\xd6\xb4\x46", 12);
  binary += std::string(64, '\x9c');
  const std::string bin = write_file("dump.hlo.pb.xz", binary).string();
  r = run_cli("memory " + bin + " --device h100");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("is a binary file but neither an HLO proto") != std::string::npos);
  CHECK(r.err.find('\x9c') == std::string::npos);
  CHECK(r.err.find("7zXZ") == std::string::npos);

  // A dump cut off inside a computation.
  const std::string cut = write_file("cut.hlo", "HloModule m\n\nENTRY %main {\n"
                                                "  %p = f32[4]{0} parameter(0)\n").string();
  r = run_cli("predict " + cut + " --device h100");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("note: the file ends inside a computation: truncated?") != std::string::npos);
  r = run_cli("parse " + cut);
  CHECK(r.err.find("truncated?") != std::string::npos);
}
