// The rules follow XLA's buffer_assignment.cc (BufferAssigner::AssignBuffersForComputations,
// AssignSingleHloBuffer, MaybeAssignBuffer, LiveRangeInterferes), heap_simulator.cc
// (HeapSimulator::RunComputation's operand sharing and one address for the values of one
// buffer, each holding it over its own live range; the global decreasing-size best-fit heap)
// and hlo_dataflow_analysis.cc (CanShareOperandBufferWithUser), read for their rules.
#include "memory/buffer_assignment.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/numeric/int128.h"
#include "absl/strings/numbers.h"
#include "absl/types/span.h"
#include "hloroof/computation.h"
#include "hloroof/instruction.h"
#include "hloroof/opcode.h"
#include "memory/max_tree.h"
#include "memory/shape_leaves.h"
#include "memory/temp_heap.h"
#include "hloroof/absl_compat.h"

namespace hloroof::detail {
namespace {

// Past this many temporaries in one memory space the best-fit heap tries only one order
// (each order meets every buffer with the placed ones live beside it).
constexpr size_t kSecondOrderLimit = 20000;

// Maps a figure to an unsigned one of the opposite order: sorting these in increasing order
// sorts the figures largest first.
uint64_t descending(int64_t figure) {
  return ~(static_cast<uint64_t>(figure) ^ (uint64_t{1} << 63));
}

// One value: a buffer over a range of global time (the schedule with bodies flattened in).
struct Value {
  int32_t buffer = -1;
  int64_t start = 0;
  int64_t end = 0;
};

// Sorts values by (start, end, buffer). Starts are times of the flattened schedule, below
// `clock`: where there are not many more times than values, each value is placed by a count
// of the starts before its own, and only the few values of one start (the leaves of one
// instruction) are sorted among themselves.
void sort_by_start(std::vector<Value>& values, int64_t clock) {
  auto less = [](const Value& a, const Value& b) {
    return std::tie(a.start, a.end, a.buffer) < std::tie(b.start, b.end, b.buffer);
  };
  const bool countable =
      clock >= 0 && clock / 4 <= static_cast<int64_t>(values.size()) &&
      values.size() < static_cast<size_t>(std::numeric_limits<int32_t>::max()) &&
      std::all_of(values.begin(), values.end(),
                  [clock](const Value& v) { return v.start >= 0 && v.start < clock; });
  if (!countable) {
    std::sort(values.begin(), values.end(), less);
    return;
  }
  std::vector<int32_t> first(static_cast<size_t>(clock) + 1, 0);  // of each start, then next
  for (const Value& v : values) ++first[v.start + 1];
  for (size_t t = 1; t < first.size(); ++t) first[t] += first[t - 1];
  std::vector<Value> sorted(values.size());
  for (const Value& v : values) sorted[first[v.start]++] = v;
  for (size_t k = 0; k < sorted.size();) {
    size_t end = k + 1;
    while (end < sorted.size() && sorted[end].start == sorted[k].start) ++end;
    if (end - k > 1 && !std::is_sorted(sorted.begin() + k, sorted.begin() + end, less)) {
      std::sort(sorted.begin() + k, sorted.begin() + end, less);
    }
    k = end;
  }
  values.swap(sorted);
}

// The values in one output or donated allocation, for the interference test. A value added
// after the test (`checked`) meets each earlier one at most at a shared end point, so in
// (start, end) order their ends never decrease: a test walks back from the last value that
// starts by the new one's end and stops at the first that ends before the new one starts.
// An allocation's first values, added untested, are tested one by one. Most allocations hold
// one value: that one is kept in place, and the ordered set is made for a second.
class AllocationValues {
 public:
  void add(const Value& v, bool checked) {
    if (checked && v.start <= v.end) {
      if (ordered_ == nullptr) ordered_ = std::make_unique<std::set<Value, ByStartEnd>>();
      ordered_->insert(v);
    } else {
      loose_.push_back(v);
    }
  }
  // True when `interferes(v, u)` for a value u of the allocation.
  template <typename Interferes>
  bool any_interferes(const Value& v, Interferes&& interferes) const {
    for (const Value& u : loose_) {
      if (interferes(v, u)) return true;
    }
    if (ordered_ == nullptr) return false;
    auto it = ordered_->upper_bound(Value{std::numeric_limits<int32_t>::max(), v.end,
                                         std::numeric_limits<int64_t>::max()});
    while (it != ordered_->begin()) {
      --it;
      if (it->end < v.start) break;
      if (interferes(v, *it)) return true;
    }
    return false;
  }
  // The untested values: what any later value must fit around.
  absl::Span<const Value> first_values() const { return loose_; }

 private:
  struct ByStartEnd {
    bool operator()(const Value& a, const Value& b) const {
      return std::tie(a.start, a.end, a.buffer) < std::tie(b.start, b.end, b.buffer);
    }
  };
  absl::InlinedVector<Value, 1> loose_;
  std::unique_ptr<std::set<Value, ByStartEnd>> ordered_;
};

// The output and donated allocations of one memory space, in creation order, each with the
// lives of its first values, for a test that a value v may go there: v may go only if it
// overlaps none of them by more than an end point, that is, for each u: v ends by u's start
// or starts at u's end or later. With L the one that ends last and the others O, that holds
// only if v starts at L's end or later (then it starts after every u's end too), or v ends by
// every start, or v ends by L's start and starts at the earliest end of O or later (if it
// ends after some u's start, it starts at that u's end or later). A max tree over each bound
// (the last two together) finds the latest allocation a value may go to, skipping those it
// surely cannot.
class ReusableAllocations {
 public:
  void add(int32_t allocation, absl::Span<const Value> first_values) {
    const size_t slot = allocations_.size();
    if (slot == capacity_) grow();
    const Value* last = nullptr;
    for (const Value& u : first_values) {
      if (last == nullptr || u.end > last->end) last = &u;
    }
    if (last == nullptr || last->start > last->end) {  // nothing to fit around
      end_by_.set(slot, std::numeric_limits<int64_t>::max());
    } else {
      int64_t end_by = last->start;
      int64_t earliest_end = std::numeric_limits<int64_t>::max();
      for (const Value& u : first_values) {
        if (&u == last) continue;
        end_by = std::min(end_by, u.start);
        earliest_end = std::min(earliest_end, u.end);
      }
      end_by_.set(slot, end_by);
      minus_start_from_.set(slot, -last->end);
      if (earliest_end != std::numeric_limits<int64_t>::max()) {  // there are others
        if (!gaps_) {  // the first allocation with a gap: its trees made now, none set yet
          gaps_ = true;
          gap_end_by_ = MaxTree(capacity_);
          minus_gap_start_from_ = MaxTree(capacity_);
        }
        gap_end_by_.set(slot, last->start);
        minus_gap_start_from_.set(slot, earliest_end == std::numeric_limits<int64_t>::min()
                                            ? std::numeric_limits<int64_t>::max()
                                            : -earliest_end);
      }
    }
    allocations_.push_back(allocation);
  }
  // Calls try_one(allocation) from the latest allocation back to the first one that may take
  // a value living [start, end], until it returns true; false when none did. The allocations
  // skipped are those try_one would refuse.
  template <typename TryOne>
  bool try_latest_first(int64_t start, int64_t end, TryOne&& try_one) const {
    for (size_t limit = allocations_.size(); limit > 0;) {
      const int64_t slot = std::max(
          {end_by_.last_at_least(limit, end), minus_start_from_.last_at_least(limit, -start),
           gaps_
               ? MaxTree::last_at_least_both(gap_end_by_, end, minus_gap_start_from_, -start, limit)
               : int64_t{-1}});
      if (slot < 0) return false;
      if (try_one(allocations_[slot])) return true;
      limit = static_cast<size_t>(slot);
    }
    return false;
  }

