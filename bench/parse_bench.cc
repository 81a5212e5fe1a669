// Parse throughput and memory: `parse_bench [FILE...]` (`parse_bench --write FILE` writes the
// replicated module of (b) instead).
//
// (a) every valid module of the shared corpus (../shared/corpus or $HLOROOF_CORPUS), parsed in
//     memory one after the other; (b) each FILE given (e.g. a >= 100 MB module from
//     bench/gen_hlo), or, when none is given, a module of >= 100 MB built here by replicating the
//     corpus's real dumps. Prints MB/s and peak resident bytes per input byte, next to the speed
//     of a baseline that only scans the text for newlines, so that figures from a noisy machine
//     can be compared. Targets (one core): >= 300 MB/s, <= 4 bytes of memory per input byte.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "hloroof/hlo_text.h"
#include "hloroof/module.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Current and peak resident set size, from /proc/self/status (VmRSS, VmHWM), in bytes.
struct Rss {
  int64_t current = 0;
  int64_t peak = 0;
};
Rss resident() {
  Rss r;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) r.current = std::atoll(line.c_str() + 6) * 1024;
    if (line.rfind("VmHWM:", 0) == 0) r.peak = std::atoll(line.c_str() + 6) * 1024;
  }
  return r;
}

// Resets the peak (VmHWM) to the current size, so each measurement has its own peak.
void reset_peak() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of this process: on a shared machine, wall time also counts other programs' turns.
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Baseline: one pass over the bytes (memchr for newlines), the floor for any parser.
double baseline_mb_per_s(const std::vector<std::string>& texts) {
  int64_t bytes = 0, lines = 0;
  auto start = Clock::now();
  for (int rep = 0; rep < 3; ++rep) {
    for (const std::string& t : texts) {
      const char* p = t.data();
      const char* end = p + t.size();
      while ((p = static_cast<const char*>(std::memchr(p, '\n', end - p))) != nullptr) {
        ++p;
        ++lines;
      }
      bytes += static_cast<int64_t>(t.size());
    }
  }
  double s = seconds_since(start);
  std::fprintf(stderr, "%s", lines == 42 ? " " : "");  // keep the loop from being optimized away
  return bytes / 1e6 / s;
}

std::vector<std::string> corpus_modules(const fs::path& dir, std::vector<std::string>* real) {
  std::vector<std::string> texts;
  std::istringstream index(read_file(dir / "INDEX.tsv"));
  std::string line;
  std::getline(index, line);
  while (std::getline(index, line)) {
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    if (cols.size() < 12 || cols[4] != "0") continue;
    std::string text = read_file(dir / cols[0]);
    if (!hloroof::parse_module(text).ok()) continue;  // fragments the corpus mislabels
    if (cols[0].rfind("real/", 0) == 0 && text.find("HloModule") != std::string::npos &&
        text.find("ENTRY %") != std::string::npos) {
      real->push_back(text);
    }
    texts.push_back(std::move(text));
  }
  return texts;
}

// Copy `k` of a long-profile module: every `%name` gets the suffix `_rK`, only the last copy
// keeps its ENTRY marker, and only the first keeps the header and stack-frame tables.
std::string replica(const std::string& text, int k, bool first, bool last) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t body = 0;
  if (!first) {
    size_t entry = text.find("\n%");
    size_t entry2 = text.find("\nENTRY");
    body = std::min(entry, entry2);
    if (body == std::string::npos) body = 0;
  }
  const std::string suffix = "_r" + std::to_string(k);
  bool in_string = false;
  for (size_t i = body; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' && (i == 0 || text[i - 1] != '\\')) in_string = !in_string;
    if (!last && !in_string && text.compare(i, 6, "ENTRY ") == 0 &&
        (i == 0 || text[i - 1] == '\n')) {
      i += 5;
      continue;
    }
    out.push_back(c);
    if (c == '%' && !in_string) {
      size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                                 text[j] == '_' || text[j] == '.' || text[j] == '-')) {
        out.push_back(text[j++]);
      }
      out += suffix;
      i = j - 1;
    }
  }
  out.push_back('\n');
  return out;
}

