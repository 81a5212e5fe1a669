#include "hloroof/huge_pages.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#ifdef __linux__
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace hloroof::detail {

bool huge_pages_available() {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  static const bool kAvailable = [] {
    // With open and read rather than stdio, which the command's start-up does not otherwise run.
    const int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char line[128] = {};
    const ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    // The setting in effect is the word in brackets: "always [madvise] never".
    return n > 0 && std::strstr(line, "[never]") == nullptr;
  }();
  return kAvailable;
#else
  return false;
#endif
}

void* map_huge_pages(size_t bytes, size_t huge_bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (!huge_pages_available() || huge_bytes == 0 || huge_bytes > bytes ||
      huge_bytes % kHugePageBytes != 0) {
    return nullptr;
  }
  // Map a huge page more than asked and keep the aligned part.
  const size_t span = bytes + kHugePageBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePageBytes - 1) & ~uintptr_t{kHugePageBytes - 1};
  if (aligned > start) munmap(raw, aligned - start);
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t tail = (aligned + bytes + page - 1) & ~(page - 1);
  if (tail < start + span) munmap(reinterpret_cast<void*>(tail), start + span - tail);
  void* p = reinterpret_cast<void*>(aligned);
  (void)madvise(p, huge_bytes, MADV_HUGEPAGE);
  return p;
#else
  (void)bytes;
  (void)huge_bytes;
  return nullptr;
#endif
}

bool back_heap_with_huge_pages(size_t reserve) {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE) && \
    __GLIBC_PREREQ(2, 33)
  if (!huge_pages_available() || reserve < 2 * kHugePageBytes || reserve > INT_MAX) return false;
  // malloc grows its heap by what a block needs and the pad, and keeps the pad when memory is
  // freed; blocks up to 32 MiB (glibc's most) come from the heap, where malloc would map each
  // block of 128 KiB or more apart.
  if (mallopt(M_TOP_PAD, static_cast<int>(reserve)) == 0 ||
      mallopt(M_MMAP_THRESHOLD, static_cast<int>(std::min(reserve, size_t{32} << 20))) == 0) {
    return false;
  }
  // A block larger than the heap's free top makes it grow now; freed, it joins the top again,
  // which then spans at least the reserve and ends where the heap does.
  if (size_t top = mallinfo2().keepcost; top < reserve) {
    void* probe = malloc(top + kHugePageBytes);
    if (probe == nullptr) {
      // No address space for the reserve (strict overcommit): let malloc grow as it did.
      (void)mallopt(M_TOP_PAD, 0);
      return false;
    }
    free(probe);
  }
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  const size_t top = mallinfo2().keepcost;
  if (end == static_cast<uintptr_t>(-1) || top > end) return false;
  const uintptr_t first = (end - top + kHugePageBytes - 1) & ~uintptr_t{kHugePageBytes - 1};
  const uintptr_t last = end & ~uintptr_t{kHugePageBytes - 1};
  if (last <= first) return false;
  return madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) == 0;
#else
  (void)reserve;
  return false;
#endif
}

}  // namespace hloroof::detail
