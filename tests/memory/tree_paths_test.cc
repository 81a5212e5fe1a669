// for_each_above (memory/tree_paths.h) against a walk that tests every ancestor of the two end
// leaves, level by level, for whether the range covers it whole: over every range of trees of
// up to 64 leaves, and with visits that end a path at every choice of nodes in trees of up to
// 32 leaves.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstddef>
#include <vector>

#include "memory/tree_paths.h"

namespace {

using hloroof::detail::for_each_above;

// Whether the leaves [first, last] hold all of `node`'s, `level` levels above the leaves.
bool covers(size_t node, size_t level, size_t first, size_t last) {
  return (node << level) >= first && ((node + 1) << level) - 1 <= last;
}

// The nodes the plain walk visits, in the order it meets them. `stops(node)`: the node's visit
// returns false, which ends the path it is on (a node both paths share ends both).
template <typename Stops>
std::vector<size_t> reference(size_t leaves, size_t from, size_t to, Stops&& stops) {
  std::vector<size_t> visited;
  const size_t first = leaves + from, last = leaves + to;
  bool first_done = false, last_done = false;
  auto visit = [&](size_t node, bool on_first, bool on_last) {
    if ((on_first && first_done) || (on_last && last_done)) return;
    visited.push_back(node);
    if (stops(node)) {
      first_done = first_done || on_first;
      last_done = last_done || on_last;
    }
  };
  for (size_t level = 1; (first >> level) >= 1; ++level) {
    const size_t a = first >> level, b = last >> level;
    if (a == b) {
      if (!covers(a, level, first, last)) visit(a, true, true);
      continue;
    }
    if (!covers(a, level, first, last)) visit(a, true, false);
    if (!covers(b, level, first, last)) visit(b, false, true);
  }
  return visited;
}

template <typename Stops>
std::vector<size_t> walked(size_t leaves, size_t from, size_t to, Stops&& stops) {
  std::vector<size_t> visited;
  for_each_above(leaves, from, to, [&](size_t node) {
    visited.push_back(node);
    return !stops(node);
  });
  return visited;
}

std::vector<size_t> sorted(std::vector<size_t> nodes) {
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

TEST_CASE("for_each_above visits the partly covered ancestors of a range, by hand") {
  auto never = [](size_t) { return false; };
  // 8 leaves at nodes 8..15; slots [1, 6] are leaves 9..14. Covered whole: 9, 5 (10-11),
  // 6 (12-13), 14. Partly: 4 (8-9), 2 (8-11), 7 (14-15), 3 (12-15) and the root 1.
  CHECK(sorted(walked(8, 1, 6, never)) == std::vector<size_t>{1, 2, 3, 4, 7});
  // Slots [0, 7] cover the whole tree: nothing above.
  CHECK(walked(8, 0, 7, never).empty());
  // Slot 5 alone (leaf 13): 6 (12-13), 3 (12-15), 1, bottom up.
  CHECK(walked(8, 5, 5, never) == std::vector<size_t>{6, 3, 1});
  // Slots [4, 7] are node 3 whole: only the root above.
  CHECK(walked(8, 4, 7, never) == std::vector<size_t>{1});
  // One leaf: the leaf is the root, nothing above it.
  CHECK(walked(1, 0, 0, never).empty());
  // A visit of 6 that returns false ends the one path, shared from 6 up: 6 alone.
  CHECK(walked(8, 5, 5, [](size_t node) { return node == 6; }) == std::vector<size_t>{6});
}

TEST_CASE("for_each_above visits what the plain walk visits, every range") {
  auto never = [](size_t) { return false; };
  for (size_t leaves = 1; leaves <= 64; leaves *= 2) {
    for (size_t from = 0; from < leaves; ++from) {
      for (size_t to = from; to < leaves; ++to) {
        INFO("leaves " << leaves << ", slots [" << from << ", " << to << "]");
        const std::vector<size_t> expected = reference(leaves, from, to, never);
        const std::vector<size_t> got = walked(leaves, from, to, never);
        CHECK(sorted(got) == sorted(expected));
        // Each once.
        std::vector<size_t> unique = sorted(got);
        CHECK(std::adjacent_find(unique.begin(), unique.end()) == unique.end());
      }
    }
  }
}

TEST_CASE("for_each_above ends a path where the plain walk does, every choice of stops") {
  size_t cases = 0;
  for (size_t leaves = 1; leaves <= 32; leaves *= 2) {
    for (size_t from = 0; from < leaves; ++from) {
      for (size_t to = from; to < leaves; ++to) {
        const std::vector<size_t> all =
            reference(leaves, from, to, [](size_t) { return false; });
        REQUIRE(all.size() < 16);
        // Every subset of the nodes visited, as the nodes whose visit returns false.
        for (size_t mask = 0; mask < (size_t{1} << all.size()); ++mask) {
          auto stops = [&](size_t node) {
            for (size_t k = 0; k < all.size(); ++k) {
              if (all[k] == node) return ((mask >> k) & 1) != 0;
            }
            return false;
          };
          INFO("leaves " << leaves << ", slots [" << from << ", " << to << "], stops " << mask);
          REQUIRE(sorted(walked(leaves, from, to, stops)) ==
                  sorted(reference(leaves, from, to, stops)));
          ++cases;
        }
      }
    }
  }
  // At least one case per range: 1 + 3 + 10 + 36 + 136 + 528 ranges (n (n + 1) / 2 each).
  CHECK(cases >= 714);
}

}  // namespace
