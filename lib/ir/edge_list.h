// The graph's edge lists (operands, users, control successors, called computations): 16 bytes,
// trivially destructible, one element in place and more in the module's arena. A node holds
// them as Instruction::Edges, which readers see only through the node's accessors; these are the
// operations that change them.
#ifndef HLOROOF_IR_EDGE_LIST_H_
#define HLOROOF_IR_EDGE_LIST_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "hloroof/instruction.h"

namespace hloroof::detail {

class Arena;

struct EdgeLists {
  // A list of pointers. Up to one element lives in the list itself; a longer list lives in
  // arena memory whose capacity doubles as it grows (the outgrown array stays with the arena
  // until the module goes). Nothing to destroy: the arena frees everything with the module.
  template <typename T>
  using List = Instruction::Edges<T>;

  template <typename T>
  static T* back(const List<T>& list) {
    return list.data()[list.size - 1];
  }
  template <typename T>
  static void set(List<T>& list, size_t i, T* item) {
    mutable_data(list)[i] = item;
  }
  // Appends, growing into the arena when full.
  template <typename T>
  static void push_back(Arena& arena, List<T>& list, T* item) {
    if (list.size < list.capacity) {
      mutable_data(list)[list.size++] = item;
    } else {
      grow_and_push_back(arena, list, item);
    }
  }
  // Replaces the contents with `items`, taking exactly the room they need.
  template <typename T>
  static void assign(Arena& arena, List<T>& list, absl::Span<T* const> items) {
    if (list.capacity <= 1 && items.size() <= 1) {
      list.one = items.empty() ? nullptr : items[0];
      list.size = static_cast<uint32_t>(items.size());
    } else {
      assign_out_of_line(arena, list, items);
    }
  }
  // Removes the first occurrence of `item`, keeping the order of the rest; false if absent.
  template <typename T>
  static bool erase_one(List<T>& list, T* item);
  template <typename T>
  static void clear(List<T>& list) {
    list.size = 0;
  }

 private:
  template <typename T>
  static T** mutable_data(List<T>& list) {
    return list.capacity <= 1 ? &list.one : list.many;
  }
  template <typename T>
  static void grow_and_push_back(Arena& arena, List<T>& list, T* item);
  template <typename T>
  static void assign_out_of_line(Arena& arena, List<T>& list, absl::Span<T* const> items);
};

template <typename T>
using EdgeList = EdgeLists::List<T>;

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_EDGE_LIST_H_
