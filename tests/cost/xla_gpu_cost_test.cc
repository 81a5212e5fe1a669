// The XLA-compatible figures against XLA's own on GPU programs: every program of the measured
// op-family sweeps (../shared/measured/gpu_{h100,h200}_opfamilies, or $HLOROOF_MEASURED;
// SKIPPED when absent) beside the `cost_analysis()` JAX reported for it (`cost.json`, JAX 0.11.2).
// On a GPU that is the base HloCostAnalysis, which knows no custom call and gives each -1 for
// FLOPs and bytes; the XLA-compatible figures count 0 there (docs/cost-conventions.md). So for
// every program: xla_flops = XLA's flops + the module's custom calls, the same for bytes (XLA
// sums in float32: agreement to 1e-6 relative). cuBLAS GEMMs and cuDNN convolutions among them
// (the 23 convolution programs of each GPU, a scanned matmul) count none of their FLOPs there,
// where `flops` has them.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "hloroof/hloroof.h"
#include "nlohmann/json.hpp"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

fs::path measured_dir() {
  if (const char* env = std::getenv("HLOROOF_MEASURED"); env != nullptr && *env != '\0') {
    return env;
  }
  return HLOROOF_SHARED_MEASURED;
}

// The program folders of both sweeps that hold XLA's cost analysis, sorted.
std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const char* sweep : {"gpu_h100_opfamilies", "gpu_h200_opfamilies"}) {
    std::error_code error;
    for (const fs::directory_entry& e : fs::directory_iterator(measured_dir() / sweep, error)) {
      if (fs::exists(e.path() / "cost.json") && fs::exists(e.path() / "module.hlo")) {
        out.push_back(e.path());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t custom_calls(const Module& m) {
  int64_t n = 0;
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) n += i->opcode() == Opcode::kCustomCall;
  }
  return n;
}

bool agrees(double ours, double xla) {
  return std::abs(ours - xla) <= 1e-6 * std::max(1.0, std::abs(xla)) + 0.5;
}

TEST_CASE("XLA-compatible totals are cost_analysis() on the measured GPU programs") {
  const std::vector<fs::path> programs = cases();
  REQUIRE(programs.size() >= 200);  // 113 programs a GPU, 226 when both sweeps are there
  int with_library_calls = 0;
  for (const fs::path& dir : programs) {
    INFO(dir.string());
    absl::StatusOr<LoadedModule> loaded = load_module((dir / "module.hlo").string());
    REQUIRE_OK(loaded);
    absl::StatusOr<ModuleCost> cost = analyze_cost(loaded->module);
    REQUIRE_OK(cost);
    std::ifstream in(dir / "cost.json");
    const nlohmann::json xla = nlohmann::json::parse(in);
    // XLA's -1 per custom call, each 0 in the XLA-compatible figures.
    const double calls = static_cast<double>(custom_calls(loaded->module));
    const OpCost& t = cost->totals;
    CHECK(agrees(t.xla_flops, xla["flops"].get<double>() + calls));
    CHECK(agrees(t.xla_bytes_accessed, xla["bytes accessed"].get<double>() + calls));
    // A program of cuBLAS or cuDNN calls: their FLOPs are in `flops`, not in `xla_flops`.
    if (t.matrix_flops() > 1e9 && t.xla_flops < 0.01 * t.flops) ++with_library_calls;
  }
  // The convolution programs (23 a GPU) and the scanned matmul that calls cuBLAS.
  CHECK(with_library_calls >= 40);
}

}  // namespace
}  // namespace hloroof

int main(int argc, char** argv) {
  if (!std::filesystem::exists(hloroof::measured_dir() / "gpu_h100_opfamilies")) {
    std::cerr << "SKIPPED: no measured op-family sweeps at " << hloroof::measured_dir().string()
              << "; set HLOROOF_MEASURED\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
