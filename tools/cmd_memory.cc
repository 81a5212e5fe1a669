// `hloroof memory FILE [--device D] [--json] [--top N]`: will it fit, and what is padding.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/device.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "nlohmann/json.hpp"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage = "hloroof memory FILE [--device D] [--json] [--top N]";

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

// Capacities as vendors quote them: binary when a whole number of MiB ("95 GiB"), else decimal
// ("16 GB").
std::string capacity_text(int64_t bytes) {
  if (bytes % (int64_t{1} << 20) == 0) return format_bytes(static_cast<double>(bytes));
  return absl::StrReplaceAll(format_byte_rate(static_cast<double>(bytes)), {{"B/s", "B"}});
}

std::string verdict_text(const CapacityCheck& c) {
  std::string capacity = absl::StrCat(c.device, " HBM ", capacity_text(c.capacity_bytes));
  if (c.fits) {
    return absl::StrCat(capacity, ": fits, ", format_percent(c.headroom), " headroom (",
                        format_bytes(static_cast<double>(c.capacity_bytes - c.peak_bytes)),
                        " free)");
  }
  return absl::StrCat(capacity, ": DOES NOT FIT, ",
                      format_bytes(static_cast<double>(c.shortfall_bytes)), " over (",
                      format_percent(-c.headroom), " of capacity)");
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
          {"live_from", b.live_from},
          {"live_to", b.live_to}};
}

void print_json(const MemoryReport& r) {
  nlohmann::ordered_json j;
  j["module"] = r.module_name;
  j["scheduled"] = r.scheduled;
  j["peak_bytes"] = r.peak_bytes;
  j["peak_at"] = r.peak_at;
  j["peak_path"] = nlohmann::ordered_json::array();
  for (const PeakFrame& f : r.peak_path) {
    j["peak_path"].push_back({{"computation", f.computation}, {"instruction", f.instruction}});
  }
  if (r.capacity) {
    j["device"] = r.capacity->device;
    j["capacity_bytes"] = r.capacity->capacity_bytes;
    j["fits"] = r.capacity->fits;
    j["headroom"] = r.capacity->headroom;
    j["shortfall_bytes"] = r.capacity->shortfall_bytes;
  } else {
    j["device"] = nullptr;
    j["capacity_bytes"] = nullptr;
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
                          {"temporary_peak_bytes", r.temporary_peak_bytes},
                          {"constant_bytes", r.constant_bytes}};
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
  j["notes"] = r.notes;
  // Names are ASCII in practice; replace rather than throw on any byte that is not UTF-8.
  std::cout << json_text(j) << "\n";
}

std::string buffer_table(const std::vector<MemoryBuffer>& buffers) {
  TextTable table({{"buffer", TextTable::Align::kLeft, 40},
                   {"kind", TextTable::Align::kLeft},
                   {"shape", TextTable::Align::kLeft, 48},
                   {"logical"},
                   {"padded"},
                   {"waste"},
                   {"space"},
                   {"live from", TextTable::Align::kLeft, 32},
                   {"live to", TextTable::Align::kLeft, 32}});
  for (const MemoryBuffer& b : buffers) {
    table.add_row({b.name, std::string(buffer_kind_name(b.kind)) + (b.donated ? " (donated)" : ""),
                   b.shape, format_bytes(static_cast<double>(b.logical_bytes)),
                   format_bytes(static_cast<double>(b.padded_bytes)),
                   format_bytes(static_cast<double>(b.padding_waste_bytes())),
                   absl::StrCat("S(", b.memory_space, ")"), b.live_from, b.live_to});
  }
  return table.render();
}

