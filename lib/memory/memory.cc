// analyze_memory: the liveness of memory_liveness.cc and the buffer assignment of
// buffer_assignment.cc summarised for people and tools.
#include "hloroof/memory.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hloroof/computation.h"
#include "hloroof/device.h"
#include "hloroof/module.h"
#include "hloroof/shape_text.h"
#include "ir/shape_printer.h"
#include "memory/buffer_assignment.h"
#include "memory/memory_liveness.h"
#include "memory/shape_leaves.h"
#include "memory/tuple_tables.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

using detail::Buffer;
using detail::ComputationLiveness;
using detail::ModuleAssignment;
using detail::ModuleLiveness;

std::string buffer_name(const Buffer& b, detail::LeafIndexer& leaves) {
  std::string name(b.instruction->name());
  if (b.instruction->shape().is_tuple()) {
    absl::StrAppend(&name, "{",
                    absl::StrJoin(leaves.index(b.instruction->shape(), b.leaf), ","), "}");
  }
  return name;
}

// Where the assignment put buffer `id`, into a MemoryBuffer or a BufferPlacement.
template <typename Record>
void set_placement(const ModuleAssignment& assignment, int32_t id, Record& r) {
  r.id = id;
  r.allocation = assignment.allocation_of[id];
  r.allocation_offset = assignment.offset_of(id);
  if (r.allocation >= 0) std::tie(r.program_from, r.program_to) = assignment.life_of(id);
  r.shares_with = assignment.shares_with(id);
}

// The first and last positions of a buffer's life in the schedule it is counted in (the
// entry's for a buffer of the whole step), and their instructions; none in an empty one.
struct Life {
  const Instruction* from = nullptr;
  const Instruction* to = nullptr;
  int64_t from_index = 0;
  int64_t to_index = 0;
};
Life life_in_schedule(const Buffer& b, const Computation& entry) {
  const Computation& schedule = b.whole_step ? entry : *b.computation();
  const auto instructions = schedule.instructions();
  Life life;
  if (!instructions.empty()) {
    const int64_t last = static_cast<int64_t>(instructions.size()) - 1;
    life.from_index = std::clamp<int64_t>(b.from, 0, last);
    life.to_index = std::clamp<int64_t>(b.to, 0, last);
    life.from = instructions[life.from_index];
    life.to = instructions[life.to_index];
  }
  return life;
}

BufferPlacement place(const Buffer& b, const Computation& entry, const ModuleAssignment& assignment,
                      int32_t id, detail::LeafIndexer& leaves,
                      std::vector<int64_t>& shape_indices) {
  BufferPlacement p;
  set_placement(assignment, id, p);
  p.instruction = b.instruction;
  p.computation = b.computation()->name();
  if (const Instruction* to = life_in_schedule(b, entry).to; to != nullptr) {
    p.live_to = to->name();
  }
  p.padded_bytes = b.padded_bytes();
  p.memory_space = static_cast<int32_t>(b.memory_space());
  if (b.instruction->shape().is_tuple()) {
    const std::vector<int64_t> index = leaves.index(b.instruction->shape(), b.leaf);
    p.shape_index_at = static_cast<uint32_t>(shape_indices.size());
    p.shape_index_size = static_cast<uint32_t>(index.size());
    shape_indices.insert(shape_indices.end(), index.begin(), index.end());
  }
  return p;
}

MemoryBuffer describe(const Buffer& b, const Computation& entry, const ModuleAssignment& assignment,
                      int32_t id, detail::LeafIndexer& leaves, detail::ShapeTexts& shapes) {
  MemoryBuffer m;
  set_placement(assignment, id, m);
  m.name = buffer_name(b, leaves);
  m.instruction = std::string(b.instruction->name());
  if (b.instruction->shape().is_tuple()) {
    m.shape_index = leaves.index(b.instruction->shape(), b.leaf);
  }
  m.computation = std::string(b.computation()->name());
  m.shape = shapes.text(*b.shape());
  m.kind = b.kind;
  m.is_output = b.is_output;
  m.donated = b.donated;
  m.logical_bytes = b.logical_bytes();
  m.padded_bytes = b.padded_bytes();
  m.memory_space = b.memory_space();
  if (const Life life = life_in_schedule(b, entry); life.from != nullptr) {
    m.live_from_index = life.from_index;
    m.live_to_index = life.to_index;
    m.live_from = std::string(life.from->name());
    m.live_to = std::string(life.to->name());
  }
  return m;
}

