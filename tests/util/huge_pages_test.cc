#include "hloroof/huge_pages.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/mapped_memory.h"

namespace hloroof::detail {
namespace {

// The "THPeligible:" figure of the mapping in /proc/self/smaps that holds `p`: 1 when the
// kernel would back it with huge pages; -1 when no mapping holds it or the kernel does not say.
int huge_page_eligible(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    char dash = 0;
    if (std::istringstream range(line); range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

TEST_CASE("the heap backed by huge pages serves a large block from the advised reserve") {
  const bool backed = back_heap_with_huge_pages(size_t{64} << 20);
  // Sanitizers bring their own malloc, which ignores mallopt: nothing is changed there.
  if (!huge_pages_available() || !kMapLargeAllocations) {
    CHECK_FALSE(backed);
    return;
  }
#ifndef __GLIBC__
  CHECK_FALSE(backed);
#else
  REQUIRE(backed);
  // 8 MiB would be mapped apart by default (128 KiB and over); now it comes from the reserve,
  // whose mapping the kernel backs with huge pages from its first 2 MiB boundary on.
  auto* block = static_cast<char*>(std::malloc(size_t{8} << 20));
  REQUIRE(block != nullptr);
  const int eligible = huge_page_eligible(block + kHugePageBytes * 2);
  std::free(block);
  if (eligible != -1) CHECK(eligible == 1);
  // Too small a reserve (under two huge pages) is refused.
  CHECK_FALSE(back_heap_with_huge_pages(kHugePageBytes));
#endif
}

}  // namespace
}  // namespace hloroof::detail
