// Step prediction speed: `predict_bench [FILE [DEVICE]]`.
//
// Predicts FILE (default: the largest module of the shared corpus, ../shared/corpus or
// $HLOROOF_CORPUS, that parses) on DEVICE (default tpu_v5e) repeatedly and prints the
// CPU milliseconds per prediction, parse included, next to the parse alone as a baseline measured
// in the same run, so that figures from a noisy machine can be compared. Target: < 50 ms.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hloroof/cost.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path corpus_dir() {
  const char* env = std::getenv("HLOROOF_CORPUS");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(HLOROOF_DEFAULT_CORPUS);
}

// The largest corpus module that parses and predicts.
fs::path largest_module(const std::string& device) {
  std::vector<std::pair<uintmax_t, fs::path>> files;
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(corpus_dir(), error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.emplace_back(entry.file_size(), entry.path());
    }
  }
  std::sort(files.rbegin(), files.rend());
  for (const auto& [size, path] : files) {
    if (hloroof::predict_step_time(read_file(path), device).ok()) return path;
  }
  return {};
}

// CPU time of this thread: on a machine shared with other work, wall time also counts the waits
// for a core.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Median CPU milliseconds of `run` over enough repetitions to fill about two seconds.
template <typename Run>
double median_ms(Run run) {
  std::vector<double> ms;
  const auto begin = Clock::now();
  while (ms.size() < 5 || (Clock::now() - begin < std::chrono::seconds(2) && ms.size() < 200)) {
    const double t0 = cpu_ms();
    run();
    ms.push_back(cpu_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string device = argc > 2 ? argv[2] : "tpu_v5e";
  const fs::path path = argc > 1 ? fs::path(argv[1]) : largest_module(device);
  if (path.empty()) {
    std::fprintf(stderr, "error: no module to predict (corpus at %s)\n",
                 corpus_dir().string().c_str());
    return 1;
  }
  const std::string text = read_file(path);
  absl::StatusOr<hloroof::Prediction> check = hloroof::predict_step_time(text, device);
  if (!check.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(check.status().message()).c_str());
    return 1;
  }
  const double parse = median_ms([&] { (void)hloroof::parse_module(text); });
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  const double cost = median_ms([&] { (void)hloroof::analyze_cost(*module); });
  absl::StatusOr<hloroof::DeviceSpec> spec = hloroof::device(device);
  const double spec_ms = median_ms([&] { (void)hloroof::device(device); });
  const double parsed = median_ms([&] { (void)hloroof::predict_step_time(*module, *spec); });
  const double predict = median_ms([&] { (void)hloroof::predict_step_time(text, device); });
  std::printf("%s (%.2f MB, %zu ops) on %s\n", path.filename().string().c_str(),
              static_cast<double>(text.size()) / 1e6, check->ops.size(), device.c_str());
  std::printf("  parse alone (baseline)   %8.2f ms\n", parse);
  std::printf("  predict, parse included  %8.2f ms per prediction (target < 50 ms)\n", predict);
  std::printf("  of which the device spec %8.2f ms\n", spec_ms);
  std::printf("  of which the cost model  %8.2f ms\n", cost);
  std::printf("  predict a parsed module  %8.2f ms\n", parsed);
  std::printf("  of which the rest        %8.2f ms (timing, schedule, records, timeline)\n",
              predict - parse - cost);
  return 0;
}