std::string replicated_module(const std::vector<std::string>& real, size_t target_bytes) {
  std::string out;
  if (real.empty()) return out;
  size_t per_round = 0;
  for (const std::string& t : real) per_round += t.size();
  int copies = static_cast<int>(target_bytes / per_round + 1) * static_cast<int>(real.size());
  for (int k = 0; k < copies; ++k) {
    out += replica(real[static_cast<size_t>(k) % real.size()], k, k == 0, k == copies - 1);
  }
  return out;
}

void report(const char* what, int64_t bytes, double wall, double cpu, int64_t instructions,
            double base) {
  std::printf(
      "%-30s %7.1f MB  %6.1f MB/s cpu (%.3f s)  %6.1f MB/s wall  baseline scan %.0f MB/s  "
      "%lld instructions\n",
      what, bytes / 1e6, bytes / 1e6 / cpu, cpu, bytes / 1e6 / wall, base,
      static_cast<long long>(instructions));
}

void bench_big(const char* what, std::string text) {
  const int64_t bytes = static_cast<int64_t>(text.size());
  double base = baseline_mb_per_s({text});
  hloroof::release_unused_module_memory();  // what earlier modules left resident
  reset_peak();
  Rss before = resident();  // holds the text, which parse_module then takes over
  auto start = Clock::now();
  double cpu_start = cpu_seconds();
  absl::StatusOr<hloroof::Module> m = hloroof::parse_module(std::move(text));
  double cpu = cpu_seconds() - cpu_start;
  double s = seconds_since(start);
  Rss after = resident();
  if (!m.ok()) {
    std::printf("%s: parse failed: %s\n", what, std::string(m.status().message()).c_str());
    return;
  }
  report(what, bytes, s, cpu, m->instruction_count(), base);
  // The module owns the text; peak memory counts it (the text was resident before, too).
  std::printf("%-34s peak resident %.2f bytes per input byte (text %.2f + graph %.2f)\n", "",
              static_cast<double>(after.peak) / bytes, static_cast<double>(before.current) / bytes,
              static_cast<double>(after.peak - before.current) / bytes);
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = HLOROOF_DEFAULT_CORPUS;
  if (const char* env = std::getenv("HLOROOF_CORPUS"); env != nullptr && *env != '\0') dir = env;
  std::vector<std::string> real;
  std::vector<std::string> corpus;
  if (fs::exists(dir / "INDEX.tsv")) {
    corpus = corpus_modules(dir, &real);
    int64_t bytes = 0, instructions = 0;
    double best_wall = 1e30, best_cpu = 1e30;
    for (int rep = 0; rep < 3; ++rep) {  // best of three
      bytes = instructions = 0;
      auto start = Clock::now();
      double cpu_start = cpu_seconds();
      for (const std::string& t : corpus) {
        absl::StatusOr<hloroof::Module> m = hloroof::parse_module(t);
        bytes += static_cast<int64_t>(t.size());
        instructions += m.ok() ? m->instruction_count() : 0;
      }
      best_cpu = std::min(best_cpu, cpu_seconds() - cpu_start);
      best_wall = std::min(best_wall, seconds_since(start));
    }
    report("(a) corpus, valid modules", bytes, best_wall, best_cpu, instructions,
           baseline_mb_per_s(corpus));
  } else {
    std::printf("corpus not found at %s (set HLOROOF_CORPUS); skipping (a)\n",
                dir.string().c_str());
  }
  corpus.clear();
  corpus.shrink_to_fit();
  if (argc == 3 && std::string_view(argv[1]) == "--write") {
    // Writes the replicated module, e.g. to profile the parser on it.
    std::ofstream(argv[2], std::ios::binary) << replicated_module(real, size_t{100} << 20);
    return 0;
  }
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) bench_big(argv[i], read_file(argv[i]));
  } else if (!real.empty()) {
    bench_big("(b) replicated real dumps", replicated_module(real, size_t{100} << 20));
  }
  return 0;
}
