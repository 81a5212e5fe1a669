// An allocator for a module's large containers (a computation's instruction list and name map):
// allocations of 64 KiB and more are mapped and made resident with one system call instead of
// faulting in 4 KiB at a time, which costs 10-20 us a page on a virtual machine. Smaller ones
// come from malloc.
#ifndef HLOROOF_DETAIL_POPULATED_ALLOCATOR_H_
#define HLOROOF_DETAIL_POPULATED_ALLOCATOR_H_

#include <cstddef>
#include <new>

namespace hloroof::detail {

void* allocate_populated(size_t bytes);
void free_populated(void* p, size_t bytes);
// Bytes of the process's live allocate_populated allocations that were mapped rather than taken
// from malloc (which malloc's own statistics therefore leave out).
size_t mapped_populated_bytes();

template <typename T>
struct PopulatedAllocator {
  using value_type = T;
  PopulatedAllocator() = default;
  template <typename U>
  PopulatedAllocator(const PopulatedAllocator<U>&) {}  // NOLINT: converting, as allocators are

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(allocate_populated(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) { free_populated(p, n * sizeof(T)); }

  template <typename U>
  bool operator==(const PopulatedAllocator<U>&) const {
    return true;
  }
};

}  // namespace hloroof::detail

#endif  // HLOROOF_DETAIL_POPULATED_ALLOCATOR_H_
