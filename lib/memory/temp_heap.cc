#include "memory/temp_heap.h"

#include <algorithm>
#include <limits>
#include <optional>

#include "memory/max_tree.h"
#include "memory/tree_paths.h"

namespace hloroof::detail {

// The offset ranges of placed temporaries over time, for the best-fit heap: a segment tree
// over the distinct start times, where each node keeps the ranges of the groups that live over
// all of its times (`cover`) and of those that live over any of them (`any`), each merged with
// the ranges it overlaps or touches. Merging leaves the free gaps between ranges as they were
// (a range of no bytes still splits a gap it lies inside), so the best fit found among the
// merged ranges is the one found among the groups themselves; and a time range's query reads a
// few merged lists, however many groups live there.
class PlacedRanges {
 public:
  // A query's ranges up to this many are sorted whole (merging so few costs as much).
  static constexpr size_t kSortedWhole = 32;
  using Range = std::pair<int64_t, int64_t>;  // [first byte, end)

  explicit PlacedRanges(size_t slots) {
    while (leaves_ < slots) leaves_ *= 2;
    nodes_.resize(2 * leaves_);
  }
  // A group placed at [lo, hi) living over the slots [from, to].
  void add(size_t from, size_t to, int64_t lo, int64_t hi) {
    const Range r{lo, hi};
    size_t lo_leaf = leaves_ + from, hi_leaf = leaves_ + to + 1;  // [lo, hi) at each level
    for (; lo_leaf < hi_leaf; lo_leaf /= 2, hi_leaf /= 2) {
      if (lo_leaf & 1) own(nodes_[lo_leaf++], r);
      if (hi_leaf & 1) own(nodes_[--hi_leaf], r);
    }
    // Bottom up along the two paths: a node whose merged ranges already hold r has ancestors
    // whose ranges hold it too (theirs are merged over more groups), so that path stops there.
    for_each_above(leaves_, from, to,
                   [&](size_t node) { return merge_into(nodes_[node].any, r); });
  }
  // Calls visit(range) for the merged ranges of the groups living at any slot of [from, to],
  // in increasing order: of (first byte, end), or of the first byte alone where `by_first`
  // (when no range ends before it starts, ranges of one first byte leave the same gaps in any
  // order); returns how many there are. They come as a few lists, each in order: the lists
  // are merged two by two, in rounds that halve their number down to two, which are visited
  // as they are merged (`out` and `scratch`: room).
  template <typename Visit>
  size_t each_in_order(size_t from, size_t to, bool by_first, std::vector<Range>& out,
                       std::vector<Range>& scratch, Visit&& visit) {
    out.clear();
    bounds_.clear();
    bounds_.push_back(0);  // then where each list ends in `out`
    auto append = [&](const Ranges& ranges) {
      if (ranges.empty()) return;
      for (const Range& r : ranges) out.push_back(r);
      bounds_.push_back(out.size());
    };
    size_t lo = leaves_ + from, hi = leaves_ + to + 1;
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) append(nodes_[lo++].any);
      if (hi & 1) append(nodes_[--hi].any);
    }
    for_each_above(leaves_, from, to, [&](size_t node) {
      append(nodes_[node].cover);
      return true;
    });
    if (by_first) {
      merge_lists(out, scratch, visit,
                  [](const Range& a, const Range& b) { return a.first < b.first; });
    } else {
      merge_lists(out, scratch, visit, [](const Range& a, const Range& b) {
        return a.first < b.first || (a.first == b.first && a.second < b.second);
      });
    }
    return out.size();
  }

 private:
  template <typename Visit, typename Less>
  void merge_lists(std::vector<Range>& out, std::vector<Range>& scratch, Visit& visit,
                   Less less) {
    if (out.size() <= kSortedWhole && bounds_.size() > 2) {
      std::sort(out.begin(), out.end(), less);
      for (const Range& r : out) visit(r);
      return;
    }
    while (bounds_.size() > 3) {
      scratch.resize(out.size());
      size_t lists = 1;
      for (size_t k = 0; k + 1 < bounds_.size(); k += 2) {
        const size_t begin = bounds_[k], middle = bounds_[k + 1];
        const size_t end = k + 2 < bounds_.size() ? bounds_[k + 2] : middle;
        std::merge(out.begin() + begin, out.begin() + middle, out.begin() + middle,
                   out.begin() + end, scratch.begin() + begin, less);
        bounds_[lists++] = end;
      }
      bounds_.resize(lists);
      out.swap(scratch);
    }
    // One or two lists left ([0, middle) and [middle, size)): merged as std::merge does,
    // the first list's range first among equals.
    const Range* a = out.data();
    const Range* const a_end = out.data() + (bounds_.size() > 2 ? bounds_[1] : out.size());
    const Range* b = a_end;
    const Range* const b_end = out.data() + out.size();
    while (a != a_end && b != b_end) visit(less(*b, *a) ? *b++ : *a++);
    for (; a != a_end; ++a) visit(*a);
    for (; b != b_end; ++b) visit(*b);
  }
  // Most nodes hold a range or two: the first is kept in place. (Two in place make a node of
  // 80 bytes rather than 48: gemma3 4b's tree 2.6 MB rather than 1.6, held while the prediction
  // beside it holds its own peak, for 2.5% fewer instructions.)
  using Ranges = absl::InlinedVector<Range, 1>;
  struct Node {
    Ranges cover, any;
  };
  // Merges r into `ranges`; false when one of them already held it (nothing changed).
  static bool merge_into(Ranges& ranges, Range r) {
    if (ranges.empty() || ranges.back().second < r.first) {  // past them all
      ranges.push_back(r);
      return true;
    }
    // The first range that ends at or after r starts, then every one that starts by r's end.
    auto first = std::lower_bound(ranges.begin(), ranges.end(), r.first,
                                  [](const Range& x, int64_t lo) { return x.second < lo; });
    if (first->first <= r.first && r.second <= first->second) return false;
    auto last = first;
    while (last != ranges.end() && last->first <= r.second) {
      r.first = std::min(r.first, last->first);
      r.second = std::max(r.second, last->second);
      ++last;
    }
    if (first == last) {
      ranges.insert(first, r);
    } else {
      *first = r;
      ranges.erase(first + 1, last);
    }
    return true;
  }
  // A range's own nodes: those whose slots it covers whole and whose parent's it does not.
  // A group lives over all of each of its own nodes and is listed there (`cover`) and in every
  // node that holds any of its slots (`any`); a query reads `any` of its own nodes and `cover`
  // of the nodes above them (a group over all of one of those lives at the query's slots).
  static void own(Node& n, const Range& r) {
    merge_into(n.cover, r);
    merge_into(n.any, r);
  }
  size_t leaves_ = 1;
  std::vector<Node> nodes_;
  std::vector<size_t> bounds_;  // collect's
};

