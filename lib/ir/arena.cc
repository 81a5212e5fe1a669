#include "ir/arena.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/synchronization/mutex.h"
#include "ir/arena_allocator.h"
#include "ir/mapped_memory.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace hloroof::detail {
namespace {

// Blocks grow geometrically so that small modules stay small and big ones allocate rarely.
constexpr size_t kFirstBlock = 16 * 1024;
constexpr size_t kMaxBlock = 16 * 1024 * 1024;
// Huge pages (util/huge_pages.h) for a block of 2 MiB or more that the arena was told to
// expect, or once the arena holds this much: the last huge page of the last block is resident
// whole however little of it is used, at most 2 MiB against at least this much in use.
constexpr size_t kHugeAfter = 4 * 1024 * 1024;
// The largest first block expect() makes.
constexpr size_t kMaxExpected = size_t{1} << 30;

// Blocks from 64 KiB up (mapped_memory.h) are mapped without reserving their pages and made
// resident a step at a time as the cursor reaches them (MADV_POPULATE_WRITE): one system call per
// step instead of a page fault per 4 KiB, and no resident memory for the part of the last block
// that is never used (blocks double, so up to half of what is reserved). Where the kernel does not
// know the advice (before Linux 5.14), pages fault in on first touch. A fault costs 10-20 us on a
// virtual machine, populating about 1-2 us a page. A step (Arena::kPopulateStep, 64 KiB) bounds
// what is resident but not yet used: half a step on average.
// Even populated, each 4 KiB page costs 1-4 us more when first touched on a virtual machine; a
// huge page does not. So the block a parse expects (expect(), see parse_state) and large
// blocks of large arenas (kHugeAfter) are in huge pages, made resident 2 MiB at a time. Not
// every block from 2 MiB up: in a module of 2-4 MB, most of its last huge page would be unused.

// Mapped blocks of destroyed arenas, kept for the next arena up to kPoolBytes in all: parsing
// one file after another reuses resident pages instead of making fresh ones resident (on a
// virtual machine, 1-2 us a page even when populated in steps).
constexpr size_t kPoolBytes = 64 * 1024 * 1024;
struct PooledBlock {
  char* memory;
  size_t size;
  size_t populated;  // bytes from the start that are resident
  bool huge;         // in huge pages
};
ABSL_CONST_INIT absl::Mutex pool_mutex(absl::kConstInit);
std::vector<PooledBlock>* pool ABSL_GUARDED_BY(pool_mutex) = nullptr;
size_t pool_bytes ABSL_GUARDED_BY(pool_mutex) = 0;

// The largest pooled block of at least `size` bytes, if any.
bool take_pooled(size_t size, PooledBlock* out) {
  absl::MutexLock lock(&pool_mutex);
  if (pool == nullptr) return false;
  auto best = pool->end();
  for (auto it = pool->begin(); it != pool->end(); ++it) {
    if (it->size >= size && (best == pool->end() || it->size > best->size)) best = it;
  }
  if (best == pool->end()) return false;
  *out = *best;
  pool_bytes -= best->size;
  pool->erase(best);
  return true;
}

// False when the pool is full (the caller unmaps the block).
bool give_to_pool(const PooledBlock& block) {
  absl::MutexLock lock(&pool_mutex);
  if (pool_bytes + block.size > kPoolBytes) return false;
  if (pool == nullptr) pool = new std::vector<PooledBlock>();
  pool->push_back(block);
  pool_bytes += block.size;
  return true;
}

}  // namespace

size_t Arena::pooled_bytes() {
  absl::MutexLock lock(&pool_mutex);
  return pool_bytes;
}

void Arena::release_pooled() {
  absl::MutexLock lock(&pool_mutex);
  if (pool == nullptr) return;
  for (const PooledBlock& block : *pool) release_memory(block.memory, block.size);
  pool->clear();
  pool_bytes = 0;
}

Arena::~Arena() {
  for (DestructorChunk* chunk = destructors_; chunk != nullptr; chunk = chunk->previous) {
    for (size_t i = chunk->count; i-- > 0;) chunk->items[i].destroy(chunk->items[i].object);
  }
  for (const Block& block : blocks_) {
    if (is_mapped_size(block.size)) {
      // Blocks before the current one were filled nearly to their end.
      const bool current = block.memory <= cursor_ && cursor_ <= block.memory + block.size;
      const size_t populated =
          current ? static_cast<size_t>(populated_ - block.memory) : block.size;
      if (give_to_pool({block.memory, block.size, populated, block.huge})) continue;
    }
    release_memory(block.memory, block.size);
  }
}

void* arena_allocate(Arena* arena, size_t bytes, size_t align) {
  return arena->allocate(bytes, align);
}

void Arena::new_destructor_chunk() {
  auto* chunk =
      static_cast<DestructorChunk*>(allocate(sizeof(DestructorChunk), alignof(DestructorChunk)));
  chunk->previous = destructors_;
  chunk->count = 0;
  destructors_ = chunk;
}

void Arena::expect(size_t bytes) {
  if (bytes < kHugePageBytes * 3 / 4 || !huge_pages_available()) return;
  expected_ = (std::min(bytes, kMaxExpected) + kHugePageBytes * 3 / 4) / kHugePageBytes *
              kHugePageBytes;
}

void Arena::populate() {
  char* to = end_;
  if (static_cast<size_t>(end_ - cursor_) > populate_step_) {
    // Whole steps from the last populated page, enough to cover the cursor.
    const size_t behind = static_cast<size_t>(cursor_ - populated_);
    to = populated_ + (behind / populate_step_ + 1) * populate_step_;
  }
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  // A failure only means the pages fault in one by one.
  (void)madvise(populated_, static_cast<size_t>(to - populated_), MADV_POPULATE_WRITE);
#endif
  resident_ += static_cast<size_t>(to - populated_);
  populated_ = to;
}

void* Arena::allocate_slow(size_t size, size_t align) {
  auto aligned = [&](char* p) {
    auto address = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<char*>((address + align - 1) & ~(uintptr_t{align} - 1));
  };
  char* p = cursor_ ? aligned(cursor_) : nullptr;
  if (p == nullptr || p + size > end_) {
    size_t block = std::clamp(reserved_, kFirstBlock, kMaxBlock);
    block = std::max({block, size + align, expected_});
    bool huge = false;
    abandoned_ += static_cast<size_t>(end_ - cursor_);
    char* memory;
    PooledBlock pooled;
    if (is_mapped_size(block) && take_pooled(block, &pooled)) {
      memory = pooled.memory;
      block = pooled.size;
      populated_ = memory + pooled.populated;
      resident_ += pooled.populated;
      huge = pooled.huge;
    } else {
      memory = nullptr;
      huge = block >= kHugePageBytes && (expected_ > 0 || reserved_ >= kHugeAfter);
      if (huge) {
        block = (block + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
        memory = static_cast<char*>(acquire_huge_memory(block));
        huge = memory != nullptr;
      }
      if (memory == nullptr) memory = static_cast<char*>(acquire_memory(block));
      if (memory == nullptr) throw std::bad_alloc();
      // Malloc'ed blocks need no populating: mark them populated to the end.
      populated_ = is_mapped_size(block) ? memory : memory + block;
      if (!is_mapped_size(block)) {
        resident_ += block;
        heap_blocks_ += block;
      }
    }
    blocks_.push_back({memory, block, huge});
    populate_step_ = huge ? kHugePageBytes : kPopulateStep;
    expected_ = 0;
    reserved_ += block;
    cursor_ = memory;
    end_ = cursor_ + block;
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
