// The text reports of cost and memory analyses (hloroof/analysis_text.h).
#include "hloroof/analysis_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <ostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "hloroof/wrap.h"

namespace hloroof {
namespace {

// A count with a unit, scaled like the other figures: "200 ops", "1.5 k ops".
std::string format_count(double n, std::string_view unit) {
  static constexpr std::pair<double, const char*> kScales[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, prefix] : kScales) {
    if (n >= scale) return absl::StrFormat("%.3g %s%s", n / scale, prefix, std::string(unit));
  }
  return absl::StrFormat("%.3g %s", n, std::string(unit));
}

std::string format_runs(double n) { return absl::StrFormat("%.6gx", n); }

bool has_cost(const InstructionCost& r) {
  const OpCost& c = r.cost;
  return c.flops > 0 || c.transcendentals > 0 || c.bytes() > 0 || c.padded_bytes() > 0 ||
         r.collective || r.unknown || r.trip_count;
}

std::string collective_cell(const CollectiveCost& c) {
  return absl::StrCat(std::string(collective_kind_name(c.kind)), c.is_async ? " (async)" : "",
                      " N=", c.group_size, " ", format_bytes(c.payload_bytes));
}

std::string describe(const InstructionCost& r) {
  if (r.unknown) return "unknown";
  if (r.collective) return collective_cell(*r.collective);
  if (r.trip_count) {
    return absl::StrCat(r.trip_count->count, r.trip_count->count == 1 ? " trip (" : " trips (",
                        std::string(trip_count_source_name(r.trip_count->source)), ")");
  }
  return "";
}

// One table, one row per instruction with its figures per step (per execution x runs), ranked
// by `sort` and cut to `top` rows (0: all): what a large module spends its FLOPs and bytes on.
void print_table(const ModuleCost& cost, bool all, CostSort sort, size_t top, std::ostream& out) {
  std::vector<const InstructionCost*> rows;
  size_t hidden = 0;
  for (const InstructionCost& r : cost.instructions) {
    if (!all && (r.role != CostRole::kScheduled || !has_cost(r))) {
      ++hidden;
      continue;
    }
    rows.push_back(&r);
  }
  // Per step; ties (many ops with no FLOPs) fall to the bytes, then to the program order.
  auto key = [&](const InstructionCost* r) -> std::pair<double, double> {
    const double n = r->multiplier;
    switch (sort) {
      case CostSort::kFlops:
        return {r->cost.flops * n, r->cost.hbm_bytes() * n};
      case CostSort::kBytes:
        return {r->cost.hbm_bytes() * n, r->cost.flops * n};
      case CostSort::kTranscendentals:
        return {r->cost.transcendentals * n, r->cost.hbm_bytes() * n};
      case CostSort::kRuns:
        return {n, r->cost.hbm_bytes() * n};
      case CostSort::kOrder:
        return {0, 0};
    }
    return {0, 0};
  };
  const size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  if (sort != CostSort::kOrder) {
    // The rows point into cost.instructions in program order, so the address breaks ties as a
    // stable sort would; only the rows shown are ordered (the top of a million in one pass).
    // A key that is not a number (0 FLOPs or bytes times runs past a double's range) ranks
    // last, so that the order stays a strict weak one.
    const auto ranked = [&](const InstructionCost* r) {
      const auto last = [](double x) {
        return std::isnan(x) ? -std::numeric_limits<double>::infinity() : x;
      };
      const std::pair<double, double> k = key(r);
      return std::pair(last(k.first), last(k.second));
    };
    const auto before = [&](const InstructionCost* a, const InstructionCost* b) {
      const std::pair<double, double> ka = ranked(a), kb = ranked(b);
      if (ka != kb) return ka > kb;
      return a < b;
    };
    if (shown < rows.size()) {
      std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown),
                        rows.end(), before);
    } else {
      std::sort(rows.begin(), rows.end(), before);
    }
  }
  TextTable table({{"instruction", TextTable::Align::kLeft, 28},
                   {"opcode", TextTable::Align::kLeft, 16},
                   {"runs"},
                   {"FLOPs"},
                   {"HBM"},
                   {"note", TextTable::Align::kLeft, 20}});
  for (size_t k = 0; k < shown; ++k) {
    const InstructionCost& r = *rows[k];
    const double n = r.multiplier;
    std::string name(r.instruction->name());
    if (r.role != CostRole::kScheduled) {
      name = absl::StrCat(name, " (", std::string(cost_role_name(r.role)), ")");
    }
    table.add_row({name, spelled_opcode(*r.instruction), format_runs(n),
                   format_flops(r.cost.flops * n), format_bytes(r.cost.hbm_bytes() * n),
                   describe(r)});
  }
  std::string title =
      sort == CostSort::kOrder
          ? "instructions in program order"
          : absl::StrCat("instructions by ",
                         sort == CostSort::kFlops             ? "FLOPs"
                         : sort == CostSort::kBytes           ? "HBM bytes"
                         : sort == CostSort::kTranscendentals ? "transcendentals"
                                                            : "runs",
                         " per step");
  absl::StrAppend(&title, shown < rows.size() ? absl::StrCat(", top ", shown, " of ", rows.size())
                                              : absl::StrCat(", all ", rows.size()));
  out << "\n" << title
            << "\n(figures per step: per execution x runs; HBM: padded bytes; --json gives every\n"
               "figure of every instruction, per execution)\n"
            << table.render();
  if (shown < rows.size()) {
    out << absl::StrFormat("... %d more (--top 0 lists all, --sort another order)\n",
                                 rows.size() - shown);
  }
  if (hidden > 0) {
    out << absl::StrFormat(
        "(%d fused, applied or cost-free instructions not shown; --all shows them)\n", hidden);
  }
}

