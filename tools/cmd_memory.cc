// `hloroof memory FILE [--device D] [--module M] [--json] [--top N]`: will it fit, and what is
// padding.
#include <array>
#include <cmath>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/device.h"
#include "hloroof/analysis_json.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/text_table.h"
#include "hloroof/topology.h"
#include "hloroof/units.h"
#include "input.h"
#include "report/wrap.h"

namespace hloroof::cli {
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

// The buffers, one CSV row each, the keys of the JSON's buffers as columns.
void print_csv(const MemoryReport& r) {
  std::cout << csv_line({"name", "computation", "kind", "shape", "logical_bytes",
                         "padded_bytes", "padding_waste_bytes", "memory_space", "memory",
                         "is_output", "donated", "allocation", "allocation_offset", "live_from",
                         "live_to"});
  for (const MemoryBuffer& b : r.largest_buffers) {
    std::cout << csv_line({b.name, b.computation, std::string(buffer_kind_name(b.kind)), b.shape,
                           csv_number(b.logical_bytes), csv_number(b.padded_bytes),
                           csv_number(b.padding_waste_bytes()), csv_number(b.memory_space),
                           std::string(memory_tier_name(b.tier())),
                           b.is_output ? "true" : "false", b.donated ? "true" : "false",
                           csv_number(b.allocation), csv_number(b.allocation_offset),
                           b.live_from, b.live_to});
  }
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

void print_text(const MemoryReport& r, const DeviceTarget& choice, size_t top,
                const std::optional<XlaMemoryComparison>& xla) {
  for (const std::string& w : choice.diagnostics.warnings) {
    std::cout << report_internal::wrap(w, "warning: ", "  ");
  }
  const MemoryBreakdown& b = r.peak_breakdown;
  // Each line wraps at 100 columns under its label.
  const std::string indent(13, ' ');
  auto line = [&](const std::string& label, const std::string& text) {
    std::cout << report_internal::wrap(text, absl::StrFormat("%-13s", label), indent);
  };
  line("module", absl::StrFormat("%s (%s)", r.module_name,
                                 r.scheduled ? "scheduled" : "not scheduled: printed order"));
  line("peak", absl::StrFormat("%s of device memory live at %s (liveness)",
                               bytes_text(r.peak_bytes), r.peak_at.empty() ? "-" : r.peak_at));
  if (r.peak_path.size() > 1) line("  where", where_text(r));
  line("footprint", absl::StrFormat("%s held for the whole step (buffer assignment)",
                                    bytes_text(r.footprint_bytes)));
  if (r.capacity) line("capacity", verdict_text(*r.capacity));
  for (const std::string& n : choice.diagnostics.notes) line("  device", n);
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
    std::cout << "\nlargest buffers live at the peak"
              << (r.peak_buffer_count > static_cast<int64_t>(r.peak_buffers.size())
                      ? absl::StrCat(" (top ", top, ")")
                      : "")
              << ":\n"
              << buffer_table(r.peak_buffers);
  }
  if (!r.largest_buffers.empty()) {
    std::cout << "\nlargest buffers of the step"
              << (r.buffer_count > static_cast<int64_t>(r.largest_buffers.size())
                      ? absl::StrCat(" (top ", top, ")")
                      : "")
              << ":\n"
              << buffer_table(r.largest_buffers);
  }
  if (xla) {
    std::cout << "\nXLA's own buffer assignment (the HloProto's) beside hloroof's, per kind\n";
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
    std::cout << t.render();
    if (xla->differences.empty()) {
      std::cout << "they agree within 1% on every kind\n";
    } else {
      std::cout << "where they differ (more than 1%):\n";
      for (const std::string& d : xla->differences) {
        std::cout << report_internal::wrap(d, "  - ", "    ");
      }
    }
  }
  if (!r.notes.empty()) {
    std::cout << "\nnotes:\n";
    for (const std::string& n : r.notes) std::cout << report_internal::wrap(n, "  - ", "    ");
  }
}

// The flags and options the command takes (`hloroof completion` offers them).
ArgSpec arg_spec() {
  return {.flags = {"--json", "--csv"}, .options = {"--device", "--top", "--module", "--entry"}};
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args = parse_args(words, arg_spec());
  if (!args.ok()) return usage_error(args.status().message(), kMemoryCommand.usage);
  if (args->flag("--help")) {
    print_help(kMemoryCommand);
    return kExitOk;
  }
  if (args->positional.size() != 1) {
    return usage_error("expected one HLO file", kMemoryCommand.usage);
  }
  if (args->flag("--json") && args->flag("--csv")) {
    return usage_error("--json and --csv: one or the other", kMemoryCommand.usage);
  }
  MemoryOptions options;
  if (args->has("--top")) {
    absl::StatusOr<int64_t> top = parse_count("--top", args->get("--top"));
    if (!top.ok()) return usage_error(top.status().message(), kMemoryCommand.usage);
    options.top_buffers = static_cast<size_t>(*top);
  }
  absl::StatusOr<LoadedModule> loaded = load_input(args->positional[0], args->get("--module"),
                                                    args->get("--entry"));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded, args->flag("--csv"));
  // Without --device, the module's platform picks it, as for `predict`.
  absl::StatusOr<DeviceTarget> choice =
      resolve_device(device_or_profile(args->get("--device"), *loaded), &loaded->module,
                     {.settings = args->all("--set")});
  if (!choice.ok()) return fail(choice.status());
  // The allocations are listed by the JSON, and compared with XLA's where the input has them;
  // the text counts them.
  options.allocations = args->flag("--json") || loaded->xla_assignment.has_value();
  options.allocation_runs = true;  // expanded as they are written or compared
  options.live_curves = args->flag("--json");  // the text and the CSV show the peak only
  absl::StatusOr<MemoryReport> report = analyze_memory(loaded->module, choice->spec, options);
  if (!report.ok()) return fail(report.status());
  for (size_t i = 0; i < loaded->diagnostics.warnings.size(); ++i) {
    report->notes.insert(report->notes.begin() + i, "warning: " + loaded->diagnostics.warnings[i]);
  }
  // XLA's own allocations, where the input carries them (an HloProto's buffer assignment).
  std::optional<XlaMemoryComparison> xla;
  if (loaded->xla_assignment.has_value()) {
    const absl::StatusOr<XlaBufferAssignment>& assigned = *loaded->xla_assignment;
    if (!assigned.ok()) return fail(assigned.status());
    if (!assigned->allocations.empty()) xla = compare_with_xla(*report, *assigned);
  }
  if (args->flag("--csv")) {
    print_csv(*report);
  } else if (args->flag("--json")) {
    if (!loaded->banner.empty()) {
      report->notes.insert(report->notes.begin(), "warning: " + loaded->banner);
    }
    report->notes.insert(report->notes.end(), choice->diagnostics.notes.begin(), choice->diagnostics.notes.end());
    report->entry_marked = loaded->entry_marked;
    report->warnings = choice->diagnostics.warnings;
    write_memory_json(*report, std::cout, xla ? &*xla : nullptr);
  } else {
    std::cout << banner_text(*loaded);
    print_text(*report, *choice, options.top_buffers, xla);
  }
  keep_until_exit(std::move(loaded), std::move(choice), std::move(report));
  return kExitOk;
}

}  // namespace

