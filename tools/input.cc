#include "input.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/profile.h"
#include "hloroof/units.h"
#include "hloroof/csv_text.h"
#include "hloroof/wrap.h"
#include "hloroof/absl_compat.h"
#include "hloroof/text_safety.h"
#include "hloroof/threads.h"

namespace hloroof::cli {

absl::StatusOr<LoadedModule> load_input(const std::string& path, std::string_view module_name,
                                        std::string_view entry) {
  return load_module(path, cli_load_options(module_name, entry));
}

LoadOptions cli_load_options(std::string_view module_name, std::string_view entry) {
  LoadOptions options;
  options.module_name = std::string(module_name);
  options.entry = std::string(entry);
  options.module_option = "--module";
  options.entry_option = "--entry";
  options.entry_naming = "--entry NAME";
  return options;
}

void print_input_messages(const LoadedModule& loaded, bool with_banner) {
  // File and module names print with their control characters escaped.
  // Wrapped to 100 columns.
  for (const std::string& n : loaded.diagnostics.notes) {
    std::cerr << report_internal::wrap(printable(n), "note: ", "  ");
  }
  if (with_banner && !loaded.banner.empty()) {
    std::cerr << report_internal::wrap(printable(loaded.banner), "warning: ", "  ");
  }
  for (const std::string& w : loaded.diagnostics.warnings) {
    std::cerr << report_internal::wrap(printable(w), "warning: ", "  ");
  }
}

std::string banner_text(const LoadedModule& loaded) {
  if (loaded.banner.empty()) return "";
  return absl::StrCat(report_internal::wrap(printable(loaded.banner), "NOT A WHOLE STEP: ", "  "),
                      "\n");
}

std::string settings_note(const Args& args) {
  const std::vector<std::string> settings = args.all(kSetFlag);
  if (settings.empty()) return "";
  return absl::StrCat("device figures set: ", absl::StrJoin(settings, ", "));
}

absl::StatusOr<AnalysisInput> prepare_input(const std::string& path,
                                            std::string_view module_name,
                                            std::string_view entry, const std::string& device,
                                            DeviceTargetOptions options, bool with_banner) {
  AnalysisRequest request{.path = path,
                          .load = cli_load_options(module_name, entry),
                          .device = device,
                          .device_options = std::move(options)};
  request.on_loaded = [with_banner](const LoadedModule& loaded) {
    print_input_messages(loaded, with_banner);
  };
  absl::StatusOr<AnalysisInput> in = prepare_analysis(request);
  if (in.ok() && !in->profile_note.empty()) print_message("note: ", in->profile_note);
  return in;
}


namespace {

// Rows made into one piece of text before it is written (about 300 KiB): few enough that each
// thread holds one at a time, many enough that threads seldom wait for each other's turn.
constexpr size_t kRowsPerPiece = 256;

// The CSV rows of ops[begin, end) appended to `out`, cell by cell; an explanation (a text of
// the prediction's pool, shared by the ops it explains) quoted once (`quoted` keeps them).
void append_op_rows(std::string& out, const std::vector<OpPrediction>& ops, size_t begin,
                    size_t end, std::string_view device,
                    absl::flat_hash_map<std::pair<const char*, size_t>, std::string>& quoted) {
  using report_internal::append_csv_cell;
  using report_internal::append_csv_number;
  // Cells each followed by a comma (every row ends with its explanation).
  const auto texts = [&](std::initializer_list<std::string_view> cells) {
    for (std::string_view cell : cells) {
      append_csv_cell(out, cell);
      out += ',';
    }
  };
  const auto numbers = [&](std::initializer_list<double> cells) {
    for (double x : cells) {
      append_csv_number(out, x);
      out += ',';
    }
  };
  for (size_t i = begin; i < end; ++i) {
    const OpPrediction& op = ops[i];
    const CollectivePrediction* c = op.collective.get();
    const AsyncPrediction* a = op.async.get();
    if (!device.empty()) texts({device});
    texts({op.name(), op.opcode(), op.computation(), op.category(), op.op_name()});
    numbers({op.multiplier, op.time_s, op.total_time_s(), op.roofline_time_s,
             op.total_roofline_time_s(), op.efficiency});
    texts({op.model(), op_bound_name(op), resource_name(op)});
    numbers({op.flops, op.matrix_flops, op.transcendentals, op.hbm_bytes, op.on_chip_bytes,
             op.host_bytes});
    if (c != nullptr) {
      texts({c->kind});
      append_csv_number(out, c->payload_bytes);
      absl::StrAppend(&out, ",", c->group_size, ",");
      texts({c->formula});
      numbers({c->time_s, c->exposed_s, c->hidden_s});
      texts({c->is_async ? "true" : "false", c->approximate ? "true" : "false"});
    } else {
      out += ",,,,,,,,,";
    }
    if (a != nullptr) {
      texts({a->stream, a->start, a->done});
      numbers({a->latency_s, a->queued_s, a->hidden_s, a->exposed_s, a->contended_s});
    } else {
      out += ",,,,,,,,";
    }
    if (const std::optional<TimeRange> r = op.time_range()) {
      numbers({r->low_s, r->high_s});
      texts({r->low, r->high});
    } else {
      out += ",,,,";
    }
    const std::string_view e = op.explanation();
    auto [it, added] = quoted.try_emplace(std::pair(e.data(), e.size()));
    if (added) append_csv_cell(it->second, e);
    out += it->second;
    out += '\n';
  }
}

}  // namespace

void write_ops_csv(std::ostream& out_stream, const Prediction& prediction, bool device_column,
                   bool header, int threads) {
  std::vector<std::string> names = {
      "name", "opcode", "computation", "category", "op_name", "multiplier", "time_s",
      "total_time_s", "roofline_time_s", "total_roofline_time_s", "efficiency", "model",
      "bound", "resource", "flops", "matrix_flops", "transcendentals", "hbm_bytes",
      "on_chip_bytes", "host_bytes", "collective.kind", "collective.payload_bytes",
      "collective.group_size", "collective.formula", "collective.time_s",
      "collective.exposed_s", "collective.hidden_s", "collective.async",
      "collective.approximate", "async.stream", "async.start", "async.done", "async.latency_s",
      "async.queued_s", "async.hidden_s", "async.exposed_s", "async.contended_s",
      "time_range.low_s", "time_range.high_s", "time_range.low", "time_range.high",
      "explanation"};
  if (device_column) names.insert(names.begin(), "device");
  if (header) out_stream << csv_line(names);
  const std::string device =
      device_column ? absl::StrCat(prediction.device, ":", prediction.topology) : "";
  const std::vector<OpPrediction>& ops = prediction.ops;
  // Pieces of rows, made by `threads` threads at once (each takes the next piece not taken)
  // and written in order.
  struct Maker {
    std::string out;
    absl::flat_hash_map<std::pair<const char*, size_t>, std::string> quoted;
  };
  detail::make_pieces_in_order(
      (ops.size() + kRowsPerPiece - 1) / kRowsPerPiece, threads, [] { return Maker(); },
      [&](Maker& m, size_t k) {
        const size_t begin = k * kRowsPerPiece;
        m.out.clear();
        append_op_rows(m.out, ops, begin, std::min(ops.size(), begin + kRowsPerPiece), device,
                       m.quoted);
      },
      [&](Maker& m) { out_stream << m.out; });
}

}  // namespace hloroof::cli