// The module, then its totals for one step, then the notes: what a reader wants first.
void print_totals(const ModuleCost& cost, std::ostream& out) {
  const OpCost& t = cost.totals;
  out << report_internal::wrap(
                   absl::StrFormat("module %s: %d instructions in %d computations",
                                   cost.module_name, cost.instructions.size(),
                                   cost.computations.size()),
                   "", "  ");
  out << "\none step (loops expanded)" << (cost.is_lower_bound ? ", a lower bound" : "")
            << ":\n";
  std::vector<std::string> by_type;
  for (const MatrixFlops& m : t.matrix) {
    by_type.push_back(
        absl::StrCat(std::string(primitive_type_name(m.type)), " ", format_flops(m.flops)));
  }
  TextTable totals({{"figure", TextTable::Align::kLeft},
                    {"value"},
                    {"detail", TextTable::Align::kLeft, 64}});
  totals.add_row({"FLOPs", format_flops(t.flops),
                  absl::StrCat("matrix ", format_flops(t.matrix_flops()),
                               by_type.empty() ? "" : " (" + absl::StrJoin(by_type, ", ") + ")",
                               ", vector ", format_flops(t.vector_flops()))});
  totals.add_row({"transcendentals", format_count(t.transcendentals, "ops"), ""});
  totals.add_row({"bytes (logical)", format_bytes(t.bytes()),
                  absl::StrCat("read ", format_bytes(t.bytes_read), ", written ",
                               format_bytes(t.bytes_written))});
  totals.add_row(
      {"bytes (padded)", format_bytes(t.padded_bytes()),
       absl::StrCat("HBM ", format_bytes(t.hbm_bytes()), ", on-chip ",
                    format_bytes(t.on_chip_bytes()), ", host ", format_bytes(t.host_bytes()))});
  totals.add_row({"XLA-compatible", format_flops(t.xla_flops),
                  absl::StrCat("transcendentals ", format_count(t.xla_transcendentals, "ops"),
                               ", bytes accessed ", format_bytes(t.xla_bytes_accessed),
                               " (loops once, as cost_analysis())")});
  totals.add_row(
      {"unknown ops", format_count(static_cast<double>(cost.unknown.size()), "ops"), ""});
  out << totals.render();
  if (!cost.notes.empty()) {
    out << "\nnotes:\n";
    for (const std::string& note : cost.notes) {
      out << report_internal::wrap(note, "  - ", "    ");
    }
  }
}

}  // namespace

std::string render_cost_text(const ModuleCost& cost, const CostTextOptions& options) {
  std::ostringstream out;
  print_totals(cost, out);
  print_table(cost, options.all, options.sort, options.top, out);
  return out.str();
}

