// Step prediction speed: `predict_bench [FILE [DEVICE]]`.
//
// Predicts FILE (default: the largest module of the shared corpus, ../shared/corpus or
// $HLOROOF_CORPUS, that parses) on DEVICE (default tpu_v5e) repeatedly and prints the
// CPU milliseconds per prediction, parse included, next to the parse alone as a baseline measured
// in the same run, so that figures from a noisy machine can be compared. Target: < 50 ms.
// glibc hands the freed module back to the system between repetitions, so each one also pays
// for fresh pages; MALLOC_TRIM_THRESHOLD_=1000000000 MALLOC_MMAP_THRESHOLD_=1000000000 shows the
// steady state.
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
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/topology.h"

#include "predict_named.h"

namespace {

using hloroof::bench::predict_named;
using hloroof::bench::predict_text;

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

// The largest corpus module that parses and predicts, among the largest few.
fs::path largest_module(const std::string& device) {
  // Only the kCandidates largest files are kept: a list of the whole corpus (thousands of
  // paths) grows past glibc's mmap threshold, and freeing it raises that threshold for the rest
  // of the process, so the timed predictions would run on a different heap than a program that
  // predicts one file (measured: 30 ms per prediction became 85 ms).
  constexpr size_t kCandidates = 16;
  std::vector<std::pair<uintmax_t, fs::path>> files;
  files.reserve(kCandidates + 1);
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(corpus_dir(), error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.emplace_back(entry.file_size(), entry.path());
      std::sort(files.rbegin(), files.rend());
      if (files.size() > kCandidates) files.pop_back();
    }
  }
  for (const auto& [size, path] : files) {
    if (predict_text(read_file(path), device).ok()) return path;
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
  absl::StatusOr<hloroof::Prediction> check = predict_text(text, device);
  if (!check.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(check.status().message()).c_str());
    return 1;
  }
  const double parse = median_ms([&] { (void)hloroof::parse_module(text); });
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  const double cost = median_ms([&] { (void)hloroof::analyze_cost(*module); });
  const std::string name = hloroof::split_topology_text(device).device;
  const double spec_ms = median_ms([&] { (void)hloroof::device(name); });
  const double parsed = median_ms([&] { (void)predict_named(*module, device); });
  const double predict = median_ms([&] { (void)predict_text(text, device); });
  std::printf("%s (%.2f MB, %zu ops) on %s\n", path.filename().string().c_str(),
              static_cast<double>(text.size()) / 1e6, check->ops.size(), device.c_str());
  std::printf("  parse alone (baseline)        %8.2f ms\n", parse);
  std::printf("  device spec lookup            %8.2f ms\n", spec_ms);
  std::printf("  cost model of a parsed module %8.2f ms\n", cost);
  std::printf("  predict a parsed module       %8.2f ms (spec and cost model included)\n", parsed);
  std::printf(
      "  predict the text              %8.2f ms per prediction, parse included "
      "(target < 50 ms)\n",
      predict);
  return 0;
}
