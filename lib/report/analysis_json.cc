// The JSON documents of `hloroof cost --json` and `hloroof memory --json`
// (hloroof/analysis_json.h).
#include "hloroof/analysis_json.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "hloroof/units.h"
#include "nlohmann/json.hpp"
#include "report/json_writer.h"

namespace hloroof {
namespace {

// A collective's fields, written field by field (no JSON document made for each: a sharded
// module has thousands).
void write_collective(const CollectiveCost& c, report_internal::JsonWriter& w) {
  const auto write_ids = [&](absl::Span<const int64_t> ids) {
    w.begin_array();
    for (int64_t id : ids) w.number(id);
    w.end_array();
  };
  w.begin_object();
  w.text_field("kind", collective_kind_name(c.kind));
  w.bool_field("async", c.is_async);
  w.bool_field("host_transfer", c.is_host_transfer);
  w.text_field("id_mode", id_mode_name(c.id_mode));
  w.key("channel_id");
  if (c.channel_id) {
    w.number(*c.channel_id);
  } else {
    w.null();
  }
  w.number_field("payload_bytes", c.payload_bytes);
  w.number_field("group_size", c.group_size);
  // A permute's pairs also read as groups of two, so that every kind has `groups`.
  w.key("groups");
  w.begin_array();
  for (const std::vector<int64_t>& group : c.groups) write_ids(group);
  for (const auto& [source, target] : c.pairs) write_ids({source, target});
  w.end_array();
  w.key("pairs");
  w.begin_array();
  for (const auto& [source, target] : c.pairs) write_ids({source, target});
  w.end_array();
  w.end_object();
}

// The fields of an instruction's or a step's cost, into the object being written.
void write_cost_fields(const OpCost& c, report_internal::JsonWriter& w) {
  w.number_field("flops", c.flops);
  w.number_field("matrix_flops", c.matrix_flops());
  w.number_field("vector_flops", c.vector_flops());
  w.key("matrix_flops_by_type");
  if (c.matrix.empty()) {
    w.begin_object();
    w.end_object();
  } else {
    nlohmann::ordered_json by_type = nlohmann::ordered_json::object();
    for (const MatrixFlops& m : c.matrix) {
      by_type[std::string(primitive_type_name(m.type))] = m.flops;
    }
    w.value(by_type);
  }
  w.number_field("transcendentals", c.transcendentals);
  w.number_field("bytes", c.bytes());
  w.number_field("bytes_read", c.bytes_read);
  w.number_field("bytes_written", c.bytes_written);
  w.number_field("padded_bytes", c.padded_bytes());
  w.number_field("hbm_bytes", c.hbm_bytes());
  w.number_field("onchip_bytes", c.on_chip_bytes());
  w.number_field("host_bytes", c.host_bytes());
  w.number_field("xla_flops", c.xla_flops);
  w.number_field("xla_transcendentals", c.xla_transcendentals);
  w.number_field("xla_bytes_accessed", c.xla_bytes_accessed);
}

}  // namespace

void write_cost_json(const ModuleCost& cost, std::ostream& sink) {
  std::string out;
  report_internal::JsonWriter w(out, &sink);
  w.begin_object();
  w.text_field("module", cost.module_name);
  w.text_field("entry", cost.entry);
  w.bool_field("entry_marked", cost.entry_marked);
  w.key("totals");
  w.begin_object();
  write_cost_fields(cost.totals, w);
  w.number_field("unknown_ops", cost.unknown.size());
  w.bool_field("lower_bound", cost.is_lower_bound);
  w.end_object();
  w.strings_field("notes", cost.notes);
  w.key("instructions");
  w.begin_array();
  for (const InstructionCost& r : cost.instructions) {
    w.begin_object();
    w.text_field("computation", r.computation->name());
    w.text_field("name", r.instruction->name());
    w.text_field("opcode", spelled_opcode(*r.instruction));
    w.text_field("role", cost_role_name(r.role));
    w.number_field("multiplier", r.multiplier);
    write_cost_fields(r.cost, w);
    w.key("matrix_type");
    if (r.cost.matrix.empty()) {
      w.null();
    } else {
      w.string(primitive_type_name(r.cost.matrix_type()));
    }
    w.bool_field("unknown", r.unknown);
    w.key("trip_count");
    if (r.trip_count) {
      w.begin_object();
      w.number_field("count", r.trip_count->count);
      w.text_field("source", trip_count_source_name(r.trip_count->source));
      w.end_object();
    } else {
      w.null();
    }
    w.key("collective");
    if (r.collective) {
      write_collective(*r.collective, w);
    } else {
      w.null();
    }
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.raw("\n");
  w.finish();
}

std::string cost_to_json(const ModuleCost& cost) {
  std::ostringstream out;
  write_cost_json(cost, out);
  return out.str();
}

XlaMemoryComparison compare_with_xla(const MemoryReport& r, const XlaBufferAssignment& xla) {
  XlaMemoryComparison c;
  for (const char* memory : {"device", "other"}) {
    for (const char* kind : {"parameter", "output", "temp", "constant", "thread-local", "total"}) {
      XlaMemoryComparisonRow row{kind, memory};
      const bool total = row.kind == "total";
      for (const XlaAllocation& a : xla.allocations) {
        if ((a.color == 0) != (row.memory == "device")) continue;
        if (!total && a.kind() != row.kind) continue;
        row.xla_bytes += a.size_bytes;
        ++row.xla_allocations;
      }
      for_each_allocation(r, [&](const MemoryAllocation& a) {
        if ((a.memory_space == 0) != (row.memory == "device")) return;
        // As XLA's: an allocation that is a parameter and live out is a parameter.
        if (!total && allocation_kind_name(a.kind) != row.kind) return;
        row.hloroof_bytes += a.bytes;
        ++row.hloroof_allocations;
      });
      if (row.xla_allocations == 0 && row.hloroof_allocations == 0) continue;
      c.rows.push_back(row);
      const int64_t diff = row.hloroof_bytes - row.xla_bytes;
      const double base = static_cast<double>(std::max<int64_t>(row.xla_bytes, 1));
      if (std::abs(static_cast<double>(diff)) > 0.01 * base && diff != 0) {
        c.differences.push_back(absl::StrFormat(
            "%s, %s memory: hloroof %s (%d allocations), XLA %s (%d): %s%s (%s)", row.kind,
            row.memory, format_bytes(static_cast<double>(row.hloroof_bytes)),
            row.hloroof_allocations, format_bytes(static_cast<double>(row.xla_bytes)),
            row.xla_allocations, diff > 0 ? "+" : "-",
            format_bytes(static_cast<double>(std::abs(diff))),
            row.xla_bytes > 0 ? format_percent(static_cast<double>(diff) / base) : "new"));
      }
    }
  }
  return c;
}

namespace {

void write_buffer(const MemoryBuffer& b, report_internal::JsonWriter& w) {
  w.begin_object();
  w.text_field("name", b.name);
  w.text_field("computation", b.computation);
  w.text_field("kind", buffer_kind_name(b.kind));
  w.text_field("shape", b.shape);
  w.number_field("logical_bytes", b.logical_bytes);
  w.number_field("padded_bytes", b.padded_bytes);
  w.number_field("padding_waste_bytes", b.padding_waste_bytes());
  w.number_field("memory_space", b.memory_space);
  w.text_field("memory", memory_tier_name(b.tier()));
  w.bool_field("is_output", b.is_output);
  w.bool_field("donated", b.donated);
  w.number_field("allocation", b.allocation);
  w.number_field("allocation_offset", b.allocation_offset);
  w.text_field("live_from", b.live_from);
  w.text_field("live_to", b.live_to);
  w.end_object();
}

}  // namespace

// Names are ASCII in practice; any byte that is not UTF-8 is replaced rather than thrown on.
void write_memory_json(const MemoryReport& r, std::ostream& sink,
                       const XlaMemoryComparison* xla) {
  std::string out;
  report_internal::JsonWriter w(out, &sink);
  w.begin_object();
  w.text_field("module", r.module_name);
  w.text_field("entry", r.entry);
  w.bool_field("entry_marked", r.entry_marked);
  w.bool_field("scheduled", r.scheduled);
  w.number_field("peak_bytes", r.peak_bytes);
  w.text_field("peak_at", r.peak_at);
  w.number_field("argument_bytes", r.argument_bytes);
  w.number_field("output_bytes", r.output_bytes);
  w.number_field("alias_bytes", r.alias_bytes);
  w.number_field("temp_bytes", r.temp_bytes);
  w.number_field("constant_bytes", r.constant_bytes);
  w.number_field("footprint_bytes", r.footprint_bytes);
  w.number_field("host_temp_bytes", r.host_temp_bytes);
  w.key("peak_path");
  w.begin_array();
  for (const PeakFrame& f : r.peak_path) {
    w.begin_object();
    w.text_field("computation", f.computation);
    w.text_field("instruction", f.instruction);
    w.end_object();
  }
  w.end_array();
  if (r.capacity) {
    w.text_field("device", r.capacity->device);
    w.number_field("capacity_bytes", r.capacity->capacity_bytes);
    w.text_field("capacity_basis", capacity_basis_name(r.capacity->basis));
    w.number_field("checked_bytes", r.capacity->checked_bytes);
    w.bool_field("fits", r.capacity->fits);
    w.number_field("headroom", r.capacity->headroom);
    w.number_field("shortfall_bytes", r.capacity->shortfall_bytes);
  } else {
    for (std::string_view name :
         {"device", "capacity_bytes", "capacity_basis", "checked_bytes", "fits"}) {
      w.key(name);
      w.null();
    }
  }
  w.key("breakdown");
  w.begin_object();
  w.number_field("parameters", r.peak_breakdown.parameters);
  w.number_field("outputs", r.peak_breakdown.outputs);
  w.number_field("temporaries", r.peak_breakdown.temporaries);
  w.number_field("constants", r.peak_breakdown.constants);
  w.end_object();
  w.number_field("padding_waste_bytes", r.padding_waste_bytes);
  w.number_field("peak_padding_waste_bytes", r.peak_padding_waste_bytes);
  w.key("memory_analysis");
  w.begin_object();
  w.number_field("argument_bytes", r.argument_bytes);
  w.number_field("output_bytes", r.output_bytes);
  w.number_field("alias_bytes", r.alias_bytes);
  w.number_field("temp_bytes", r.temp_bytes);
  w.number_field("temporary_peak_bytes", r.temporary_peak_bytes);
  w.number_field("constant_bytes", r.constant_bytes);
  w.number_field("footprint_bytes", r.footprint_bytes);
  w.number_field("host_temp_bytes", r.host_temp_bytes);
  w.end_object();
  w.number_field("temps_in_live_out", r.temps_in_live_out);
  w.number_field("shared_with_operand", r.shared_with_operand);
  w.key("allocations");
  w.begin_array();
  for_each_allocation(r, [&w](const MemoryAllocation& a) {
    w.begin_object();
    w.number_field("index", a.index);
    w.text_field("kind", allocation_kind_name(a.kind));
    w.number_field("bytes", a.bytes);
    w.number_field("memory_space", a.memory_space);
    w.bool_field("maybe_live_out", a.maybe_live_out);
    w.number_field("buffer_count", a.buffer_count);
    w.strings_field("buffers", a.buffers);
    if (a.parameter_number >= 0) w.number_field("parameter_number", a.parameter_number);
    w.end_object();
  });
  w.end_array();
  w.number_field("peak_on_chip_bytes", r.peak_on_chip_bytes);
  w.number_field("peak_host_bytes", r.peak_host_bytes);
  w.number_field("buffer_count", r.buffer_count);
  w.number_field("peak_buffer_count", r.peak_buffer_count);
  w.key("buffers");
  w.begin_array();
  for (const MemoryBuffer& b : r.largest_buffers) write_buffer(b, w);
  w.end_array();
  w.key("peak_buffers");
  w.begin_array();
  for (const MemoryBuffer& b : r.peak_buffers) write_buffer(b, w);
  w.end_array();
  w.key("live_bytes");
  w.begin_array();
  for (const LiveBytesPoint& p : r.live_curve) {
    w.begin_object();
    w.text_field("instruction", p.instruction);
    w.number_field("device_bytes", p.device_bytes);
    w.end_object();
  }
  w.end_array();
  w.key("live_timeline");
  w.begin_array();
  for (const LiveBytesPoint& p : r.live_timeline) {
    w.begin_object();
    w.text_field("computation", p.computation);
    w.text_field("instruction", p.instruction);
    w.number_field("depth", p.depth);
    w.number_field("device_bytes", p.device_bytes);
    w.end_object();
  }
  w.end_array();
  w.key("xla_buffer_assignment");
  if (xla) {
    w.begin_object();
    w.key("by_kind");
    w.begin_array();
    for (const XlaMemoryComparisonRow& row : xla->rows) {
      w.begin_object();
      w.text_field("kind", row.kind);
      w.text_field("memory", row.memory);
      w.number_field("xla_bytes", row.xla_bytes);
      w.number_field("hloroof_bytes", row.hloroof_bytes);
      w.number_field("difference_bytes", row.hloroof_bytes - row.xla_bytes);
      w.number_field("xla_allocations", row.xla_allocations);
      w.number_field("hloroof_allocations", row.hloroof_allocations);
      w.end_object();
    }
    w.end_array();
    w.strings_field("differences", xla->differences);
    w.end_object();
  } else {
    w.null();
  }
  w.strings_field("notes", r.notes);
  w.strings_field("warnings", r.warnings);
  w.end_object();
  w.raw("\n");
  w.finish();
}

std::string memory_to_json(const MemoryReport& report, const XlaMemoryComparison* xla) {
  std::ostringstream out;
  write_memory_json(report, out, xla);
  return out.str();
}

}  // namespace hloroof