BestFitHeap::BestFitHeap(const std::vector<TempGroup>& groups, const Colocations* colocations)
    : groups_(groups) {
  starts_.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) starts_[g] = groups[g].start;
  ordered_lives_ = std::all_of(groups.begin(), groups.end(),
                               [](const TempGroup& g) { return g.start <= g.end; });
  // Sets are placed over their lives where every group starts by its end (the common case);
  // otherwise each group on its own.
  if (colocations != nullptr && !colocations->sets.empty() && ordered_lives_ &&
      colocations->leader.size() == groups.size()) {
    colocations_ = colocations;
  }
  times_ = starts_;
  times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
  if (ordered_lives_) {
    numbers_.resize(groups.size());
    size_t first = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
      while (times_[first] < groups[g].start) ++first;
      const auto last = static_cast<size_t>(
          std::upper_bound(times_.begin() + first, times_.end(), groups[g].end) -
          times_.begin());
      numbers_[g] = {first, last - 1};
    }
  }
  // No group of fewer than 0 bytes: no placed range ends before it starts.
  sized_ = std::all_of(groups.begin(), groups.end(),
                       [](const TempGroup& g) { return g.bytes >= 0; });
}

int64_t BestFitHeap::place(const std::vector<size_t>& order, std::vector<int64_t>& offsets,
                           int64_t& steps) {
  std::optional<PlacedRanges> placed;
  std::optional<MaxTree> placed_ends;
  if (ordered_lives_) {
    placed.emplace(times_.size());
  } else {
    placed_ends.emplace(groups_.size());
  }
  offsets.assign(groups_.size(), 0);
  int64_t heap = 0;
  for (size_t g : order) {
    const TempGroup& group = groups_[g];
    if (colocations_ != nullptr) {
      if (colocations_->leader[g] != g) continue;  // placed with its leader
      if (auto it = colocations_->sets.find(g); it != colocations_->sets.end()) {
        heap = std::max(heap, place_set(it->second, group.bytes, *placed, offsets, steps));
        continue;
      }
    }
    // The smallest gap that holds the group, the lowest of equal ones; else past them all.
    int64_t at = 0, best = -1, best_gap = std::numeric_limits<int64_t>::max();
    auto next = [&](const std::pair<int64_t, int64_t>& range) {  // in increasing order
      const auto& [lo, hi] = range;
      if (lo > at && lo - at >= group.bytes && lo - at < best_gap) {
        best = at;
        best_gap = lo - at;
      }
      at = std::max(at, hi);
    };
    size_t met = 0;
    if (placed) {
      met = placed->each_in_order(numbers_[g].first, numbers_[g].second, sized_, busy_,
                                  scratch_, next);
    } else {
      busy_.clear();
      const size_t starting_by = static_cast<size_t>(
          std::upper_bound(starts_.begin(), starts_.end(), group.end) - starts_.begin());
      placed_ends->each_at_least(starting_by, group.start, [&](size_t p) {
        busy_.push_back({offsets[p], offsets[p] + groups_[p].bytes});
      });
      std::sort(busy_.begin(), busy_.end());
      for (const auto& range : busy_) next(range);
      met = busy_.size();
    }
    steps += static_cast<int64_t>(met) + 1;
    if (best < 0) best = at;
    offsets[g] = best;
    if (placed) {
      placed->add(numbers_[g].first, numbers_[g].second, best, best + group.bytes);
    } else {
      placed_ends->set(g, group.end);
    }
    heap = std::max(heap, best + group.bytes);
  }
  return heap;
}

