// What the parse benchmarks share: where the corpus is, which of its modules are the largest
// valid ones, and the process's resident memory from /proc/self/status.
#ifndef HLOROOF_BENCH_BENCH_SUPPORT_H_
#define HLOROOF_BENCH_BENCH_SUPPORT_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"

namespace hloroof::bench {

// $HLOROOF_CORPUS, else the build's default (../shared/corpus beside the project).
inline std::filesystem::path corpus_dir() {
  const char* env = std::getenv("HLOROOF_CORPUS");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                        : std::filesystem::path(HLOROOF_DEFAULT_CORPUS);
}

// The `count` largest modules of the corpus index that are marked valid and parse, largest
// first (only as many are parsed as it takes to find them). Empty when there is no index.
inline std::vector<std::string> largest_corpus_modules(const std::filesystem::path& dir,
                                                       size_t count) {
  std::vector<std::pair<int64_t, std::string>> sized;
  std::ifstream index(dir / "INDEX.tsv");
  std::string line;
  std::getline(index, line);
  while (std::getline(index, line)) {
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols.size() < 12 || cols[4] != "0") continue;
    std::error_code ec;
    const auto bytes = static_cast<int64_t>(std::filesystem::file_size(dir / cols[0], ec));
    if (!ec) sized.emplace_back(bytes, (dir / cols[0]).string());
  }
  std::sort(sized.begin(), sized.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<std::string> out;
  for (const auto& [bytes, path] : sized) {
    if (out.size() == count) break;
    absl::StatusOr<InputFile> in = read_input_file(path);
    if (in.ok() && parse_module(*std::move(in)).ok()) out.push_back(path);
  }
  return out;
}

// Resets the process's peak resident size (VmHWM) to its current size.
inline void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// A size line of /proc/self/status ("VmRSS:", "VmHWM:"), or of another process's `status`
// file, in bytes; 0 if absent.
inline int64_t status_bytes(std::string_view key, const std::string& file = "/proc/self/status") {
  std::ifstream status(file);
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::atoll(line.c_str() + key.size()) * 1024;
  }
  return 0;
}

}  // namespace hloroof::bench

#endif  // HLOROOF_BENCH_BENCH_SUPPORT_H_
