// `hloroof memory FILE [--device D] [--module M] [--json] [--top N]`: will it fit, and what is
// padding.
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/device.h"
#include "hloroof/analysis_json.h"
#include "hloroof/analysis_text.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/memory.h"
#include "hloroof/platform.h"
#include "hloroof/topology.h"
#include "input.h"

namespace hloroof::cli {
namespace {

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
                     {.settings = args->all("--set"),
                      .compiled_for = platform_of_file_name(loaded->file)});
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
    std::cout << banner_text(*loaded)
              << render_memory_text(*report, {.device_warnings = choice->diagnostics.warnings,
                                              .device_notes = choice->diagnostics.notes,
                                              .xla = xla ? &*xla : nullptr});
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
