// Memory before anything runs: buffer liveness over a module's schedule (the peak), and a
// model of XLA's buffer assignment (the allocations a compiled program holds).
//
//   absl::StatusOr<hloroof::Module> m = hloroof::parse_module(text);
//   absl::StatusOr<hloroof::DeviceSpec> d = hloroof::device("tpu_v5e");
//   absl::StatusOr<hloroof::MemoryReport> r = hloroof::analyze_memory(*m, *d);
//   r->peak_bytes;          // device memory (HBM) high-water mark, padded bytes
//   r->peak_at;             // the entry instruction where it happens
//   r->footprint_bytes;     // arguments + outputs - aliased + temp allocation + constants
//   r->capacity->fits;      // against the device's HBM capacity (basis: which figure)
//
// The model (docs/memory.md): every array leaf an instruction defines is a buffer, sized by its
// layout's tiles. Entry parameters and constants live for the whole step; a temporary lives from
// its definition to its last use; outputs live to the end. tuple, get-tuple-element and bitcast
// make no buffer; in-place ops (dynamic-update-slice, scatter, DUS fusions, declared operand
// aliasing) write into their operand's; a while loop's state is its operand's buffers. The
// temporaries of a while, conditional or call body are added at the point the body runs.
#ifndef HLOROOF_MEMORY_H_
#define HLOROOF_MEMORY_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "hloroof/shape.h"

namespace hloroof {

class Instruction;
class Module;
struct DeviceSpec;

// Where a memory space lives (docs/sources.md, "TPU tiling and padding"). Only kDevice counts
// against HBM capacity.
enum class MemoryTier : uint8_t {
  kDevice,  // S(0): HBM / GPU device memory
  kOnChip,  // S(1) VMEM-class memory, S(6) TPU SMEM (scalars), other backend spaces
  kHost,    // S(5): host memory
};
MemoryTier memory_tier(int64_t memory_space);
std::string_view memory_tier_name(MemoryTier tier);  // "device", "on_chip", "host"

// What a buffer holds, in the terms of XLA's memory_analysis().
enum class BufferKind : uint8_t {
  kParameter,  // an entry parameter leaf (also when donated to an output)
  kOutput,     // reaches the entry root and is not a parameter
  kTemporary,  // everything else a computation defines
  kConstant,   // a literal; XLA allocates these for the whole program
};
std::string_view buffer_kind_name(BufferKind kind);  // "parameter", "output", ...

// What an allocation of XLA's buffer assignment is for.
enum class AllocationKind : uint8_t {
  kParameter,  // one entry parameter leaf (writable when donated)
  kOutput,     // one output leaf; temporaries may share it when their lives do not overlap
  kTemp,       // the temp allocation of one memory space: every other temporary, packed
  kConstant,   // one literal
};
std::string_view allocation_kind_name(AllocationKind kind);  // "parameter", "output", ...

// One allocation, as XLA's BufferAssignment would make it (docs/memory.md).
struct MemoryAllocation {
  int64_t index = 0;
  AllocationKind kind = AllocationKind::kTemp;
  int64_t bytes = 0;
  int64_t memory_space = 0;
  bool maybe_live_out = false;    // an output, or a parameter donated to one
  int64_t parameter_number = -1;  // parameter allocations
  int64_t buffer_count = 0;       // buffers assigned to it
  // Those buffers' names, in assignment order (largest first), at most
  // MemoryOptions::top_buffers of them.
  std::vector<std::string> buffers;
};

// `count` alike allocations kept as one record (MemoryOptions::allocation_runs): the read-only
// leaves of one entry parameter with the same size and memory space, numbered
// `first.index` onward. Allocation first.index + k holds one buffer, leaf first_leaf + k of
// `instruction` (its result's array leaves numbered depth first, as for_each_array_leaf
// visits them); the other fields are those of every allocation of the run.
struct MemoryAllocationRun {
  MemoryAllocation first;  // the first allocation; `buffers` empty
  int64_t count = 0;
  std::string instruction;  // the parameter
  Shape shape;              // its result (copies share a tuple's elements)
  int64_t first_leaf = 0;
};

struct MemoryBuffer {
  int64_t id = 0;           // its number in this analysis (what `shares_with` names)
  std::string name;         // defining instruction, with the leaf's index in a tuple: "ag.1{1}"
  std::string instruction;  // the defining instruction alone: "ag.1"
  std::vector<int64_t> shape_index;  // the leaf's index in its result ({1}); empty: an array
  std::string computation;  // the computation that defines it
  std::string shape;        // the array leaf, as text
  BufferKind kind = BufferKind::kTemporary;
  bool is_output = false;  // reaches the entry root (a donated parameter does)
  bool donated = false;    // a parameter whose buffer an output reuses
  int64_t logical_bytes = 0;
  int64_t padded_bytes = 0;
  int64_t memory_space = 0;  // S(n)
  // Live range: first and last instruction of `computation` during which the buffer holds
  // memory (both inclusive); for parameters and constants the whole entry computation.
  std::string live_from;
  std::string live_to;
  int64_t live_from_index = 0;
  int64_t live_to_index = 0;

