// Python bindings of costs and memory: ModuleCost and its records, MemoryReport.
#include "module_guard.h"

namespace hloroof::python {

void bind_cost(py::module_& m) {
  Record<CostOptions>(m, "CostOptions", "Options of cost(); pass them as keywords.")
      .option("use_padded_sizes", &CostOptions::use_padded_sizes,
              "measure bytes with the layout's tiles applied")
      .option("default_trip_count", &CostOptions::default_trip_count,
              "trip count assumed for a loop whose count cannot be told")
      .option("fused_records", &CostOptions::fused_records,
              "keep every fused and applied instruction's record (else a collective's only)")
      .done()
      .def(py::init<>());

  Record<SpaceBytes>(m, "SpaceBytes", "Bytes by memory space.")
      .field("device", &SpaceBytes::device, "S(0): HBM")
      .field("on_chip", &SpaceBytes::on_chip, "S(1) and other on-chip spaces")
      .field("host", &SpaceBytes::host, "S(5), S(6): host memory")
      .done();

  Record<OpCost>(m, "OpCost", "The work of one execution of an instruction, callees included.")
      .field("flops", &OpCost::flops, "all FLOPs")
      .computed("matrix_flops", &OpCost::matrix_flops, "matrix-unit FLOPs")
      .computed("vector_flops", &OpCost::vector_flops, "other FLOPs")
      .computed(
          "matrix_flops_by_type",
          [](const OpCost& c) {
            py::dict out;
            for (const MatrixFlops& f : c.matrix) {
              out[py::str(primitive_type_name(f.type))] = f.flops;
            }
            return out;
          },
          "matrix FLOPs by operand element type, e.g. {'bf16': 2.1e9}")
      .field("transcendentals", &OpCost::transcendentals, "exp, log, tanh, ...")
      .computed("bytes", &OpCost::bytes, "logical bytes read and written, every memory space")
      .field("bytes_read", &OpCost::bytes_read, "logical bytes read")
      .field("bytes_written", &OpCost::bytes_written, "logical bytes written")
      .field("padded_read", &OpCost::padded_read, "bytes read, padded by tiles, by space")
      .field("padded_written", &OpCost::padded_written, "bytes written, padded, by space")
      .computed("padded_bytes", &OpCost::padded_bytes, "padded bytes, every space")
      .computed("hbm_bytes", &OpCost::hbm_bytes, "padded bytes in device memory (HBM)")
      .computed("on_chip_bytes", &OpCost::on_chip_bytes, "padded bytes in on-chip memory")
      .computed("host_bytes", &OpCost::host_bytes, "padded bytes in host memory")
      .field("xla_flops", &OpCost::xla_flops, "XLA's cost_analysis() count (loops once)")
      .field("xla_transcendentals", &OpCost::xla_transcendentals, "XLA's count")
      .field("xla_bytes_accessed", &OpCost::xla_bytes_accessed, "XLA's count")
      .field("unknown_ops", &OpCost::unknown_ops, "instructions whose cost could not be told")
      .done();

  Record<CollectiveCost>(m, "CollectiveCost", "A collective's payload and groups.")
      .computed(
          "kind", [](const CollectiveCost& c) { return collective_kind_name(c.kind); },
          "'all-gather', 'all-reduce', ...")
      .field("is_async", &CollectiveCost::is_async, "started here, finished by a -done")
      .field("is_host_transfer", &CollectiveCost::is_host_transfer, "send/recv to the host")
      .computed(
          "id_mode", [](const CollectiveCost& c) { return id_mode_name(c.id_mode); },
          "what replica_groups ids mean: 'cross-replica', 'flattened-id', ...")
      .field("channel_id", &CollectiveCost::channel_id, "channel_id, or None")
      .field("payload_bytes", &CollectiveCost::payload_bytes, "V: the full array of one group, B")
      .field("group_size", &CollectiveCost::group_size, "N: devices per group")
      .field("groups", &CollectiveCost::groups, "every group as global device ids")
      .field("pairs", &CollectiveCost::pairs, "collective-permute: (source, target) ids")
      .done();

  Record<TripCount>(m, "TripCount", "A while loop's trip count and where it came from.")
      .field("count", &TripCount::count, "executions of the body")
      .computed(
          "source", [](const TripCount& t) { return trip_count_source_name(t.source); },
          "'backend_config', 'derived' or 'assumed'")
      .done();

  Record<InstructionCost>(m, "InstructionCost", "The cost of one instruction.")
      .computed(
          "computation", [](const InstructionCost& c) { return c.computation; }, "its computation",
          kInternal)
      .computed(
          "instruction", [](const InstructionCost& c) { return c.instruction; }, "the instruction",
          kInternal)
      .computed(
          "role", [](const InstructionCost& c) { return cost_role_name(c.role); },
          "'scheduled', 'fused' or 'applied'")
      .field("multiplier", &InstructionCost::multiplier, "executions per step")
      .field("cost", &InstructionCost::cost, "one execution")
      .field("unknown", &InstructionCost::unknown, "its own cost could not be told")
      .computed(
          "collective", [](const InstructionCost& c) { return c.collective.get(); },
          "collectives: payload and groups", kInternal)
      .computed(
          "trip_count", [](const InstructionCost& c) { return c.trip_count.get(); },
          "while loops: the trip count", kInternal)
      .done();

  Record<ComputationCost>(m, "ComputationCost", "The cost of one computation.")
      .computed(
          "computation", [](const ComputationCost& c) { return c.computation; }, "the computation",
          kInternal)
      .computed(
          "role", [](const ComputationCost& c) { return cost_role_name(c.role); },
          "'scheduled', 'fused' or 'applied'")
      .field("multiplier", &ComputationCost::multiplier, "executions per step")
      .field("per_execution", &ComputationCost::per_execution, "sum of its instructions")
      .done();

  py::bind_vector<std::vector<InstructionCost>>(m, "InstructionCostList");
  py::bind_vector<std::vector<ComputationCost>>(m, "ComputationCostList");

  Record<ModuleCost>(m, "ModuleCost", "The static cost of a module: every instruction and a step.")
      .field("module_name", &ModuleCost::module_name, "the HloModule name")
      .field("instructions", &ModuleCost::instructions,
             "callers first (entry first), instructions in schedule order")
      .field("computations", &ModuleCost::computations, "every computation")
      .field("totals", &ModuleCost::totals, "one step, loops expanded by their trip counts")
      .field("unknown", &ModuleCost::unknown, "instructions whose cost could not be told")
      .field("notes", &ModuleCost::notes, "assumptions made, one line each")
      .field("is_lower_bound", &ModuleCost::is_lower_bound,
             "a trip count was assumed or a cost is unknown: the totals are a floor")
      .done()
      .def(
          "to_json", [](const ModuleCost& cost) { return cost_to_json(cost); },
          "The JSON object of `hloroof cost --json` (the keys of to_dict()).")
      .def(
          "__str__", [](const ModuleCost& cost) { return render_cost_text(cost); },
          "The report of `hloroof cost`: the totals of one step, the notes, and the 20\n"
          "instructions with the most FLOPs per step.");

}

// ---- Memory.

void bind_memory(py::module_& m) {
  Record<MemoryBuffer>(m, "MemoryBuffer", "One array buffer and its live range.")
      .field("id", &MemoryBuffer::id, "its number in this analysis (what shares_with names)")
      .field("name", &MemoryBuffer::name, "defining instruction, with a tuple index: 'ag.1{1}'")
      .field("instruction", &MemoryBuffer::instruction, "the defining instruction: 'ag.1'")
      .field("shape_index", &MemoryBuffer::shape_index, "the leaf's index in its result")
      .field("computation", &MemoryBuffer::computation, "where it is defined")
      .field("shape", &MemoryBuffer::shape, "the array, as text")
      .computed(
          "kind", [](const MemoryBuffer& b) { return buffer_kind_name(b.kind); },
          "'parameter', 'output', 'temporary' or 'constant'")
      .field("is_output", &MemoryBuffer::is_output, "reaches the entry root")
      .field("donated", &MemoryBuffer::donated, "a parameter whose buffer an output reuses")
      .field("logical_bytes", &MemoryBuffer::logical_bytes, "B")
      .field("padded_bytes", &MemoryBuffer::padded_bytes, "B, padded by the layout's tiles")
      .computed("padding_waste_bytes", &MemoryBuffer::padding_waste_bytes, "padded - logical, B")
      .field("memory_space", &MemoryBuffer::memory_space, "S(n)")
      .computed(
          "memory", [](const MemoryBuffer& b) { return memory_tier_name(b.tier()); },
          "'device', 'on_chip' or 'host'")
      .field("live_from", &MemoryBuffer::live_from, "first instruction it is live at")
      .field("live_to", &MemoryBuffer::live_to, "last instruction it is live at")
      .field("allocation", &MemoryBuffer::allocation, "index in allocations; -1: none of its own")
      .field("allocation_offset", &MemoryBuffer::allocation_offset, "B into its allocation")
      .field("program_from", &MemoryBuffer::program_from,
             "first position its allocation holds it, bodies laid out where they run; -1: none")
      .field("program_to", &MemoryBuffer::program_to, "last such position; -1: none")
      .field("shares_with", &MemoryBuffer::shares_with,
             "id of the dying operand whose bytes it takes over, or -1")
      .done();

  Record<MemoryAllocation>(m, "MemoryAllocation", "One allocation of the buffer assignment.")
      .field("index", &MemoryAllocation::index, "its index")
      .computed(
          "kind", [](const MemoryAllocation& a) { return allocation_kind_name(a.kind); },
          "'parameter', 'output', 'temp' or 'constant'")
      .field("bytes", &MemoryAllocation::bytes, "B")
      .field("memory_space", &MemoryAllocation::memory_space, "S(n)")
      .field("maybe_live_out", &MemoryAllocation::maybe_live_out,
             "an output, or a parameter donated to one")
      .field("parameter_number", &MemoryAllocation::parameter_number, "parameters; else -1")
      .field("buffer_count", &MemoryAllocation::buffer_count, "buffers assigned to it")
      .field("buffers", &MemoryAllocation::buffers, "their names, largest first")
      .done();

  Record<MemoryBreakdown>(m, "MemoryBreakdown", "Device bytes by buffer kind.")
      .field("parameters", &MemoryBreakdown::parameters, "B")
      .field("outputs", &MemoryBreakdown::outputs, "B")
      .field("temporaries", &MemoryBreakdown::temporaries, "B")
      .field("constants", &MemoryBreakdown::constants, "B")
      .computed("total", &MemoryBreakdown::total, "B")
      .done();

  Record<PeakFrame>(m, "PeakFrame", "One level of where the peak happens.")
      .field("computation", &PeakFrame::computation, "computation name")
      .field("instruction", &PeakFrame::instruction, "the instruction running at the peak")
      .done();

  Record<LiveBytesPoint>(m, "LiveBytesPoint", "Live device bytes while an entry op runs.")
      .field("instruction", &LiveBytesPoint::instruction, "entry instruction")
      .field("device_bytes", &LiveBytesPoint::device_bytes, "B")
      .field("computation", &LiveBytesPoint::computation, "where it is: the entry, or a body")
      .field("depth", &LiveBytesPoint::depth, "0: the entry; 1: a body the entry runs; ...")
      .done();

  Record<CapacityCheck>(m, "CapacityCheck", "A memory figure against a device's HBM capacity.")
      .field("device", &CapacityCheck::device, "the spec's name")
      .field("capacity_bytes", &CapacityCheck::capacity_bytes, "B")
      .computed(
          "basis",
          [](const CapacityCheck& c) { return std::string(capacity_basis_name(c.basis)); },
          "the figure checked: 'footprint_bytes' or 'peak_bytes'")
      .field("checked_bytes", &CapacityCheck::checked_bytes, "B, the figure `basis` names")
      .field("fits", &CapacityCheck::fits, "checked_bytes <= capacity_bytes")
      .field("headroom", &CapacityCheck::headroom, "(capacity - checked) / capacity")
      .field("shortfall_bytes", &CapacityCheck::shortfall_bytes, "B missing; 0 when it fits")
      .done();

  Record<MemoryReport>(m, "MemoryReport", "Peak device memory from buffer liveness.",
                       py::dynamic_attr())
      .field("module_name", &MemoryReport::module_name, "the HloModule name")
      .field("entry", &MemoryReport::entry, "the computation analysed as the step")
      .field("entry_marked", &MemoryReport::entry_marked, "it is the one the input marks ENTRY")
      .field("scheduled", &MemoryReport::scheduled, "the printed order is the execution order")
      .field("peak_bytes", &MemoryReport::peak_bytes, "device-memory high-water mark, B")
      .field("peak_at", &MemoryReport::peak_at, "the entry instruction running at the peak")
      .field("peak_path", &MemoryReport::peak_path, "entry first, then into loop and call bodies")
      .field("peak_breakdown", &MemoryReport::peak_breakdown, "the peak by buffer kind")
      .field("peak_padding_waste_bytes", &MemoryReport::peak_padding_waste_bytes, "B")
      .field("argument_bytes", &MemoryReport::argument_bytes, "B (XLA memory_analysis terms)")
      .field("output_bytes", &MemoryReport::output_bytes, "B")
      .field("alias_bytes", &MemoryReport::alias_bytes, "B of parameters donated to outputs")
      .field("temporary_peak_bytes", &MemoryReport::temporary_peak_bytes, "B")
      .field("temp_bytes", &MemoryReport::temp_bytes, "B of XLA's temp allocation, as assigned")
      .field("host_temp_bytes", &MemoryReport::host_temp_bytes,
             "B of the temp allocations in host memory (XLA's host_temp_size_in_bytes)")
      .field("footprint_bytes", &MemoryReport::footprint_bytes,
             "B held by a step: arguments + outputs - aliased + temp + constants")
      .field("allocations", &MemoryReport::allocations, "every allocation, all memories")
      .computed(
          "allocation_counts",
          [](const MemoryReport& r) {
            py::dict out;
            for (AllocationKind kind : {AllocationKind::kParameter, AllocationKind::kOutput,
                                        AllocationKind::kTemp, AllocationKind::kConstant}) {
              out[py::str(std::string(allocation_kind_name(kind)))] =
                  r.allocation_counts[static_cast<size_t>(kind)];
            }
            return out;
          },
          "allocations of each kind: {'parameter': n, 'output': n, 'temp': n, 'constant': n}")
      .field("temps_in_live_out", &MemoryReport::temps_in_live_out,
             "temporaries placed in output or donated allocations")
      .field("shared_with_operand", &MemoryReport::shared_with_operand,
             "results written over a dying operand's bytes")
      .field("constant_bytes", &MemoryReport::constant_bytes, "B")
      .field("padding_waste_bytes", &MemoryReport::padding_waste_bytes, "B")
      .field("peak_on_chip_bytes", &MemoryReport::peak_on_chip_bytes, "B")
      .field("peak_host_bytes", &MemoryReport::peak_host_bytes, "B")
      .field("buffer_count", &MemoryReport::buffer_count, "distinct buffers, all memories")
      .field("peak_buffer_count", &MemoryReport::peak_buffer_count, "device buffers at the peak")
      .field("largest_buffers", &MemoryReport::largest_buffers, "largest first")
      .field("peak_buffers", &MemoryReport::peak_buffers, "device buffers live at the peak")
      .field("live_curve", &MemoryReport::live_curve, "one point per entry instruction")
      .field("live_timeline", &MemoryReport::live_timeline,
             "one point per instruction that runs, in order, bodies' inside (one iteration)")
      .field("capacity", &MemoryReport::capacity, "check against the device, or None")
      .field("notes", &MemoryReport::notes, "assumptions that shaped the numbers")
      .field("warnings", &MemoryReport::warnings, "what to know first: the device is a guess, ...")
      .done()
      .def(
          "to_json", [](const MemoryReport& report) { return memory_to_json(report); },
          "The JSON object of `hloroof memory --json` (the keys of to_dict()).")
      .def(
          "__str__",
          [](const MemoryReport& report) {
            return render_memory_text(report, {.device_warnings = report.warnings});
          },
          "The report of `hloroof memory`: the peak, the footprint, the capacity check, the\n"
          "largest buffers and the notes.");

}

}  // namespace hloroof::python
