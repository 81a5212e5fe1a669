// The TPU and GPU temp allocation's heap: temporaries grouped where one takes over another's
// bytes, each group placed best-fit among the groups it meets in time (XLA's heap simulator,
// docs/memory.md, rule 6 and "On TPU"). buffer_assignment.cc decides what goes in the heap.
#ifndef HLOROOF_MEMORY_TEMP_HEAP_H_
#define HLOROOF_MEMORY_TEMP_HEAP_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"

namespace hloroof::detail {

// Temporaries that share bytes: a result that takes over a dying operand's bytes joins the
// operand's group. Groups are made in order of their start.
struct TempGroup {
  int64_t start = 0;
  int64_t end = 0;
  int64_t bytes = 0;
  int32_t first = -1;  // its values (indices into values), a list through next_member
  int32_t last = -1;
};

// Groups placed at one offset, as XLA places the values of one buffer at one address: each
// set's first group (its leader) is placed for the whole set, which blocks the bytes only over
// its `lives` (global times, both ends inclusive), so that other groups may use them between.
struct Colocations {
  std::vector<size_t> leader;  // per group: its set's leader (itself where it is in none)
  struct Set {
    std::vector<size_t> members;  // the leader first
    std::vector<std::pair<int64_t, int64_t>> lives;
  };
  absl::flat_hash_map<size_t, Set> sets;  // by leader
};

class PlacedRanges;

// A best-fit heap over groups made in order of their start: each group placed in the smallest
// gap that holds it among the groups placed before it that it meets in time.
//
// A placed group and a new one share a point of time exactly when both live at the later of
// their two starts, so times are numbered by the distinct starts: a group lives over the
// numbers from its start to the last start by its end. (A group that ends before it starts has
// no such numbers; then every placed group's time is tested against each new one's, by a max
// tree over their ends.)
class BestFitHeap {
 public:
  // `colocations` (or nullptr: none) must outlive the heap.
  explicit BestFitHeap(const std::vector<TempGroup>& groups,
                       const Colocations* colocations = nullptr);

  // Places the groups in `order`: each group's offset goes to `offsets`, the ranges met along
  // the way (and one per group) are added to `steps`. Returns the heap's bytes.
  int64_t place(const std::vector<size_t>& order, std::vector<int64_t>& offsets,
                int64_t& steps);

 private:
  // The numbers [first, last] of the starts inside [start, end]; first > last where none is.
  std::pair<size_t, size_t> numbers_of(int64_t start, int64_t end) const;

  // Places a colocated set of `bytes` in the smallest gap free over all of its lives (the
  // lowest of equal ones; else past them all); returns where it ends.
  int64_t place_set(const Colocations::Set& set, int64_t bytes, PlacedRanges& placed,
                    std::vector<int64_t>& offsets, int64_t& steps);

  const std::vector<TempGroup>& groups_;
  const Colocations* colocations_ = nullptr;
  std::vector<std::pair<int64_t, int64_t>> met_;  // place_set's ranges
  std::vector<int64_t> starts_;  // each group's
  bool ordered_lives_ = true;    // every group starts by its end
  std::vector<int64_t> times_;   // the distinct starts
  // Each group's numbers [first, last], where ordered_lives_.
  std::vector<std::pair<size_t, size_t>> numbers_;
  bool sized_ = true;
  // The placed byte ranges live beside a group: [first byte, end), in increasing order.
  std::vector<std::pair<int64_t, int64_t>> busy_, scratch_;
};

// The groups by (first, second) descending, then in order: largest first with longest first
// among equals (spatial), or the other way around (temporal). Their starts and ends lie in
// [0, clock] where the packed keys are used.
std::vector<size_t> heap_order(const std::vector<TempGroup>& groups, bool spatial,
                               int64_t clock);

// The most bytes the groups (in order of their start) live at one time hold together. No
// packing needs fewer: they meet one another, so no two share a byte.
absl::int128 most_live_bytes(const std::vector<TempGroup>& groups);

}  // namespace hloroof::detail

#endif  // HLOROOF_MEMORY_TEMP_HEAP_H_