  // Where buffer assignment puts it: MemoryReport::allocations index (-1: none of its own,
  // e.g. an output written into a donated parameter) and the offset inside.
  int64_t allocation = -1;
  int64_t allocation_offset = 0;
  // The life its allocation holds it for, in program order: every schedule with the loop,
  // call and conditional bodies laid out where they run (the order buffer assignment packs
  // in; one iteration of a loop), both ends inclusive; parameters from 0, outputs and
  // read-only parameters past the last position. -1 when it has no allocation of its own.
  int64_t program_from = -1;
  int64_t program_to = -1;
  // A temporary that takes over the bytes of an operand at the operand's last use (XLA's heap
  // simulator shares them; the same allocation and offset): the operand's `id`, else -1.
  int64_t shares_with = -1;

  int64_t padding_waste_bytes() const { return padded_bytes - logical_bytes; }
  MemoryTier tier() const { return memory_tier(memory_space); }
};

// Where buffer assignment put one buffer, in a few bytes rather than a MemoryBuffer's
// (MemoryOptions::placements): what an HloProto's buffer assignment is written from, for every
// buffer of a module. Its instruction and names are views of the module analyzed (or of the
// report it was taken from): valid while that lives.
struct BufferPlacement {
  const Instruction* instruction = nullptr;  // defining it (MemoryBuffer::instruction)
  std::string_view computation;              // MemoryBuffer::computation
  std::string_view live_to;                  // MemoryBuffer::live_to
  int64_t padded_bytes = 0;
  int64_t allocation_offset = 0;
  int64_t program_from = -1;  // MemoryBuffer::program_from and program_to
  int64_t program_to = -1;
  int64_t id = 0;
  int64_t shares_with = -1;
  int32_t allocation = -1;
  int32_t memory_space = 0;
  // Its leaf's index in a tuple result (MemoryBuffer::shape_index): these many entries of
  // MemoryReport::placement_shape_indices from `shape_index_at`.
  uint32_t shape_index_at = 0;
  uint32_t shape_index_size = 0;
};

// Device (HBM) bytes split by buffer kind. Body temporaries of loops and calls count as
// temporaries.
struct MemoryBreakdown {
  int64_t parameters = 0;
  int64_t outputs = 0;
  int64_t temporaries = 0;
  int64_t constants = 0;
  int64_t total() const { return parameters + outputs + temporaries + constants; }
};

// One level of where the peak happens: the instruction of `computation` running at that point.
struct PeakFrame {
  std::string computation;
  std::string instruction;
};

// Live device bytes while one instruction runs (the counter a trace view plots).
struct LiveBytesPoint {
  std::string instruction;
  int64_t device_bytes = 0;
  std::string computation;  // where the instruction is (the entry, or a body)
  int depth = 0;            // 0: the entry; 1: a body the entry runs; ...
};

// Which figure a capacity check compares with the device's memory.
enum class CapacityBasis : uint8_t {
  kFootprint,  // footprint_bytes: the platform allocates every allocation up front
  kPeak,       // peak_bytes: the liveness high-water mark
};
std::string_view capacity_basis_name(CapacityBasis basis);  // "footprint_bytes", "peak_bytes"

// A figure against a device's HBM capacity.
struct CapacityCheck {
  std::string device;  // the spec's name, e.g. "tpu_v5e"
  int64_t capacity_bytes = 0;
  CapacityBasis basis = CapacityBasis::kPeak;
  int64_t checked_bytes = 0;    // the figure `basis` names
  bool fits = false;            // checked_bytes <= capacity_bytes
  double headroom = 0;          // (capacity - checked) / capacity; negative when it does not fit
  int64_t shortfall_bytes = 0;  // checked - capacity when it does not fit, else 0
};

struct MemoryReport {
  std::string module_name;
  std::string entry;          // the computation analysed as the step
  bool entry_marked = true;   // it is the one the input marks ENTRY (as ModuleCost's)
  bool scheduled = false;  // is_scheduled=true: the printed order is the execution order

