// `hloroof memory FILE [--device D] [--module M] [--json] [--top N]`: will it fit, and what is
// padding.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/text_table.h"
#include "hloroof/topology.h"
#include "hloroof/units.h"
#include "input.h"
#include "nlohmann/json.hpp"
#include "report/wrap.h"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage =
    "hloroof memory FILE|DUMP_DIR [--device D] [--module M] [--json] [--top N]";

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
  std::string s = absl::StrCat(c.device, " HBM ", format_bytes(static_cast<double>(c.capacity_bytes)),
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

nlohmann::ordered_json buffer_json(const MemoryBuffer& b) {
  return {{"name", b.name},
          {"computation", b.computation},
          {"kind", std::string(buffer_kind_name(b.kind))},
          {"shape", b.shape},
          {"logical_bytes", b.logical_bytes},
          {"padded_bytes", b.padded_bytes},
          {"padding_waste_bytes", b.padding_waste_bytes()},
          {"memory_space", b.memory_space},
          {"memory", std::string(memory_tier_name(b.tier()))},
          {"is_output", b.is_output},
          {"donated", b.donated},
          {"allocation", b.allocation},
          {"allocation_offset", b.allocation_offset},
          {"live_from", b.live_from},
          {"live_to", b.live_to}};
}

void print_json(const MemoryReport& r, const DeviceChoice& choice) {
  nlohmann::ordered_json j;
  j["module"] = r.module_name;
  j["scheduled"] = r.scheduled;
  j["peak_bytes"] = r.peak_bytes;
  j["peak_at"] = r.peak_at;
  j["argument_bytes"] = r.argument_bytes;
  j["output_bytes"] = r.output_bytes;
  j["alias_bytes"] = r.alias_bytes;
  j["temp_bytes"] = r.temp_bytes;
  j["constant_bytes"] = r.constant_bytes;
  j["footprint_bytes"] = r.footprint_bytes;
  j["peak_path"] = nlohmann::ordered_json::array();
  for (const PeakFrame& f : r.peak_path) {
    j["peak_path"].push_back({{"computation", f.computation}, {"instruction", f.instruction}});
  }
  if (r.capacity) {
    j["device"] = r.capacity->device;
    j["capacity_bytes"] = r.capacity->capacity_bytes;
    j["capacity_basis"] = std::string(capacity_basis_name(r.capacity->basis));
    j["checked_bytes"] = r.capacity->checked_bytes;
    j["fits"] = r.capacity->fits;
    j["headroom"] = r.capacity->headroom;
    j["shortfall_bytes"] = r.capacity->shortfall_bytes;
  } else {
    j["device"] = nullptr;
    j["capacity_bytes"] = nullptr;
    j["capacity_basis"] = nullptr;
    j["checked_bytes"] = nullptr;
    j["fits"] = nullptr;
  }
  j["breakdown"] = {{"parameters", r.peak_breakdown.parameters},
                    {"outputs", r.peak_breakdown.outputs},
                    {"temporaries", r.peak_breakdown.temporaries},
                    {"constants", r.peak_breakdown.constants}};
  j["padding_waste_bytes"] = r.padding_waste_bytes;
  j["peak_padding_waste_bytes"] = r.peak_padding_waste_bytes;
  j["memory_analysis"] = {{"argument_bytes", r.argument_bytes},
                          {"output_bytes", r.output_bytes},
                          {"alias_bytes", r.alias_bytes},
                          {"temp_bytes", r.temp_bytes},
                          {"temporary_peak_bytes", r.temporary_peak_bytes},
                          {"constant_bytes", r.constant_bytes},
                          {"footprint_bytes", r.footprint_bytes}};
  j["temps_in_live_out"] = r.temps_in_live_out;
  j["shared_with_operand"] = r.shared_with_operand;
  j["allocations"] = nlohmann::ordered_json::array();
  for (const MemoryAllocation& a : r.allocations) {
    nlohmann::ordered_json allocation = {{"index", a.index},
                                         {"kind", std::string(allocation_kind_name(a.kind))},
                                         {"bytes", a.bytes},
                                         {"memory_space", a.memory_space},
                                         {"maybe_live_out", a.maybe_live_out},
                                         {"buffer_count", a.buffer_count},
                                         {"buffers", a.buffers}};
    if (a.parameter_number >= 0) allocation["parameter_number"] = a.parameter_number;
    j["allocations"].push_back(std::move(allocation));
  }
  j["peak_on_chip_bytes"] = r.peak_on_chip_bytes;
  j["peak_host_bytes"] = r.peak_host_bytes;
  j["buffer_count"] = r.buffer_count;
  j["peak_buffer_count"] = r.peak_buffer_count;
  j["buffers"] = nlohmann::ordered_json::array();
  for (const MemoryBuffer& b : r.largest_buffers) j["buffers"].push_back(buffer_json(b));
  j["peak_buffers"] = nlohmann::ordered_json::array();
  for (const MemoryBuffer& b : r.peak_buffers) j["peak_buffers"].push_back(buffer_json(b));
  j["live_bytes"] = nlohmann::ordered_json::array();
  for (const LiveBytesPoint& p : r.live_curve) {
    j["live_bytes"].push_back({{"instruction", p.instruction}, {"device_bytes", p.device_bytes}});
  }
  j["live_timeline"] = nlohmann::ordered_json::array();
  for (const LiveBytesPoint& p : r.live_timeline) {
    j["live_timeline"].push_back({{"computation", p.computation},
                                  {"instruction", p.instruction},
                                  {"depth", p.depth},
                                  {"device_bytes", p.device_bytes}});
  }
  j["notes"] = r.notes;
  j["warnings"] = choice.warnings;
  // Names are ASCII in practice; replace rather than throw on any byte that is not UTF-8.
  std::cout << json_text(j) << "\n";
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

void print_text(const MemoryReport& r, const DeviceChoice& choice, size_t top) {
  for (const std::string& w : choice.warnings) {
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
  for (const std::string& n : choice.notes) line("  device", n);
  int64_t counts[4] = {0, 0, 0, 0};
  for (const MemoryAllocation& a : r.allocations) ++counts[static_cast<int>(a.kind)];
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
  if (!r.notes.empty()) {
    std::cout << "\nnotes:\n";
    for (const std::string& n : r.notes) std::cout << report_internal::wrap(n, "  - ", "    ");
  }
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args =
      parse_args(words, {.flags = {"--json"}, .options = {"--device", "--top", "--module"}});
  if (!args.ok()) return usage_error(args.status().message(), kUsage);
  if (args->flag("--help")) {
    std::cout << kMemoryCommand.help;
    return kExitOk;
  }
  if (args->positional.size() != 1) return usage_error("expected one HLO file", kUsage);
  MemoryOptions options;
  if (args->has("--top")) {
    absl::StatusOr<int64_t> top = parse_count("--top", args->get("--top"));
    if (!top.ok()) return usage_error(top.status().message(), kUsage);
    options.top_buffers = static_cast<size_t>(*top);
  }
  absl::StatusOr<LoadedModule> loaded = load_module(args->positional[0], args->get("--module"));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  // Without --device, the module's platform picks it, as for `predict`.
  absl::StatusOr<DeviceChoice> choice =
      resolve_device(args->get("--device"), "", &loaded->module, args->all("--set"));
  if (!choice.ok()) return fail(choice.status());
  options.device = &choice->spec;
  absl::StatusOr<MemoryReport> report = analyze_memory(loaded->module, options);
  if (!report.ok()) return fail(report.status());
  for (size_t i = 0; i < loaded->warnings.size(); ++i) {
    report->notes.insert(report->notes.begin() + i, "warning: " + loaded->warnings[i]);
  }
  if (args->flag("--json")) {
    report->notes.insert(report->notes.end(), choice->notes.begin(), choice->notes.end());
    print_json(*report, *choice);
  } else {
    print_text(*report, *choice, options.top_buffers);
  }
  return kExitOk;
}

}  // namespace

const Command kMemoryCommand = {
    "memory",
    "device memory: liveness peak, XLA-style allocations, will it fit, what is padding",
    "usage: hloroof memory FILE|DUMP_DIR [--device D] [--module M] [--json] [--top N]\n\n"
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
    "  --json      one JSON object: peak_bytes, peak_at, argument_bytes, output_bytes,\n"
    "              alias_bytes, temp_bytes, constant_bytes, footprint_bytes, capacity_bytes,\n"
    "              capacity_basis, checked_bytes, fits, breakdown {parameters, outputs,\n"
    "              temporaries, constants}, padding_waste_bytes, allocations, buffers\n"
    "              (largest first: name, logical_bytes, padded_bytes, memory_space,\n"
    "              allocation, live_from, live_to, ...), peak_buffers, live_bytes (per entry\n"
    "              instruction), live_timeline (every instruction, bodies included) and notes\n\n"
    "example:\n"
    "  hloroof memory examples/tpu_v5e_train_step.hlo --device tpu_v5e --top 10\n",
    run,
};

}  // namespace hloroof::cli
