// `hloroof cost FILE [--json]`: FLOPs, transcendentals and bytes of every instruction and of
// one step, with loop trip counts and collective payloads.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/cost.h"
#include "hloroof/hlo_text.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "input.h"
#include "nlohmann/json.hpp"
#include "report/wrap.h"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage =
    "hloroof cost FILE|DUMP_DIR [--module NAME] [--json] [--all] [--dense] [--trip-count N]";

// The opcode as the text spells it: sugared async ops read `all-to-all-start`.
std::string spelled_opcode(const Instruction& i) {
  if (!i.uses_async_sugar() || !i.async_wrapped_opcode())
    return std::string(opcode_name(i.opcode()));
  std::string_view suffix = i.opcode() == Opcode::kAsyncStart    ? "-start"
                            : i.opcode() == Opcode::kAsyncUpdate ? "-update"
                                                                 : "-done";
  return std::string(opcode_name(*i.async_wrapped_opcode())) + std::string(suffix);
}

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
    return absl::StrCat(r.trip_count->count, " trips (",
                        std::string(trip_count_source_name(r.trip_count->source)), ")");
  }
  return "";
}

// Two tables sharing their `#` column, so that each fits 100 columns: what runs (computation,
// instruction, opcode, runs, note), then its figures per execution.
void print_table(const Module& module, const ModuleCost& cost, bool all) {
  TextTable what({{"#"},
                  {"computation", TextTable::Align::kLeft, 18},
                  {"instruction", TextTable::Align::kLeft, 26},
                  {"opcode", TextTable::Align::kLeft, 18},
                  {"runs"},
                  {"note", TextTable::Align::kLeft, 20}});
  TextTable figures({{"#"},
                     {"FLOPs"},
                     {"matrix"},
                     {"transc."},
                     {"read"},
                     {"written"},
                     {"HBM"},
                     {"on-chip"},
                     {"host"}});
  std::vector<std::string> notes;
  size_t hidden = 0, row = 0;
  for (const InstructionCost& r : cost.instructions) {
    if (!all && (r.role != CostRole::kScheduled || !has_cost(r))) {
      ++hidden;
      continue;
    }
    const OpCost& c = r.cost;
    const std::string rank = std::to_string(++row);
    std::string name(r.instruction->name());
    if (r.role != CostRole::kScheduled)
      name = absl::StrCat("  ", name, " (", std::string(cost_role_name(r.role)), ")");
    std::string note = describe(r);
    if (note.size() > 20) {
      notes.push_back(report_internal::wrap(
          absl::StrCat(std::string(r.instruction->name()), ": ", note),
          absl::StrCat("  #", rank, " "), "    "));
      note = "see below";
    }
    what.add_row({rank, std::string(r.computation->name()), name, spelled_opcode(*r.instruction),
                  format_runs(r.multiplier), note});
    figures.add_row({rank, format_flops(c.flops), format_flops(c.matrix_flops()),
                     format_count(c.transcendentals, "ops"), format_bytes(c.bytes_read),
                     format_bytes(c.bytes_written), format_bytes(c.hbm_bytes()),
                     format_bytes(c.on_chip_bytes()), format_bytes(c.host_bytes())});
  }
  std::cout << report_internal::wrap(
                   absl::StrFormat("module %s: %d instructions in %d computations",
                                   std::string(module.name()), cost.instructions.size(),
                                   cost.computations.size()),
                   "", "  ")
            << "\n";
  std::cout << "what runs (runs: executions per step)\n"
            << what.render()
            << "\nper execution (transc.: transcendental ops; read, written: logical bytes;\n"
            << "HBM, on-chip, host: padded bytes)\n"
            << figures.render();
  if (!notes.empty()) {
    std::cout << "\nnotes by row:\n";
    for (const std::string& n : notes) std::cout << n;
  }
  if (hidden > 0) {
    std::cout << absl::StrFormat(
        "(%d fused, applied or cost-free instructions not shown; --all shows them)\n", hidden);
  }
}

void print_totals(const ModuleCost& cost) {
  const OpCost& t = cost.totals;
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
      std::cout << report_internal::wrap(note, "  ", "    ");
    }
  }
}

nlohmann::ordered_json collective_json(const CollectiveCost& c) {
  // A permute's pairs also read as groups of two, so that every kind has `groups`.
  std::vector<std::vector<int64_t>> groups = c.groups;
  for (const auto& [source, target] : c.pairs) groups.push_back({source, target});
  return {{"kind", collective_kind_name(c.kind)},
          {"async", c.is_async},
          {"host_transfer", c.is_host_transfer},
          {"id_mode", id_mode_name(c.id_mode)},
          {"channel_id", c.channel_id ? nlohmann::ordered_json(*c.channel_id) : nullptr},
          {"payload_bytes", c.payload_bytes},
          {"group_size", c.group_size},
          {"groups", groups},
          {"pairs", c.pairs}};
}

