// A max tree over slots, for the memory assignment's searches among placed buffers.
#ifndef HLOROOF_MEMORY_MAX_TREE_H_
#define HLOROOF_MEMORY_MAX_TREE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace hloroof::detail {

// A max tree over a fixed number of slots (each starting at the lowest int64_t) that finds
// the slots whose figure reaches a bound without visiting the subtrees that hold none.
class MaxTree {
 public:
  explicit MaxTree(size_t slots) {
    while (leaves_ < slots) leaves_ *= 2;
    max_.assign(2 * leaves_, kNone);
  }
  // A tree of at least `slots` slots whose first `count` hold figure(slot), made from the
  // leaves up: each node once, where setting the slots one by one climbs the tree for each.
  template <typename Figure>
  MaxTree(size_t slots, size_t count, Figure&& figure) : MaxTree(slots) {
    for (size_t slot = 0; slot < count; ++slot) max_[leaves_ + slot] = figure(slot);
    for (size_t at = leaves_ - 1; at >= 1; --at) {
      max_[at] = std::max(max_[2 * at], max_[2 * at + 1]);
    }
  }
  // A tree of at least `slots` slots holding this one's first `count` figures (count at most
  // its slots), made from the leaves up.
  MaxTree regrown(size_t slots, size_t count) const {
    return MaxTree(slots, count, [this](size_t slot) { return max_[leaves_ + slot]; });
  }
  // Climbs only while a node's maximum changes: above a node that keeps it, none changes.
  void set(size_t slot, int64_t figure) {
    size_t at = leaves_ + slot;
    max_[at] = figure;
    for (at /= 2; at >= 1; at /= 2) {
      const int64_t most = std::max(max_[2 * at], max_[2 * at + 1]);
      if (max_[at] == most) break;
      max_[at] = most;
    }
  }
  // Calls visit(slot) for every slot below `limit` whose figure is at least `bound`.
  template <typename Visit>
  void each_at_least(size_t limit, int64_t bound, Visit&& visit) const {
    descend(1, 0, leaves_, limit, bound, visit);
  }
  // The last slot below `limit` whose figure is at least `bound`, or -1: the nodes that hold
  // the slots below `limit`, each whole, are met from the right by climbing from the leaf at
  // `limit` (a right child on the way has its left sibling among them); the first to reach
  // the bound holds it, at its rightmost leaf that does.
  int64_t last_at_least(size_t limit, int64_t bound) const {
    size_t node = 0;
    if (limit >= leaves_) {
      node = 1;
    } else {
      for (size_t at = leaves_ + limit; at > 1; at /= 2) {
        if ((at & 1) != 0 && max_[at - 1] >= bound) {
          node = at - 1;
          break;
        }
      }
    }
    if (node == 0 || max_[node] < bound) return -1;
    while (node < leaves_) node = max_[2 * node + 1] >= bound ? 2 * node + 1 : 2 * node;
    return static_cast<int64_t>(node - leaves_);
  }

  // The last slot below `limit` whose figure is at least `bound_a` in `a` and at least
  // `bound_b` in `b`, two trees over the same slots, or -1: as last_at_least, but a node may
  // reach both bounds with no slot under it that reaches both, so below it the search goes
  // on to the left where the right finds none.
  static int64_t last_at_least_both(const MaxTree& a, int64_t bound_a, const MaxTree& b,
                                    int64_t bound_b, size_t limit) {
    const size_t leaves = a.leaves_;
    if (limit >= leaves) return a.last_both(1, bound_a, b, bound_b);
    for (size_t at = leaves + limit; at > 1; at /= 2) {
      if ((at & 1) != 0) {
        if (const int64_t slot = a.last_both(at - 1, bound_a, b, bound_b); slot >= 0) return slot;
      }
    }
    return -1;
  }

  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();

 private:
  // The last slot under `node` that reaches both bounds, or -1.
  int64_t last_both(size_t node, int64_t bound_a, const MaxTree& b, int64_t bound_b) const {
    if (max_[node] < bound_a || b.max_[node] < bound_b) return -1;
    if (node >= leaves_) return static_cast<int64_t>(node - leaves_);
    const int64_t right = last_both(2 * node + 1, bound_a, b, bound_b);
    return right >= 0 ? right : last_both(2 * node, bound_a, b, bound_b);
  }
  template <typename Visit>
  void descend(size_t node, size_t lo, size_t hi, size_t limit, int64_t bound,
               Visit& visit) const {
    if (lo >= limit || max_[node] < bound) return;
    if (hi - lo == 1) {
      visit(lo);
      return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    descend(2 * node, lo, mid, limit, bound, visit);
    descend(2 * node + 1, mid, hi, limit, bound, visit);
  }

  size_t leaves_ = 1;
  std::vector<int64_t> max_;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_MEMORY_MAX_TREE_H_
