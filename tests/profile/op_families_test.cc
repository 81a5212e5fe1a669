// The measured op-family sweeps (../shared/measured/gpu_{h200,h100}_opfamilies, or
// $HLOROOF_MEASURED; SKIPPED when absent): every case's program predicted on its GPU and joined
// with its device time in the sweep's one profile, as `hloroof profile CASE/module.hlo
// sweep.xplane.pb --module jit_CASE` does.
// - The roofline is a floor: never above the measured step, nor any op's above its measured
//   device time, on any case of either GPU.
// - The expected step of each family is within the accuracy bench/opfamilies.py reports (the
//   shares below are what the measured models reach; a change that loses cases fails here).
// The held-out sweeps in bench/measured (80 cases each, other sizes and index distributions,
// which no constant was fitted to) are checked the same way, and the cache sweeps there (reads
// of what L2 may hold, and fills: the floor's L2 rate was read off them) for the floor.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "hloroof/hloroof.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::filesystem::path measured_dir() {
  if (const char* env = std::getenv("HLOROOF_MEASURED"); env != nullptr && *env != '\0') {
    return env;
  }
  return HLOROOF_SHARED_MEASURED;
}

namespace {

std::string read_gzip(const fs::path& path) {
  gzFile f = gzopen(path.string().c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string out;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  gzclose(f);
  return out;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Row {
  std::string name;
  double measured_s = 0, expected_s = 0, roofline_s = 0;
  // Ops whose roofline is above their measured device time: "name (roofline s > measured s)".
  std::vector<std::string> op_floor_violations;
  // Ops of one kernel, measured under 3 us: (measured s, expected s).
  std::vector<std::pair<double, double>> small_kernels;
};

std::vector<Row> sweep(const fs::path& dir, const std::string& device) {
  const std::string folder = dir.filename().string();
  absl::StatusOr<Profile> profile =
      parse_xspace(read_gzip(dir / "sweep.xplane.pb.gz"), "sweep.xplane.pb");
  REQUIRE_OK(profile);
  std::vector<Row> rows;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (!fs::exists(e.path() / "module.hlo")) continue;
    const std::string name = e.path().filename().string();
    INFO(folder << "/" << name);
    absl::StatusOr<Module> module = parse_module(read_file(e.path() / "module.hlo"));
    REQUIRE_OK(module);
    absl::StatusOr<Prediction> p = testing::predict_on(*module, device);
    REQUIRE_OK(p);
    ProfileOptions options;
    options.module_name = "jit_" + name;
    absl::StatusOr<ProfileComparison> c = compare_with_profile(*module, *p, *profile, options);
    REQUIRE_OK(c);
    Row row{name, c->measured_step_s, c->expected_step_s, c->roofline_step_s, {}};
    for (const JoinedOp& op : c->ops) {
      if (op.measured_s > 0 && op.roofline_s > op.measured_s) {
        row.op_floor_violations.push_back(op.name + " (" + std::to_string(op.roofline_s) +
                                          " s > " + std::to_string(op.measured_s) + " s)");
      }
      if (op.kernels == 1 && op.measured_s > 0 && op.measured_s < 3e-6) {
        row.small_kernels.emplace_back(op.measured_s, op.expected_s);
      }
    }
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  return rows;
}

int within(const std::vector<Row>& rows) {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const Row& r) {
    const double x = r.expected_s / r.measured_s;
    return x >= 0.8 && x <= 1.25;
  }));
}

void check(const fs::path& dir, const std::string& device, size_t cases, int least_within) {
  const std::string folder = dir.filename().string();
  const std::vector<Row> rows = sweep(dir, device);
  // Cases in the sweep: 113 in each shared one, 80 in each held-out one, 49 in each cache
  // one (their READMEs).
  CHECK(rows.size() == cases);
  for (const Row& r : rows) {
    INFO(folder << "/" << r.name << ": roofline " << r.roofline_s << " s, measured "
                << r.measured_s << " s");
    CHECK(r.measured_s > 0);
    CHECK(r.roofline_s <= r.measured_s);
    CHECK(r.expected_s >= r.roofline_s);
    for (const std::string& v : r.op_floor_violations) {
      INFO("op roofline above its measured time: " << v);
      CHECK(false);
    }
  }
  CHECK(within(rows) >= least_within);
}

const fs::path kHeldOut = fs::path(HLOROOF_SOURCE_DIR) / "bench" / "measured";

// Before the family models, 22 (H200) and 27 (H100) of the 113 were within x0.8-1.25.
TEST_CASE("the H200 sweep: roofline below every measured step, expected within 25% on most") {
  check(measured_dir() / "gpu_h200_opfamilies", "h200", 113, 101);
}

TEST_CASE("the H100 sweep: the same") {
  check(measured_dir() / "gpu_h100_opfamilies", "h100", 113, 101);
}

TEST_CASE("the held-out H200 sweep: the same") {
  check(kHeldOut / "gpu_h200_heldout", "h200", 80, 68);
}

TEST_CASE("the held-out H100 sweep: the same") {
  check(kHeldOut / "gpu_h100_heldout", "h100", 80, 68);
}

// Decode attention over a KV cache (one token against the cache), on the H200 (fitted and
// held-out sweeps): besides its two reductions over the cache, each step runs kernels of a few
// microseconds (softmax's reductions over a row of scores, converts). The 19 measured under
// 3 us took 1.18-2.97 us where the per-op cost alone gave 0.70-2.72 us: median measured /
// expected 1.75, 0.91 with the small-kernel floor (docs/prediction-model.md). Batch 1 is
// mostly such kernels: its two steps measured 50.7 and 46.4 us against 39.5 and 36.5 us
// expected without the floor (x0.78, x0.79; 43.6 and 38.2 us with it, x0.86, x0.82).
TEST_CASE("decode attention on the H200: small kernels and batch-1 steps as measured") {
  std::vector<Row> rows = sweep(measured_dir() / "gpu_h200_opfamilies", "h200");
  for (Row& r : sweep(kHeldOut / "gpu_h200_heldout", "h200")) rows.push_back(std::move(r));
  std::vector<double> ratios;
  int batch1 = 0;
  for (const Row& r : rows) {
    if (r.name.rfind("decode_attn", 0) != 0) continue;
    for (const auto& [measured, expected] : r.small_kernels) ratios.push_back(measured / expected);
    if (r.name.find("_b1_") == std::string::npos) continue;
    INFO(r.name << ": measured " << r.measured_s << " s, expected " << r.expected_s << " s");
    ++batch1;
    CHECK(r.expected_s / r.measured_s >= 0.8);
    CHECK(r.expected_s / r.measured_s <= 1.25);
  }
  CHECK(batch1 == 2);
  REQUIRE(ratios.size() == 19);
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  INFO(ratios.size() << " small kernels, median measured / expected " << median);
  CHECK(median >= 0.8);
  CHECK(median <= 1.25);
}

// The expected time does not model L2 (its error on these cases reaches 9x): these two
// check the floor, and that the expected time stays at or above it.
TEST_CASE("the H200 cache sweep: roofline below every measured step and op") {
  check(kHeldOut / "gpu_h200_cache", "h200", 49, 0);
}

TEST_CASE("the H100 cache sweep: the same") {
  check(kHeldOut / "gpu_h100_cache", "h100", 49, 0);
}

}  // namespace
}  // namespace hloroof

int main(int argc, char** argv) {
  if (!std::filesystem::exists(hloroof::measured_dir() / "gpu_h200_opfamilies")) {
    std::cout << "SKIPPED: no measured sweeps at " << hloroof::measured_dir() << "\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