nlohmann::ordered_json cost_json(const OpCost& c) {
  nlohmann::ordered_json by_type = nlohmann::ordered_json::object();
  for (const MatrixFlops& m : c.matrix) by_type[std::string(primitive_type_name(m.type))] = m.flops;
  return {{"flops", c.flops},
          {"matrix_flops", c.matrix_flops()},
          {"vector_flops", c.vector_flops()},
          {"matrix_flops_by_type", by_type},
          {"transcendentals", c.transcendentals},
          {"bytes", c.bytes()},
          {"bytes_read", c.bytes_read},
          {"bytes_written", c.bytes_written},
          {"padded_bytes", c.padded_bytes()},
          {"hbm_bytes", c.hbm_bytes()},
          {"onchip_bytes", c.on_chip_bytes()},
          {"host_bytes", c.host_bytes()},
          {"xla_flops", c.xla_flops},
          {"xla_transcendentals", c.xla_transcendentals},
          {"xla_bytes_accessed", c.xla_bytes_accessed}};
}

void print_json(const Module& module, const ModuleCost& cost) {
  nlohmann::ordered_json j;
  j["module"] = std::string(module.name());
  nlohmann::ordered_json totals = cost_json(cost.totals);
  totals["unknown_ops"] = cost.unknown.size();
  totals["lower_bound"] = cost.is_lower_bound;
  j["totals"] = std::move(totals);
  j["notes"] = cost.notes;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const InstructionCost& r : cost.instructions) {
    nlohmann::ordered_json i;
    i["computation"] = std::string(r.computation->name());
    i["name"] = std::string(r.instruction->name());
    i["opcode"] = spelled_opcode(*r.instruction);
    i["role"] = cost_role_name(r.role);
    i["multiplier"] = r.multiplier;
    i.update(cost_json(r.cost));
    i["matrix_type"] = r.cost.matrix.empty()
                           ? nlohmann::ordered_json(nullptr)
                           : nlohmann::ordered_json(primitive_type_name(r.cost.matrix_type()));
    i["unknown"] = r.unknown;
    i["trip_count"] =
        r.trip_count
            ? nlohmann::ordered_json{{"count", r.trip_count->count},
                                     {"source", trip_count_source_name(r.trip_count->source)}}
            : nlohmann::ordered_json(nullptr);
    i["collective"] = r.collective ? collective_json(*r.collective) : nullptr;
    list.push_back(std::move(i));
  }
  j["instructions"] = std::move(list);
  std::cout << json_text(j) << "\n";
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args =
      parse_args(words, {.flags = {"--json", "--all", "--dense"},
                         .options = {"--trip-count", "--module"}});
  if (!args.ok()) return usage_error(args.status().message(), kUsage);
  if (args->flag("--help")) {
    std::cout << kCostCommand.help;
    return kExitOk;
  }
  if (args->positional.size() != 1) return usage_error("expected one HLO file", kUsage);
  CostOptions options;
  options.use_padded_sizes = !args->flag("--dense");
  if (args->has("--trip-count")) {
    absl::StatusOr<int64_t> n = parse_count("--trip-count", args->get("--trip-count"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    options.default_trip_count = *n;
  }
  absl::StatusOr<LoadedModule> loaded = load_module(args->positional[0], args->get("--module"));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  const Module* module = &loaded->module;
  absl::StatusOr<ModuleCost> cost = analyze_cost(*module, options);
  if (!cost.ok()) return fail(cost.status());
  for (size_t i = 0; i < loaded->warnings.size(); ++i) {
    cost->notes.insert(cost->notes.begin() + i, "warning: " + loaded->warnings[i]);
  }
  if (args->flag("--json")) {
    print_json(*module, *cost);
  } else {
    print_table(*module, *cost, args->flag("--all"));
    print_totals(*cost);
  }
  return kExitOk;
}

}  // namespace

const Command kCostCommand = {
    "cost",
    "FLOPs, transcendentals and bytes of every instruction and of one step",
    "usage: hloroof cost FILE|DUMP_DIR [--module NAME] [--json] [--all] [--dense]\n"
    "                    [--trip-count N]\n\n"
    "Costs every instruction of an HLO module (FILE, or - for standard input): FLOPs (matrix\n"
    "and vector), transcendentals, bytes read and written (logical, and padded by the layout's\n"
    "tiles, split into HBM, on-chip and host memory), collective payloads and groups, and loop\n"
    "trip counts. Figures are per execution; `runs` says how often an instruction runs per\n"
    "step. The totals are one step with loops expanded, and XLA's cost_analysis() figures.\n"
    "Conventions: docs/cost-conventions.md.\n\n"
    "options:\n"
    "  --json           one JSON object: totals, notes and every instruction\n"
    "  --all            also list fused and applied instructions and those that cost nothing\n"
    "  --dense          measure bytes without tile padding\n"
    "  --trip-count N   trip count assumed for loops whose count cannot be told (default 1)\n"
    "  --module NAME    with a dump directory: the module to read (default: the largest jit_*)\n\n"
    "example:\n"
    "  hloroof cost model.hlo --json\n",
    run,
};

}  // namespace hloroof::cli
