#include "hloroof/detail/populated_allocator.h"

#include <atomic>
#include <cstdlib>

#include "ir/mapped_memory.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace hloroof::detail {
namespace {
std::atomic<size_t> mapped_populated{0};
}  // namespace

void* acquire_memory(size_t bytes, bool populate) {
#ifdef __linux__
  if (is_mapped_size(bytes)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
#ifdef MADV_POPULATE_WRITE
    // A failure (a kernel before 5.14) only means the pages fault in one by one.
    if (populate) (void)madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
    return p;
  }
#endif
  (void)populate;
  return std::malloc(bytes == 0 ? 1 : bytes);
}

void* acquire_huge_memory(size_t bytes) {
  return kMapLargeAllocations ? map_huge_pages(bytes, bytes) : nullptr;
}

void release_memory(void* p, size_t bytes) {
#ifdef __linux__
  if (is_mapped_size(bytes)) {
    munmap(p, bytes);
    return;
  }
#endif
  std::free(p);
}

void* allocate_populated(size_t bytes) {
  void* p = acquire_memory(bytes, /*populate=*/true);
  if (p == nullptr) throw std::bad_alloc();
  if (is_mapped_size(bytes)) mapped_populated.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void free_populated(void* p, size_t bytes) {
  if (is_mapped_size(bytes)) mapped_populated.fetch_sub(bytes, std::memory_order_relaxed);
  release_memory(p, bytes);
}

size_t mapped_populated_bytes() { return mapped_populated.load(std::memory_order_relaxed); }

}  // namespace hloroof::detail
