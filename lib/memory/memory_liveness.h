// Buffer liveness over the schedule of a module (docs/memory.md): which buffers each
// instruction defines, how long each lives, and the live bytes at every position of every
// computation that runs. analyze_memory (memory.cc) turns this into a MemoryReport.
#ifndef HLOROOF_PREDICT_MEMORY_LIVENESS_H_
#define HLOROOF_PREDICT_MEMORY_LIVENESS_H_

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "absl/status/statusor.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"

namespace hloroof::detail {

// What live bytes are tracked per position: device memory by buffer kind, then the other
// memories as a whole.
enum Channel : int {
  kDeviceParameters,
  kDeviceOutputs,
  kDeviceTemporaries,
  kDeviceConstants,
  kOnChip,
  kHost,
  kChannelCount,
};
using TierBytes = std::array<int64_t, 3>;  // indexed by MemoryTier

// Marks a leaf whose buffer belongs to the caller (a body's parameters).
inline constexpr int32_t kExternal = -1;

// What buffers of one leaf shape share: the shape and its sizes.
struct LeafClass {
  const Shape* shape = nullptr;  // the array leaf
  int64_t logical_bytes = 0;
  int64_t padded_bytes = 0;
  int64_t memory_space = 0;
  bool sized = true;  // false: no static size (unbounded dimensions), counted as 0 B
};

// How far Buffer's packed fields reach: a computation of at most kMaxPositions instructions,
// a result of at most kMaxLeaves array leaves. An input of at most 4 GiB stays within both (an
// instruction takes more than 8 bytes of text, a tuple's array leaf at least 4);
// ModuleLiveness::analyze refuses a module beyond them.
inline constexpr int64_t kMaxPositions = int64_t{1} << 29;  // from, to: 30 bits, signed
inline constexpr int64_t kMaxLeaves = int64_t{1} << 30;     // leaf: 31 bits, signed

// One array leaf's buffer. Kept to 32 bytes (a wide tuple has one per leaf): the leaf's shape
// and sizes are shared by the buffers of that shape, positions and leaf numbers are packed with
// the kind and the flags into four 32-bit words (kMaxPositions, kMaxLeaves), the computation is
// the instruction's, and what only a donated parameter has is kept beside
// (ModuleLiveness::aliased_output).
struct Buffer {
  const Instruction* instruction = nullptr;  // which instruction defines it
  const LeafClass* leaf_class = nullptr;     // its shape and sizes
  int32_t leaf : 31 = 0;                     // which array leaf of its result
  bool is_output : 1 = false;                // reaches the entry root
  // Live range in `computation()`'s schedule, both ends inclusive. Parameters and constants
  // live for the whole entry computation instead (`whole_step`).
  int32_t from : 30 = 0;
  BufferKind kind : 2 = BufferKind::kTemporary;
  int32_t to : 30 = 0;
  bool donated : 1 = false;
  bool whole_step : 1 = false;
  // The last position of `computation()` that reads the buffer, -1 when none does. For a
  // whole-step buffer `to` is the end of the step; this is where its value dies.
  int32_t last_use : 31 = -1;
  // False when another buffer accounts for this memory: a body's result, which is its
  // caller's buffer, or an output written into a donated parameter.
  bool counted : 1 = true;

  // Where it is defined.
  const Computation* computation() const { return instruction->parent(); }
  const Shape* shape() const { return leaf_class->shape; }
  int64_t logical_bytes() const { return leaf_class->logical_bytes; }
  int64_t padded_bytes() const { return leaf_class->padded_bytes; }
  int64_t memory_space() const { return leaf_class->memory_space; }
  MemoryTier tier() const { return memory_tier(memory_space()); }
  Channel channel() const;
};
static_assert(sizeof(Buffer) == 32);

// Instructions of one computation by schedule position, with the buffer of every result leaf
// (flattened: the leaves of instruction p are ids[offset[p] .. offset[p+1])).
struct ScheduledLeaves {
  const Computation* computation = nullptr;  // whose schedule
  std::vector<int64_t> offset;
  std::vector<int32_t> ids;

