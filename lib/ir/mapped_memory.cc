#include "ir/mapped_memory.h"

#include <cstdlib>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace hloroof::detail {

void* acquire_memory(size_t bytes) {
#ifdef __linux__
  if (is_mapped_size(bytes)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
  }
#endif
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

}  // namespace hloroof::detail
