// `hloroof cost FILE [--json]`: FLOPs, transcendentals and bytes of every instruction and of
// one step, with loop trip counts and collective payloads.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/analysis_json.h"
#include "hloroof/cost.h"
#include "hloroof/hlo_text.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "input.h"
#include "report/wrap.h"

namespace hloroof::cli {
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

// How the table's rows are ranked (--sort).
enum class SortBy { kFlops, kBytes, kTranscendentals, kRuns, kOrder };

absl::StatusOr<SortBy> parse_sort(std::string_view name) {
  for (auto [text, by] : {std::pair{"flops", SortBy::kFlops}, std::pair{"bytes", SortBy::kBytes},
                          std::pair{"transcendentals", SortBy::kTranscendentals},
                          std::pair{"runs", SortBy::kRuns}, std::pair{"order", SortBy::kOrder}}) {
    if (name == text) return by;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--sort: unknown order '", std::string(name),
                   "'; expected flops, bytes, transcendentals, runs or order"));
}

// One table, one row per instruction with its figures per step (per execution x runs), ranked
// by `sort` and cut to `top` rows (0: all): what a large module spends its FLOPs and bytes on.
void print_table(const ModuleCost& cost, bool all, SortBy sort, size_t top) {
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
      case SortBy::kFlops:
        return {r->cost.flops * n, r->cost.hbm_bytes() * n};
      case SortBy::kBytes:
        return {r->cost.hbm_bytes() * n, r->cost.flops * n};
      case SortBy::kTranscendentals:
        return {r->cost.transcendentals * n, r->cost.hbm_bytes() * n};
      case SortBy::kRuns:
        return {n, r->cost.hbm_bytes() * n};
      case SortBy::kOrder:
        return {0, 0};
    }
    return {0, 0};
  };
  const size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  if (sort != SortBy::kOrder) {
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
      sort == SortBy::kOrder
          ? "instructions in program order"
          : absl::StrCat("instructions by ",
                         sort == SortBy::kFlops             ? "FLOPs"
                         : sort == SortBy::kBytes           ? "HBM bytes"
                         : sort == SortBy::kTranscendentals ? "transcendentals"
                                                            : "runs",
                         " per step");
  absl::StrAppend(&title, shown < rows.size() ? absl::StrCat(", top ", shown, " of ", rows.size())
                                              : absl::StrCat(", all ", rows.size()));
  std::cout << "\n" << title
            << "\n(figures per step: per execution x runs; HBM: padded bytes; --json gives every\n"
               "figure of every instruction, per execution)\n"
            << table.render();
  if (shown < rows.size()) {
    std::cout << absl::StrFormat("... %d more (--top 0 lists all, --sort another order)\n",
                                 rows.size() - shown);
  }
  if (hidden > 0) {
    std::cout << absl::StrFormat(
        "(%d fused, applied or cost-free instructions not shown; --all shows them)\n", hidden);
  }
}

// The module, then its totals for one step, then the notes: what a reader wants first.
void print_totals(const Module& module, const ModuleCost& cost) {
  const OpCost& t = cost.totals;
  std::cout << report_internal::wrap(
                   absl::StrFormat("module %s: %d instructions in %d computations",
                                   std::string(module.name()), cost.instructions.size(),
                                   cost.computations.size()),
                   "", "  ");
  std::cout << "\none step (loops expanded)" << (cost.is_lower_bound ? ", a lower bound" : "")
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
  std::cout << totals.render();
  if (!cost.notes.empty()) {
    std::cout << "\nnotes:\n";
    for (const std::string& note : cost.notes) {
      std::cout << report_internal::wrap(note, "  - ", "    ");
    }
  }
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
  SortBy sort = SortBy::kFlops;
  if (args->has("--sort")) {
    absl::StatusOr<SortBy> by = parse_sort(args->get("--sort"));
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
    std::cout << banner_text(*loaded);
    print_totals(*module, *cost);
    print_table(*cost, args->flag("--all"), sort, top);
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
