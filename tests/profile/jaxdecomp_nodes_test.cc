// The jaxdecomp 3-D FFTs measured on Jean Zay's A100 nodes (../shared/measured/a100_jaxdecomp, or
// $HLOROOF_MEASURED; SKIPPED when absent), each compiled program predicted on
// examples/a100_jean_zay.json: the runs across two nodes within 25% of their measured step (the
// file's nic_efficiency was fitted to them by bench/jaxdecomp_nodes.py --fit, each cube size held
// out in turn), and no roofline above any run's measured step.
#include <algorithm>
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hloroof/hloroof.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

}  // namespace

fs::path reports_dir() {
  if (const char* env = std::getenv("HLOROOF_MEASURED"); env != nullptr && *env != '\0') {
    return fs::path(env) / "a100_jaxdecomp";
  }
  return fs::path(HLOROOF_SHARED_MEASURED) / "a100_jaxdecomp";
}

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Report {
  std::string name, hlo;
  int nodes = 0;
  double measured_s = 0;  // the median of the iterations after the first
};

// A row "| key | value |" of a report's tables; empty when absent.
std::string field(const std::string& text, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> cells = absl::StrSplit(line, '|');
    if (cells.size() >= 3 && absl::StripAsciiWhitespace(cells[1]) == key) {
      return std::string(absl::StripAsciiWhitespace(cells[2]));
    }
  }
  return {};
}

Report read_report(const fs::path& path) {
  Report r;
  r.name = path.stem().string();
  const std::string text = read_file(path);
  const size_t begin = text.find("```hlo\n");
  const size_t end = text.find("```", begin + 7);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  r.hlo = text.substr(begin + 7, end - begin - 7);
  REQUIRE(absl::SimpleAtoi(field(text, "Nodes"), &r.nodes));
  // The first iteration holds the warm-up.
  std::vector<double> runs;
  for (int k = 1;; ++k) {
    double t = 0;
    if (!absl::SimpleAtod(field(text, "Run " + std::to_string(k)), &t)) break;
    runs.push_back(t * 1e-3);
  }
  REQUIRE(runs.size() >= 3);
  std::sort(runs.begin(), runs.end());
  const size_t n = runs.size();
  r.measured_s = n % 2 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2;
  return r;
}

TEST_CASE("jaxdecomp FFTs across two A100 nodes of Jean Zay: within 25%, roofline below") {
  const fs::path dir = reports_dir();
  absl::StatusOr<DeviceSpec> spec =
      device(std::string(HLOROOF_SOURCE_DIR) + "/examples/a100_jean_zay.json");
  REQUIRE_OK(spec);
  REQUIRE(spec->gpu->nic_efficiency);
  int across = 0, within = 0, reports = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".md" || e.path().filename() == "README.md") continue;
    const Report r = read_report(e.path());
    INFO(r.name);
    ++reports;
    absl::StatusOr<Module> module = parse_module(r.hlo);
    REQUIRE_OK(module);
    absl::StatusOr<DeviceTarget> on = testing::spec_on(*spec, r.nodes == 2 ? "2x8" : "1x8");
    REQUIRE_OK(on);
    absl::StatusOr<Prediction> p = testing::predict_on(*module, *on);
    REQUIRE_OK(p);
    CHECK(p->roofline_step_time_s < r.measured_s);
    if (r.nodes < 2) continue;
    ++across;
    const double ratio = p->step_time_s / r.measured_s;
    INFO("expected / measured " << ratio);
    CHECK(ratio > 0.75);
    CHECK(ratio < 1.25);
    within += ratio > 0.75 && ratio < 1.25;
  }
  CHECK(reports == 56);
  CHECK(across == 24);
  CHECK(within == across);
}

}  // namespace
}  // namespace hloroof

int main(int argc, char** argv) {
  if (!std::filesystem::exists(hloroof::reports_dir())) {
    std::cout << "SKIPPED: no jaxdecomp reports at " << hloroof::reports_dir() << "\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
