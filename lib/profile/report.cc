// Views of a profile comparison: text for people, JSON for programs, a Perfetto trace.
#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "hloroof/profile.h"
#include "hloroof/text_table.h"
#include "hloroof/trace.h"
#include "hloroof/units.h"
#include "nlohmann/json.hpp"
#include "hloroof/wrap.h"
#include "hloroof/absl_compat.h"
#include "hloroof/text_safety.h"

namespace hloroof {
namespace {

using Align = TextTable::Align;

// At most 8 columns: "12.34x", "1234x", ">99999x".
std::string ratio(double value, double base) {
  if (!(base > 0)) return "-";
  const double r = value / base;
  if (r < 100) return absl::StrFormat("%.2fx", r);
  if (r < 99999.5) return absl::StrFormat("%.0fx", r);
  return ">99999x";
}

// A name cut to `width` columns keeps its end, where XLA's names differ (".12"), each part cut
// at a separator: "te_fused_attn_backward_ffi.12" -> "te_fused_attn~ffi.12".
std::string cut_name(std::string_view name, size_t width) { return shorten_name(name, width); }

std::optional<double> json_ratio(double value, double base) {
  if (base > 0) return value / base;
  return std::nullopt;
}

std::string signed_seconds(double s) {
  return s < 0 ? absl::StrCat("-", format_seconds(-s)) : format_seconds(s);
}

std::string occurrences(double n) { return absl::StrFormat("%.4g", n); }

}  // namespace

std::string profile_comparison_to_json(const ProfileComparison& c) {
  using nlohmann::json;
  auto maybe = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
  json ops = json::array();
  for (const JoinedOp& op : c.ops) {
    ops.push_back({{"name", op.name},
                   {"opcode", op.opcode},
                   {"category", op.category},
                   {"bound", op.bound},
                   {"measured_s", op.measured_s},
                   {"expected_s", op.expected_s},
                   {"roofline_s", op.roofline_s},
                   {"occurrences", op.occurrences},
                   {"launches", op.launches},
                   {"predicted_occurrences", op.predicted_occurrences},
                   {"kernels", op.kernels},
                   {"lost_s", op.lost_s},
                   {"measured_async", op.measured_async},
                   {"flops", op.flops},
                   {"bytes_accessed", op.bytes_accessed},
                   {"xla_flops", op.xla_flops < 0 ? json(nullptr) : json(op.xla_flops)},
                   {"xla_model_flops",
                    op.xla_model_flops < 0 ? json(nullptr) : json(op.xla_model_flops)},
                   {"xla_bytes_accessed",
                    op.xla_bytes_accessed < 0 ? json(nullptr) : json(op.xla_bytes_accessed)},
                   {"measured_over_expected", maybe(json_ratio(op.measured_s, op.expected_s))},
                   {"measured_over_roofline", maybe(json_ratio(op.measured_s, op.roofline_s))},
                   {"alignment_uncertain", op.alignment_uncertain}});
  }
  json unmatched = json::array();
  for (const UnmatchedOp& op : c.unmatched) {
    unmatched.push_back({{"name", op.name},
                         {"side", op.side},
                         {"opcode", op.opcode},
                         {"time_s", op.time_s},
                         {"occurrences", op.occurrences}});
  }
  json gaps = json::array();
  for (const GapRow& r : c.gaps) {
    gaps.push_back({{"category", r.category},
                    {"measured_s", r.measured_s},
                    {"expected_s", r.expected_s},
                    {"gap_s", r.gap_s},
                    {"share", r.share}});
  }
  json out = {{"device", c.device},
              {"plane", c.plane},
              {"module", c.module},
              {"profile", c.profile},
              {"steps", c.steps},
              {"step",
               {{"measured_s", c.measured_step_s},
                {"expected_s", c.expected_step_s},
                {"roofline_s", c.roofline_step_s}}},
              {"busy_s", c.busy_s},
              {"idle_s", c.idle_s},
              {"ops", std::move(ops)},
              {"unmatched", std::move(unmatched)},
              {"gaps", std::move(gaps)},
              {"notes", c.notes}};
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

// Why a category's measured time can exceed the measured step: the step is the median of the
// steps, a category's time their mean (a slow step, often the first, raises the mean). Empty
// when none does.
std::string above_the_step(const ProfileComparison& c) {
  std::vector<std::string> above;
  for (const GapRow& r : c.gaps) {
    if (r.measured_s > c.measured_step_s * (1 + 1e-9)) {
      above.push_back(absl::StrCat(r.category, " ", format_seconds(r.measured_s)));
    }
  }
  if (above.empty()) return "";
  const std::vector<double>& steps = c.measured.steps_s;
  std::string each;
  if (steps.size() <= 6) {
    std::vector<std::string> texts;
    for (double s : steps) texts.push_back(format_seconds(s));
    each = absl::StrCat(": ", absl::StrJoin(texts, ", "));
  } else if (!steps.empty()) {
    each = absl::StrCat(", from ", format_seconds(*std::min_element(steps.begin(), steps.end())),
                        " to ", format_seconds(*std::max_element(steps.begin(), steps.end())));
  }
  return report_internal::wrap(
      absl::StrCat("measured above the step (", absl::StrJoin(above, ", "), "): a category's "
                   "time is its mean over the ", c.steps, " steps", each, "; the step is their "
                   "median, so a slower step raises the mean above it"),
      "", "  ");
}

// The header: the module, the profile, the step's figures; then where the step gap comes from.
std::string comparison_summary(const ProfileComparison& c) {
  // Names from the profile and the file system print with their control characters escaped
  // (an op named "\e[2J" must not clear the screen); table cells are escaped by TextTable.
  // A long name or path wraps (a path is cut at the right edge and goes on below).
  std::string out = report_internal::wrap(
      absl::StrFormat("module %s on %s, profile plane %s", printable(c.module),
                      printable(c.device), printable(c.plane)),
      "", "  ");
  out += report_internal::wrap(absl::StrCat("profile ", printable(c.profile)), "", "  ");
  absl::StrAppendFormat(&out, "measured step %s (median of %d), expected %s, roofline %s\n",
                        format_seconds(c.measured_step_s), c.steps,
                        format_seconds(c.expected_step_s), format_seconds(c.roofline_step_s));
  absl::StrAppendFormat(&out, "measured/expected %s, measured/roofline %s, ",
                        ratio(c.measured_step_s, c.expected_step_s),
                        ratio(c.measured_step_s, c.roofline_step_s));
  absl::StrAppendFormat(&out, "busy %s, idle %s (step - busy)\n\n", format_seconds(c.busy_s),
                        format_seconds(c.idle_s));

  out += "Where the step gap comes from (measured kernel time; expected critical-path time)\n";
  TextTable gaps({{"category", Align::kLeft}, {"measured"}, {"expected"}, {"gap"}, {"% of gap"}});
  for (const GapRow& r : c.gaps) {
    gaps.add_row({r.category, format_seconds(r.measured_s), format_seconds(r.expected_s),
                  signed_seconds(r.gap_s),
                  r.share != 0 ? format_percent(r.share) : "-"});
  }
  out += gaps.render();
  out += "% of gap: of the gaps' sizes added up (a category's gap can offset another's)\n";
  out += above_the_step(c);
  return out;
}

// Tables of the joined ops, an async start's done (the wait) under its start.
class OpTables {
 public:
  explicit OpTables(const ProfileComparison& c) : c_(c) {
    // The dones whose rows go under their starts.
    for (const JoinedOp& op : c.ops) by_name_[op.name] = &op;
    for (const JoinedOp& op : c.ops) {
      if (op.measured_async && by_name_.contains(op.async_done)) waits_.insert(op.async_done);
    }
  }

  // The ops [begin, end), numbered from begin + 1 or marked "?". The names take the room the
  // other columns leave in 100 columns, 24 at least; measured/roofline is in --json only.
  std::string table(size_t begin, size_t end, bool numbered) const {
    std::string out = table(begin, end, numbered, 24);
    size_t widest = 0;
    for (absl::string_view line : absl::StrSplit(out, '\n')) widest = std::max(widest, line.size());
    if (widest < report_internal::kTerminalWidth) {
      out = table(begin, end, numbered, 24 + report_internal::kTerminalWidth - widest);
    }
    return out;
  }

 private:
  // The table with names cut to `width` columns.
  std::string table(size_t begin, size_t end, bool numbered, size_t width) const {
    TextTable ops({{"#"},
                   {"op", Align::kLeft},
                   {"bound", Align::kLeft},
                   {"n"},
                   {"measured"},
                   {"expected"},
                   {"roofline"},
                   {"meas/exp"},
                   {"lost"}});
    // One transfer, one entry: an async start's row, then its done's (the wait) under it,
    // wherever the done ranks on its own (the run and the model may wait at different dones).
    auto row = [&](const JoinedOp& op, std::string number, std::string name) {
      ops.add_row({std::move(number), std::move(name), op.bound, occurrences(op.occurrences),
                   format_seconds(op.measured_s), format_seconds(op.expected_s),
                   format_seconds(op.roofline_s), ratio(op.measured_s, op.expected_s),
                   signed_seconds(op.lost_s)});
    };
    // Dones listed under a start of this table.
    absl::flat_hash_set<std::string_view> under;
    for (size_t k = begin; k < end; ++k) {
      if (waits_.contains(c_.ops[k].async_done)) under.insert(c_.ops[k].async_done);
    }
    size_t shown = 0;
    for (size_t k = begin; k < end; ++k) {
      const JoinedOp& op = c_.ops[k];
      if (under.contains(op.name)) continue;  // under its start
      row(op, numbered ? absl::StrCat(begin + ++shown) : "?",
          absl::StrCat(cut_name(op.name, op.measured_async ? width - 1 : width),
                       op.measured_async ? "*" : ""));
      if (auto done = by_name_.find(op.async_done); !op.async_done.empty() &&
                                                    done != by_name_.end()) {
        row(*done->second, "", absl::StrCat("  ", cut_name(done->second->name, width - 2)));
      }
    }
    return ops.render();
  }

  const ProfileComparison& c_;
  absl::flat_hash_map<std::string_view, const JoinedOp*> by_name_;
  absl::flat_hash_set<std::string_view> waits_;
};

// The ops ranked by time lost, then those whose alignment is uncertain.
std::string op_rankings(const ProfileComparison& c, size_t top) {
  std::string out;
  // Ops whose alignment is uncertain come last (compare_with_profile) and are not ranked.
  size_t ranked = 0;
  while (ranked < c.ops.size() && !c.ops[ranked].alignment_uncertain) ++ranked;
  // The step above is the median step; an op's time is its mean over the steps (a slow first
  // step can put an op's mean above the median step), and the title says so.
  absl::StrAppendFormat(&out,
                        "\nOps by time lost against the expectation (%d joined; mean per step "
                        "over the steps)\n",
                        c.ops.size());
  const OpTables tables(c);
  out += tables.table(0, top == 0 ? ranked : std::min(top, ranked), true);
  if (std::any_of(c.ops.begin(), c.ops.end(),
                  [](const JoinedOp& op) { return op.measured_async; })) {
    out += "*: an async start (a transfer), measured from its issue to the end of its done; the\n"
           "   row under it is its done: the wait\n";
  }
  if (ranked < c.ops.size()) {
    out += "\n" + report_internal::wrap(
                       absl::StrFormat("Not ranked (%d): launch order could give their kernels to "
                                       "another op as well; their times are uncertain",
                                       c.ops.size() - ranked),
                       "", "  ");
    out += tables.table(ranked, top == 0 ? c.ops.size() : std::min(c.ops.size(), ranked + top),
                        false);
  }
  return out;
}

// XLA's own cost beside ours, where the profile gives it (TPU); empty where it gives none.
std::string xla_costs(const ProfileComparison& c, size_t top) {
  std::string out;
  TextTable costs({{"op", Align::kLeft},
                   {"FLOPs"},
                   {"XLA FLOPs"},
                   {"XLA model FLOPs"},
                   {"bytes"},
                   {"XLA bytes"}});
  size_t rows = 0;
  bool copies = false;
  const size_t listed = top == 0 ? c.ops.size() : std::min(top, c.ops.size());
  for (size_t k = 0; k < listed; ++k) {
    const JoinedOp& op = c.ops[k];
    if (op.xla_flops < 0 && op.xla_bytes_accessed < 0) continue;
    copies = copies || op.opcode == "copy-start" || op.opcode == "copy-done";
    auto flops = [](double f) { return f < 0 ? std::string("-") : format_flops(f); };
    auto bytes = [](double b) { return b < 0 ? std::string("-") : format_bytes(b); };
    costs.add_row({cut_name(op.name, 24), flops(op.flops), flops(op.xla_flops),
                   flops(op.xla_model_flops), bytes(op.bytes_accessed),
                   bytes(op.xla_bytes_accessed)});
    ++rows;
  }
  if (rows > 0) {
    out += "\nCost per execution: hloroof's beside XLA's own (the profile's op metadata)\n";
    out += costs.render();
    if (copies) {
      out += report_internal::wrap(
          "An async copy's bytes: hloroof puts what the transfer reads and writes (the value "
          "once each way, twice its size) on its copy-start and none on its copy-done; XLA's "
          "op metadata gives the value's size once on each of the two.",
          "", "");
    }
  }
  return out;
}

// The ops seen on one side only, then the notes.
std::string unmatched_and_notes(const ProfileComparison& c, size_t top) {
  std::string out;
  if (!c.unmatched.empty()) {
    absl::StrAppendFormat(&out,
                          "\nUnmatched ops (%d): measured = in the profile only, predicted = "
                          "never seen in the profile\n",
                          c.unmatched.size());
    TextTable unmatched({{"op", Align::kLeft},
                         {"side", Align::kLeft},
                         {"opcode", Align::kLeft, 20},
                         {"n"},
                         {"time"}});
    const size_t rows = top == 0 ? c.unmatched.size() : std::min(top, c.unmatched.size());
    for (size_t k = 0; k < rows; ++k) {
      const UnmatchedOp& op = c.unmatched[k];
      unmatched.add_row({cut_name(op.name, 40), op.side, op.opcode.empty() ? "-" : op.opcode,
                         occurrences(op.occurrences), format_seconds(op.time_s)});
    }
    out += unmatched.render();
    if (rows < c.unmatched.size()) {
      absl::StrAppendFormat(&out, "(%d more; --top 0 lists all)\n", c.unmatched.size() - rows);
    }
  }
  if (!c.notes.empty()) {
    out += "\nnotes:\n";
    for (const std::string& n : c.notes) {
      out += report_internal::wrap(printable(n), "  ", "    ");
    }
  }
  return out;
}

}  // namespace

std::string render_profile_comparison(const ProfileComparison& c, size_t top) {
  return comparison_summary(c) + op_rankings(c, top) + xla_costs(c, top) +
         unmatched_and_notes(c, top);
}

std::string profile_comparison_to_trace_json(const ProfileComparison& c,
                                             const Prediction& prediction) {
  TraceBuilder trace;
  std::map<std::string, int> tracks;
  auto track = [&](const std::string& name) {
    auto [it, added] = tracks.try_emplace(name, 0);
    if (added) it->second = trace.add_track(name);
    return it->second;
  };
  // Measured tracks first, in the order their first event starts.
  for (const MeasuredEvent& e : c.measured.median_step) {
    trace.add_slice(track(absl::StrCat("measured: ", e.track)), e.op, e.start_s, e.duration_s,
                    {{"kernel", e.name}, {"side", std::string("measured")}});
  }
  for (const TimelineEvent& e : prediction.timeline) {
    trace.add_slice(track(absl::StrCat("predicted: ", e.track)), e.name, e.start_s, e.duration_s,
                    {{"side", std::string("predicted")}});
  }
  return trace.to_json();
}

}  // namespace hloroof
