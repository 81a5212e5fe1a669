#include "ir/edge_list.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "ir/arena.h"

namespace hloroof::detail {

template <typename T>
void EdgeLists::grow_and_push_back(Arena& arena, List<T>& list, T* item) {
  if (list.capacity >= std::numeric_limits<uint32_t>::max() / 2) throw std::bad_alloc();
  const uint32_t capacity = list.capacity * 2;
  auto** grown = static_cast<T**>(arena.allocate(sizeof(T*) * capacity, alignof(T*)));
  std::memcpy(static_cast<void*>(grown), list.data(), sizeof(T*) * list.size);
  list.many = grown;
  list.capacity = capacity;
  list.many[list.size++] = item;
}

template <typename T>
void EdgeLists::assign_out_of_line(Arena& arena, List<T>& list, absl::Span<T* const> items) {
  if (items.size() > std::numeric_limits<uint32_t>::max() / 2) throw std::bad_alloc();
  if (items.size() > list.capacity) {
    list.many = static_cast<T**>(arena.allocate(sizeof(T*) * items.size(), alignof(T*)));
    list.capacity = static_cast<uint32_t>(items.size());
  }
  if (!items.empty()) {
    std::memcpy(static_cast<void*>(mutable_data(list)), items.data(), sizeof(T*) * items.size());
  }
  list.size = static_cast<uint32_t>(items.size());
}

template <typename T>
bool EdgeLists::erase_one(List<T>& list, T* item) {
  T** items = mutable_data(list);
  T** found = std::find(items, items + list.size, item);
  if (found == items + list.size) return false;
  std::copy(found + 1, items + list.size, found);
  --list.size;
  return true;
}

template void EdgeLists::grow_and_push_back(Arena&, List<Instruction>&, Instruction*);
template void EdgeLists::grow_and_push_back(Arena&, List<Computation>&, Computation*);
template void EdgeLists::assign_out_of_line(Arena&, List<Instruction>&,
                                            absl::Span<Instruction* const>);
template void EdgeLists::assign_out_of_line(Arena&, List<Computation>&,
                                            absl::Span<Computation* const>);
template bool EdgeLists::erase_one(List<Instruction>&, Instruction*);
template bool EdgeLists::erase_one(List<Computation>&, Computation*);

}  // namespace hloroof::detail