namespace {

// "12.5 GiB (13421772800 B)": readable, and exact for checking.
std::string bytes_text(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  return absl::StrCat(format_bytes(static_cast<double>(bytes)), " (", bytes, " B)");
}

// Part of a whole, as a percentage with its unit: "1.5 GiB (12.3%)".
std::string share_text(int64_t part, int64_t whole) {
  std::string s = format_bytes(static_cast<double>(part));
  if (whole > 0) {
    absl::StrAppend(&s, " (", format_percent(static_cast<double>(part) / whole), ")");
  }
  return s;
}

// "tpu_v5e HBM 14.9 GiB: fits, footprint 3.6 GiB is 24.2% of it, 11.3 GiB free": the figure
// checked over the capacity, every size in one unit family (binary).
std::string verdict_text(const CapacityCheck& c) {
  const std::string figure =
      c.basis == CapacityBasis::kFootprint ? "footprint" : "liveness peak";
  const double share = c.capacity_bytes > 0 ? static_cast<double>(c.checked_bytes) /
                                                  static_cast<double>(c.capacity_bytes)
                                            : 0.0;
  std::string s = absl::StrCat(c.device, " HBM ",
                               format_bytes(static_cast<double>(c.capacity_bytes)),
                               c.fits ? ": fits, " : ": DOES NOT FIT, ", figure, " ",
                               format_bytes(static_cast<double>(c.checked_bytes)), " is ",
                               format_percent(share), " of it, ");
  if (c.fits) {
    absl::StrAppend(&s, format_bytes(static_cast<double>(c.capacity_bytes - c.checked_bytes)),
                    " free");
  } else {
    absl::StrAppend(&s, format_bytes(static_cast<double>(c.shortfall_bytes)), " over");
  }
  return s;
}

std::string where_text(const MemoryReport& r) {
  std::vector<std::string> frames;
  for (const PeakFrame& f : r.peak_path)
    frames.push_back(absl::StrCat(f.computation, ": ", f.instruction));
  return absl::StrJoin(frames, " > ");
}

// Two tables sharing their `#` column, so that each fits 100 columns: the buffers, then their
// sizes and live ranges.
std::string buffer_table(const std::vector<MemoryBuffer>& buffers) {
  TextTable what({{"#"},
                  {"buffer", TextTable::Align::kLeft, 30},
                  {"kind", TextTable::Align::kLeft, 20},
                  {"shape", TextTable::Align::kLeft, 38}});
  TextTable sizes({{"#"},
                   {"logical"},
                   {"padded"},
                   {"waste"},
                   {"space"},
                   {"live from", TextTable::Align::kLeft, 24},
                   {"live to", TextTable::Align::kLeft, 24}});
  size_t row = 0;
  for (const MemoryBuffer& b : buffers) {
    const std::string rank = std::to_string(++row);
    what.add_row({rank, b.name,
                  std::string(buffer_kind_name(b.kind)) + (b.donated ? " (donated)" : ""),
                  b.shape});
    sizes.add_row({rank, format_bytes(static_cast<double>(b.logical_bytes)),
                   format_bytes(static_cast<double>(b.padded_bytes)),
                   format_bytes(static_cast<double>(b.padding_waste_bytes())),
                   absl::StrCat("S(", b.memory_space, ")"), b.live_from, b.live_to});
  }
  return what.render() + "\n" + sizes.render();
}

}  // namespace

