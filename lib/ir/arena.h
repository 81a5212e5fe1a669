// A bump allocator for a module's instructions, attribute values and strings: few large
// allocations instead of many small ones, and everything freed together with the module.
#ifndef HLOROOF_IR_ARENA_H_
#define HLOROOF_IR_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/types/span.h"

namespace hloroof::detail {

class Arena {
 public:
  // Mapped blocks are made resident this many bytes at a time as the cursor reaches them.
  static constexpr size_t kPopulateStep = 64 * 1024;

  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  // `align` is a power of two.
  void* allocate(size_t size, size_t align) {
    if (cursor_ != nullptr) {
      const uintptr_t at = reinterpret_cast<uintptr_t>(cursor_);
      const uintptr_t p = (at + align - 1) & ~(uintptr_t{align} - 1);
      // The common case: room in the part of the block that is already resident.
      if (size <= static_cast<size_t>(populated_ - cursor_) &&
          p - at <= static_cast<size_t>(populated_ - cursor_) - size) {
        cursor_ = reinterpret_cast<char*>(p + size);
        return reinterpret_cast<void*>(p);
      }
    }
    return allocate_slow(size, align);
  }

  // Constructs a T in the arena; its destructor runs when the arena is destroyed.
  template <typename T, typename... Args>
  T* create(Args&&... args) {
    T* object = new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>) {
      add_destructor(object, [](void* p) { static_cast<T*>(p)->~T(); });
    }
    return object;
  }

  // Copies trivially copyable elements into the arena.
  template <typename T>
  absl::Span<T> copy(absl::Span<const T> items) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    if (items.empty()) return {};
    T* data = static_cast<T*>(allocate(sizeof(T) * items.size(), alignof(T)));
    std::memcpy(static_cast<void*>(data), items.data(), sizeof(T) * items.size());
    return absl::Span<T>(data, items.size());
  }

  std::string_view save(std::string_view text);

  // Tells the arena that it will hand out at least about `bytes` more: from 1.5 MiB up, the
  // next block it opens is that large, in whole huge pages (rounded up unless the last would be
  // less than a quarter used), where the kernel gives them (util/huge_pages.h): they cost much
  // less to touch the first time than 4 KiB pages.
  void expect(size_t bytes);

  // Bytes taken from the system so far.
  size_t reserved_bytes() const { return reserved_; }
  // Bytes handed out so far, alignment padding included: reserved_bytes() less the unused ends
  // of blocks.
  size_t used_bytes() const { return reserved_ - abandoned_ - static_cast<size_t>(end_ - cursor_); }
  // Bytes of blocks made resident so far: blocks taken from malloc whole, mapped blocks as far as
  // they were populated (see arena.cc). The unused ends of mapped blocks are mostly not resident.
  size_t resident_bytes() const { return resident_; }
  // Bytes of blocks taken from malloc (blocks under 64 KiB; all of them under AddressSanitizer).
  size_t heap_block_bytes() const { return heap_blocks_; }

  // Destroyed arenas leave their large blocks (up to 64 MiB in all) resident for the next arena,
  // so that parsing file after file does not make fresh pages resident each time.
  static size_t pooled_bytes();
  // Returns the pooled blocks to the system.
  static void release_pooled();

 private:
  struct Destructor {
    void* object;
    void (*destroy)(void*);
  };
  // Destructors are recorded in chunks taken from the arena itself: no vector to regrow and copy
  // while a module's instructions are created.
  struct DestructorChunk {
    static constexpr size_t kCapacity = 254;
    DestructorChunk* previous;
    size_t count;
    Destructor items[kCapacity];
  };
  void add_destructor(void* object, void (*destroy)(void*)) {
    if (destructors_ == nullptr || destructors_->count == DestructorChunk::kCapacity) {
      new_destructor_chunk();
    }
    destructors_->items[destructors_->count++] = {object, destroy};
  }
  void new_destructor_chunk();
  void* allocate_slow(size_t size, size_t align);
  // Makes the pages up to the cursor (and a step beyond) resident.
  void populate();

  char* cursor_ = nullptr;
  char* end_ = nullptr;
  char* populated_ = nullptr;             // pages of the current block below this are resident
  size_t populate_step_ = kPopulateStep;  // of the current block
  size_t expected_ = 0;                   // the first block's size, from expect()
  size_t reserved_ = 0;
  size_t abandoned_ = 0;  // unused ends of blocks left for a new one
  size_t resident_ = 0;
  size_t heap_blocks_ = 0;
  struct Block {
    char* memory;
    size_t size;
    bool huge;  // in huge pages, made resident a huge page at a time
  };
  std::vector<Block> blocks_;
  DestructorChunk* destructors_ = nullptr;  // the newest chunk
};

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_ARENA_H_
