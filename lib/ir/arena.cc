#include "ir/arena.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace hloroof::detail {
namespace {

// Blocks grow geometrically so that small modules stay small and big ones allocate rarely.
constexpr size_t kFirstBlock = 16 * 1024;
constexpr size_t kMaxBlock = 16 * 1024 * 1024;

// Big blocks are mapped with their pages populated up front: one system call instead of a page
// fault per 4 KiB, which on a module of hundreds of megabytes is a good part of the parse time.
// (Transparent huge pages were tried too: fewer faults, but the kernel's compaction made
// parsing slower.)
constexpr size_t kPopulatedBlock = 1024 * 1024;

char* map_block(size_t size) {
#ifdef __linux__
  if (size >= kPopulatedBlock) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
#endif
  return static_cast<char*>(std::malloc(size));  // not zeroed
}

void unmap_block(char* block, size_t size) {
#ifdef __linux__
  if (size >= kPopulatedBlock) {
    munmap(block, size);
    return;
  }
#endif
  std::free(block);
}

}  // namespace

Arena::~Arena() {
  for (auto it = destructors_.rbegin(); it != destructors_.rend(); ++it) it->destroy(it->object);
  for (const Block& block : blocks_) unmap_block(block.memory, block.size);
}

void* Arena::allocate(size_t size, size_t align) {
  auto aligned = [&](char* p) {
    auto address = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<char*>((address + align - 1) & ~(uintptr_t{align} - 1));
  };
  char* p = cursor_ ? aligned(cursor_) : nullptr;
  if (p == nullptr || p + size > end_) {
    size_t block = std::clamp(reserved_, kFirstBlock, kMaxBlock);
    block = std::max(block, size + align);
    char* memory = map_block(block);
    if (memory == nullptr) throw std::bad_alloc();
    blocks_.push_back({memory, block});
    reserved_ += block;
    cursor_ = memory;
    end_ = cursor_ + block;
    p = aligned(cursor_);
  }
  cursor_ = p + size;
  return p;
}

std::string_view Arena::save(std::string_view text) {
  if (text.empty()) return {};
  char* p = static_cast<char*>(allocate(text.size(), 1));
  std::memcpy(p, text.data(), text.size());
  return std::string_view(p, text.size());
}

}  // namespace hloroof::detail
