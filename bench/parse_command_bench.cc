// The parser as users feel it: `hloroof parse FILES` timed as a whole command (process start,
// reading the files, parsing, exit) beside the in-process parse of the same files, in one run.
//
//   parse_command_bench [FILE...]
//
// With no FILE: the three largest valid modules of the shared corpus (../shared/corpus or
// $HLOROOF_CORPUS). Prints, per input, MB/s of the whole command (wall time, best and median of
// five runs) and of the in-process parse (read_input_file + parse_module; CPU and wall time,
// best of five), and the peak resident memory of each in bytes per input byte (B/B: the
// command's own VmHWM, read as it exits, else wait4's figure; the in-process one from VmHWM,
// above what the benchmark held before). Targets, one core: >= 400 MB/s whole command, >= 500
// MB/s in process, <= 3 bytes of peak resident memory per input byte. First it runs `hloroof
// parse` of a one-line module the same way: the part of every whole command that does not depend
// on the input (process start, loading the binary, exit), in time and in memory (about 1.6 MB,
// most of it what any statically linked C++ program holds); each input's peak is also given
// above that one.
// $HLOROOF_BENCH_CLI names another build of the command to time; the default is the one built
// beside this benchmark. $HLOROOF_BENCH_BASELINE names a build to time alternately with it, run
// for run (two builds compared in the same minutes of a machine whose speed drifts), and
// $HLOROOF_BENCH_RUNS how many runs of each whole command to make (default 5).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.h"
#include "hloroof/hlo_text.h"
#include "hloroof/input_file.h"
#include "hloroof/module.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Runs of each whole command: $HLOROOF_BENCH_RUNS, else 5.
int runs() {
  const char* env = std::getenv("HLOROOF_BENCH_RUNS");
  const int n = env != nullptr ? std::atoi(env) : 0;
  return n >= 1 && n <= 1000 ? n : 5;
}

// The command to time: $HLOROOF_BENCH_CLI, else the one built beside this benchmark.
std::string current_cli() {
  const char* cli = std::getenv("HLOROOF_BENCH_CLI");
  return cli != nullptr && *cli != 0 ? cli : HLOROOF_CLI;
}

// Another build to time alternately with it, run for run: $HLOROOF_BENCH_BASELINE, else none.
std::string baseline_cli() {
  const char* cli = std::getenv("HLOROOF_BENCH_BASELINE");
  return cli != nullptr ? cli : "";
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct CommandRun {
  double wall = 0;
  int64_t peak_bytes = 0;  // the child's peak resident set
  int status = -1;
};

// `CLI parse FILES...`, as words and as the argv that points into them.
struct Command {
  Command(const std::string& cli, const std::vector<std::string>& files) : words{cli, "parse"} {
    words.insert(words.end(), files.begin(), files.end());
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
  }
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  std::vector<std::string> words;
  std::vector<char*> argv;
};

// Runs `CLI parse FILES...` with its output to /dev/null.
CommandRun run_command(const std::string& cli, const std::vector<std::string>& files) {
  Command command(cli, files);
  std::vector<char*>& argv = command.argv;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  // Warnings about the input (e.g. "looks like HLO before optimization") are not the benchmark's
  // business; a failure shows in the exit status.
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  CommandRun run;
  // The child's peak as wait4 reports it is at least the peak of the memory it was spawned from
  // (the kernel carries the spawning image's high-water mark across exec, and posix_spawn runs
  // the child in this process's memory until exec): reset this process's high-water mark to
  // its current size first, or the benchmark's own earlier parses would count as the command's
  // (and give back the memory that destroyed modules keep for the next one).
  hloroof::release_unused_module_memory();
  hloroof::bench::reset_peak();
  auto start = Clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return run;
  }
  rusage usage{};
  wait4(pid, &run.status, 0, &usage);
  run.wall = seconds_since(start);
  run.peak_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  posix_spawn_file_actions_destroy(&actions);
  return run;
}