  absl::Span<const int32_t> of(int64_t p) const {
    return absl::MakeConstSpan(ids).subspan(offset[p], offset[p + 1] - offset[p]);
  }
  // Where `i` is in the schedule, or -1 when it is not `computation`'s.
  int64_t position_of(const Instruction* i) const {
    return i != nullptr && i->parent() == computation ? i->position() : -1;
  }
  absl::Span<const int32_t> of(const Instruction* i) const {
    const int64_t p = position_of(i);
    if (p < 0) return {};
    return of(p);
  }
};

// The live bytes of one computation, its own buffers plus the bodies it runs.
struct ComputationLiveness {
  const Computation* computation = nullptr;
  std::vector<int32_t> buffers;  // counted buffers defined here (not the whole-step ones)
  // A body running from position `from` to `to` (a loop or call: one position; an async
  // computation: its start to its done). It adds the largest peak among `bodies`.
  struct Window {
    int64_t from = 0;
    int64_t to = 0;
    std::vector<const ComputationLiveness*> bodies;
  };
  std::vector<Window> windows;  // in order of `from`
  ScheduledLeaves leaves;  // the buffer of every result leaf, kExternal for the caller's
  std::vector<int64_t> device;  // live bytes per position, the device channels together
  TierBytes peak = {0, 0, 0};   // largest live bytes per tier
  int64_t peak_position = 0;    // where the device peak is (the first such position)
  // At peak_position, the live bytes of the device channels (kDeviceParameters through
  // kDeviceConstants): they add up to peak[0].
  std::array<int64_t, 4> peak_breakdown = {0, 0, 0, 0};
  int64_t temporary_peak = 0;  // largest live bytes of device temporaries, anywhere

  int64_t size() const { return static_cast<int64_t>(device.size()); }  // positions

  int64_t device_bytes(int64_t position) const { return device[position]; }
  // The body of `window` with the largest device peak.
  static const ComputationLiveness* largest_body(const Window& window);
};

class ModuleLiveness {
 public:
  static absl::StatusOr<ModuleLiveness> analyze(const Module& module, bool first_tile_padding);

  const std::vector<Buffer>& buffers() const { return buffers_; }
  const ComputationLiveness& entry() const { return *entry_; }
  // Buffers live for the whole entry computation (parameters and constants, wherever defined).
  template <typename F>
  void for_each_whole_step(F&& f) const {
    for (const auto& [first, count] : whole_step_) {
      for (int32_t id = first; id < first + count; ++id) f(id);
    }
  }
  // Calls fn(id) once for each counted device buffer live at `position` of `liveness`,
  // including those of the bodies running there at their own peaks.
  void for_each_live_at(const ComputationLiveness& liveness, int64_t position,
                        absl::FunctionRef<void(int32_t)> fn) const;
  const std::vector<std::string>& notes() const { return notes_; }
  // A donated parameter's buffer `id`: the output buffer written into it (not counted itself),
  // or -1.
  int32_t aliased_output(int32_t id) const {
    auto it = aliased_outputs_.find(id);
    return it == aliased_outputs_.end() ? -1 : it->second;
  }
  // The analysis of `c`, or nullptr when it does not run with memory of its own.
  const ComputationLiveness* of(const Computation* c) const;
  // The buffers of `i`'s result leaves (kExternal where the caller's), empty when unknown.
  absl::Span<const int32_t> leaves_of(const Instruction& i) const;

 private:
  // for_each_live_at's walk: each body (always taken at its own peak) is visited once, however
  // many windows run it, so a body reached along 2^k call paths costs one visit (and each
  // buffer is offered once: a buffer is defined in one computation).
  void visit_live(const ComputationLiveness& liveness, int64_t position,
                  absl::flat_hash_set<const ComputationLiveness*>& visited,
                  absl::FunctionRef<void(int32_t)> fn) const;
  class Builder;

  std::vector<Buffer> buffers_;
  std::deque<LeafClass> classes_;  // what Buffer::leaf_class points to (never moved)
  std::vector<std::pair<int32_t, int32_t>> whole_step_;  // [first, first + count) of ids
  std::vector<std::unique_ptr<ComputationLiveness>> computations_;
  const ComputationLiveness* entry_ = nullptr;
  absl::flat_hash_map<const Computation*, const ComputationLiveness*> by_computation_;
  std::vector<std::string> notes_;
  absl::flat_hash_map<int32_t, int32_t> aliased_outputs_;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_MEMORY_LIVENESS_H_
