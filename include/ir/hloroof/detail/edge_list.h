// The graph's edge lists (operands, users, control successors): 16 bytes, trivially
// destructible, one element in place and more in the module's arena.
#ifndef HLOROOF_DETAIL_EDGE_LIST_H_
#define HLOROOF_DETAIL_EDGE_LIST_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"

namespace hloroof::detail {

class Arena;

// A list of pointers. Up to one element lives in the list itself; a longer list lives in arena
// memory whose capacity doubles as it grows (the outgrown array stays with the arena until the
// module goes). Nothing to destroy: the arena frees everything with the module.
template <typename T>
class EdgeList {
 public:
  EdgeList() : one_(nullptr) {}

  absl::Span<T* const> span() const { return absl::Span<T* const>(data(), size_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Elements it has room for; room for more than one is arena memory.
  size_t capacity() const { return capacity_; }
  T* operator[](size_t i) const { return data()[i]; }
  T* back() const { return data()[size_ - 1]; }
  T* const* begin() const { return data(); }
  T* const* end() const { return data() + size_; }

  void set(size_t i, T* item) { mutable_data()[i] = item; }
  // Appends, growing into the arena when full.
  void push_back(Arena& arena, T* item) {
    if (size_ < capacity_) {
      mutable_data()[size_++] = item;
    } else {
      grow_and_push_back(arena, item);
    }
  }
  // Replaces the contents with `items`, taking exactly the room they need.
  void assign(Arena& arena, absl::Span<T* const> items) {
    if (capacity_ <= 1 && items.size() <= 1) {
      one_ = items.empty() ? nullptr : items[0];
      size_ = static_cast<uint32_t>(items.size());
    } else {
      assign_out_of_line(arena, items);
    }
  }
  // Removes the first occurrence of `item`, keeping the order of the rest; false if absent.
  bool erase_one(T* item);
  void clear() { size_ = 0; }

 private:
  void grow_and_push_back(Arena& arena, T* item);
  void assign_out_of_line(Arena& arena, absl::Span<T* const> items);
  T* const* data() const { return capacity_ <= 1 ? &one_ : many_; }
  T** mutable_data() { return capacity_ <= 1 ? &one_ : many_; }

  union {
    T* one_;    // capacity_ <= 1
    T** many_;  // capacity_ > 1: arena memory
  };
  uint32_t size_ = 0;
  uint32_t capacity_ = 1;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_DETAIL_EDGE_LIST_H_
