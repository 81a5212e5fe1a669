// The op stats as two tables that fit a 100-column terminal: time (XProf's HLO Op Stats
// columns) and rates (its Roofline Model columns), joined by the rank.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/report.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "hloroof/wrap.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

using Align = TextTable::Align;
using report_internal::kTerminalWidth;
using report_internal::wrap;

constexpr size_t kCategoryWidth = 24;  // "collective-permute-start", never cut
constexpr size_t kMinNameWidth = 16;

// Keeps the end of a long scope: "~layer_3/attention".
std::string tail(const std::string& text, size_t width) {
  if (text.size() <= width) return text;
  return "~" + text.substr(text.size() - (width - 1));
}

std::string count(double n) {
  if (n == std::floor(n) && std::fabs(n) < 1e15) return absl::StrFormat("%.0f", n);
  return absl::StrFormat("%.3g", n);
}

std::string intensity(double flop_per_byte) {
  if (flop_per_byte <= 0) return "-";
  if (flop_per_byte >= 1000) return absl::StrFormat("%.0f", flop_per_byte);
  return absl::StrFormat("%.3g", flop_per_byte);
}

std::string rate_or_dash(double rate, std::string (*format)(double)) {
  return rate > 0 ? format(rate) : "-";
}

std::string title(const OpStats& stats) {
  const bool one = stats.matched == 1;
  std::string_view unit = stats.by == OpGrouping::kOp         ? (one ? "op" : "ops")
                          : stats.by == OpGrouping::kCategory ? (one ? "category" : "categories")
                                                              : (one ? "scope" : "scopes");
  std::string s = stats.rows.size() < stats.matched
                      ? absl::StrCat("top ", stats.rows.size(), " of ", stats.matched)
                      : absl::StrCat(stats.matched);
  absl::StrAppend(&s, " ", sv(unit));
  return s;
}

// A table whose name column (column 1) gets the width the others leave of kTerminalWidth. Names are
// cut at the end, scopes at the start (their tail says the most).
std::string render_fitted(std::vector<TextTable::Column> columns,
                          std::vector<std::vector<std::string>> rows, bool keep_tail) {
  size_t used = 2 * (columns.size() - 1);  // the gaps
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c == 1) continue;
    size_t width = columns[c].header.size();
    for (const auto& row : rows) width = std::max(width, row[c].size());
    used += columns[c].max_width > 0 ? std::min(width, columns[c].max_width) : width;
  }
  const size_t room = std::max(kMinNameWidth, kTerminalWidth > used ? kTerminalWidth - used : 0);
  TextTable table(std::move(columns));
  for (auto& row : rows) {
    row[1] = keep_tail ? tail(row[1], room) : row[1];
    if (row[1].size() > room) row[1] = row[1].substr(0, room - 1) + "~";
    table.add_row(std::move(row));
  }
  return table.render();
}

std::string time_table(const OpStats& stats) {
  const bool by_op = stats.by == OpGrouping::kOp;
  std::vector<TextTable::Column> columns = {{"#"}, {"", Align::kLeft}};
  if (by_op) {
    columns[1].header = "op";
    columns.push_back({"category", Align::kLeft, kCategoryWidth});
  } else {
    columns[1].header = std::string(op_grouping_name(stats.by));
    columns.push_back({"ops"});
  }
  for (const char* header : {"occ", "total", "avg", "% step", "cum %"}) {
    columns.push_back({header});
  }
  std::vector<std::vector<std::string>> rows;
  for (const OpStatsRow& r : stats.rows) {
    rows.push_back({absl::StrCat(r.rank), r.name, by_op ? r.category : absl::StrCat(r.ops),
                    count(r.occurrences), format_seconds(r.total_time_s),
                    format_seconds(r.avg_time_s), format_percent(r.step_share),
                    format_percent(r.cumulative_share)});
  }
  return render_fitted(std::move(columns), std::move(rows), stats.by == OpGrouping::kScope);
}

std::string roofline_table(const OpStats& stats) {
  std::vector<TextTable::Column> columns = {{"#"},
                                            {std::string(op_grouping_name(stats.by)), Align::kLeft},
                                            {"FLOP rate"},
                                            {"HBM BW"},
                                            {"FLOP/B"},
                                            {"bound by", Align::kLeft},
                                            {"roofline eff."}};
  std::vector<std::vector<std::string>> rows;
  for (const OpStatsRow& r : stats.rows) {
    rows.push_back({absl::StrCat(r.rank), r.name, rate_or_dash(r.flop_rate, format_flop_rate),
                    rate_or_dash(r.hbm_bandwidth, format_byte_rate), intensity(r.intensity),
                    r.bound, r.roofline_efficiency ? format_percent(*r.roofline_efficiency) : "-"});
  }
  return render_fitted(std::move(columns), std::move(rows), stats.by == OpGrouping::kScope);
}

}  // namespace

std::string render_op_stats(const OpStats& stats) {
  std::string out = absl::StrCat("HLO op stats by ", sv(op_grouping_name(stats.by)), ": ",
                                 title(stats), ", ranked by share of the step\n");
  if (!stats.filter.empty()) {
    absl::StrAppend(&out, "of the ops matching '", stats.filter, "' (", stats.total_ops,
                    " ops in all)\n");
  }
  out += "\n";
  if (stats.rows.empty()) return out + "(no ops)\n";
  absl::StrAppend(
      &out, time_table(stats), "\n",
      wrap("occ: occurrences per step; total: time the ops run over all occurrences; "
           "% step: the part of the step they account for (async collectives count "
           "only what they do not hide behind other work); cum %: the rows down to "
           "this one.",
           "", ""),
      "\nRoofline\n\n", roofline_table(stats), "\n",
      wrap(absl::StrCat("FLOP rate and HBM bandwidth: FLOPs and bytes per step over total "
                        "time. Roofline eff.: max(matrix FLOPs / ",
                        format_flop_rate(stats.peak_flop_rate),
                        stats.peak_flop_rate_type.empty() ? "" : " ", stats.peak_flop_rate_type,
                        ", other FLOPs / ", format_flop_rate(stats.vector_flop_rate),
                        " vector, HBM bytes / ", format_byte_rate(stats.hbm_bandwidth),
                        ") over total time."),
           "", ""));
  return out;
}

}  // namespace hloroof
