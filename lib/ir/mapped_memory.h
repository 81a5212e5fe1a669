// Which allocations of a module are mapped (and made resident a step at a time, see arena.cc)
// rather than taken from malloc: those of 64 KiB and more, except under AddressSanitizer, whose
// leak checker looks for pointers only in memory it handed out (a module kept until exit would
// show as leaked) and whose checks cover only that memory.
#ifndef HLOROOF_IR_MAPPED_MEMORY_H_
#define HLOROOF_IR_MAPPED_MEMORY_H_

#include <cstddef>

#include "hloroof/huge_pages.h"

namespace hloroof::detail {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kMapLargeAllocations = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kMapLargeAllocations = false;
#else
inline constexpr bool kMapLargeAllocations = true;
#endif
#else
inline constexpr bool kMapLargeAllocations = true;
#endif

inline constexpr size_t kMappedBytes = 64 * 1024;

inline bool is_mapped_size(size_t bytes) {
#ifdef __linux__
  return kMapLargeAllocations && bytes >= kMappedBytes;
#else
  return false;
#endif
}

// `bytes` of memory, not zeroed: mapped when is_mapped_size(bytes) (its pages not yet resident),
// from malloc otherwise. Null when the system has none. Given back by release_memory with the
// same size.
void* acquire_memory(size_t bytes);
void release_memory(void* p, size_t bytes);

// map_huge_pages(bytes) (util/huge_pages.h) where large allocations are mapped; null otherwise.
// Given back by release_memory with the same size.
void* acquire_huge_memory(size_t bytes);

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_MAPPED_MEMORY_H_