std::string render_memory_text(const MemoryReport& r, const MemoryTextOptions& options) {
  std::ostringstream out;
  for (const std::string& w : options.device_warnings) {
    out << report_internal::wrap(w, "warning: ", "  ");
  }
  const MemoryBreakdown& b = r.peak_breakdown;
  // Each line wraps at 100 columns under its label.
  const std::string indent(13, ' ');
  auto line = [&](const std::string& label, const std::string& text) {
    out << report_internal::wrap(text, absl::StrFormat("%-13s", label), indent);
  };
  line("module", absl::StrFormat("%s (%s)", r.module_name,
                                 r.scheduled ? "scheduled" : "not scheduled: printed order"));
  line("peak", absl::StrFormat("%s of device memory live at %s (liveness)",
                               bytes_text(r.peak_bytes), r.peak_at.empty() ? "-" : r.peak_at));
  if (r.peak_path.size() > 1) line("  where", where_text(r));
  line("footprint", absl::StrFormat("%s held for the whole step (buffer assignment)",
                                    bytes_text(r.footprint_bytes)));
  if (r.capacity) line("capacity", verdict_text(*r.capacity));
  for (const std::string& n : options.device_notes) line("  device", n);
  const std::array<int64_t, 4>& counts = r.allocation_counts;
  const std::string figures = absl::StrFormat(
      "argument %s + output %s - alias %s + temp %s + constant %s\n"
      "%d parameter, %d output, %d temp, %d constant\n"
      "temporaries in output or donated allocations: %d; results over a dying operand: %d\n"
      "parameters %s, outputs %s, temporaries %s, constants %s\n"
      "%s of the peak is padding; %s over every device buffer\n"
      "on-chip peak %s, host peak %s (not part of the device peak)\n"
      "%d, %d of them in device memory at the peak",
      format_bytes(static_cast<double>(r.argument_bytes)),
      format_bytes(static_cast<double>(r.output_bytes)),
      format_bytes(static_cast<double>(r.alias_bytes)),
      format_bytes(static_cast<double>(r.temp_bytes)),
      format_bytes(static_cast<double>(r.constant_bytes)),
      counts[static_cast<int>(AllocationKind::kParameter)],
      counts[static_cast<int>(AllocationKind::kOutput)],
      counts[static_cast<int>(AllocationKind::kTemp)],
      counts[static_cast<int>(AllocationKind::kConstant)], r.temps_in_live_out,
      r.shared_with_operand, share_text(b.parameters, r.peak_bytes),
      share_text(b.outputs, r.peak_bytes), share_text(b.temporaries, r.peak_bytes),
      share_text(b.constants, r.peak_bytes), share_text(r.peak_padding_waste_bytes, r.peak_bytes),
      format_bytes(static_cast<double>(r.padding_waste_bytes)),
      format_bytes(static_cast<double>(r.peak_on_chip_bytes)),
      format_bytes(static_cast<double>(r.peak_host_bytes)), r.buffer_count, r.peak_buffer_count);
  const std::vector<std::string> texts = absl::StrSplit(figures, '\n');
  const char* labels[] = {"XLA terms", "allocations", "reuse",  "at the peak",
                          "padding",   "other",       "buffers"};
  for (size_t i = 0; i < texts.size() && i < std::size(labels); ++i) line(labels[i], texts[i]);
  if (r.host_temp_bytes > 0) {
    line("host", absl::StrFormat("temp %s (XLA's host_temp_size_in_bytes; offloaded buffers)",
                                 format_bytes(static_cast<double>(r.host_temp_bytes))));
  }
  if (!r.peak_buffers.empty()) {
    out << "\nlargest buffers live at the peak"
              << (r.peak_buffer_count > static_cast<int64_t>(r.peak_buffers.size())
                      ? absl::StrCat(" (top ", r.peak_buffers.size(), ")")
                      : "")
              << ":\n"
              << buffer_table(r.peak_buffers);
  }
  if (!r.largest_buffers.empty()) {
    out << "\nlargest buffers of the step"
              << (r.buffer_count > static_cast<int64_t>(r.largest_buffers.size())
                      ? absl::StrCat(" (top ", r.largest_buffers.size(), ")")
                      : "")
              << ":\n"
              << buffer_table(r.largest_buffers);
  }
  if (const XlaMemoryComparison* xla = options.xla) {
    out << "\nXLA's own buffer assignment (the HloProto's) beside hloroof's, per kind\n";
    TextTable t({{"kind", TextTable::Align::kLeft},
                 {"memory", TextTable::Align::kLeft},
                 {"XLA"},
                 {"hloroof"},
                 {"difference"},
                 {"XLA allocs"},
                 {"hloroof allocs"}});
    for (const XlaMemoryComparisonRow& row : xla->rows) {
      const int64_t diff = row.hloroof_bytes - row.xla_bytes;
      t.add_row({row.kind, row.memory, format_bytes(static_cast<double>(row.xla_bytes)),
                 format_bytes(static_cast<double>(row.hloroof_bytes)),
                 absl::StrCat(diff < 0 ? "-" : diff > 0 ? "+" : "",
                              format_bytes(static_cast<double>(std::abs(diff)))),
                 absl::StrCat(row.xla_allocations), absl::StrCat(row.hloroof_allocations)});
    }
    out << t.render();
    if (xla->differences.empty()) {
      out << "they agree within 1% on every kind\n";
    } else {
      out << "where they differ (more than 1%):\n";
      for (const std::string& d : xla->differences) {
        out << report_internal::wrap(d, "  - ", "    ");
      }
    }
  }
  if (!r.notes.empty()) {
    out << "\nnotes:\n";
    for (const std::string& n : r.notes) out << report_internal::wrap(n, "  - ", "    ");
  }
  return out.str();
}

}  // namespace hloroof
