// render_diff and diff_to_json: a PredictionDiff for people and for programs.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/diff.h"
#include "hloroof/text_table.h"
#include "hloroof/trace.h"
#include "hloroof/units.h"
#include "report/json_writer.h"
#include "hloroof/wrap.h"

namespace hloroof {
namespace {

using Align = TextTable::Align;

// A change with its sign, in the unit `format` writes: "-1.20 ms", "+256 MiB", "0 s".
std::string signed_change(double delta, std::string (*format)(double)) {
  if (delta == 0) return format(0);
  return absl::StrCat(delta < 0 ? "-" : "+", format(std::abs(delta)));
}

std::string relative(double before, double after) {
  if (before == 0) return after == 0 ? "0.0%" : "new";
  const double r = (after - before) / before;
  return absl::StrCat(r > 0 ? "+" : "", format_percent(r));
}

std::string count(double n) { return absl::StrFormat("%.0f", n); }

void write_side(report_internal::JsonWriter& w, const DiffSide& s) {
  w.begin_object();
  w.text_field("device", s.device);
  w.number_field("step_time_s", s.step_time_s);
  w.number_field("roofline_step_time_s", s.roofline_step_time_s);
  w.number_field("flops", s.flops);
  w.number_field("hbm_bytes", s.hbm_bytes);
  w.number_field("op_count", s.op_count);
  w.key("peak_bytes");
  if (s.peak_bytes) {
    w.number(*s.peak_bytes);
  } else {
    w.null();
  }
  w.strings_field("warnings", s.warnings);
  w.strings_field("assumptions", s.assumptions);
  w.end_object();
}

// The diff's JSON document, one space of indentation per level, and a newline.
void write_diff(report_internal::JsonWriter& w, const PredictionDiff& d) {
  w.begin_object();
  w.text_field("device", d.device);
  w.key("before");
  write_side(w, d.before);
  w.key("after");
  write_side(w, d.after);
  w.number_field("delta_step_time_s", d.after.step_time_s - d.before.step_time_s);
  w.number_field("changed", d.changed);
  w.number_field("unchanged", d.unchanged);
  w.number_field("added", d.added);
  w.number_field("removed", d.removed);
  w.number_field("renamed", d.renamed);
  w.key("ops");
  w.begin_array();
  for (const OpDelta& op : d.ops) {
    w.begin_object();
    w.text_field("name", op.name);
    w.text_field("before_name", op.before_name.empty() ? op.name : op.before_name);
    w.text_field("computation", op.computation);
    w.text_field("opcode", op.opcode);
    w.text_field("change", op_change_name(op.change));
    w.number_field("before_time_s", op.before_time_s);
    w.number_field("after_time_s", op.after_time_s);
    w.number_field("delta_time_s", op.delta_time_s());
    w.number_field("before_flops", op.before_flops);
    w.number_field("after_flops", op.after_flops);
    w.number_field("before_hbm_bytes", op.before_hbm_bytes);
    w.number_field("after_hbm_bytes", op.after_hbm_bytes);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.raw("\n");
  w.finish();
}

// What the sides say, each line once: a line of both sides as it is, one of a single side after
// "before: " or "after: " (in the order of the before side, then the after side's own).
std::vector<std::string> said_by_sides(const std::vector<std::string>& before,
                                       const std::vector<std::string>& after) {
  const auto has = [](const std::vector<std::string>& list, const std::string& line) {
    return std::find(list.begin(), list.end(), line) != list.end();
  };
  std::vector<std::string> out;
  for (const std::string& line : before) {
    out.push_back(has(after, line) ? line : absl::StrCat("before: ", line));
  }
  for (const std::string& line : after) {
    if (!has(before, line)) out.push_back(absl::StrCat("after: ", line));
  }
  return out;
}

}  // namespace

std::string render_diff(const PredictionDiff& d, size_t top) {
  const std::string on =
      d.before.device == d.after.device
          ? absl::StrCat(" on ", d.device)
          : absl::StrCat(": before on ", d.before.device, ", after on ", d.after.device);
  std::string out = absl::StrCat("Diff of two predicted steps", on, "\nops: ",
                                 d.changed, " changed, ", d.added, " added, ", d.removed,
                                 " removed, ", d.unchanged, " unchanged");
  if (d.renamed > 0) absl::StrAppend(&out, " (", d.renamed, " matched by op_name)");
  out += "\n";
  for (const std::string& w : said_by_sides(d.before.warnings, d.after.warnings)) {
    out += report_internal::wrap(w, "warning: ", "  ");
  }
  out += "\n";
  TextTable step({{"", Align::kLeft}, {"before"}, {"after"}, {"change"}, {"%"}});
  auto row = [&](std::string name, double b, double a, std::string (*format)(double)) {
    step.add_row({std::move(name), format(b), format(a), signed_change(a - b, format),
                  relative(b, a)});
  };
  row("step time, expected", d.before.step_time_s, d.after.step_time_s, format_seconds);
  row("step time, roofline", d.before.roofline_step_time_s, d.after.roofline_step_time_s,
      format_seconds);
  row("FLOPs per step", d.before.flops, d.after.flops, format_flops);
  row("HBM bytes per step", d.before.hbm_bytes, d.after.hbm_bytes, format_bytes);
  if (d.before.peak_bytes && d.after.peak_bytes) {
    row("memory peak", static_cast<double>(*d.before.peak_bytes),
        static_cast<double>(*d.after.peak_bytes), format_bytes);
  }
  row("ops", static_cast<double>(d.before.op_count), static_cast<double>(d.after.op_count),
      count);
  out += step.render();

  size_t shown = 0;
  TextTable ops({{"#"},
                 {"op", Align::kLeft, 30},
                 {"change", Align::kLeft},
                 {"before"},
                 {"after"},
                 {"time change"},
                 {"FLOPs change"},
                 {"bytes change"}});
  for (const OpDelta& op : d.ops) {
    if (shown == top || op.change == OpChange::kUnchanged) break;
    ++shown;
    ops.add_row({absl::StrCat(shown), op.name, std::string(op_change_name(op.change)),
                 op.change == OpChange::kAdded ? "-" : format_seconds(op.before_time_s),
                 op.change == OpChange::kRemoved ? "-" : format_seconds(op.after_time_s),
                 signed_change(op.delta_time_s(), format_seconds),
                 signed_change(op.after_flops - op.before_flops, format_flops),
                 signed_change(op.after_hbm_bytes - op.before_hbm_bytes, format_bytes)});
  }
  if (shown == 0) {
    out += "\nNo op's time, FLOPs or bytes changed.\n";
  } else {
    absl::StrAppend(&out, "\nOps whose time per step changed most, ", shown, " of ",
                    d.changed + d.added + d.removed, " (per step: one execution x executions)\n",
                    ops.render());
    // The renamed ops among those listed (the JSON has every one).
    std::string renamed;
    for (size_t k = 0; k < shown; ++k) {
      const OpDelta& op = d.ops[k];
      if (!op.before_name.empty()) absl::StrAppend(&renamed, " ", op.before_name, "->", op.name);
    }
    if (!renamed.empty()) out += "\nmatched by op_name, named before:" + renamed + "\n";
  }
  const std::vector<std::string> assumptions =
      said_by_sides(d.before.assumptions, d.after.assumptions);
  if (!assumptions.empty()) out += "\nAssumptions:\n";
  for (const std::string& a : assumptions) out += report_internal::wrap(a, "  - ", "    ");
  return out;
}

std::string diff_to_json(const PredictionDiff& d) {
  std::string out;
  report_internal::JsonWriter w(out, nullptr, 1);
  write_diff(w, d);
  return out;
}

void write_diff_json(const PredictionDiff& d, std::ostream& out) {
  std::string held;
  report_internal::JsonWriter w(held, &out, 1);
  write_diff(w, d);
}

std::string diff_to_trace_json(const PredictionDiff& diff, const Prediction& before,
                               const Prediction& after) {
  // Each side's op names to their deltas (instruction names are unique in a module; a
  // renamed op is found under its name on either side).
  std::map<std::string, const OpDelta*, std::less<>> by_before, by_after;
  for (const OpDelta& d : diff.ops) {
    if (d.change != OpChange::kAdded) {
      by_before[d.before_name.empty() ? d.name : d.before_name] = &d;
    }
    if (d.change != OpChange::kRemoved) by_after[d.name] = &d;
  }
  TraceBuilder trace;
  for (auto [side, p, deltas] : {std::tuple{"before", &before, &by_before},
                                 std::tuple{"after", &after, &by_after}}) {
    std::map<std::string, int> tracks;
    for (const TimelineEvent& e : p->timeline) {
      auto [it, added] = tracks.try_emplace(e.track, 0);
      if (added) it->second = trace.add_track(absl::StrCat(side, ": ", e.track));
      std::vector<TraceBuilder::Arg> args = {{"side", std::string(side)}};
      if (e.instruction != nullptr) {
        auto d = deltas->find(e.name);
        if (d != deltas->end()) {
          args.push_back({"change", std::string(op_change_name(d->second->change))});
          args.push_back({"delta_time_s", d->second->delta_time_s()});
        }
      }
      trace.add_slice(it->second, e.name, e.start_s, e.duration_s, std::move(args));
    }
  }
  return trace.to_json();
}

}  // namespace hloroof
