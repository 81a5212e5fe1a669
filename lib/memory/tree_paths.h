// The paths of a range of leaves up a complete binary tree stored as an array (the root at 1,
// node n's children at 2n and 2n + 1, the leaves at [leaves, 2 * leaves)), as the segment trees
// of the memory assignment walk them.
#ifndef HLOROOF_MEMORY_TREE_PATHS_H_
#define HLOROOF_MEMORY_TREE_PATHS_H_

#include <algorithm>
#include <bit>
#include <cstddef>

namespace hloroof::detail {

// Calls visit(node) for the nodes of a tree of `leaves` leaves (a power of two) that hold a
// part of the leaves [from, to] (from <= to < leaves) but not all of theirs: the ancestors of
// the leaves of `from` and `to` that the range does not cover whole, each once. Each of the two
// paths is walked bottom up to where they meet, then the part they share up to the root. A
// visit that returns false ends its path (the other one goes on) and the shared part with it.
template <typename Visit>
void for_each_above(size_t leaves, size_t from, size_t to, Visit&& visit) {
  const size_t first = leaves + from, last = leaves + to;
  // A path's node `level` levels up is covered whole while the leaves [first, last] hold its
  // first and last leaf: while the path's leaf has `level` low bits of 0 (first) or of 1
  // (last), and 2^level leaves fit in the range. Both are true up to some level and false
  // above it. From level `meet` up the two paths are one, and a node there, holding both
  // `first` and `last`, is covered whole exactly when both paths' are.
  const int fits = std::bit_width(last - first + 1) - 1;
  const int first_whole = std::min(std::countr_zero(first), fits);
  const int last_whole = std::min(std::countr_zero(last + 1), fits);
  const int meet = std::bit_width(first ^ last);
  const int top = std::countr_zero(leaves);  // the root's level
  bool open = true;
  for (int level = first_whole + 1; level < meet; ++level) {
    if (!visit(first >> level)) {
      open = false;
      break;
    }
  }
  for (int level = last_whole + 1; level < meet; ++level) {
    if (!visit(last >> level)) {
      open = false;
      break;
    }
  }
  if (!open) return;
  for (int level = std::max(meet, first_whole + 1); level <= top; ++level) {
    if (!visit(first >> level)) return;
  }
}

}  // namespace hloroof::detail

#endif  // HLOROOF_MEMORY_TREE_PATHS_H_
