// Every operator new and delete of a test program counted: the heap bytes live now and the most
// live at once since the test last set `peak_bytes`. Include it in exactly one source file of a
// program (it replaces the global allocation functions); it times nothing.
#ifndef HLOROOF_TESTS_HEAP_COUNTER_H_
#define HLOROOF_TESTS_HEAP_COUNTER_H_

#include <malloc.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace hloroof::testing {

inline std::atomic<int64_t> live_bytes{0};
inline std::atomic<int64_t> peak_bytes{0};

inline void* counted_new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t now = live_bytes += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
  return p;
}

inline void counted_delete(void* p) {
  if (p == nullptr) return;
  live_bytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace hloroof::testing

void* operator new(size_t n) { return hloroof::testing::counted_new(n); }
void* operator new[](size_t n) { return hloroof::testing::counted_new(n); }
void operator delete(void* p) noexcept { hloroof::testing::counted_delete(p); }
void operator delete[](void* p) noexcept { hloroof::testing::counted_delete(p); }
void operator delete(void* p, size_t) noexcept { hloroof::testing::counted_delete(p); }
void operator delete[](void* p, size_t) noexcept { hloroof::testing::counted_delete(p); }
// The nothrow forms too (std::stable_sort's buffer takes one): every form the program uses must
// be this pair, or a block would be freed by another allocator's delete.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return hloroof::testing::counted_new(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
void operator delete(void* p, const std::nothrow_t&) noexcept {
  hloroof::testing::counted_delete(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  hloroof::testing::counted_delete(p);
}

#endif  // HLOROOF_TESTS_HEAP_COUNTER_H_