// A run's buffers are its allocations' (allocation index + k holds first_buffer + k) and name
// the leaves first.leaf + k of one tuple-shaped instruction: what MemoryAllocationRun says.
bool is_leaf_run(const std::vector<Buffer>& buffers, const detail::Allocation& run) {
  const Buffer& first = buffers[run.first_buffer];
  if (!first.instruction->shape().is_tuple() ||
      run.last_buffer - run.first_buffer + 1 != run.count) {
    return false;
  }
  for (int32_t k = 1; k < run.count; ++k) {
    const Buffer& b = buffers[run.first_buffer + k];
    if (b.instruction != first.instruction || b.leaf != first.leaf + k) return false;
  }
  return true;
}

// The ids of the `top` largest buffers offered (all when `top` is 0), largest padded size
// first; ties in schedule order. Only these are described: naming and printing shapes costs
// more than the analysis on large modules. Holds at most `top` ids at a time: a heap whose top
// is the smallest kept (the order is total, so any order of offers gives the same ids).
class LargestBuffers {
 public:
  LargestBuffers(const std::vector<Buffer>& buffers, size_t top) : buffers_(buffers), top_(top) {}

  void add(int32_t id) {
    const Entry e{buffers_[id].padded_bytes(), id};
    if (top_ == 0 || kept_.size() < top_) {
      kept_.push_back(e);
      // A heap of the `top` kept, smallest on top, once there are that many.
      if (kept_.size() == top_) std::make_heap(kept_.begin(), kept_.end(), Larger{});
      return;
    }
    // Not larger than the smallest of `top` kept: it would be the one dropped.
    if (!Larger{}(e, kept_.front())) return;
    std::pop_heap(kept_.begin(), kept_.end(), Larger{});
    kept_.back() = e;
    std::push_heap(kept_.begin(), kept_.end(), Larger{});
  }
  std::vector<int32_t> sorted() && {
    std::sort(kept_.begin(), kept_.end(), Larger{});
    std::vector<int32_t> ids(kept_.size());
    for (size_t k = 0; k < kept_.size(); ++k) ids[k] = kept_[k].id;
    return ids;
  }

 private:
  struct Entry {
    int64_t bytes;  // padded
    int32_t id;
  };
  // Larger first; the lower id first among equal sizes.
  struct Larger {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.bytes != b.bytes ? a.bytes > b.bytes : a.id < b.id;
    }
  };
  const std::vector<Buffer>& buffers_;
  size_t top_;
  std::vector<Entry> kept_;
};

// The largest counted buffers, as LargestBuffers keeps them.
std::vector<int32_t> largest_counted(const std::vector<Buffer>& buffers, size_t top) {
  LargestBuffers largest(buffers, top);
  for (size_t id = 0; id < buffers.size(); ++id) {
    if (buffers[id].counted) largest.add(static_cast<int32_t>(id));
  }
  return std::move(largest).sorted();
}

// Entry first, then the body with the largest peak of each loop or call running at the peak.
std::vector<PeakFrame> peak_path(const ComputationLiveness& entry) {
  std::vector<PeakFrame> path;
  const ComputationLiveness* at = &entry;
  int64_t position = entry.peak_position;
  while (at != nullptr && !at->computation->instructions().empty()) {
    path.push_back({std::string(at->computation->name()),
                    std::string(at->computation->instructions()[position]->name())});
    const ComputationLiveness* next = nullptr;
    int64_t most = 0;
    for (const ComputationLiveness::Window& w : at->windows) {
      if (position < w.from || position > w.to) continue;
      const ComputationLiveness* body = ComputationLiveness::largest_body(w);
      if (body != nullptr && body->peak[0] > most) {
        most = body->peak[0];
        next = body;
      }
    }
    at = next;
    if (at != nullptr) position = at->peak_position;
  }
  return path;
}