std::pair<size_t, size_t> BestFitHeap::numbers_of(int64_t start, int64_t end) const {
  const auto first = static_cast<size_t>(
      std::lower_bound(times_.begin(), times_.end(), start) - times_.begin());
  const auto last = static_cast<size_t>(
      std::upper_bound(times_.begin(), times_.end(), end) - times_.begin());
  return {first, last - 1};
}

int64_t BestFitHeap::place_set(const Colocations::Set& set, int64_t bytes,
                               PlacedRanges& placed, std::vector<int64_t>& offsets,
                               int64_t& steps) {
  met_.clear();
  for (const auto& [start, end] : set.lives) {
    const auto [first, last] = numbers_of(start, end);
    if (last == static_cast<size_t>(-1) || first > last) continue;
    steps += static_cast<int64_t>(placed.each_in_order(
        first, last, /*by_first=*/true, busy_, scratch_,
        [&](const std::pair<int64_t, int64_t>& range) { met_.push_back(range); }));
  }
  std::sort(met_.begin(), met_.end());
  int64_t at = 0, best = -1, best_gap = std::numeric_limits<int64_t>::max();
  for (const auto& [lo, hi] : met_) {
    if (lo > at && lo - at >= bytes && lo - at < best_gap) {
      best = at;
      best_gap = lo - at;
    }
    at = std::max(at, hi);
  }
  if (best < 0) best = at;
  ++steps;
  for (const auto& [start, end] : set.lives) {
    const auto [first, last] = numbers_of(start, end);
    if (last == static_cast<size_t>(-1) || first > last) continue;
    placed.add(first, last, best, best + bytes);
  }
  for (size_t m : set.members) offsets[m] = best;
  return best + bytes;
}

// The groups by (first, second) descending, then in order: largest first with longest first
// among equals (spatial), or the other way around (temporal). Their starts and ends lie in
// [0, clock] where the packed keys are used.
std::vector<size_t> heap_order(const std::vector<TempGroup>& groups, bool spatial,
                               int64_t clock) {
  std::vector<size_t> order(groups.size());
  // Each group's figures packed in one 128-bit key where they fit: its bytes (0 to
  // 2^63 - 1) largest first in 63 bits, its length (start and end in [0, clock]: at most the
  // clock either way) longest first in 33, its number in 31. Else the comparison below.
  const bool packable =
      clock < (int64_t{1} << 32) && groups.size() < (size_t{1} << 31) &&
      std::all_of(groups.begin(), groups.end(), [clock](const TempGroup& g) {
        return g.bytes >= 0 && g.start >= 0 && g.start <= clock && g.end >= 0 && g.end <= clock;
      });
  if (packable) {
    std::vector<absl::uint128> keys(groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto bytes =
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - groups[g].bytes);
      const auto length = static_cast<uint64_t>(clock - (groups[g].end - groups[g].start));
      keys[g] = spatial ? (absl::uint128(bytes) << 64) | (absl::uint128(length) << 31) | g
                        : (absl::uint128(length) << 94) | (absl::uint128(bytes) << 31) | g;
    }
    std::sort(keys.begin(), keys.end());
    for (size_t k = 0; k < keys.size(); ++k) {
      order[k] = static_cast<size_t>(absl::Uint128Low64(keys[k]) & 0x7fffffffu);
    }
    return order;
  }
  struct Key {
    int64_t first, second;
    size_t group;
  };
  std::vector<Key> keys(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const int64_t length = groups[g].end - groups[g].start;
    keys[g] = spatial ? Key{groups[g].bytes, length, g} : Key{length, groups[g].bytes, g};
  }
  std::sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
    if (x.first != y.first) return x.first > y.first;
    if (x.second != y.second) return x.second > y.second;
    return x.group < y.group;
  });
  for (size_t k = 0; k < keys.size(); ++k) order[k] = keys[k].group;
  return order;
}

// The most bytes the groups (in order of their start) live at one time hold together. No
// packing needs fewer: they meet one another, so no two share a byte.
absl::int128 most_live_bytes(const std::vector<TempGroup>& groups) {
  std::vector<std::pair<int64_t, int64_t>> by_end;  // end, bytes
  by_end.reserve(groups.size());
  for (const TempGroup& g : groups) {
    if (g.start <= g.end) by_end.push_back({g.end, g.bytes});
  }
  std::sort(by_end.begin(), by_end.end());
  absl::int128 live = 0, most = 0;
  size_t ended = 0;
  for (const TempGroup& g : groups) {  // in order of their start
    if (g.start > g.end) continue;
    for (; ended < by_end.size() && by_end[ended].first < g.start; ++ended) {
      live -= by_end[ended].second;
    }
    live += g.bytes;
    most = std::max(most, live);
  }
  return most;
}

}  // namespace hloroof::detail