const Command kMemoryCommand = {
    "memory",
    "device memory: liveness peak, XLA-style allocations, will it fit, what is padding",
    "Walks the entry computation in schedule order and tracks every buffer from its\n"
    "definition to its last use (parameters and constants for the whole step, outputs to the\n"
    "end; while, conditional and call bodies add their own peak where they run). Sizes are\n"
    "padded by the layout's tiles. Prints the device-memory peak, where it happens, what is\n"
    "live there (parameters, outputs, temporaries, constants), how much is padding, and the\n"
    "largest buffers. Then models XLA's buffer assignment: parameter, output, temp and\n"
    "constant allocations, the figures of memory_analysis() (argument, output, alias, temp)\n"
    "and the footprint a step holds when every allocation lives for the whole step, as on\n"
    "GPU; the capacity check uses the footprint. FILE '-' reads stdin.\n"
    "How the model works and where it differs from XLA: docs/memory.md.\n\n"
    "options:\n"
    "  --device D  check against device D's HBM capacity (a name from `hloroof devices`,\n"
    "              optionally with its topology as `predict` takes it, tpu_v5e:4x4, or a\n"
    "              JSON spec path); the figures are per device; default: the device\n"
    "              `predict` picks, h100 for a GPU module, else tpu_v5e (said below the\n"
    "              capacity line)\n"
    "  --top N     list N buffers in each table (default 20; 0 lists all)\n"
    "  --module M  FILE is an XLA dump directory: read its module M (default: the largest\n"
    "              jit_* module after optimizations)\n"
    "  --entry NAME\n"
    "              take computation NAME as the step (by default a module that marks none\n"
    "              ENTRY is read from its last computation, said at the top; JSON: entry,\n"
    "              entry_marked)\n"
    "  --json      one JSON object: peak_bytes, peak_at, argument_bytes, output_bytes,\n"
    "              alias_bytes, temp_bytes, constant_bytes, footprint_bytes, host_temp_bytes,\n"
    "              capacity_bytes, capacity_basis, checked_bytes, fits, breakdown {parameters,\n"
    "              outputs, temporaries, constants}, padding_waste_bytes, allocations, buffers\n"
    "              (largest first: name, logical_bytes, padded_bytes, memory_space,\n"
    "              allocation, live_from, live_to, ...), peak_buffers, live_bytes (per entry\n"
    "              instruction), live_timeline (every instruction, bodies included),\n"
    "              xla_buffer_assignment and notes\n"
    "  --csv       the buffers instead, largest first (--top N of them), one CSV row each,\n"
    "              the JSON's buffer keys as columns\n"
    "An input that carries XLA's buffer assignment (an HloProto: XSpace metadata, *.hlo.pb)\n"
    "also gets XLA's own allocations beside hloroof's, per kind and memory, and where they\n"
    "differ by more than 1% (docs/profiles.md).\n\n"
    "example:\n"
    "  hloroof memory examples/tpu_v5e_train_step.hlo --device tpu_v5e --top 10\n",
    run,
    "hloroof memory FILE|DUMP_DIR [--device D] [--module M] [--entry NAME] [--json | --csv]\n"
    "       [--top N]",
    arg_spec,
};

}  // namespace hloroof::cli