  // Device memory (memory space 0). The peak is the largest sum of padded bytes live at once.
  int64_t peak_bytes = 0;
  std::string peak_at;               // the entry instruction running at the peak
  std::vector<PeakFrame> peak_path;  // entry first, then into loop and call bodies
  MemoryBreakdown peak_breakdown;    // of peak_bytes
  int64_t peak_padding_waste_bytes = 0;

  // Whole-step figures in the terms of XLA's memory_analysis() (device memory only):
  // peak_bytes <= argument_bytes + output_bytes - alias_bytes + temporary_peak_bytes +
  // constant_bytes.
  int64_t argument_bytes = 0;        // every entry parameter leaf
  int64_t output_bytes = 0;          // every buffer reaching the entry root
  int64_t alias_bytes = 0;           // parameters donated to outputs (in both of the above)
  int64_t temporary_peak_bytes = 0;  // the most temporaries live at once
  int64_t constant_bytes = 0;
  int64_t padding_waste_bytes = 0;  // padded - logical over every device buffer

  // Buffer assignment (device memory): the temp allocation's size after XLA's reuse rules
  // (XLA's temp_size_in_bytes), and what a step holds when every allocation exists for the
  // whole execution, as on GPU: argument + output - alias + temp + constant bytes.
  int64_t temp_bytes = 0;
  int64_t footprint_bytes = 0;
  // The temp allocations of host memory (S(5)): XLA's host_temp_size_in_bytes, where a program
  // offloads to the host. Not part of the footprint.
  int64_t host_temp_bytes = 0;
  // Every allocation, all memory spaces: parameters, outputs, temp allocations, constants
  // (empty when MemoryOptions::allocations is false), in index order; with
  // MemoryOptions::allocation_runs, all but those of `allocation_runs`.
  std::vector<MemoryAllocation> allocations;
  // With MemoryOptions::allocation_runs: runs of alike allocations, one record each, in index
  // order. for_each_allocation lists these and `allocations` together.
  std::vector<MemoryAllocationRun> allocation_runs;
  // How many allocations of each kind, indexed by AllocationKind (whether or not listed).
  std::array<int64_t, 4> allocation_counts = {0, 0, 0, 0};
  int64_t temps_in_live_out = 0;    // temporaries placed in output or donated allocations
  int64_t shared_with_operand = 0;  // results written over a dying operand's bytes

  // Other memories, never added to the device peak.
  int64_t peak_on_chip_bytes = 0;
  int64_t peak_host_bytes = 0;

  int64_t buffer_count = 0;       // distinct buffers, all memories
  int64_t peak_buffer_count = 0;  // device buffers live at the peak
  // The largest buffers (padded bytes, all memories), largest first; at most
  // MemoryOptions::top_buffers of them.
  std::vector<MemoryBuffer> largest_buffers;
  // Device buffers live at the peak, largest first, at most MemoryOptions::top_buffers.
  std::vector<MemoryBuffer> peak_buffers;
  // Where buffer assignment put the MemoryOptions::placements largest buffers, in the order of
  // largest_buffers, and their tuple indices (BufferPlacement::shape_index_at).
  std::vector<BufferPlacement> placements;
  std::vector<int64_t> placement_shape_indices;
  // One point per entry instruction, in schedule order.
  std::vector<LiveBytesPoint> live_curve;
  // One point per instruction that runs, in order: the entry's, and inside a loop, call or
  // conditional body the body's own (one iteration; bodies' instructions follow the one that
  // runs them). At most MemoryOptions::max_timeline_points.
  std::vector<LiveBytesPoint> live_timeline;

