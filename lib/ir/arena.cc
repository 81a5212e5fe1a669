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

// Big blocks are mapped without reserving their pages and made resident a step at a time as
// the cursor reaches them (MADV_POPULATE_WRITE): one system call per step instead of a page
// fault per 4 KiB, and no resident memory for the part of the last block that is never used
// (blocks double, so up to half of what is reserved). Where the kernel does not know the advice
// (before Linux 5.14), pages fault in on first touch. (Transparent huge pages were tried too:
// fewer faults, but the kernel's compaction made parsing slower.)
constexpr size_t kMappedBlock = 1024 * 1024;
constexpr size_t kPopulateStep = 256 * 1024;

char* map_block(size_t size) {
#ifdef __linux__
  if (size >= kMappedBlock) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<char*>(p);
  }
#endif
  return static_cast<char*>(std::malloc(size));  // not zeroed
}

void unmap_block(char* block, size_t size) {
#ifdef __linux__
  if (size >= kMappedBlock) {
    munmap(block, size);
    return;
  }
#endif
  std::free(block);
}

}  // namespace

Arena::~Arena() {
  for (DestructorChunk* chunk = destructors_; chunk != nullptr; chunk = chunk->previous) {
    for (size_t i = chunk->count; i-- > 0;) chunk->items[i].destroy(chunk->items[i].object);
  }
  for (const Block& block : blocks_) unmap_block(block.memory, block.size);
}

void Arena::new_destructor_chunk() {
  auto* chunk = static_cast<DestructorChunk*>(
      allocate(sizeof(DestructorChunk), alignof(DestructorChunk)));
  chunk->previous = destructors_;
  chunk->count = 0;
  destructors_ = chunk;
}

void Arena::populate() {
  char* to = end_;
  if (static_cast<size_t>(end_ - cursor_) > kPopulateStep) {
    // Whole steps from the last populated page, enough to cover the cursor.
    const size_t behind = static_cast<size_t>(cursor_ - populated_);
    to = populated_ + (behind / kPopulateStep + 1) * kPopulateStep;
  }
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // A failure only means the pages fault in one by one.
  (void)madvise(populated_, static_cast<size_t>(to - populated_), MADV_POPULATE_WRITE);
#endif
  populated_ = to;
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
    abandoned_ += static_cast<size_t>(end_ - cursor_);
    blocks_.push_back({memory, block});
    reserved_ += block;
    cursor_ = memory;
    end_ = cursor_ + block;
    // Malloc'ed blocks need no populating: mark them populated to the end.
    populated_ = block >= kMappedBlock ? memory : end_;
    p = aligned(cursor_);
  }
  cursor_ = p + size;
  if (cursor_ > populated_) populate();
  return p;
}

std::string_view Arena::save(std::string_view text) {
  if (text.empty()) return {};
  char* p = static_cast<char*>(allocate(text.size(), 1));
  std::memcpy(p, text.data(), text.size());
  return std::string_view(p, text.size());
}

}  // namespace hloroof::detail