 private:
  // Twice the slots, each tree remade from its own leaves: they are the figures' only copy
  // (a slot not set keeps MaxTree::kNone, which no bound reaches).
  void grow() {
    capacity_ = std::max<size_t>(16, 2 * capacity_);
    allocations_.reserve(capacity_);
    const size_t count = allocations_.size();
    for (MaxTree* tree : {&end_by_, &minus_start_from_}) *tree = tree->regrown(capacity_, count);
    if (gaps_) {
      for (MaxTree* tree : {&gap_end_by_, &minus_gap_start_from_}) {
        *tree = tree->regrown(capacity_, count);
      }
    }
  }

  std::vector<int32_t> allocations_;  // by slot, in creation order
  size_t capacity_ = 0;
  // By slot: a value ending by end_by may go there, or one starting at -minus_start_from or
  // later, or one meeting both gap bounds (the others ending by gap_end_by and starting at
  // -minus_gap_start_from or later). Most allocations hold one first value and no gap: the gap
  // trees are made only once one has (a million outputs: 34 MB not held).
  MaxTree end_by_{1}, minus_start_from_{1}, gap_end_by_{1}, minus_gap_start_from_{1};
  bool gaps_ = false;
};

// Global time of every position: the schedule of the entry, each loop, call or conditional
// body laid out where it runs (as XLA's HloLiveRange flattens a module).
struct Times {
  std::vector<int64_t> start;  // when the instruction at a position starts
  std::vector<int64_t> end;    // when it ends, after the bodies it runs
  int64_t stretch = -1;        // an async body: its buffers live until the caller's done
};

// True when every transitive user of `i` inside a fusion reads it elementwise or passes it
// on in a tuple (XLA's AreTransitiveUsesElementwiseOrTuple). Each instruction is visited once.
bool uses_elementwise_or_tuple(const Instruction& i) {
  std::vector<const Instruction*> stack = {&i};
  absl::flat_hash_set<const Instruction*> seen = {&i};
  while (!stack.empty()) {
    const Instruction* at = stack.back();
    stack.pop_back();
    for (const Instruction* user : at->users()) {
      if (user->opcode() != Opcode::kTuple && !is_elementwise(user->opcode())) return false;
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return true;
}

// May `user` write its result over operand `operand_number` (XLA: elementwise ops, and loop
// or input fusions whose parameter is only read elementwise; output fusions too where
// `output_fusions` says so)?
bool elementwise_in_operand(const Instruction& user, int64_t operand_number, bool output_fusions) {
  if (is_elementwise(user.opcode())) return true;
  if (user.opcode() != Opcode::kFusion) return false;
  const std::string_view kind = user.fusion_kind();
  if (kind != "kLoop" && kind != "kInput" && !(output_fusions && kind == "kOutput")) return false;
  const Computation* fused = user.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return false;
  for (const Instruction* parameter : fused->parameters()) {
    if (parameter != nullptr && parameter->parameter_number() == operand_number) {
      return uses_elementwise_or_tuple(*parameter);
    }
  }
  return false;
}

// An integer or predicate scalar: what a loop counter or a branch's predicate is.
bool is_control_scalar(const Shape& shape) {
  if (!shape.is_array() || shape.rank() != 0) return false;
  switch (shape.element_type) {
    case PrimitiveType::kPred:
    case PrimitiveType::kS32:
    case PrimitiveType::kU32:
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

// The order in which XLA's BufferAssigner takes buffers of equal size (live-out ones first):
// by the post-order position of the instruction that defines them, numbered over the
// computations in reverse post order of the call graph (the entry first; of two callees, the
// later-called first) and, within a computation, in its instructions' post order (operands
// before users, the first operand first). A value an async-start returns (its element {1})
// is defined in the computation the start wraps, so it comes after every value of its caller
// (AssignBuffersForComputations' sort, CallGraph::VisitNodes, MakeInstructionPostOrder).
class ProcessingOrder {
 public:
  explicit ProcessingOrder(const ModuleLiveness& liveness) : liveness_(liveness) {
    std::vector<Node> post_order;
    absl::flat_hash_set<const void*> seen;
    visit({liveness.entry().computation, nullptr}, 0, seen, post_order);
    for (auto node = post_order.rbegin(); node != post_order.rend(); ++node) {
      if (node->computation == nullptr) {
        wrapped_[node->async_start] = next_++;
        continue;
      }
      // Only computations with buffers of their own (not fused or applied ones) are numbered.
      if (const ComputationLiveness* c = liveness.of(node->computation)) number_post_order(*c);
    }
  }

  // Where `b` comes among buffers of equal size and liveness out.
  int64_t of(const Buffer& b) const {
    const Instruction* i = b.instruction;
    if (i == nullptr) return next_;
    if (i->opcode() == Opcode::kAsyncStart && i->shape().is_tuple() &&
        i->shape().elements.size() >= 2) {
      const int64_t first = leaf_count(i->shape().elements[0]);
      if (b.leaf >= first && b.leaf < first + leaf_count(i->shape().elements[1])) {
        if (const Computation* c = i->computation_attribute(AttrId::kCalls)) {
          if (c->root() != nullptr) {
            if (const int32_t r = rank(*c->root(), -1); r >= 0) return r;
          }
        }
        if (auto it = wrapped_.find(i); it != wrapped_.end()) return it->second;
      }
    }
    // A buffer of a computation's own is defined at its position `from`.
    const int32_t r = rank(*i, b.whole_step ? -1 : b.from);
    return r >= 0 ? r : next_;
  }

 private:
  // A call-graph node: a computation, or the computation an async-start printed without
  // `calls=` wraps (`all-to-all-start(...)`), which the text does not name.
  struct Node {
    const Computation* computation = nullptr;
    const Instruction* async_start = nullptr;
  };
  // Of an instruction not (yet) numbered.
  static constexpr int32_t kUnseen = -1;
  static constexpr int32_t kEntered = -2;

  static void visit(const Node& node, int depth, absl::flat_hash_set<const void*>& seen,
                    std::vector<Node>& post_order) {
    const void* id = node.computation != nullptr ? static_cast<const void*>(node.computation)
                                                 : static_cast<const void*>(node.async_start);
    if (!seen.insert(id).second) return;
    // Calls nested deeper than the liveness flattens them (Assigner::flatten) are not ordered.
    if (node.computation != nullptr && depth < 200) {
      for (const Instruction* i : node.computation->instructions()) {
        for (const Computation* callee : i->called_computations()) {
          visit({callee, nullptr}, depth + 1, seen, post_order);
        }
        if (i->opcode() == Opcode::kAsyncStart && i->uses_async_sugar() &&
            i->computation_attribute(AttrId::kCalls) == nullptr) {
          visit({nullptr, i}, depth + 1, seen, post_order);
        }
      }
    }
    post_order.push_back(node);
  }

  // The number of `i` (at schedule position `position` of its computation, -1: to be looked
  // up), or a negative value when it has none.
  int32_t rank(const Instruction& i, int64_t position) const {
    const ComputationLiveness* c = liveness_.of(i.parent());
    if (c == nullptr) return kUnseen;
    auto it = ranks_.find(c);
    if (it == ranks_.end()) return kUnseen;
    if (position < 0) position = c->leaves.position_of(&i);
    if (position < 0 || position >= static_cast<int64_t>(it->second.size())) return kUnseen;
    return it->second[position];
  }

  // Numbers c's instructions in depth-first post order from each instruction no other uses (in
  // the computation's order), operands in order, then control predecessors. An instruction is
  // marked entered when met, and numbered when its operands are. Numbers are kept by schedule
  // position.
  void number_post_order(const ComputationLiveness& liveness) {
    const Computation& c = *liveness.computation;
    const absl::Span<Instruction* const> schedule = c.instructions();
    std::vector<int32_t>& ranks = ranks_[&liveness];
    ranks.assign(schedule.size(), kUnseen);
    // The path walked down, as deep as the longest chain of operands (a million entries in a
    // chain of a million): 16 bytes each, an instruction's control predecessors asked for
    // once its operands are walked (few have any).
    struct Entry {
      const Instruction* at;
      int32_t position;  // as the ranks are, 32-bit
      uint32_t next;     // edge
    };
    std::vector<Entry> stack;
    auto enter = [&](const Instruction* i, int64_t position) {
      if (position < 0 || ranks[position] != kUnseen) return;
      ranks[position] = kEntered;
      stack.push_back({i, static_cast<int32_t>(position), 0});
    };
    for (size_t p = 0; p < schedule.size(); ++p) {
      const Instruction* start = schedule[p];
      if (!start->users().empty()) continue;
      enter(start, static_cast<int64_t>(p));
      while (!stack.empty()) {
        Entry& e = stack.back();
        const size_t operands = e.at->operand_count();
        const absl::Span<Instruction* const> control =
            e.next < operands ? absl::Span<Instruction* const>() : e.at->control_predecessors();
        if (e.next < operands + control.size()) {
          const Instruction* to = e.next < operands ? e.at->operand(e.next)
                                                    : control[e.next - operands];
          ++e.next;
          if (to->parent() == &c) enter(to, liveness.leaves.position_of(to));
          continue;
        }
        ranks[e.position] = static_cast<int32_t>(next_++);
        stack.pop_back();
      }
    }
  }

  const ModuleLiveness& liveness_;
  // By schedule position, of each computation numbered.
  absl::flat_hash_map<const ComputationLiveness*, std::vector<int32_t>> ranks_;
  absl::flat_hash_map<const Instruction*, int64_t> wrapped_;
  int64_t next_ = 0;
};

// The groups of one memory space's temporaries, and the lists of their values.
struct TempGroups {
  std::vector<TempGroup> groups;
  std::vector<int32_t> next_member;  // by index into values; -1: the last of its group
};

// A buffer with memory of its own, with its value(s), as the assignment orders them: one per
// buffer, and one for a run of a parameter's read-only leaves that are alike (their
// consecutive ids sort together: everything else the order compares is the same). What the
// order compares is in the item itself.
struct BufferItem {
  int32_t id;
  int32_t rank;   // XLA's post order of the definition (ProcessingOrder)
  int32_t count;  // buffers id .. id + count - 1
  bool is_output;
  int64_t bytes;  // padded
  int64_t start;
  int64_t end;
};

bool read_only_parameter(const Buffer& b) {
  return b.kind == BufferKind::kParameter && !b.donated;
}

// Puts the items in the order of `keys` (whose low 32 bits name a place in `items`) where
// they lie, a cycle of the permutation at a time (a sorted copy held the items twice): place
// k takes the item the k-th key names. The places are walked in a copy of 4 bytes each (a
// quarter of the keys', so that the walk stays in cache while the items it moves do not: the
// item eight places further along the cycle is prefetched), a place filled set to itself so
// that each cycle is walked once.
void permute_to_keys(std::vector<BufferItem>& items, const std::vector<absl::uint128>& keys) {
  std::vector<uint32_t> place(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    place[k] = static_cast<uint32_t>(absl::Uint128Low64(keys[k]));
  }
  for (size_t k = 0; k < place.size(); ++k) {
    if (place[k] == k) continue;
    const BufferItem first = items[k];
    size_t to = k;
    size_t ahead = k;
    for (int step = 0; step < 8; ++step) __builtin_prefetch(&items[ahead = place[ahead]]);
    for (size_t from = place[to]; from != k; to = from, from = place[to]) {
      __builtin_prefetch(&items[ahead = place[ahead]]);
      items[to] = items[from];
      place[to] = static_cast<uint32_t>(to);
    }
    items[to] = first;
    place[to] = static_cast<uint32_t>(to);
  }
}

// Largest first; live-out first among equals; then in XLA's post order of the definitions,
// then by start and id (the ids make the order total: any sort gives the one order).
// Sorted as keys of two words: the size, and live-out, rank and place in `items` (which is
// in id order) packed in the other where ranks fit in 31 bits (none negative) and places in
// 32. Only items alike in all three but the place (a tuple's leaves) are then put in order
// of their start where that differs from the ids'.
void sort_items(std::vector<BufferItem>& items) {
  const bool packable =
      items.size() <= (size_t{1} << 32) &&
      std::all_of(items.begin(), items.end(),
                  [](const BufferItem& item) { return item.rank >= 0; });
  if (!packable) {
    std::sort(items.begin(), items.end(), [](const BufferItem& a, const BufferItem& b) {
      if (a.bytes != b.bytes) return a.bytes > b.bytes;
      if (a.is_output != b.is_output) return a.is_output;
      if (a.rank != b.rank) return a.rank < b.rank;
      if (a.start != b.start) return a.start < b.start;
      return a.id < b.id;
    });
    return;
  }
  std::vector<absl::uint128> keys(items.size());
  for (size_t k = 0; k < items.size(); ++k) {
    const BufferItem& item = items[k];
    keys[k] = absl::MakeUint128(descending(item.bytes),
                                (uint64_t{!item.is_output} << 63) |
                                    (static_cast<uint64_t>(item.rank) << 32) | k);
  }
  std::sort(keys.begin(), keys.end());
  permute_to_keys(items, keys);
  // Then each run alike in all but the place, in order of start and id.
  auto by_start = [](const BufferItem& a, const BufferItem& b) {
    return std::tie(a.start, a.id) < std::tie(b.start, b.id);
  };
  for (size_t k = 0; k < keys.size();) {
    size_t end = k + 1;
    while (end < keys.size() && absl::Uint128High64(keys[end]) == absl::Uint128High64(keys[k]) &&
           absl::Uint128Low64(keys[end]) >> 32 == absl::Uint128Low64(keys[k]) >> 32) {
      ++end;
    }
    const auto first = items.begin() + static_cast<std::ptrdiff_t>(k);
    const auto last = items.begin() + static_cast<std::ptrdiff_t>(end);
    if (!std::is_sorted(first, last, by_start)) std::sort(first, last, by_start);
    k = end;
  }
}

// Output and donated allocations, in creation order, by memory space.
using ReusableBySpace = absl::flat_hash_map<int64_t, ReusableAllocations>;

class Assigner {
 public:
  Assigner(const ModuleLiveness& liveness, absl::Span<const int32_t> lives_of,
           const AssignmentRules& rules)
      : liveness_(liveness), rules_(rules) {
    for (int32_t id : lives_of) out_.lives[id] = {-1, -1};
  }

  ModuleAssignment run();

 private:
  void flatten(const ComputationLiveness& c, int depth);
  std::optional<Value> value_of(int32_t id) const;
  bool can_share(const Value& operand, const Value& user) const;
  bool interferes(const Value& a, const Value& b) const;
  bool try_assign(int32_t allocation, int32_t id, const Value& v);
  // `checked`: v was tested against the allocation's values (try_assign).
  void assign(int32_t allocation, int32_t id, const Value& v, int64_t offset,
              bool checked = false);
  int32_t new_allocation(AllocationKind kind, const Buffer& b);
  // The allocation numbered `index`. Runs are made whole (place_parameter_run): every
  // allocation given a buffer one at a time is its own record.
  Allocation& record(int32_t index) {
    return out_.allocations[&out_.allocation(index) - out_.allocations.data()];
  }
  std::vector<BufferItem> collect_items() const;
  void reserve_records(const std::vector<BufferItem>& items);
  void place_parameter_run(const BufferItem& item);
  void place_parameter(const BufferItem& item, const Value& value, ReusableBySpace& reusable);
  bool try_reuse(int32_t id, const Value& value, ReusableBySpace& reusable);
  TempGroups group_temporaries(const std::vector<Value>& values, int64_t alignment);
  // `bytes` rounded up to a multiple of `a`.
  static int64_t aligned(int64_t bytes, int64_t a) {
    if (a <= 1 || bytes % a == 0 || bytes > std::numeric_limits<int64_t>::max() - a) return bytes;
    return bytes + (a - bytes % a);
  }
  void pack_temporaries(int64_t memory_space, std::vector<Value> values);
  // AssignmentRules::sparse_core_stacks_share: the async-start on thread "sparsecore" whose
  // offload's stack buffer `id` is, or nullptr.
  const Instruction* sparse_core_stack_start(int32_t id);
  Colocations sparse_core_stacks(const std::vector<Value>& values, const TempGroups& grouped);
  // liveness_.leaves_of, keeping the last computation's analysis: calls in a row mostly ask
  // about instructions of one computation.
  absl::Span<const int32_t> leaves_of(const Instruction& i) const {
    if (i.parent() != last_computation_) {
      last_computation_ = i.parent();
      last_liveness_ = liveness_.of(i.parent());
    }
    return last_liveness_ == nullptr ? absl::Span<const int32_t>() : last_liveness_->leaves.of(&i);
  }

  const ModuleLiveness& liveness_;
  const AssignmentRules rules_;
  ModuleAssignment out_;
  std::unordered_map<const ComputationLiveness*, Times> times_;
  int64_t clock_ = 0;
  // The values of each output or donated allocation (the others take no second value), made
  // when first asked for; values_at_ holds where, by the allocation's record (-1: none).
  AllocationValues& values_in(int32_t allocation) {
    const auto at = static_cast<size_t>(&record(allocation) - out_.allocations.data());
    if (at >= values_at_.size()) values_at_.resize(out_.allocations.size(), -1);
    int32_t& slot = values_at_[at];
    if (slot < 0) {
      slot = static_cast<int32_t>(values_.size());
      values_.emplace_back();
    }
    return values_[slot];
  }
  std::vector<AllocationValues> values_;
  std::vector<int32_t> values_at_;
  // Each async-update's chain start (sparse_core_stack_start's).
  absl::flat_hash_map<const Instruction*, const Instruction*> chain_start_;
  mutable const Computation* last_computation_ = nullptr;  // leaves_of's
  mutable const ComputationLiveness* last_liveness_ = nullptr;
};

void Assigner::flatten(const ComputationLiveness& c, int depth) {
  const int64_t n = c.size();
  Times& t = times_[&c];  // unordered_map: references stay valid while bodies are added
  t.start.assign(n, 0);
  t.end.assign(n, 0);
  // The windows by start position, in their order, so each position sees only its own.
  std::vector<const ComputationLiveness::Window*> windows;
  windows.reserve(c.windows.size());
  for (const ComputationLiveness::Window& w : c.windows) {
    if (w.from >= 0 && w.from < n) windows.push_back(&w);
  }
  std::stable_sort(windows.begin(), windows.end(),
                   [](const auto* a, const auto* b) { return a->from < b->from; });
  size_t next = 0;
  std::vector<std::pair<const ComputationLiveness*, int64_t>> async_bodies;
  for (int64_t p = 0; p < n; ++p) {
    t.start[p] = clock_++;
    for (; next < windows.size() && windows[next]->from == p; ++next) {
      const ComputationLiveness::Window& w = *windows[next];
      for (const ComputationLiveness* body : w.bodies) {
        if (depth < 200 && !times_.contains(body)) flatten(*body, depth + 1);
        if (w.to > w.from) async_bodies.push_back({body, w.to});
      }
    }
    t.end[p] = std::max(t.start[p], clock_ - 1);
  }
  for (const auto& [body, to] : async_bodies) {
    auto it = times_.find(body);
    if (it != times_.end() && to < n) it->second.stretch = std::max(it->second.stretch, t.end[to]);
  }
}

std::optional<Value> Assigner::value_of(int32_t id) const {
  const Buffer& b = liveness_.buffers()[id];
  const ComputationLiveness* c =
      b.whole_step ? &liveness_.entry() : liveness_.of(b.computation());
  if (c == nullptr) return std::nullopt;
  auto it = times_.find(c);
  if (it == times_.end() || it->second.start.empty()) return std::nullopt;
  const Times& t = it->second;
  const int64_t last = static_cast<int64_t>(t.start.size()) - 1;
  Value v{id, 0, 0};
  if (b.whole_step) {
    v.end = b.last_use >= 0 ? t.end[std::min<int64_t>(b.last_use, last)] : 0;
    return v;
  }
  v.start = t.start[std::clamp<int64_t>(b.from, 0, last)];
  v.end = std::max(t.end[std::clamp<int64_t>(b.to, 0, last)], t.stretch);
  if (b.is_output) v.end = clock_;  // live out: to the end of the program
  return v;
}

// XLA's CanShareOperandBufferWithUser as the heap simulator and LiveRangeInterferes use it:
// the user reads the operand's buffer directly, is not a copy, and is elementwise in it (or,
// by the TPU's rule, an all-reduce of it: of it alone, or result k of an all-reduce of several
// operands, operand k, where that operand is its instruction's whole result, not an element of
// a tuple) with the same shape and layout. The TPU compiler writes each result of a two-operand
// all-reduce over its operand's bytes (tests/data/xla/tpu_v5e_2x2/mlp_tp: the weight gradient
// `fusion` and `all-reduce.4{0}` at one offset of the temp allocation), but not over an element
// of a multi-output fusion (transformer_fsdp's `all-reduce.17{1}`, of `fusion.87{0}`).
bool Assigner::can_share(const Value& operand, const Value& user) const {
  const Buffer& o = liveness_.buffers()[operand.buffer];
  const Buffer& u = liveness_.buffers()[user.buffer];
  const Instruction* i = u.instruction;
  if (i == nullptr || i->opcode() == Opcode::kCopy || o.shape() == nullptr ||
      u.shape() == nullptr) {
    return false;
  }
  if (!(*o.shape() == *u.shape())) return false;
  for (size_t k = 0; k < i->operand_count(); ++k) {
    for (int32_t id : leaves_of(*i->operand(k))) {
      if (id == operand.buffer) {
        if (!rules_.share_copied_operands && i->operand(k)->opcode() == Opcode::kCopyDone) {
          return false;
        }
        if (rules_.all_reduce_in_place && i->opcode() == Opcode::kAllReduce &&
            (i->operand_count() == 1 ||
             (u.leaf == static_cast<int32_t>(k) && !o.instruction->shape().is_tuple()))) {
          return true;
        }
        return elementwise_in_operand(*i, static_cast<int64_t>(k), rules_.output_fusions_share);
      }
    }
  }
  return false;
}

bool Assigner::interferes(const Value& a, const Value& b) const {
  if (a.start > b.end || b.start > a.end) return false;
  if (a.end == b.start) return !can_share(a, b);
  if (b.end == a.start) return !can_share(b, a);
  return true;
}

void Assigner::assign(int32_t allocation, int32_t id, const Value& v, int64_t offset,
                      bool checked) {
  Allocation& a = record(allocation);
  if (a.last_buffer >= 0) {
    if (out_.next_in_allocation.empty()) {
      out_.next_in_allocation.assign(out_.allocation_of.size(), -1);
    }
    out_.next_in_allocation[a.last_buffer] = id;
  } else {
    a.first_buffer = id;
  }
  a.last_buffer = id;
  ++a.buffer_count;
  out_.allocation_of[id] = allocation;
  if (offset != 0) {
    if (out_.offsets.empty()) out_.offsets.assign(out_.allocation_of.size(), 0);
    out_.offsets[id] = offset;
  }
  if (auto it = out_.lives.find(id); it != out_.lives.end()) it->second = {v.start, v.end};
  if (a.maybe_live_out) values_in(allocation).add(v, checked);
}

// MaybeAssignBuffer: same memory space, not larger, a writable allocation (an output or a
// donated parameter), no live range overlap, and a live-out buffer only into its exact size.
bool Assigner::try_assign(int32_t allocation, int32_t id, const Value& v) {
  ++out_.steps;
  const Allocation& a = out_.allocation(allocation);
  const Buffer& b = liveness_.buffers()[id];
  if (a.memory_space != b.memory_space() || b.padded_bytes() > a.bytes || !a.maybe_live_out) {
    return false;
  }
  if (b.is_output && b.padded_bytes() != a.bytes) return false;
  if (values_in(allocation).any_interferes(v, [this](const Value& x, const Value& y) {
        ++out_.steps;
        return interferes(x, y);
      })) {
    return false;
  }
  assign(allocation, id, v, 0, /*checked=*/true);
  return true;
}

int32_t Assigner::new_allocation(AllocationKind kind, const Buffer& b) {
  Allocation a;
  a.kind = kind;
  a.memory_space = b.memory_space();
  a.bytes = b.padded_bytes();
  a.index = out_.allocation_count++;
  out_.allocations.push_back(a);
  return a.index;
}

// Groups the temporaries (sorted by start): a value takes over the group of an operand's value
// that ends where it starts, where XLA lets the two share (each operand's value at most once).
TempGroups Assigner::group_temporaries(const std::vector<Value>& values, int64_t alignment) {
  const std::vector<Buffer>& buffers = liveness_.buffers();
  TempGroups out;
  std::vector<TempGroup>& groups = out.groups;
  const auto count = static_cast<int32_t>(values.size());
  out.next_member.assign(values.size(), -1);
  std::vector<int32_t> group_of(values.size(), -1);
  std::vector<bool> taken(values.size(), false);  // operands already shared at their last use
  // Indices into values by buffer id, over the ids they span; -1: no temporary of this space.
  int32_t lowest = std::numeric_limits<int32_t>::max(), highest = -1;
  for (const Value& v : values) {
    lowest = std::min(lowest, v.buffer);
    highest = std::max(highest, v.buffer);
  }
  std::vector<int32_t> value_index(values.empty() ? 0 : highest - lowest + 1, -1);
  for (int32_t k = 0; k < count; ++k) value_index[values[k].buffer - lowest] = k;
  for (int32_t k = 0; k < count; ++k) {
    const Value& v = values[k];
    const Buffer& b = buffers[v.buffer];
    int32_t shared = -1;
    if (b.instruction != nullptr) {
      for (const Instruction* operand : b.instruction->operands()) {
        for (int32_t id : leaves_of(*operand)) {
          if (id < lowest || id > highest) continue;
          const int32_t o = value_index[id - lowest];
          if (o < 0 || taken[o]) continue;
          if (values[o].end != v.start || !can_share(values[o], v)) continue;
          shared = group_of[o];
          taken[o] = true;
          if (out_.shared.empty()) out_.shared.assign(out_.allocation_of.size(), -1);
          out_.shared[v.buffer] = id;
          break;
        }
        if (shared >= 0) break;
      }
    }
    const int64_t bytes = aligned(b.padded_bytes(), alignment);
    if (shared >= 0) {
      TempGroup& g = groups[shared];
      g.end = std::max(g.end, v.end);
      g.bytes = std::max(g.bytes, bytes);
      out.next_member[g.last] = k;
      g.last = k;
      group_of[k] = shared;
      ++out_.shared_with_operand;
    } else {
      group_of[k] = static_cast<int32_t>(groups.size());
      groups.push_back({v.start, v.end, bytes, k, k});
    }
  }
  return out;
}

// The bytes of a SparseCore offload's stack as its start's backend_config gives them
// (sparse_core_config's stack_size_high_watermark), or -1.
int64_t stack_watermark(const Instruction& start) {
  return start.backend_config()
      .find_int("/sparse_core_config/stack_size_high_watermark")
      .value_or(-1);
}

const Instruction* Assigner::sparse_core_stack_start(int32_t id) {
  const Buffer& b = liveness_.buffers()[id];
  const Instruction* i = b.instruction;
  if (i == nullptr || b.memory_space() != kDefaultMemorySpace) return nullptr;
  if (i->opcode() != Opcode::kAsyncStart && i->opcode() != Opcode::kAsyncUpdate) return nullptr;
  const int64_t stack_index[] = {2, 0};
  const std::optional<LeafRange> stack = leaf_range(i->shape(), stack_index);
  if (!stack || stack->count != 1 || stack->first != b.leaf) return nullptr;
  // The chain's start: operand 0 of each update, up to the first instruction that is none (the
  // updates met on the way are remembered, so that a chain is walked once).
  const Instruction* start = i;
  std::vector<const Instruction*> path;
  while (start->opcode() == Opcode::kAsyncUpdate && start->operand_count() > 0) {
    if (auto it = chain_start_.find(start); it != chain_start_.end()) {
      start = it->second;
      break;
    }
    path.push_back(start);
    start = start->operand(0);
  }
  for (const Instruction* update : path) chain_start_[update] = start;
  if (start->opcode() != Opcode::kAsyncStart ||
      start->string_attribute(AttrId::kAsyncExecutionThread) != "sparsecore") {
    return nullptr;
  }
  return stack_watermark(*start) == b.padded_bytes() ? start : nullptr;
}

// The SparseCore stacks among one memory space's temporaries, as sets by their bytes: each
// call's stack (its start's element {2,0} and its updates', one buffer in XLA by their
// output_to_operand_aliasing) lives from the first of them to the last, and every call's of
// one size takes one place. Only groups of one value are taken.
Colocations Assigner::sparse_core_stacks(const std::vector<Value>& values,
                                         const TempGroups& grouped) {
  Colocations out;
  const std::vector<TempGroup>& groups = grouped.groups;
  absl::flat_hash_map<int64_t, size_t> leader_of;                // by bytes
  absl::flat_hash_map<const Instruction*, size_t> life_of_call;  // into its set's lives
  for (size_t g = 0; g < groups.size(); ++g) {  // in order of their start
    const TempGroup& group = groups[g];
    if (group.first < 0 || group.first != group.last) continue;
    const Value& v = values[group.first];
    const Instruction* start = sparse_core_stack_start(v.buffer);
    if (start == nullptr) continue;
    if (out.leader.empty()) {
      out.leader.resize(groups.size());
      std::iota(out.leader.begin(), out.leader.end(), size_t{0});
    }
    const size_t leader = leader_of.try_emplace(group.bytes, g).first->second;
    Colocations::Set& set = out.sets[leader];
    out.leader[g] = leader;
    set.members.push_back(g);
    const auto [call, new_call] = life_of_call.try_emplace(start, set.lives.size());
    if (new_call) {
      set.lives.push_back({v.start, v.end});
    } else {
      auto& [from, to] = set.lives[call->second];
      from = std::min(from, v.start);
      to = std::max(to, v.end);
    }
  }
  return out;
}

// The heap simulator over the temporaries of one memory space: results take over a dying
// operand's bytes where XLA allows it, then a best-fit heap places the groups, largest first
// or longest-lived first, whichever needs less (XLA's ChooseBestHeapAlgorithm), or in order
// of their first use (AssignmentRules::program_order_heap).
void Assigner::pack_temporaries(int64_t memory_space, std::vector<Value> values) {
  sort_by_start(values, clock_);
  // Only device memory's heap is aligned (the TPU compiler's on-chip ones are not).
  const TempGroups grouped = group_temporaries(
      values, memory_space == kDefaultMemorySpace ? rules_.alignment : int64_t{1});
  const std::vector<TempGroup>& groups = grouped.groups;
  const Colocations stacks = rules_.sparse_core_stacks_share && memory_space == kDefaultMemorySpace
                                 ? sparse_core_stacks(values, grouped)
                                 : Colocations();
  BestFitHeap heap_of(groups, &stacks);
  std::vector<int64_t> offsets, other;
  std::vector<size_t> in_order;
  if (rules_.program_order_heap) {  // the groups are made in order of their start
    in_order.resize(groups.size());
    std::iota(in_order.begin(), in_order.end(), size_t{0});
    // Of the groups whose lives begin together, the longest-lived first (a set's leader lives
    // as long as its first life).
    auto end_of = [&](size_t g) {
      auto it = stacks.sets.find(g);
      return it == stacks.sets.end() ? groups[g].end : it->second.lives.front().second;
    };
    std::stable_sort(in_order.begin(), in_order.end(), [&](size_t a, size_t b) {
      if (groups[a].start != groups[b].start) return groups[a].start < groups[b].start;
      return end_of(a) > end_of(b);
    });
  }
  int64_t heap = heap_of.place(
      rules_.program_order_heap ? in_order : heap_order(groups, /*spatial=*/true, clock_),
      offsets, out_.steps);
  // When the first order reaches the most bytes live at one time the second, kept only when
  // it needs fewer, cannot win: it is not run.
  if (!rules_.program_order_heap && groups.size() <= kSecondOrderLimit &&
      heap > most_live_bytes(groups)) {
    const int64_t second =
        heap_of.place(heap_order(groups, /*spatial=*/false, clock_), other, out_.steps);
    if (second < heap) {
      heap = second;
      offsets.swap(other);
    }
  }

  if (rules_.control_scalars_free && memory_space == kDefaultMemorySpace &&
      std::all_of(values.begin(), values.end(), [this](const Value& v) {
        const Shape* shape = liveness_.buffers()[v.buffer].shape();
        return shape != nullptr && is_control_scalar(*shape);
      })) {
    heap = 0;
    std::fill(offsets.begin(), offsets.end(), 0);
  }
  // The tuples' pointer tables sit above the arrays.
  if (memory_space == kDefaultMemorySpace && heap > 0) heap += rules_.temp_tables_bytes;
  Allocation temp;
  temp.kind = AllocationKind::kTemp;
  temp.memory_space = memory_space;
  temp.bytes = heap;
  temp.index = out_.allocation_count++;
  out_.allocations.push_back(temp);
  const int32_t index = temp.index;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int32_t k = groups[g].first; k >= 0; k = grouped.next_member[k]) {
      assign(index, values[k].buffer, values[k], offsets[g]);
    }
  }
}

// Every counted buffer with a value, as an item, in id order.
std::vector<BufferItem> Assigner::collect_items() const {
  const std::vector<Buffer>& buffers = liveness_.buffers();
  std::vector<BufferItem> items;
  {
    // Room made once for an item per counted buffer, a parameter's read-only leaves one run
    // (leaves that differ make more, and the vector grows): growing by doubling from none
    // held up to twice the items (a million of 40 bytes each).
    size_t room = 0;
    const Instruction* run_of = nullptr;
    for (const Buffer& b : buffers) {
      if (!b.counted) continue;
      if (!read_only_parameter(b)) {
        ++room;
      } else if (b.instruction != run_of) {
        ++room;
        run_of = b.instruction;
      }
    }
    items.reserve(room);
  }
  // The order is needed only here: its tables go before the allocations are made.
  const ProcessingOrder order(liveness_);
  for (size_t id = 0; id < buffers.size(); ++id) {
    const Buffer& b = buffers[id];
    if (!b.counted) continue;
    std::optional<Value> v = value_of(static_cast<int32_t>(id));
    if (!v) continue;
    if (!items.empty() && read_only_parameter(b)) {
      BufferItem& last = items.back();
      const Buffer& first = buffers[last.id];
      if (last.id + last.count == static_cast<int32_t>(id) && read_only_parameter(first) &&
          first.instruction == b.instruction && first.padded_bytes() == b.padded_bytes() &&
          first.memory_space() == b.memory_space() && first.is_output == b.is_output &&
          last.start == v->start) {
        ++last.count;
        continue;
      }
    }
    items.push_back({static_cast<int32_t>(id), static_cast<int32_t>(order.of(b)), 1, b.is_output,
                     b.padded_bytes(), v->start, v->end});
  }
  return items;
}

// Room for the records the items make: an allocation for each parameter (or run of them),
// constant and output at most, and the temporaries' (one for each memory space): every other
// buffer shares one of those. Room for every item held a million unused records where
// temporaries are most of them.
void Assigner::reserve_records(const std::vector<BufferItem>& items) {
  const std::vector<Buffer>& buffers = liveness_.buffers();
  const auto own_allocation = [&](const BufferItem& item) {
    const Buffer& b = buffers[item.id];
    return b.is_output || b.kind == BufferKind::kConstant || b.kind == BufferKind::kParameter;
  };
  out_.allocations.reserve(
      static_cast<size_t>(std::count_if(items.begin(), items.end(), own_allocation)) + 4);
  // And for the values of the allocations a later buffer may share (a donated parameter's, an
  // output's of its own), one each at most, where doubling held up to twice as many.
  const auto shared_later = [&](const BufferItem& item) {
    const Buffer& b = buffers[item.id];
    if (b.kind == BufferKind::kParameter) return b.donated;
    return b.is_output && b.kind != BufferKind::kConstant;
  };
  values_.reserve(static_cast<size_t>(std::count_if(items.begin(), items.end(), shared_later)));
}

// Read-only parameter leaves: an allocation each, in id order, each held to the end.
void Assigner::place_parameter_run(const BufferItem& item) {
  const Buffer& b = liveness_.buffers()[item.id];
  Allocation run;
  run.kind = AllocationKind::kParameter;
  run.memory_space = b.memory_space();
  run.bytes = b.padded_bytes();
  run.parameter_number = b.instruction->parameter_number();
  run.index = out_.allocation_count;
  run.count = item.count;
  run.first_buffer = item.id;
  run.last_buffer = item.id + item.count - 1;
  run.buffer_count = 1;
  out_.allocation_count += item.count;
  out_.allocations.push_back(run);
  for (int32_t k = 0; k < item.count; ++k) out_.allocation_of[item.id + k] = run.index + k;
  for (auto& [id, life] : out_.lives) {
    if (id >= run.first_buffer && id <= run.last_buffer) life = {item.start, clock_};
  }
}

// A parameter's allocation of its own; a donated one's is reusable.
void Assigner::place_parameter(const BufferItem& item, const Value& value,
                               ReusableBySpace& reusable) {
  const Buffer& b = liveness_.buffers()[item.id];
  const int32_t a = new_allocation(AllocationKind::kParameter, b);
  record(a).parameter_number = b.instruction->parameter_number();
  Value param = value;
  if (b.donated) {
    record(a).maybe_live_out = true;
    if (const int32_t aliased = liveness_.aliased_output(item.id); aliased >= 0) {
      // The output written into the donated buffer is a second value of it.
      if (std::optional<Value> o = value_of(aliased)) {
        o->buffer = aliased;
        o->end = clock_;
        values_in(a).add(*o, /*checked=*/false);
      }
    } else {
      param.end = clock_;  // returned as it is
    }
  } else {
    param.end = clock_;  // read-only: nothing else goes there
  }
  assign(a, item.id, param, 0);
  if (b.donated) reusable[b.memory_space()].add(a, values_in(a).first_values());
}

// Assigns the buffer to an allocation made before it, if one takes it: first the allocations
// of its operands, then the smallest reusable allocation first.
bool Assigner::try_reuse(int32_t id, const Value& value, ReusableBySpace& reusable) {
  const Buffer& b = liveness_.buffers()[id];
  if (!b.is_output && !rules_.temporaries_in_live_out) return false;
  if (b.instruction != nullptr && !b.instruction->shape().is_tuple()) {
    for (const Instruction* operand : b.instruction->operands()) {
      absl::Span<const int32_t> leaves = leaves_of(*operand);
      if (operand->shape().is_tuple() || leaves.size() != 1 || leaves[0] < 0) continue;
      const int32_t a = out_.allocation_of[leaves[0]];
      if (a >= 0 && try_assign(a, id, value)) return true;
    }
  }
  auto it = reusable.find(b.memory_space());
  return it != reusable.end() &&
         it->second.try_latest_first(value.start, value.end,
                                     [&](int32_t a) { return try_assign(a, id, value); });
}

ModuleAssignment Assigner::run() {
  const std::vector<Buffer>& buffers = liveness_.buffers();
  out_.allocation_of.assign(buffers.size(), -1);
  flatten(liveness_.entry(), 0);
  std::vector<BufferItem> ordered = collect_items();
  sort_items(ordered);
  reserve_records(ordered);

  ReusableBySpace reusable;
  std::unordered_map<int64_t, std::vector<Value>> deferred;  // by memory space
  for (const BufferItem& item : ordered) {
    const Buffer& b = buffers[item.id];
    if (item.count > 1) {
      place_parameter_run(item);
      continue;
    }
    const Value value{item.id, item.start, item.end};
    if (b.kind == BufferKind::kConstant) {
      assign(new_allocation(AllocationKind::kConstant, b), item.id, value, 0);
      continue;
    }
    if (b.kind == BufferKind::kParameter) {
      place_parameter(item, value, reusable);
      continue;
    }
    if (try_reuse(item.id, value, reusable)) {
      if (!b.is_output) ++out_.temps_in_live_out;
      continue;
    }
    if (b.is_output) {
      const int32_t a = new_allocation(AllocationKind::kOutput, b);
      record(a).maybe_live_out = true;
      assign(a, item.id, value, 0);
      reusable[b.memory_space()].add(a, values_in(a).first_values());
      continue;
    }
    deferred[b.memory_space()].push_back(value);
  }
  std::vector<BufferItem>().swap(ordered);  // the temporaries to pack are in `deferred`
  std::vector<int64_t> spaces;
  for (const auto& [space, values] : deferred) spaces.push_back(space);
  std::sort(spaces.begin(), spaces.end());
  for (int64_t space : spaces) pack_temporaries(space, std::move(deferred[space]));
  if (rules_.root_tables_bytes > 0) {
    Allocation tables;
    tables.kind = AllocationKind::kOutput;
    tables.bytes = rules_.root_tables_bytes;
    tables.maybe_live_out = true;
    tables.index = out_.allocation_count++;
    out_.allocations.push_back(tables);
  }
  return std::move(out_);
}

}  // namespace

ModuleAssignment assign_buffers(const ModuleLiveness& liveness,
                                absl::Span<const int32_t> lives_of,
                                const AssignmentRules& rules) {
  Assigner assigner(liveness, lives_of, rules);
  return assigner.run();
}

}  // namespace hloroof::detail
