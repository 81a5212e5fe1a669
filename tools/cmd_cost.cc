// `hloroof cost FILE [--json]`: FLOPs, transcendentals and bytes of every instruction and of
// one step, with loop trip counts and collective payloads.
#include <iostream>
#include <optional>

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

constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "rows of the table; 0: all",
                    .default_value = "20"};
constexpr Flag kSort{.name = "--sort",
                     .type = FlagType::kChoice,
                     .help = "rank the rows by flops, bytes (HBM), transcendentals, runs, or keep "
                             "the program's order (order)",
                     .default_value = "flops",
                     .choices = "flops|bytes|transcendentals|runs|order"};
constexpr Flag kJson{
    .name = "--json",
    .help = "one JSON object: totals, notes and every instruction (per execution)"};
constexpr Flag kCsv{
    .name = "--csv",
    .help = "every instruction as CSV, one row each, the JSON's figures as columns"};
constexpr Flag kAll{
    .name = "--all",
    .help = "also list fused and applied instructions and those that cost nothing"};
constexpr Flag kDense{.name = "--dense", .help = "measure bytes without tile padding"};
constexpr Flag kEntry{
    .name = "--entry",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "take computation NAME as the step (by default a module that marks none ENTRY is "
            "read from its last computation, said at the top; JSON: entry, entry_marked)"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kTop,  &kSort,           &kJson,        &kCsv,  &kAll,
                                  &kDense, &kTripCountFlag, &kModuleFlag, &kEntry};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kCostCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() != 1) return usage_error("expected one HLO file", kCostCommand.usage);
  if (args->flag(kJson) && args->flag(kCsv)) {
    return usage_error("give --json or --csv, not both", kCostCommand.usage);
  }
  CostOptions options;
  options.use_padded_sizes = !args->flag(kDense);
  const size_t top = static_cast<size_t>(args->count(kTop));
  absl::StatusOr<CostSort> sort = parse_sort(args->text(kSort));
  if (!sort.ok()) return usage_error(sort.status().message(), kCostCommand.usage);
  options.default_trip_count = args->count(kTripCountFlag);
  absl::StatusOr<LoadedModule> loaded = load_input(args->positional[0], args->text(kModuleFlag),
                                                    args->text(kEntry));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded, args->flag(kCsv));
  const Module* module = &loaded->module;
  absl::StatusOr<ModuleCost> cost = analyze_cost(*module, options);
  if (!cost.ok()) return fail(cost.status());
  for (size_t i = 0; i < loaded->diagnostics.warnings.size(); ++i) {
    cost->notes.insert(cost->notes.begin() + i, "warning: " + loaded->diagnostics.warnings[i]);
  }
  if (args->flag(kJson)) {
    if (!loaded->banner.empty()) {
      cost->notes.insert(cost->notes.begin(), "warning: " + loaded->banner);
    }
    cost->entry_marked = loaded->entry_marked;
    write_cost_json(*cost, std::cout);
  } else if (args->flag(kCsv)) {
    print_csv(*cost);
  } else {
    std::cout << banner_text(*loaded)
              << render_cost_text(*cost, {.sort = *sort, .top = top, .all = args->flag(kAll)});
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
    "executions per step). Conventions: docs/cost-conventions.md.\n",
    run,
    "hloroof cost FILE|DUMP_DIR [--module NAME] [--top N] [--sort S] [--json | --csv] [--all]\n"
    "       [--dense] [--trip-count N] [--entry NAME]",
    kFlags,
    {},
    "examples:\n"
    "  hloroof cost model.hlo --top 10 --sort bytes\n"
    "  hloroof cost model.hlo --json\n",
};

}  // namespace hloroof::cli
