#include "hloroof/detail/populated_allocator.h"

#include "ir/mapped_memory.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace hloroof::detail {

void* allocate_populated(size_t bytes) {
#ifdef __linux__
  if (is_mapped_size(bytes)) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_POPULATE_WRITE
    // A failure (a kernel before 5.14) only means the pages fault in one by one.
    (void)madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
    return p;
  }
#endif
  return ::operator new(bytes);
}

void free_populated(void* p, size_t bytes) {
#ifdef __linux__
  if (is_mapped_size(bytes)) {
    munmap(p, bytes);
    return;
  }
#endif
  ::operator delete(p);
}

}  // namespace hloroof::detail