  std::optional<CapacityCheck> capacity;  // when analyzed for a device
  std::vector<std::string> notes;         // assumptions that shaped the numbers
  // Set by callers, not by the analysis: e.g. how the device was chosen (JSON "warnings").
  std::vector<std::string> warnings;
};

struct MemoryOptions {
  // How many buffers largest_buffers and peak_buffers keep; 0 keeps all.
  size_t top_buffers = 20;
  // Padded size by the first tile level only, as XLA's own size helper computes it
  // (docs/sources.md, "TPU tiling and padding"); false applies every tile level (the `hloroof
  // shape` figure). The two differ only where a later level pads again, e.g. a bf16 scalar under
  // T(512)(2,1).
  bool first_tile_padding = true;
  // Bounds live_timeline (bodies called from many places repeat).
  size_t max_timeline_points = 200000;
  // Make live_curve and live_timeline; false leaves both empty (a point per instruction, 80
  // bytes each, that the text and the advice do not show). The peak is found either way.
  bool live_curves = true;
  // With live_curves: make live_curve too; false makes live_timeline only (what a trace view
  // plots: it holds the entry's instructions and the bodies').
  bool entry_curve = true;
  // List every allocation in MemoryReport::allocations; false counts them only: a parameter
  // of a million scalar leaves has a million allocations, which the text and the advice do
  // not show.
  bool allocations = true;
  // With `allocations`: keep each run of alike allocations (a wide parameter's read-only
  // leaves) as one record in MemoryReport::allocation_runs rather than one record per
  // allocation; for_each_allocation expands them one at a time (`memory --json` writes them
  // so: a million leaves' allocations are never held at once).
  bool allocation_runs = false;
  // Assign buffers to allocations as XLA's buffer assignment does; false stops at liveness
  // (the peak, its breakdown and buffers, the totals, the largest buffers), for callers that
  // need only those: footprint_bytes, temp_bytes, allocations and their counts, and each
  // buffer's allocation (-1) are then left unset, and a device's capacity is checked against
  // peak_bytes.
  bool buffer_assignment = true;
  // With buffer_assignment: where the assignment put this many of the largest buffers (0:
  // none), in MemoryReport::placements, whatever top_buffers describes: a module's every
  // buffer placed takes a third of the bytes its description takes, and no text.
  size_t placements = 0;
};

// Analyzes the module's entry computation and everything it runs. Errors only for a module
// that cannot be analyzed (no entry computation, a computation that calls itself).
absl::StatusOr<MemoryReport> analyze_memory(const Module& module,
                                            const MemoryOptions& options = {});
// The same, for `device`: the report carries a capacity check against its HBM, and the notes
// what its memories change (untiled layouts on a TPU, on-chip buffers beyond its capacity).
absl::StatusOr<MemoryReport> analyze_memory(const Module& module, const DeviceSpec& device,
                                            const MemoryOptions& options = {});

// The report analyze_memory makes with `options` from one it made of the same module with
// options that list as much or more: a top_buffers of 0 or at least `options.top_buffers`, as
// many placements or more, the allocations listed where `options` lists them, the rest the
// same. One analysis then serves two callers (the command's report and its XSpace's buffer
// assignment).
MemoryReport narrow_memory_report(const MemoryReport& report, const MemoryOptions& options);

// Calls `fn` for every allocation of `report` in index order: those of `allocations`, and
// each of `allocation_runs` in turn, made as `fn` is called (one MemoryAllocation, reused:
// valid during the call only).
void for_each_allocation(const MemoryReport& report,
                         absl::FunctionRef<void(const MemoryAllocation&)> fn);

// `bytes` (the figure `basis` names) against `device`'s HBM capacity.
CapacityCheck check_capacity(int64_t bytes, const DeviceSpec& device,
                             CapacityBasis basis = CapacityBasis::kPeak);

}  // namespace hloroof

#endif  // HLOROOF_MEMORY_H_