// The peak resident set of the command's own image (VmHWM of the memory exec gave it, read from
// /proc as it exits, under ptrace), in bytes: unlike wait4's figure, it leaves out the memory of
// the process it was started from. -1 where this process may not trace its child.
int64_t traced_command_peak(const std::string& cli, const std::vector<std::string>& files) {
  Command command(cli, files);
  std::vector<char*>& argv = command.argv;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    // Not traced (refused): the exec below runs untraced, and the parent sees it exit.
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int64_t peak = -1;
  int status = 0;
  bool traced = false;
  while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
    int signal = WSTOPSIG(status);
    if (!traced && signal == SIGTRAP) {  // stopped after exec
      traced = true;
      ptrace(PTRACE_SETOPTIONS, pid, nullptr, PTRACE_O_TRACEEXIT);
      signal = 0;
    } else if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
      peak = hloroof::bench::status_bytes("VmHWM:", "/proc/" + std::to_string(pid) + "/status");
      signal = 0;
    }
    ptrace(PTRACE_CONT, pid, nullptr, signal);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? peak : -1;
}

struct InProcess {
  double wall = 1e30, cpu = 1e30;
  int64_t peak_bytes = 0;
  int64_t instructions = 0;
  bool ok = true;
};

InProcess parse_in_process(const std::vector<std::string>& files) {
  constexpr int kRuns = 5;
  InProcess best;
  for (int run = 0; run < kRuns; ++run) {
    // Each run starts as a fresh process would: no memory kept from the previous run's modules.
    hloroof::release_unused_module_memory();
    hloroof::bench::reset_peak();
    const int64_t before = hloroof::bench::status_bytes("VmHWM:");
    auto start = Clock::now();
    double cpu_start = cpu_seconds();
    int64_t instructions = 0;
    for (const std::string& f : files) {
      absl::StatusOr<hloroof::InputFile> in = hloroof::read_input_file(f);
      if (!in.ok()) {
        best.ok = false;
        continue;
      }
      absl::StatusOr<hloroof::Module> m = hloroof::parse_module(*std::move(in));
      if (!m.ok()) best.ok = false;
      instructions += m.ok() ? m->instruction_count() : 0;
    }
    best.cpu = std::min(best.cpu, cpu_seconds() - cpu_start);
    best.wall = std::min(best.wall, seconds_since(start));
    // Memory above what the process held before: the text and the module of one file at a time.
    best.peak_bytes = std::max(best.peak_bytes, hloroof::bench::status_bytes("VmHWM:") - before);
    best.instructions = instructions;
  }
  return best;
}

