// Transparent huge pages for large, short-lived memory (an input's text, a module's arena).
//
// A huge page is 2 MiB: one page-table entry and one fault where 4 KiB pages take 512. On a
// virtual machine the first touch of each 4 KiB page costs 1-4 us even after the page was made
// resident, and of a huge page once, so for memory that is written or read once from end to end,
// huge pages save most of that time.
#ifndef HLOROOF_UTIL_HUGE_PAGES_H_
#define HLOROOF_UTIL_HUGE_PAGES_H_

#include <cstddef>

namespace hloroof::detail {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Whether the kernel gives transparent huge pages to mappings that ask for them
// (/sys/kernel/mm/transparent_hugepage/enabled is `always` or `madvise`). Read once.
bool huge_pages_available();

// `bytes` of zeroed memory, readable and writable, mapped at a huge-page boundary, its first
// `huge_bytes` (a multiple of kHugePageBytes, at most `bytes`) advised to be backed by huge
// pages; not resident until touched or populated. Null when huge pages are not available or
// there is no memory. munmap(p, bytes) gives it back.
void* map_huge_pages(size_t bytes, size_t huge_bytes);

// Backs malloc's heap with huge pages where the kernel and the C library allow it (glibc on
// Linux): the heap is grown now by `reserve` bytes of address space (not memory: pages become
// resident when first touched, 2 MiB at a time) advised for huge pages, and malloc is told to
// keep that much when memory is freed and to serve blocks up to 32 MiB from the heap rather than
// map each apart. What lies beyond the reserve takes 4 KiB pages as before. For a command-line
// process that allocates tens of megabytes in small blocks and touches them once (a 2 MiB huge
// page faults once where its 4 KiB pages fault 512 times); a library must not change its host's
// allocator. Returns whether the heap was advised.
bool back_heap_with_huge_pages(size_t reserve);

}  // namespace hloroof::detail

#endif  // HLOROOF_UTIL_HUGE_PAGES_H_
