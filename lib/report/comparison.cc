// One module's predicted step on several devices, side by side.
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/report.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "report/op_terms.h"
#include "hloroof/text_safety.h"
#include "hloroof/wrap.h"
#include "util/string_view_hash.h"

namespace hloroof {
namespace {

using Align = TextTable::Align;

// The device as given, printed escaped (a device file's name may hold control characters).
std::string label(const Prediction& p) {
  return printable(p.topology.empty() ? p.device : absl::StrCat(p.device, ":", p.topology));
}

std::string ratio(double value, double first) {
  return first > 0 ? absl::StrFormat("%.2fx", value / first) : "-";
}

std::string top_ops_table(const Prediction& p, const Prediction& first, size_t top) {
  const bool is_first = &p == &first;
  const size_t rows = std::min(top, p.ops.size());
  // The same HLO runs on every device, so an op is found by its name: the ops listed, with the
  // time of the first op of that name on the first device (none when it has none).
  detail::StringViewMap<std::optional<double>> first_time;
  if (!is_first) {
    first_time.reserve(rows);
    for (size_t k = 0; k < rows; ++k) first_time.emplace(p.ops[k].name(), std::nullopt);
    for (const OpPrediction& op : first.ops) {
      auto it = first_time.find(op.name());
      if (it != first_time.end() && !it->second) it->second = op.total_time_s();
    }
  }
  std::vector<TextTable::Column> columns = {
      {"#"}, {"op", Align::kLeft, 32}, {"% step"}, {"time"}, {"bound by", Align::kLeft}};
  if (!is_first) columns.push_back({absl::StrCat("vs ", label(first))});
  TextTable table(std::move(columns));
  // Ops come sorted by their time in the step, as the op stats rank them.
  for (size_t k = 0; k < rows; ++k) {
    const OpPrediction& op = p.ops[k];
    const double time = op.total_time_s();
    std::vector<std::string> cells = {
        absl::StrCat(k + 1), std::string(op.name()),
        p.step_time_s > 0 ? format_percent(time / p.step_time_s) : "-", format_seconds(time),
        std::string(op_bound_name(op))};
    if (!is_first) {
      const std::optional<double>& in_first = first_time.find(op.name())->second;
      cells.push_back(in_first ? ratio(time, *in_first) : "-");
    }
    table.add_row(std::move(cells));
  }
  return table.render();
}

// The side-by-side table of `group`, whose ratios are to `first`; `memory` (empty, or one
// check per prediction of `group`) gives a row of whether each fits.
std::string side_by_side(absl::Span<const Prediction> group, const Prediction& first,
                         absl::Span<const std::optional<CapacityCheck>> memory) {
  std::vector<TextTable::Column> columns = {{"", Align::kLeft}};
  for (const Prediction& p : group) columns.push_back({label(p)});
  TextTable table(std::move(columns));

  // A row of durations; after the first device's, each with its ratio to it.
  // `floor_mark`: a lower bound's cell gets "*", explained below the tables.
  auto times = [&](std::string name, double (*value)(const Prediction&),
                   bool floor_mark = false) {
    std::vector<std::string> cells = {std::move(name)};
    for (const Prediction& p : group) {
      std::string cell = format_seconds(value(p));
      if (floor_mark && p.is_lower_bound) cell += "*";
      if (&p != &first) absl::StrAppend(&cell, " (", ratio(value(p), value(first)), ")");
      cells.push_back(std::move(cell));
    }
    table.add_row(std::move(cells));
  };
  times("step time", [](const Prediction& p) { return p.step_time_s; }, true);
  times("  compute", [](const Prediction& p) { return p.breakdown.compute_s; });
  times("  memory", [](const Prediction& p) { return p.breakdown.memory_s; });
  times("  collectives, exposed",
        [](const Prediction& p) { return p.breakdown.collective_exposed_s; });
  times("  overhead", [](const Prediction& p) { return p.breakdown.overhead_s; });
  times("collectives, hidden", [](const Prediction& p) { return p.breakdown.collective_hidden_s; });
  std::vector<std::string> hfu = {"HFU"}, mfu = {"MFU"}, peak = {"peak FLOP/s"};
  bool model_flops = false;
  for (const Prediction& p : group) {
    hfu.push_back(format_percent(p.hfu));
    mfu.push_back(p.model_flops > 0 ? format_percent(p.mfu) : "-");
    model_flops = model_flops || p.model_flops > 0;
    peak.push_back(absl::StrCat(format_flop_rate(p.peak_flop_rate),
                                p.peak_flop_rate_type.empty() ? "" : " ", p.peak_flop_rate_type));
  }
  table.add_row(std::move(hfu));
  if (model_flops) table.add_row(std::move(mfu));
  table.add_row(std::move(peak));
  if (!memory.empty()) {
    // Short enough for four devices in 100 columns: the peak as a share of HBM.
    std::vector<std::string> fit = {"memory, share of HBM"};
    for (const std::optional<CapacityCheck>& c : memory) {
      fit.push_back(!c || c->capacity_bytes <= 0
                        ? "-"
                        : absl::StrCat(c->fits ? "fits, " : "NO FIT, ",
                                       format_percent(static_cast<double>(c->checked_bytes) /
                                                      static_cast<double>(c->capacity_bytes))));
    }
    table.add_row(std::move(fit));
  }
  return table.render();
}

}  // namespace

std::string render_comparison(absl::Span<const Prediction> predictions, size_t top,
                              absl::Span<const std::optional<CapacityCheck>> memory) {
  if (predictions.empty()) return "(no devices)\n";
  if (memory.size() != predictions.size()) memory = {};
  const Prediction& first = predictions.front();
  // At most four devices side by side, so that a table fits 100 columns.
  constexpr size_t kPerTable = 4;
  std::string tables;
  for (size_t i = 0; i < predictions.size(); i += kPerTable) {
    if (i > 0) tables += "\n";
    tables += side_by_side(predictions.subspan(i, kPerTable), first,
                           memory.empty() ? memory : memory.subspan(i, kPerTable));
  }
  std::string out =
      absl::StrCat("Predicted step on ", predictions.size(),
                   " devices; (0.50x) is half the time on ", label(first), ".\n\n", tables);
  for (const Prediction& p : predictions) {
    if (p.is_lower_bound) {
      out += report_internal::wrap(
          absl::StrCat("* a lower bound on ", label(p), ": ", p.unknown_ops.size(),
                       p.unknown_ops.size() == 1
                           ? " op it cannot cost (an unknown custom call) is counted as moving "
                             "its bytes only"
                           : " ops it cannot cost (unknown custom calls) are counted as moving "
                             "their bytes only",
                       "; `hloroof predict` lists them"),
          "", "  ");
    }
  }
  for (const Prediction& p : predictions) {
    absl::StrAppend(&out, "\nTop ", std::min(top, p.ops.size()), " ops on ", label(p), "\n",
                    top_ops_table(p, first, top));
  }
  // What each device's figures rest on: its warnings, and its first assumptions.
  constexpr size_t kAssumptionsShown = 3;
  bool header = false;
  for (const Prediction& p : predictions) {
    const std::vector<std::string>& assumptions = p.diagnostics.notes;
    const std::vector<std::string>& warnings = p.diagnostics.warnings;
    if (warnings.empty() && assumptions.empty()) continue;
    if (!header) out += "\nWhat the figures rest on, per device:\n";
    header = true;
    out += label(p) + "\n";
    for (const std::string& w : warnings) out += report_internal::wrap(w, "  warning: ", "    ");
    const size_t shown = std::min(kAssumptionsShown, assumptions.size());
    for (size_t k = 0; k < shown; ++k) {
      out += report_internal::wrap(assumptions[k], "  - ", "    ");
    }
    if (assumptions.size() > shown) {
      out += absl::StrCat("  (", assumptions.size() - shown, " more: hloroof predict --device ",
                          label(p), ")\n");
    }
  }
  return out;
}

}  // namespace hloroof
