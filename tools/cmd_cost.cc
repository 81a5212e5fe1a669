// `hloroof cost FILE [--json]`: FLOPs, transcendentals and bytes of every instruction and of
// one step, with loop trip counts and collective payloads.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/analysis_json.h"
#include "hloroof/analysis_text.h"
#include "hloroof/cost.h"
#include "input.h"

namespace hloroof::cli {
namespace {

// How the table's rows are ranked (--sort).
absl::StatusOr<CostSort> parse_sort(std::string_view name) {
  for (auto [text, by] :
       {std::pair{"flops", CostSort::kFlops}, std::pair{"bytes", CostSort::kBytes},
        std::pair{"transcendentals", CostSort::kTranscendentals},
        std::pair{"runs", CostSort::kRuns}, std::pair{"order", CostSort::kOrder}}) {
    if (name == text) return by;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--sort: unknown order '", std::string(name),
                   "'; expected flops, bytes, transcendentals, runs or order"));
}

// Every instruction, one CSV row each: the keys of the JSON's instructions, nested ones as
// `trip_count.count`, `collective.kind`, ... (as Python's to_pandas() names them).
void print_csv(const ModuleCost& cost) {
  std::cout << csv_line({"computation", "name", "opcode", "role", "multiplier", "flops",
                         "matrix_flops", "vector_flops", "transcendentals", "bytes", "bytes_read",
                         "bytes_written", "padded_bytes", "hbm_bytes", "onchip_bytes",
                         "host_bytes", "xla_flops", "xla_transcendentals", "xla_bytes_accessed",
                         "matrix_type", "unknown", "trip_count.count", "trip_count.source",
                         "collective.kind", "collective.payload_bytes",
                         "collective.group_size"});
  for (const InstructionCost& r : cost.instructions) {
    const OpCost& c = r.cost;
    std::vector<std::string> row = {
        std::string(r.computation->name()),
        std::string(r.instruction->name()),
        spelled_opcode(*r.instruction),
        std::string(cost_role_name(r.role)),
        csv_number(r.multiplier),
        csv_number(c.flops),
        csv_number(c.matrix_flops()),
        csv_number(c.vector_flops()),
        csv_number(c.transcendentals),
        csv_number(c.bytes()),
        csv_number(c.bytes_read),
        csv_number(c.bytes_written),
        csv_number(c.padded_bytes()),
        csv_number(c.hbm_bytes()),
        csv_number(c.on_chip_bytes()),
        csv_number(c.host_bytes()),
        csv_number(c.xla_flops),
        csv_number(c.xla_transcendentals),
        csv_number(c.xla_bytes_accessed),
        c.matrix.empty() ? "" : std::string(primitive_type_name(c.matrix_type())),
        r.unknown ? "true" : "false",
        r.trip_count ? std::to_string(r.trip_count->count) : "",
        r.trip_count ? std::string(trip_count_source_name(r.trip_count->source)) : "",
        r.collective ? std::string(collective_kind_name(r.collective->kind)) : "",
        r.collective ? csv_number(r.collective->payload_bytes) : "",
        r.collective ? std::to_string(r.collective->group_size) : ""};
    std::cout << csv_line(row);
  }
}

// The flags and options the command takes (`hloroof completion` offers them).
ArgSpec arg_spec() {
  return {.flags = {"--json", "--csv", "--all", "--dense"},
          .options = {"--trip-count", "--module", "--top", "--sort", "--entry"}};
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args = parse_args(words, arg_spec());
  if (!args.ok()) return usage_error(args.status().message(), kCostCommand.usage);
  if (args->flag("--help")) {
    print_help(kCostCommand);
    return kExitOk;
  }
  if (args->positional.size() != 1) return usage_error("expected one HLO file", kCostCommand.usage);
  if (args->flag("--json") && args->flag("--csv")) {
    return usage_error("give --json or --csv, not both", kCostCommand.usage);
  }
  CostOptions options;
  options.use_padded_sizes = !args->flag("--dense");
  size_t top = 20;
  if (args->has("--top")) {
    absl::StatusOr<int64_t> n = parse_count("--top", args->get("--top"));
    if (!n.ok()) return usage_error(n.status().message(), kCostCommand.usage);
    top = static_cast<size_t>(*n);
  }
  CostSort sort = CostSort::kFlops;
  if (args->has("--sort")) {
    absl::StatusOr<CostSort> by = parse_sort(args->get("--sort"));
    if (!by.ok()) return usage_error(by.status().message(), kCostCommand.usage);
    sort = *by;
  }
  if (args->has("--trip-count")) {
    absl::StatusOr<int64_t> n = parse_count("--trip-count", args->get("--trip-count"));
    if (!n.ok()) return usage_error(n.status().message(), kCostCommand.usage);
    options.default_trip_count = *n;
  }
  absl::StatusOr<LoadedModule> loaded = load_input(args->positional[0], args->get("--module"),
                                                    args->get("--entry"));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded, args->flag("--csv"));
  const Module* module = &loaded->module;
  absl::StatusOr<ModuleCost> cost = analyze_cost(*module, options);
  if (!cost.ok()) return fail(cost.status());
  for (size_t i = 0; i < loaded->diagnostics.warnings.size(); ++i) {
    cost->notes.insert(cost->notes.begin() + i, "warning: " + loaded->diagnostics.warnings[i]);
  }
  if (args->flag("--json")) {
    if (!loaded->banner.empty()) {
      cost->notes.insert(cost->notes.begin(), "warning: " + loaded->banner);
    }
    cost->entry_marked = loaded->entry_marked;
    write_cost_json(*cost, std::cout);
  } else if (args->flag("--csv")) {
    print_csv(*cost);
  } else {
    std::cout << banner_text(*loaded)
              << render_cost_text(*cost, {.sort = sort, .top = top, .all = args->flag("--all")});
  }
  keep_until_exit(std::move(loaded), std::move(cost));
  return kExitOk;
}

}  // namespace

