// MaxTree (memory/max_tree.h) against a scan of its slots: for trees of 1 to 40 slots holding
// figures drawn from a few values (so that many are equal, and some slots stay unset), some
// set twice, made from the leaves up or regrown, every limit up to past the last slot and
// every bound between the figures; and the search for a slot that reaches two bounds in two
// trees at once.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "memory/max_tree.h"

namespace {

using hloroof::detail::MaxTree;

int64_t last_by_scan(const std::vector<int64_t>& figures, size_t limit, int64_t bound) {
  for (size_t slot = std::min(limit, figures.size()); slot > 0; --slot) {
    if (figures[slot - 1] >= bound) return static_cast<int64_t>(slot - 1);
  }
  return -1;
}

TEST_CASE("MaxTree finds the last slot reaching a bound, by hand") {
  MaxTree tree(5);  // 8 leaves
  tree.set(0, 7);
  tree.set(2, 3);
  tree.set(4, 9);
  CHECK(tree.last_at_least(5, 5) == 4);   // 9 >= 5
  CHECK(tree.last_at_least(4, 5) == 0);   // below slot 4: 7 at 0 (3 at 2 is short)
  CHECK(tree.last_at_least(4, 3) == 2);   // 3 >= 3
  CHECK(tree.last_at_least(0, 0) == -1);  // no slot below 0
  CHECK(tree.last_at_least(8, 10) == -1);  // none reaches 10
  CHECK(tree.last_at_least(100, MaxTree::kNone) == 7);  // unset slots hold the lowest figure
  MaxTree one(1);
  CHECK(one.last_at_least(1, MaxTree::kNone) == 0);
  CHECK(one.last_at_least(1, 0) == -1);
}

int64_t last_both_by_scan(const std::vector<int64_t>& a, int64_t bound_a,
                          const std::vector<int64_t>& b, int64_t bound_b, size_t limit) {
  for (size_t slot = std::min(limit, a.size()); slot > 0; --slot) {
    if (a[slot - 1] >= bound_a && b[slot - 1] >= bound_b) return static_cast<int64_t>(slot - 1);
  }
  return -1;
}

TEST_CASE("MaxTree finds the last slot reaching two bounds in two trees, by hand") {
  MaxTree a(4), b(4);
  // Slot 3 reaches a's bound only, slot 2 b's only, slot 1 both; the nodes above slots 2 and
  // 3 reach both bounds with no slot of their own that does.
  a.set(3, 5);
  b.set(2, 5);
  a.set(1, 5);
  b.set(1, 5);
  CHECK(MaxTree::last_at_least_both(a, 5, b, 5, 4) == 1);
  CHECK(MaxTree::last_at_least_both(a, 5, b, 5, 1) == -1);
  CHECK(MaxTree::last_at_least_both(a, 5, b, 6, 4) == -1);
  CHECK(MaxTree::last_at_least_both(a, 5, b, MaxTree::kNone, 4) == 3);
}

TEST_CASE("MaxTree answers as a scan of its slots") {
  std::mt19937 random(31);
  const std::vector<int64_t> values = {MaxTree::kNone, -5, 0, 1, 4, 4, 9};
  size_t checked = 0;
  for (size_t slots = 1; slots <= 40; ++slots) {
    for (int round = 0; round < 4; ++round) {
      MaxTree tree(slots), other(slots);
      size_t leaves = 1;
      while (leaves < slots) leaves *= 2;
      std::vector<int64_t> figures(leaves, MaxTree::kNone), others(leaves, MaxTree::kNone);
      for (size_t slot = 0; slot < slots; ++slot) {
        if (random() % 5 != 0) {  // else left unset
          figures[slot] = values[random() % values.size()];
          tree.set(slot, figures[slot]);
        }
        if (random() % 5 != 0) {
          others[slot] = values[random() % values.size()];
          other.set(slot, others[slot]);
        }
      }
      // Set again, higher, lower or the same: a climb that stops where a maximum holds must
      // still leave every node above a changed one right.
      for (size_t slot = 0; slot < slots; ++slot) {
        if (random() % 3 == 0) {
          figures[slot] = values[random() % values.size()];
          tree.set(slot, figures[slot]);
        }
      }
      // The same figures made from the leaves up.
      const MaxTree built(slots, slots, [&](size_t slot) { return figures[slot]; });
      // Regrown to more than twice the slots from its own leaves: the same figures, the new
      // slots unset (kNone, which the bound kNone reaches: the scan sees them too).
      const MaxTree regrown = tree.regrown(2 * slots + 1, slots);
      std::vector<int64_t> wider = figures;
      wider.resize(4 * leaves, MaxTree::kNone);
      for (size_t limit = 0; limit <= leaves + 1; ++limit) {
        for (int64_t bound : {MaxTree::kNone, int64_t{-6}, int64_t{-5}, int64_t{0}, int64_t{2},
                              int64_t{4}, int64_t{9}, int64_t{10}}) {
          INFO(slots << " slots, round " << round << ", limit " << limit << ", bound " << bound);
          REQUIRE(tree.last_at_least(limit, bound) == last_by_scan(figures, limit, bound));
          REQUIRE(built.last_at_least(limit, bound) == last_by_scan(figures, limit, bound));
          REQUIRE(regrown.last_at_least(limit, bound) == last_by_scan(wider, limit, bound));
          std::vector<size_t> seen, expected;
          tree.each_at_least(limit, bound, [&](size_t slot) { seen.push_back(slot); });
          for (size_t slot = 0; slot < std::min(limit, leaves); ++slot) {
            if (figures[slot] >= bound) expected.push_back(slot);
          }
          REQUIRE(seen == expected);
          for (int64_t other_bound : {MaxTree::kNone, int64_t{0}, int64_t{4}}) {
            INFO("other bound " << other_bound);
            REQUIRE(MaxTree::last_at_least_both(tree, bound, other, other_bound, limit) ==
                    last_both_by_scan(figures, bound, others, other_bound, limit));
          }
          ++checked;
        }
      }
    }
  }
  // 4 rounds of every limit 0 .. leaves + 1 and 8 bounds, for each of 40 sizes: at least
  // 40 * 4 * 3 * 8 = 3840 queries.
  CHECK(checked >= 3840);
}

}  // namespace