// Live bytes at every instruction of `c` and, for a loop, call or conditional running there,
// at every instruction of its bodies (the caller's bytes less the body's peak, plus the body's
// own curve): point(instruction, live bytes, computation, depth) for each, in order, up to
// `limit` of them (`made` counts them).
template <typename Point>
void walk_timeline(const ComputationLiveness& c, int64_t base, int depth, size_t limit,
                   size_t& made, Point& point) {
  const auto instructions = c.computation->instructions();
  // The windows are in order of their start: those starting at p follow those before it.
  size_t next = 0;
  for (size_t p = 0; p < instructions.size() && made < limit; ++p) {
    const int64_t here = base + c.device_bytes(static_cast<int64_t>(p));
    point(*instructions[p], here, *c.computation, depth);
    ++made;
    if (depth >= 64) continue;
    while (next < c.windows.size() && c.windows[next].from < static_cast<int64_t>(p)) ++next;
    for (size_t k = next; k < c.windows.size() && c.windows[k].from == static_cast<int64_t>(p);
         ++k) {
      const ComputationLiveness::Window& w = c.windows[k];
      if (w.to != w.from) continue;
      int64_t most = 0;
      for (const ComputationLiveness* body : w.bodies) most = std::max(most, body->peak[0]);
      for (const ComputationLiveness* body : w.bodies) {
        walk_timeline(*body, here - most, depth + 1, limit, made, point);
      }
    }
  }
}

// The timeline's points, in a vector made at its size (counted by a first walk: a point holds
// two names, and doubling would hold the old points and the new at once).
void add_timeline(const ComputationLiveness& entry, size_t limit,
                  std::vector<LiveBytesPoint>& out) {
  size_t count = 0;
  auto nothing = [](const Instruction&, int64_t, const Computation&, int) {};
  walk_timeline(entry, 0, 0, limit, count, nothing);
  out.reserve(out.size() + count);
  size_t made = 0;
  auto add = [&](const Instruction& i, int64_t bytes, const Computation& c, int depth) {
    out.push_back({std::string(i.name()), bytes, std::string(c.name()), depth});
  };
  walk_timeline(entry, 0, 0, limit, made, add);
}

// Device array leaves whose layout has no tiles: on a TPU their real size is padded.
int64_t untiled_device_arrays(const std::vector<Buffer>& buffers) {
  int64_t n = 0;
  for (const Buffer& b : buffers) {
    if (!b.counted || b.tier() != MemoryTier::kDevice || b.shape()->rank() == 0) continue;
    if (!b.shape()->layout || b.shape()->layout->tiles.empty()) ++n;
  }
  return n;
}

}  // namespace

MemoryTier memory_tier(int64_t memory_space) {
  if (memory_space == kDefaultMemorySpace) return MemoryTier::kDevice;
  if (memory_space == kHostMemorySpace) return MemoryTier::kHost;
  return MemoryTier::kOnChip;
}

std::string_view memory_tier_name(MemoryTier tier) {
  switch (tier) {
    case MemoryTier::kDevice:
      return "device";
    case MemoryTier::kOnChip:
      return "on_chip";
    case MemoryTier::kHost:
      return "host";
  }
  return "device";
}

std::string_view allocation_kind_name(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::kParameter:
      return "parameter";
    case AllocationKind::kOutput:
      return "output";
    case AllocationKind::kTemp:
      return "temp";
    case AllocationKind::kConstant:
      return "constant";
  }
  return "temp";
}

std::string_view capacity_basis_name(CapacityBasis basis) {
  return basis == CapacityBasis::kFootprint ? "footprint_bytes" : "peak_bytes";
}

std::string_view buffer_kind_name(BufferKind kind) {
  switch (kind) {
    case BufferKind::kParameter:
      return "parameter";
    case BufferKind::kOutput:
      return "output";
    case BufferKind::kTemporary:
      return "temporary";
    case BufferKind::kConstant:
      return "constant";
  }
  return "temporary";
}

void for_each_allocation(const MemoryReport& report,
                         absl::FunctionRef<void(const MemoryAllocation&)> fn) {
  auto listed = report.allocations.begin();
  MemoryAllocation each;  // the allocation of a run being listed
  detail::LeafIndexer leaves;
  for (const MemoryAllocationRun& run : report.allocation_runs) {
    for (; listed != report.allocations.end() && listed->index < run.first.index; ++listed) {
      fn(*listed);
    }
    each = run.first;
    each.buffers.resize(1);
    std::string& name = each.buffers[0];
    for (int64_t k = 0; k < run.count; ++k) {
      each.index = run.first.index + k;
      name = run.instruction;
      absl::StrAppend(&name, "{",
                      absl::StrJoin(leaves.index(run.shape, run.first_leaf + k), ","), "}");
      fn(each);
    }
  }
  for (; listed != report.allocations.end(); ++listed) fn(*listed);
}

