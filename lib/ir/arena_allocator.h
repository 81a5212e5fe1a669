// An allocator for a module's own containers (a computation's instruction and parameter lists
// and its name map): they take their memory from the module's arena, beside the instructions,
// and give it back only with the module. A large module's arena is in huge pages, already
// resident, where these lists would otherwise be fresh 4 KiB pages of the heap.
#ifndef HLOROOF_IR_ARENA_ALLOCATOR_H_
#define HLOROOF_IR_ARENA_ALLOCATOR_H_

#include <cstddef>
#include <new>
#include <type_traits>

namespace hloroof::detail {

class Arena;
// Arena::allocate, for code that sees only this header.
void* arena_allocate(Arena* arena, size_t bytes, size_t align);

template <typename T>
struct ArenaAllocator {
  using value_type = T;
  // Containers that trade or copy their contents keep their own arena.
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::false_type;
  using propagate_on_container_swap = std::false_type;

  explicit ArenaAllocator(Arena* a) : arena(a) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}  // NOLINT: as allocators

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(arena_allocate(arena, n * sizeof(T), alignof(T)));
  }
  // What a container outgrows stays in the arena until the module goes: with lists sized
  // before they are filled, that happens only when a module is edited.
  void deallocate(T*, size_t) {}

  template <typename U>
  bool operator==(const ArenaAllocator<U>& other) const {
    return arena == other.arena;
  }

  Arena* arena;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_ARENA_ALLOCATOR_H_
