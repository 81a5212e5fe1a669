// The static cost of an HLO module: FLOPs (matrix and vector), transcendentals and bytes read
// and written for every instruction, split by memory space; collective payloads and groups;
// loop trip counts and how many times each instruction runs per step. The conventions are
// XLA's HloCostAnalysis ones with the corrections of docs/cost-conventions.md, "Where hloroof
// departs from XLA, and why"; that file lists every rule.
#ifndef HLOROOF_COST_H_
#define HLOROOF_COST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "hloroof/collective_kind.h"
#include "hloroof/heap_optional.h"
#include "hloroof/module.h"
#include "hloroof/shape.h"

namespace hloroof {

// Bytes by the memory space they live in (docs/cost-conventions.md, "Where hloroof departs from
// XLA, and why").
struct SpaceBytes {
  double device = 0;   // S(0): HBM, device memory
  double on_chip = 0;  // S(1) and every space other than 0, 5 and 6 (VMEM-class memories)
  double host = 0;     // S(5): host memory, reached over PCIe
  double total() const { return device + on_chip + host; }
  SpaceBytes& operator+=(const SpaceBytes& other);
  friend bool operator==(const SpaceBytes&, const SpaceBytes&) = default;
};

// Matrix-unit FLOPs whose peak is set by one operand element type (bf16, f32, s8, f8e4m3fn...).
struct MatrixFlops {
  PrimitiveType type = PrimitiveType::kInvalid;
  double flops = 0;
  friend bool operator==(const MatrixFlops&, const MatrixFlops&) = default;
};

// The work of one execution of an instruction, everything it calls included (a fusion's body,
// a loop's body times its trip count, a conditional's costliest branch).
struct OpCost {
  double flops = 0;  // all FLOPs: matrix_flops() plus vector FLOPs
  double transcendentals = 0;
  absl::InlinedVector<MatrixFlops, 1> matrix;  // by element type; empty when no matrix work
  double bytes_read = 0;                       // logical (dense) sizes, every memory space
  double bytes_written = 0;
  SpaceBytes padded_read;  // sizes padded by the layout's tiles (CostOptions::use_padded_sizes)
  SpaceBytes padded_written;
  // What XLA's HloCostAnalysis reports, where hloroof departs from it on purpose
  // (docs/cost-conventions.md, "Where hloroof departs from XLA, and why"): loops counted once,
  // ragged-dot's count, async -done ops charged their result again, optimization barriers charged,
  // bytes padded by the first tile level only.
  double xla_flops = 0;
  double xla_transcendentals = 0;
  double xla_bytes_accessed = 0;
  // Instructions included here whose cost could not be told (counted 0), once per call site.
  int64_t unknown_ops = 0;

  double matrix_flops() const;
  double vector_flops() const { return flops - matrix_flops(); }
  // The element type with the most matrix FLOPs; kInvalid when there are none.
  PrimitiveType matrix_type() const;
  double bytes() const { return bytes_read + bytes_written; }
  double padded_bytes() const { return padded_read.total() + padded_written.total(); }
  double hbm_bytes() const { return padded_read.device + padded_written.device; }
  double on_chip_bytes() const { return padded_read.on_chip + padded_written.on_chip; }
  double host_bytes() const { return padded_read.host + padded_written.host; }