const Command kCostCommand = {
    "cost",
    "FLOPs, transcendentals and bytes of every instruction and of one step",
    "Costs every instruction of an HLO module (FILE, or - for standard input): FLOPs (matrix\n"
    "and vector), transcendentals, bytes read and written (logical, and padded by the layout's\n"
    "tiles, split into HBM, on-chip and host memory), collective payloads and groups, and loop\n"
    "trip counts. Prints the totals of one step first (loops expanded, and XLA's\n"
    "cost_analysis() figures), the notes (the same note about many ops once, with examples),\n"
    "then one table: the instructions with the most FLOPs per step (per execution x runs, the\n"
    "executions per step). Conventions: docs/cost-conventions.md.\n\n"
    "options:\n"
    "  --top N          rows of the table (default 20; 0: all)\n"
    "  --sort S         rank the rows by flops (default), bytes (HBM), transcendentals, runs,\n"
    "                   or keep the program's order (order)\n"
    "  --json           one JSON object: totals, notes and every instruction (per execution)\n"
    "  --csv            every instruction as CSV, one row each, the JSON's figures as columns\n"
    "  --all            also list fused and applied instructions and those that cost nothing\n"
    "  --dense          measure bytes without tile padding\n"
    "  --trip-count N   trip count assumed for loops whose count cannot be told (default 1)\n"
    "  --module NAME    with a dump directory: the module to read (default: the largest jit_*)\n"
    "  --entry NAME     take computation NAME as the step (by default a module that marks\n"
    "                   none ENTRY is read from its last computation, said at the top;\n"
    "                   JSON: entry, entry_marked)\n\n"
    "examples:\n"
    "  hloroof cost model.hlo --top 10 --sort bytes\n"
    "  hloroof cost model.hlo --json\n",
    run,
    "hloroof cost FILE|DUMP_DIR [--module NAME] [--top N] [--sort S] [--json | --csv] [--all]\n"
    "       [--dense] [--trip-count N] [--entry NAME]",
    arg_spec,
};

}  // namespace hloroof::cli