CapacityCheck check_capacity(int64_t peak_bytes, const DeviceSpec& device, CapacityBasis basis) {
  CapacityCheck c;
  c.device = device.name;
  c.basis = basis;
  c.capacity_bytes =
      device.hbm_capacity_bytes >= 9.2e18
          ? std::numeric_limits<int64_t>::max()
          : static_cast<int64_t>(std::llround(std::max(0.0, device.hbm_capacity_bytes)));
  c.checked_bytes = peak_bytes;
  c.fits = peak_bytes <= c.capacity_bytes;
  c.shortfall_bytes = c.fits ? 0 : peak_bytes - c.capacity_bytes;
  c.headroom = c.capacity_bytes > 0
                   ? (static_cast<double>(c.capacity_bytes) - static_cast<double>(peak_bytes)) /
                         static_cast<double>(c.capacity_bytes)
                   : (c.fits ? 0.0 : -1.0);
  return c;
}

namespace {

// The counted buffers and their device bytes by kind.
// True when some device array has a tiled layout: only the TPU compiler writes those.
bool tpu_tiled(const std::vector<Buffer>& buffers) {
  return std::any_of(buffers.begin(), buffers.end(), [](const Buffer& b) {
    return b.counted && b.tier() == MemoryTier::kDevice && b.shape()->layout &&
           !b.shape()->layout->tiles.empty();
  });
}

// The index tables of the tuples in `shape` (the root's own included): 4 bytes per element,
// each table rounded up to `granule` bytes, as the TPU compiler sizes them
// (data/hardware/README.md, `tuple_table_granule`).
int64_t tuple_table_bytes(const Shape& shape, int64_t granule) {
  if (!shape.is_tuple() || granule <= 0) return 0;
  const TupleElements& elements = shape.elements;
  const auto n = static_cast<int64_t>(elements.size());
  int64_t bytes = (4 * n + granule - 1) / granule * granule;
  if (shape.depth() <= 1) return bytes;
  // Each distinct element's tables once, counted as often as it appears.
  std::vector<int64_t> of_distinct(elements.distinct().size(), -1);
  for (size_t i = 0; i < elements.size(); ++i) {
    int64_t& d = of_distinct[elements.distinct_index(i)];
    if (d < 0) d = tuple_table_bytes(elements[i], granule);
    bytes += d;
  }
  return bytes;
}

void add_step_totals(const std::vector<Buffer>& buffers, MemoryReport& r) {
  for (const Buffer& b : buffers) {
    if (!b.counted) continue;
    ++r.buffer_count;
    if (b.tier() != MemoryTier::kDevice) continue;
    r.padding_waste_bytes += b.padded_bytes() - b.logical_bytes();
    if (b.kind == BufferKind::kParameter) r.argument_bytes += b.padded_bytes();
    if (b.kind == BufferKind::kConstant) r.constant_bytes += b.padded_bytes();
    if (b.is_output) r.output_bytes += b.padded_bytes();
    if (b.donated) r.alias_bytes += b.padded_bytes();
  }
}

// The allocation counts and temp bytes; with MemoryOptions::allocations, the allocations (runs
// of alike parameter leaves as one, with allocation_runs).
void add_allocations(const ModuleAssignment& assignment, const std::vector<Buffer>& buffers,
                     const MemoryOptions& options, detail::LeafIndexer& leaves, MemoryReport& r) {
  if (options.allocations) {
    size_t listed = 0;  // what `allocations` will hold
    for (const detail::Allocation& in : assignment.allocations) {
      const bool run = options.allocation_runs && in.count > 1 && is_leaf_run(buffers, in);
      listed += run ? 0 : static_cast<size_t>(in.count);
    }
    r.allocations.reserve(listed);
  }
  for (const detail::Allocation& in : assignment.allocations) {
    r.allocation_counts[static_cast<size_t>(in.kind)] += in.count;
    if (in.kind == AllocationKind::kTemp && memory_tier(in.memory_space) == MemoryTier::kDevice) {
      r.temp_bytes += in.bytes * in.count;
    }
    if (in.kind == AllocationKind::kTemp && memory_tier(in.memory_space) == MemoryTier::kHost) {
      r.host_temp_bytes += in.bytes * in.count;
    }
    if (!options.allocations) continue;
    if (options.allocation_runs && in.count > 1 && is_leaf_run(buffers, in)) {
      MemoryAllocationRun run;
      run.first.index = in.index;
      run.first.kind = in.kind;
      run.first.bytes = in.bytes;
      run.first.memory_space = in.memory_space;
      run.first.maybe_live_out = in.maybe_live_out;
      run.first.parameter_number = in.parameter_number;
      run.first.buffer_count = in.buffer_count;
      run.count = in.count;
      const Buffer& first = buffers[in.first_buffer];
      run.instruction = std::string(first.instruction->name());
      run.shape = first.instruction->shape();
      run.first_leaf = first.leaf;
      r.allocation_runs.push_back(std::move(run));
      continue;
    }
    for (int32_t k = 0; k < in.count; ++k) {
      MemoryAllocation m;
      m.index = in.index + k;
      m.kind = in.kind;
      m.bytes = in.bytes;
      m.memory_space = in.memory_space;
      m.maybe_live_out = in.maybe_live_out;
      m.parameter_number = in.parameter_number;
      m.buffer_count = in.buffer_count;
      if (in.count > 1) {  // a run: allocation index + k holds buffer first_buffer + k
        m.buffers.push_back(buffer_name(buffers[in.first_buffer + k], leaves));
      } else {
        for (int32_t id = in.first_buffer;
             id >= 0 && (options.top_buffers == 0 || m.buffers.size() < options.top_buffers);
             id = assignment.next(id)) {
          m.buffers.push_back(buffer_name(buffers[id], leaves));
        }
      }
      r.allocations.push_back(std::move(m));
    }
  }
}

// What shaped the numbers, and the capacity check on `device` (none without one).
void add_notes(const std::vector<std::string>& liveness_notes, const std::vector<Buffer>& buffers,
               const DeviceSpec* device, const MemoryOptions& options, MemoryReport& r) {
  if (!r.scheduled) {
    r.notes.push_back(
        "the module is not scheduled (no is_scheduled=true): liveness follows the printed "
        "order, which XLA's scheduler may change");
  }
  for (const std::string& note : liveness_notes) r.notes.push_back(note);
  if (device != nullptr) {
    // A GPU executable allocates its output and temp allocations before the first kernel runs
    // and holds them to the end (gpu_executable.cc); a TPU program is assumed to do the same.
    r.capacity = options.buffer_assignment
                     ? check_capacity(r.footprint_bytes, *device, CapacityBasis::kFootprint)
                     : check_capacity(r.peak_bytes, *device, CapacityBasis::kPeak);
    if (device->kind == DeviceKind::kTpu) {
      r.notes.push_back(
          "TPU: the footprint assumes the TPU runtime holds every allocation for the whole step "
          "as the GPU runtime does");
    }
    if (device->kind == DeviceKind::kTpu) {
      if (int64_t n = untiled_device_arrays(buffers); n > 0) {
        r.notes.push_back(
            absl::StrCat(n,
                         " device buffers have layouts without tiles; a TPU pads them to its tiles "
                         "(docs/sources.md), so their sizes here are lower bounds"));
      }
    }
    if (device->on_chip_capacity_bytes > 0 &&
        static_cast<double>(r.peak_on_chip_bytes) > device->on_chip_capacity_bytes) {
      r.notes.push_back(absl::StrCat("on-chip buffers (S(1) and up) peak above the device's ",
                                     device->on_chip_memory_name.empty()
                                         ? std::string("on-chip memory")
                                         : device->on_chip_memory_name,
                                     " capacity"));
    }
  }
}

absl::StatusOr<MemoryReport> analyze(const Module& module, const DeviceSpec* device,
                                     const MemoryOptions& options) {
  absl::StatusOr<ModuleLiveness> liveness =
      ModuleLiveness::analyze(module, options.first_tile_padding);
  if (!liveness.ok()) return liveness.status();
  const ComputationLiveness& entry = liveness->entry();
  const Computation& entry_computation = *entry.computation;
  const std::vector<Buffer>& buffers = liveness->buffers();
  detail::LeafIndexer leaves;  // names buffers by their leaf's index
  detail::ShapeTexts shapes;

  MemoryReport r;
  r.module_name = std::string(module.name());
  r.entry = std::string(entry_computation.name());
  r.entry_marked = module.entry_marked();
  r.scheduled = module.attributes().is_scheduled;

  // The peak (the curve is made after buffer assignment, whose working set is the largest).
  const auto schedule = entry_computation.instructions();
  r.peak_bytes = entry.peak[0];
  r.peak_on_chip_bytes = entry.peak[1];
  r.peak_host_bytes = entry.peak[2];
  std::vector<int32_t> peak_ids;  // the peak buffers described
  if (!schedule.empty()) {
    const int64_t p = entry.peak_position;
    r.peak_at = std::string(schedule[p]->name());
    r.peak_path = peak_path(entry);
    r.peak_breakdown = {entry.peak_breakdown[0], entry.peak_breakdown[1],
                        entry.peak_breakdown[2], entry.peak_breakdown[3]};
    r.temporary_peak_bytes = std::max(r.temporary_peak_bytes, entry.temporary_peak);
    // Buffers live at the peak, each offered once (a body run by two overlapping windows
    // too), without listing them all: a parameter may have a million leaves.
    LargestBuffers largest(buffers, options.top_buffers);
    liveness->for_each_live_at(entry, p, [&](int32_t id) {
      ++r.peak_buffer_count;
      r.peak_padding_waste_bytes += buffers[id].padded_bytes() - buffers[id].logical_bytes();
      largest.add(id);
    });
    peak_ids = std::move(largest).sorted();
  }

  // Whole-step totals and the largest buffers. A program the TPU compiler wrote (tiled
  // layouts; not for another kind of device) is assigned by that compiler's rules, and its
  // output's tuple index tables are output bytes where the device gives their size.
  add_step_totals(buffers, r);
  const bool tpu = (device == nullptr || device->kind == DeviceKind::kTpu) && tpu_tiled(buffers);
  detail::AssignmentRules rules = tpu ? detail::AssignmentRules::tpu() : detail::AssignmentRules{};
  const DeviceFigure* granule = device != nullptr ? device->figure("tuple_table_granule") : nullptr;
  if (tpu && granule != nullptr && entry_computation.root() != nullptr) {
    rules.root_tables_bytes = tuple_table_bytes(entry_computation.root()->shape(),
                                                static_cast<int64_t>(granule->value));
    r.output_bytes += rules.root_tables_bytes;
  }
  std::optional<detail::TupleTables> tables;
  if (tpu && options.buffer_assignment) {
    tables = detail::temporary_tuple_tables(
        module, granule != nullptr ? static_cast<int64_t>(granule->value) : 1, rules.alignment);
    if (tables) rules.temp_tables_bytes = tables->bytes;
  }
  const std::vector<int32_t> largest_ids = largest_counted(buffers, options.top_buffers);
  std::vector<int32_t> placed_ids;  // MemoryOptions::placements, ordered as largest_ids
  if (options.buffer_assignment && options.placements > 0) {
    placed_ids = largest_counted(buffers, options.placements);
  }

  // Buffer assignment, keeping the lives of the buffers described and placed.
  std::vector<int32_t> described = peak_ids;
  described.insert(described.end(), largest_ids.begin(), largest_ids.end());
  described.insert(described.end(), placed_ids.begin(), placed_ids.end());
  ModuleAssignment assignment;
  if (options.buffer_assignment) {
    assignment = detail::assign_buffers(*liveness, described, rules);
  } else {
    assignment.allocation_of.assign(buffers.size(), -1);
  }
  described = {};
  r.peak_buffers.reserve(peak_ids.size());
  for (int32_t id : peak_ids) {
    r.peak_buffers.push_back(
        describe(buffers[id], entry_computation, assignment, id, leaves, shapes));
  }
  if (tpu && options.buffer_assignment) {
    r.notes.push_back(
        "buffer assignment by the TPU compiler's rules: no temporaries in output allocations, "
        "output fusions over dying operands, a heap packed in program order at 16 KiB "
        "(docs/memory.md, \"On TPU\")");
    r.notes.push_back(
        tables ? absl::StrFormat("tuple-shaped temporaries: %d, each with its pointer table in "
                                 "16 KiB of the temp allocation (none where that holds only "
                                 "control scalars)",
                                 tables->count)
               : std::string("tuple pointer tables not counted: too many tuple shapes"));
  }
  r.temps_in_live_out = assignment.temps_in_live_out;
  r.shared_with_operand = assignment.shared_with_operand;
  add_allocations(assignment, buffers, options, leaves, r);
  // The curve: a point per entry instruction (80 bytes each).
  if (options.live_curves && options.entry_curve) {
    r.live_curve.reserve(schedule.size());
    for (size_t p = 0; p < schedule.size(); ++p) {
      r.live_curve.push_back({std::string(schedule[p]->name()), entry.device_bytes(p),
                              std::string(entry_computation.name()), 0});
    }
  }
  if (options.buffer_assignment) {
    r.footprint_bytes =
        r.argument_bytes + r.output_bytes - r.alias_bytes + r.temp_bytes + r.constant_bytes;
  }
  if (options.live_curves && !schedule.empty()) {
    const size_t limit = std::max<size_t>(1, options.max_timeline_points);
    add_timeline(entry, limit, r.live_timeline);
    if (r.live_timeline.size() >= options.max_timeline_points) {
      r.notes.push_back(absl::StrCat("the live-bytes timeline stops after ",
                                     r.live_timeline.size(), " points"));
    }
  }
  r.largest_buffers.reserve(largest_ids.size());
  for (int32_t id : largest_ids) {
    r.largest_buffers.push_back(
        describe(buffers[id], entry_computation, assignment, id, leaves, shapes));
  }
  r.placements.reserve(placed_ids.size());
  for (int32_t id : placed_ids) {
    r.placements.push_back(place(buffers[id], entry_computation, assignment, id, leaves,
                                 r.placement_shape_indices));
  }

  add_notes(liveness->notes(), buffers, device, options, r);
  return r;
}

}  // namespace

