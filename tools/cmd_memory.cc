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

constexpr Flag kDevice{
    .name = "--device",
    .type = FlagType::kText,
    .value_name = "D",
    .help = "check against device D's HBM capacity (a name from `hloroof devices`, optionally "
            "with its topology as `predict` takes it, tpu_v5e:4x4, or a JSON spec path); the "
            "figures are per device",
    .default_help = "the device `predict` picks, h100 for a GPU module, else tpu_v5e (said "
                    "below the capacity line)"};
constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "list N buffers in each table; 0 lists all",
                    .default_value = "20"};
constexpr Flag kEntry{
    .name = "--entry",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "take computation NAME as the step (by default a module that marks none ENTRY is "
            "read from its last computation, said at the top; JSON: entry, entry_marked)"};
constexpr Flag kJson{
    .name = "--json",
    .help = "one JSON object: peak_bytes, peak_at, argument_bytes, output_bytes, alias_bytes, "
            "temp_bytes, constant_bytes, footprint_bytes, host_temp_bytes, capacity_bytes, "
            "capacity_basis, checked_bytes, fits, breakdown {parameters, outputs, temporaries, "
            "constants}, padding_waste_bytes, allocations, buffers (largest first: name, "
            "logical_bytes, padded_bytes, memory_space, allocation, live_from, live_to, ...), "
            "peak_buffers, live_bytes (per entry instruction), live_timeline (every "
            "instruction, bodies included), xla_buffer_assignment and notes"};
constexpr Flag kCsv{.name = "--csv",
                    .help = "the buffers instead, largest first (--top N of them), one CSV row "
                            "each, the JSON's buffer keys as columns"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kDevice, &kSetFlag, &kTop,  &kModuleFlag,
                                  &kEntry,  &kJson,    &kCsv};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kMemoryCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() != 1) {
    return usage_error("expected one HLO file", kMemoryCommand.usage);
  }
  if (args->flag(kJson) && args->flag(kCsv)) {
    return usage_error("--json and --csv: one or the other", kMemoryCommand.usage);
  }
  MemoryOptions options;
  options.top_buffers = static_cast<size_t>(args->count(kTop));
  // Without --device, the module's platform picks it, as for `predict`.
  absl::StatusOr<AnalysisInput> in =
      prepare_input(args->positional[0], args->text(kModuleFlag), args->text(kEntry),
                    args->text(kDevice), {.settings = args->all(kSetFlag)}, args->flag(kCsv));
  if (!in.ok()) return fail(in.status());
  const LoadedModule& loaded = in->loaded;
  const DeviceTarget& choice = in->target;
  // The allocations are listed by the JSON, and compared with XLA's where the input has them;
  // the text counts them.
  options.allocations = args->flag(kJson) || loaded.xla_assignment.has_value();
  options.allocation_runs = true;  // expanded as they are written or compared
  options.live_curves = args->flag(kJson);  // the text and the CSV show the peak only
  absl::StatusOr<MemoryReport> report = analyze_memory(loaded.module, choice.spec, options);
  if (!report.ok()) return fail(report.status());
  // XLA's own allocations, where the input carries them (an HloProto's buffer assignment).
  std::optional<XlaMemoryComparison> xla;
  if (loaded.xla_assignment.has_value()) {
    const absl::StatusOr<XlaBufferAssignment>& assigned = *loaded.xla_assignment;
    if (!assigned.ok()) return fail(assigned.status());
    if (!assigned->allocations.empty()) xla = compare_with_xla(*report, *assigned);
  }
  // What reading the module said went to stderr; its warnings are the report's too.
  InputDiagnostics said = in->said(/*loaded_notes_shown=*/true);
  if (args->flag(kCsv)) {
    print_csv(*report);
  } else if (args->flag(kJson)) {
    add_input_diagnostics(said, *report);
    report->entry_marked = loaded.entry_marked;
    write_memory_json(*report, std::cout, xla ? &*xla : nullptr);
  } else {
    // The text shows the banner at its top and the device choice's diagnostics apart.
    said.banner.clear();
    said.device = {};
    add_input_diagnostics(said, *report);
    std::cout << banner_text(loaded)
              << render_memory_text(*report, {.device_warnings = choice.diagnostics.warnings,
                                              .device_notes = choice.diagnostics.notes,
                                              .xla = xla ? &*xla : nullptr});
  }
  keep_until_exit(std::move(in), std::move(report));
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
    "How the model works and where it differs from XLA: docs/memory.md.\n",
    run,
    "hloroof memory FILE|DUMP_DIR [--device D] [--module M] [--entry NAME] [--json | --csv]\n"
    "       [--top N]",
    kFlags,
    "An input that carries XLA's buffer assignment (an HloProto: XSpace metadata, *.hlo.pb)\n"
    "also gets XLA's own allocations beside hloroof's, per kind and memory, and where they\n"
    "differ by more than 1% (docs/profiles.md).\n",
    "example:\n"
    "  hloroof memory examples/tpu_v5e_train_step.hlo --device tpu_v5e --top 10\n",
};

}  // namespace hloroof::cli