// `floor_peak`: the command's own peak on a one-line module (bench_floor), or -1.
void bench(const std::string& label, const std::vector<std::string>& files, int64_t floor_peak) {
  int64_t bytes = 0;
  for (const std::string& f : files) {
    std::error_code error;
    bytes += static_cast<int64_t>(fs::file_size(f, error));
  }
  const double mb = static_cast<double>(bytes) / 1e6;
  // The command and, where one is named, the baseline, run for run in turn.
  const std::string baseline = baseline_cli();
  std::vector<std::string> clis = {current_cli()};
  if (!baseline.empty()) clis.push_back(baseline);
  std::vector<std::vector<double>> walls(clis.size());
  for (int run = 0; run < runs(); ++run) {
    for (size_t c = 0; c < clis.size(); ++c) {
      CommandRun r = run_command(clis[c], files);
      if (r.status != 0) {
        std::printf("%s: `%s parse` failed (status %d)\n", label.c_str(), clis[c].c_str(),
                    r.status);
        return;
      }
      walls[c].push_back(r.wall);
    }
  }
  // wait4's figure is at least what this process held when it started the command (see
  // run_command); the command's own, where it can be read, is exact.
  std::vector<int64_t> peaks;
  for (const std::string& cli : clis) peaks.push_back(traced_command_peak(cli, files));
  InProcess in = parse_in_process(files);
  if (!in.ok) {
    std::printf("%s: an input does not parse\n", label.c_str());
    return;
  }
  std::printf("%s: %.1f MB in %zu file(s), %lld instructions\n", label.c_str(), mb, files.size(),
              static_cast<long long>(in.instructions));
  for (size_t c = 0; c < clis.size(); ++c) {
    std::vector<double>& w = walls[c];
    std::sort(w.begin(), w.end());
    std::printf("  %s %7.1f MB/s wall best (%.3f s), median %7.1f of %zu",
                c == 0 ? "whole command" : "baseline     ", mb / w.front(), w.front(),
                mb / w[w.size() / 2], w.size());
    if (peaks[c] <= 0) {
      std::printf("\n");
      continue;
    }
    std::printf("   peak %.2f B/B\n", static_cast<double>(peaks[c]) / bytes);
    // What grows with the input: the peak above the command's own on a one-line module.
    if (floor_peak > 0) {
      std::printf("  %s peak above the one-line module's:                 %.2f B/B\n",
                  c == 0 ? "whole command," : "baseline,     ",
                  static_cast<double>(peaks[c] - floor_peak) / bytes);
    }
  }
  // The in-process peak is what parsing adds above the benchmark's own memory.
  std::printf("  in process    %7.1f MB/s wall (%.3f s) %7.1f MB/s cpu  peak %.2f B/B\n",
              mb / in.wall, in.wall, mb / in.cpu, static_cast<double>(in.peak_bytes) / bytes);
}

}  // namespace

// `hloroof parse` of a one-line module, the part of every run that does not depend on the input
// (process start, loading the binary, exit): best wall time of runs(), and its own peak resident
// memory, which it returns (-1 where it cannot be read; see traced_command_peak).
int64_t bench_floor() {
  char path[] = "/tmp/hloroof_parse_command_bench_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return -1;
  constexpr std::string_view kModule = "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
  const bool written =
      write(fd, kModule.data(), kModule.size()) == static_cast<ssize_t>(kModule.size());
  close(fd);
  CommandRun best;
  best.wall = 1e30;
  for (int run = 0; written && run < runs(); ++run) {
    CommandRun r = run_command(current_cli(), {path});
    if (r.status != 0) break;
    best.wall = std::min(best.wall, r.wall);
  }
  const int64_t peak = best.wall < 1e30 ? traced_command_peak(current_cli(), {path}) : -1;
  unlink(path);
  if (best.wall < 1e30) {
    std::printf("start-up and exit (`hloroof parse` of a one-line module): %.1f ms wall",
                best.wall * 1e3);
    if (peak > 0) std::printf(", peak resident %.2f MB", static_cast<double>(peak) / 1e6);
    std::printf("\n");
  }
  return peak;
}

int main(int argc, char** argv) {
  std::vector<std::string> files(argv + 1, argv + argc);
  for (const std::string& f : files) {
    if (!f.empty() && f[0] == '-') {
      std::printf("usage: parse_command_bench [FILE...]\n");
      return f == "--help" || f == "-h" ? 0 : 2;
    }
    std::error_code error;
    if (!fs::is_regular_file(f, error)) {
      std::printf("%s: not a readable file\n", f.c_str());
      return 1;
    }
  }
  const int64_t floor_peak = bench_floor();
  if (!files.empty()) {
    for (const std::string& f : files) bench(f, {f}, floor_peak);
    if (files.size() > 1) bench("all files in one command", files, floor_peak);
    return 0;
  }
  const fs::path dir = hloroof::bench::corpus_dir();
  if (!fs::exists(dir / "INDEX.tsv")) {
    std::printf("corpus not found at %s (set HLOROOF_CORPUS) and no FILE given\n",
                dir.string().c_str());
    return 1;
  }
  files = hloroof::bench::largest_corpus_modules(dir, 3);
  for (const std::string& f : files) bench(fs::path(f).filename().string(), {f}, floor_peak);
  bench("the three in one command", files, floor_peak);
  return 0;
}