void print_text(const MemoryReport& r, size_t top) {
  const MemoryBreakdown& b = r.peak_breakdown;
  std::cout << absl::StrFormat("module       %s (%s)\n", r.module_name,
                               r.scheduled ? "scheduled" : "not scheduled: printed order")
            << absl::StrFormat("peak         %s of device memory at %s\n", bytes_text(r.peak_bytes),
                               r.peak_at.empty() ? "-" : r.peak_at);
  if (r.peak_path.size() > 1) std::cout << "  where      " << where_text(r) << "\n";
  if (r.capacity) std::cout << "capacity     " << verdict_text(*r.capacity) << "\n";
  std::cout << absl::StrFormat(
      "at the peak  parameters %s, outputs %s, temporaries %s, constants %s\n"
      "padding      %s of the peak is padding; %s over every device buffer\n"
      "XLA terms    arguments %s, outputs %s, aliased %s, temporaries at most %s, constants %s\n"
      "other        on-chip peak %s, host peak %s (not part of the device peak)\n"
      "buffers      %d, %d of them in device memory at the peak\n",
      share_text(b.parameters, r.peak_bytes), share_text(b.outputs, r.peak_bytes),
      share_text(b.temporaries, r.peak_bytes), share_text(b.constants, r.peak_bytes),
      share_text(r.peak_padding_waste_bytes, r.peak_bytes),
      format_bytes(static_cast<double>(r.padding_waste_bytes)),
      format_bytes(static_cast<double>(r.argument_bytes)),
      format_bytes(static_cast<double>(r.output_bytes)),
      format_bytes(static_cast<double>(r.alias_bytes)),
      format_bytes(static_cast<double>(r.temporary_peak_bytes)),
      format_bytes(static_cast<double>(r.constant_bytes)),
      format_bytes(static_cast<double>(r.peak_on_chip_bytes)),
      format_bytes(static_cast<double>(r.peak_host_bytes)), r.buffer_count, r.peak_buffer_count);
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
    for (const std::string& n : r.notes) std::cout << "  - " << n << "\n";
  }
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args =
      parse_args(words, {.flags = {"--json"}, .options = {"--device", "--top"}});
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
  std::optional<DeviceSpec> spec;
  if (args->has("--device")) {
    absl::StatusOr<DeviceSpec> d = device(args->get("--device"));
    if (!d.ok()) return fail(d.status());
    spec = *std::move(d);
    options.device = &*spec;
  }
  const std::string& path = args->positional[0];
  absl::StatusOr<InputFile> text = read_input(path);
  if (!text.ok()) return fail(text.status());
  absl::StatusOr<Module> module =
      parse_module(*std::move(text), {.file_name = path == "-" ? "<stdin>" : path});
  if (!module.ok()) return fail(module.status());
  absl::StatusOr<MemoryReport> report = analyze_memory(*module, options);
  if (!report.ok()) return fail(report.status());
  if (args->flag("--json")) {
    print_json(*report);
  } else {
    print_text(*report, options.top_buffers);
  }
  return kExitOk;
}

}  // namespace

const Command kMemoryCommand = {
    "memory",
    "peak device memory from buffer liveness: will it fit, what is padding",
    "usage: hloroof memory FILE [--device D] [--json] [--top N]\n\n"
    "Walks the entry computation in schedule order and tracks every buffer from its\n"
    "definition to its last use (parameters and constants for the whole step, outputs to the\n"
    "end; while, conditional and call bodies add their own peak where they run). Sizes are\n"
    "padded by the layout's tiles. Prints the device-memory peak, where it happens, what is\n"
    "live there (parameters, outputs, temporaries, constants), how much is padding, the\n"
    "figures of XLA's memory_analysis(), and the largest buffers. FILE '-' reads stdin.\n"
    "How the model works and where it differs from XLA: docs/memory.md.\n\n"
    "options:\n"
    "  --device D  check the peak against device D's HBM capacity (a name from\n"
    "              `hloroof devices`, or a JSON spec path)\n"
    "  --top N     list N buffers in each table (default 20; 0 lists all)\n"
    "  --json      one JSON object: peak_bytes, peak_at, capacity_bytes, fits, breakdown\n"
    "              {parameters, outputs, temporaries, constants}, padding_waste_bytes,\n"
    "              buffers (largest first: name, logical_bytes, padded_bytes, memory_space,\n"
    "              live_from, live_to, ...), peak_buffers, live_bytes (per entry\n"
    "              instruction) and notes\n\n"
    "example:\n"
    "  hloroof memory examples/tpu_v5e_train_step.hlo --device tpu_v5e --top 10\n",
    run,
};

}  // namespace hloroof::cli