  OpCost& operator+=(const OpCost& other);
  // Every figure times `factor`, unknown_ops excepted (a loop repeats work, not instructions).
  OpCost scaled(double factor) const;
};

// Field-by-field maximum: XLA's bound for a conditional (docs/cost-conventions.md,
// "XLA-compatible figures").
OpCost max_each(const OpCost& a, const OpCost& b);

// What replica_groups ids mean (docs/sources.md, "Replica groups"; XLA's CollectiveOpGroupMode).
enum class CollectiveIdMode : uint8_t {
  kCrossReplica,              // replica ids; each group repeats in every partition
  kCrossPartition,            // partition ids; each group repeats in every replica
  kCrossReplicaAndPartition,  // replica ids; each group spans all partitions of its replicas
  kFlattenedId,               // global ids: replica * num_partitions + partition
};
std::string_view id_mode_name(CollectiveIdMode mode);  // "cross-replica", ...

struct CollectiveCost {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  bool is_async = false;          // started here, finished by a matching -done
  bool is_host_transfer = false;  // send/recv with is_host_transfer=true (PCIe, not the network)
  CollectiveIdMode id_mode = CollectiveIdMode::kCrossReplica;
  std::optional<int64_t> channel_id;
  // V of docs/cost-conventions.md, "Collectives": the full (gathered, unreduced) array of one
  // group; for all-to-all N times one device's input (ragged: N times its output buffer); for
  // collective-permute, send and recv one transfer. Padded by tiles when
  // CostOptions::use_padded_sizes.
  double payload_bytes = 0;
  int64_t group_size = 0;  // N: devices per group (the largest group); 2 for point-to-point
  // Every group as global device ids (replica * num_partitions + partition), each group once
  // per replica or partition it repeats in. Empty for point-to-point kinds, and when the
  // expansion would be too large (see notes).
  std::vector<std::vector<int64_t>> groups;
  // collective-permute: source -> target global device ids, repeated like groups.
  std::vector<std::pair<int64_t, int64_t>> pairs;
};

// Where a while loop's trip count came from.
enum class TripCountSource : uint8_t {
  kBackendConfig,  // backend_config={"known_trip_count":{"n":"..."}}
  kDerived,        // condition compares the induction variable with a constant
  kAssumed,        // unknown: CostOptions::default_trip_count, a lower bound
};
std::string_view trip_count_source_name(TripCountSource source);

struct TripCount {
  int64_t count = 1;  // executions of the body; the condition runs count + 1 times
  TripCountSource source = TripCountSource::kAssumed;
};

// How an instruction's computation runs, which says how its cost reaches the totals.
enum class CostRole : uint8_t {
  kScheduled,  // an instruction of its own: entry, loop bodies and conditions, branches, calls,
               // async-wrapped computations. Its cost reaches the totals through its caller.
  kFused,      // inside a fusion: its own FLOPs, no bytes (the fusion's boundary has them)
  kApplied,    // inside a computation applied per element (reduce, map, sort, scatter, ...):
               // its FLOPs enter the caller's count per application
};
std::string_view cost_role_name(CostRole role);

struct InstructionCost {
  const Computation* computation = nullptr;
  const Instruction* instruction = nullptr;
  // Executions per step: the product of the enclosing loops' trip counts (a loop condition runs
  // once more than its body), summed over call sites; a conditional's branches count as taken.
  // Fused and applied instructions take their caller's.
  double multiplier = 0;
  OpCost cost;  // one execution, called computations included
  // Few instructions have these: each is held on the heap (the others carry a pointer).
  HeapOptional<CollectiveCost> collective;
  HeapOptional<TripCount> trip_count;  // while loops
  CostRole role = CostRole::kScheduled;
  bool unknown = false;  // this instruction's own cost could not be told (counted 0)
};

struct ComputationCost {
  const Computation* computation = nullptr;
  CostRole role = CostRole::kScheduled;
  double multiplier = 0;  // executions per step
  OpCost per_execution;   // sum of its instructions' costs (a fused body has no bytes)
  // Its block of ModuleCost::instructions: [first_record, first_record + records), in schedule
  // order.
  size_t first_record = 0;
  size_t records = 0;
};

struct CostOptions {
  // Measure bytes with the layout's tiles applied (docs/sources.md, "TPU tiling and padding").
  // Layouts without tiles, as on GPU, are dense either way.
  bool use_padded_sizes = true;
  // Trip count assumed for a while loop whose count is neither recorded nor derivable.
  int64_t default_trip_count = 1;
  // Keep the record of every instruction. Off, the instructions of fused and applied
  // computations keep one only where they perform a collective: their costs still count in
  // their callers' and in the computations' sums, and `unknown` and `is_lower_bound` still
  // count them. A prediction reads no other (cost_options: an optimized module holds about
  // four fused instructions for each op it runs).
  bool fused_records = true;
};

struct ModuleCost {
  std::string module_name;  // the HloModule name
  std::string entry;        // the computation costed as the step
  // The entry is the computation the input marks ENTRY (false for a cut dump, whose last
  // computation is taken, or when a caller took another as the step; JSON `entry_marked`).
  bool entry_marked = true;
  // Computations callers first (the entry first), instructions in schedule order (without
  // CostOptions::fused_records, those of fused and applied computations only where they
  // perform a collective).
  std::vector<InstructionCost> instructions;
  std::vector<ComputationCost> computations;
  // One step: the entry computation's cost, loops expanded by their trip counts.
  OpCost totals;
  // Instructions whose own cost could not be told, in the order of `instructions`.
  std::vector<const Instruction*> unknown;
  // Assumptions made, one line each ("while.3: trip count unknown, counted 1 time (lower
  // bound)").
  std::vector<std::string> notes;
  // True when a trip count was assumed or an op's cost is unknown: the totals are a floor.
  bool is_lower_bound = false;
  // The instructions of fused computations that are computed only where they are used (every
  // path from them ends in a gather or slice), with the fraction of their elements that is; the
  // others compute all of theirs. Their FLOPs count that fraction; a prediction's issue time
  // of elementwise ops reads it.
  absl::flat_hash_map<const Instruction*, double> element_utilization;

  const InstructionCost* find(const Instruction* instruction) const;
  const ComputationCost* find(const Computation* computation) const;

  // Positions in `computations`, behind find(); an instruction's record is found in its
  // computation's block by its position.
  absl::flat_hash_map<const Computation*, size_t> computation_index;
};

// Costs every instruction of `module`. Fails only when the module has no entry computation;
// anything it cannot cost is counted 0, listed in `unknown` and explained in `notes`.
absl::StatusOr<ModuleCost> analyze_cost(const Module& module, const CostOptions& options = {});

}  // namespace hloroof

#endif  // HLOROOF_COST_H_