absl::StatusOr<MemoryReport> analyze_memory(const Module& module, const MemoryOptions& options) {
  return analyze(module, nullptr, options);
}

absl::StatusOr<MemoryReport> analyze_memory(const Module& module, const DeviceSpec& device,
                                            const MemoryOptions& options) {
  return analyze(module, &device, options);
}

MemoryReport narrow_memory_report(const MemoryReport& report, const MemoryOptions& options) {
  // The first `top` of a list kept largest first: the ones a smaller top keeps (buffers are
  // ordered by size, then id).
  const size_t top = options.top_buffers;
  auto first = [top](const auto& list) {
    using List = std::decay_t<decltype(list)>;
    return top == 0 || list.size() <= top
               ? list
               : List(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(top));
  };
  MemoryReport r;
  r.module_name = report.module_name;
  r.entry = report.entry;
  r.entry_marked = report.entry_marked;
  r.scheduled = report.scheduled;
  r.peak_bytes = report.peak_bytes;
  r.peak_at = report.peak_at;
  r.peak_path = report.peak_path;
  r.peak_breakdown = report.peak_breakdown;
  r.peak_padding_waste_bytes = report.peak_padding_waste_bytes;
  r.argument_bytes = report.argument_bytes;
  r.output_bytes = report.output_bytes;
  r.alias_bytes = report.alias_bytes;
  r.temporary_peak_bytes = report.temporary_peak_bytes;
  r.constant_bytes = report.constant_bytes;
  r.padding_waste_bytes = report.padding_waste_bytes;
  r.temp_bytes = report.temp_bytes;
  r.footprint_bytes = report.footprint_bytes;
  if (options.allocations) {
    // An allocation names at most `top` of its buffers.
    r.allocations = report.allocations;
    for (MemoryAllocation& a : r.allocations) {
      if (top != 0 && a.buffers.size() > top) a.buffers.resize(top);
    }
    r.allocation_runs = report.allocation_runs;
  }
  r.allocation_counts = report.allocation_counts;
  r.temps_in_live_out = report.temps_in_live_out;
  r.shared_with_operand = report.shared_with_operand;
  r.peak_on_chip_bytes = report.peak_on_chip_bytes;
  r.peak_host_bytes = report.peak_host_bytes;
  r.buffer_count = report.buffer_count;
  r.peak_buffer_count = report.peak_buffer_count;
  r.largest_buffers = first(report.largest_buffers);
  r.peak_buffers = first(report.peak_buffers);
  if (options.placements > 0) {
    // The first `placements` (largest first, as the analysis orders them) and every tuple
    // index, which they may name.
    r.placements.assign(
        report.placements.begin(),
        report.placements.begin() +
            static_cast<std::ptrdiff_t>(std::min(options.placements, report.placements.size())));
    r.placement_shape_indices = report.placement_shape_indices;
  }
  r.live_curve = report.live_curve;
  r.live_timeline = report.live_timeline;
  r.capacity = report.capacity;
  r.notes = report.notes;
  r.warnings = report.warnings;
  return r;
}

}  // namespace hloroof
