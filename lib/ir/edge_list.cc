#include "hloroof/detail/edge_list.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "ir/arena.h"

namespace hloroof::detail {

template <typename T>
void EdgeList<T>::grow_and_push_back(Arena& arena, T* item) {
  if (capacity_ >= std::numeric_limits<uint32_t>::max() / 2) throw std::bad_alloc();
  const uint32_t capacity = capacity_ * 2;
  auto** grown = static_cast<T**>(arena.allocate(sizeof(T*) * capacity, alignof(T*)));
  std::memcpy(static_cast<void*>(grown), data(), sizeof(T*) * size_);
  many_ = grown;
  capacity_ = capacity;
  many_[size_++] = item;
}

template <typename T>
void EdgeList<T>::assign_out_of_line(Arena& arena, absl::Span<T* const> items) {
  if (items.size() > std::numeric_limits<uint32_t>::max() / 2) throw std::bad_alloc();
  if (items.size() > capacity_) {
    many_ = static_cast<T**>(arena.allocate(sizeof(T*) * items.size(), alignof(T*)));
    capacity_ = static_cast<uint32_t>(items.size());
  }
  if (!items.empty()) {
    std::memcpy(static_cast<void*>(mutable_data()), items.data(), sizeof(T*) * items.size());
  }
  size_ = static_cast<uint32_t>(items.size());
}

template <typename T>
bool EdgeList<T>::erase_one(T* item) {
  T** items = mutable_data();
  T** found = std::find(items, items + size_, item);
  if (found == items + size_) return false;
  std::copy(found + 1, items + size_, found);
  --size_;
  return true;
}

template class EdgeList<Instruction>;
template class EdgeList<Computation>;

}  // namespace hloroof::detail
