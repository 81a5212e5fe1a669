// What it costs this machine to make memory usable, per 4 KiB page: the floor under every
// figure of parse_command_bench, since parsing a module touches each page of its text once
// and each page of the module it builds once.
//
//   page_cost_bench [FILE]
//
// Prints, best of five, microseconds per page for: anonymous memory touched without
// preparation (one page fault each), anonymous memory made resident first with
// MADV_POPULATE_WRITE (what the module arena does) and then touched, and a file mapped with
// MAP_POPULATE (how the command reads its input) and then read, one byte per page. On a
// virtual machine whose hypervisor keeps its own copy of the page tables, the first access
// to a page costs microseconds even after the kernel has mapped it. FILE defaults to the
// largest corpus module. Linux only.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kPage = 4096;
constexpr int kRuns = 5;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Touches one byte per page of [p, p + bytes); the sum keeps the reads.
long touch(char* p, size_t bytes, bool write) {
  long sum = 0;
  for (size_t i = 0; i < bytes; i += kPage) {
    if (write) {
      p[i] = 1;
    } else {
      sum += *static_cast<volatile char*>(p + i);
    }
  }
  return sum;
}

struct Cost {
  double prepare = 1e30;  // the system call, per page
  double touch = 1e30;    // the first access afterwards, per page
};

Cost anonymous(size_t bytes, bool populate) {
  Cost best;
  for (int run = 0; run < kRuns; ++run) {
    void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return best;
    char* p = static_cast<char*>(m);
    auto start = Clock::now();
#ifdef MADV_POPULATE_WRITE
    if (populate) (void)madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
    const double prepare = micros_since(start);
    start = Clock::now();
    touch(p, bytes, /*write=*/true);
    const double first = micros_since(start);
    munmap(p, bytes);
    const double pages = static_cast<double>(bytes / kPage);
    best.prepare = std::min(best.prepare, prepare / pages);
    best.touch = std::min(best.touch, first / pages);
  }
  return best;
}

Cost file(const std::string& path, size_t* bytes_out) {
  Cost best;
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return best;
  struct stat st {};
  fstat(fd, &st);
  const auto bytes = static_cast<size_t>(st.st_size);
  *bytes_out = bytes;
  long sink = 0;
  for (int run = 0; bytes > 0 && run < kRuns; ++run) {
    auto start = Clock::now();
    void* m = mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) break;
    const double prepare = micros_since(start);
    start = Clock::now();
    sink += touch(static_cast<char*>(m), bytes, /*write=*/false);
    const double first = micros_since(start);
    munmap(m, bytes);
    const double pages = static_cast<double>((bytes + kPage - 1) / kPage);
    best.prepare = std::min(best.prepare, prepare / pages);
    best.touch = std::min(best.touch, first / pages);
  }
  close(fd);
  if (sink == 42) std::printf(" ");  // keeps the reads
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
    std::printf("usage: page_cost_bench [FILE]\n");
    return argc == 2 && std::string(argv[1]) == "--help" ? 0 : 2;
  }
  if (argc == 2) {
    path = argv[1];
  } else {
    std::vector<std::string> largest =
        hloroof::bench::largest_corpus_modules(hloroof::bench::corpus_dir(), 1);
    if (!largest.empty()) path = largest.front();
  }
  constexpr size_t kBytes = 4 << 20;
  const Cost faulted = anonymous(kBytes, /*populate=*/false);
  const Cost populated = anonymous(kBytes, /*populate=*/true);
  std::printf("cost per 4 KiB page, best of %d (us):          prepare   first access   total\n",
              kRuns);
  std::printf("  anonymous, page fault on first write        %7.2f %14.2f %7.2f\n", 0.0,
              faulted.touch, faulted.touch);
  std::printf("  anonymous, MADV_POPULATE_WRITE, then write  %7.2f %14.2f %7.2f\n",
              populated.prepare, populated.touch, populated.prepare + populated.touch);
  size_t bytes = 0;
  const Cost mapped = path.empty() ? Cost{} : file(path, &bytes);
  if (bytes > 0 && mapped.touch < 1e30) {
    std::printf("  file, MAP_POPULATE, then read               %7.2f %14.2f %7.2f\n",
                mapped.prepare, mapped.touch, mapped.prepare + mapped.touch);
    const double pages = static_cast<double>((bytes + kPage - 1) / kPage);
    std::printf("a %.1f MB input: %.1f ms to map and first read its text (%.0f pages); each MB of "
                "module built: %.2f ms\n",
                static_cast<double>(bytes) / 1e6, pages * (mapped.prepare + mapped.touch) / 1e3,
                pages, (1e6 / kPage) * (populated.prepare + populated.touch) / 1e3);
  } else {
    std::printf("no file to map (give FILE, or set HLOROOF_CORPUS)\n");
  }
  return 0;
}
