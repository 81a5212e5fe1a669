// prediction_summary: a Prediction for people, every number with its unit.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hloroof/text_safety.h"
#include "hloroof/report.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"

namespace hloroof {
namespace {

using Align = TextTable::Align;

std::string share(double part, double whole) {
  return whole > 0 ? format_percent(part / whole) : "-";
}

std::string runs(double n) { return absl::StrFormat("%.6gx", n); }

std::string summary_table(const Prediction& p) {
  const Prediction::Breakdown& b = p.breakdown;
  TextTable t({{"figure", Align::kLeft}, {"value"}, {"of step"}, {"meaning", Align::kLeft}});
  t.add_row({"step time", format_seconds(p.step_time_s), "",
             p.is_lower_bound ? "expected; a lower bound (see the assumptions)" : "expected"});
  t.add_row({"  at the roofline", format_seconds(p.roofline_step_time_s),
             share(p.roofline_step_time_s, p.step_time_s), "every op at its roofline time"});
  t.add_row({"  compute", format_seconds(b.compute_s), share(b.compute_s, p.step_time_s),
             "ops bound by FLOPs"});
  t.add_row({"  memory", format_seconds(b.memory_s), share(b.memory_s, p.step_time_s),
             "ops bound by memory bandwidth"});
  t.add_row({"  collective", format_seconds(b.collective_exposed_s),
             share(b.collective_exposed_s, p.step_time_s), "collective time the step waits for"});
  t.add_row({"  overhead", format_seconds(b.overhead_s), share(b.overhead_s, p.step_time_s),
             "ops bound by the fixed per-op cost"});
  t.add_row({"hidden collectives", format_seconds(b.collective_hidden_s), "",
             "overlapped with other work (not in the step)"});
  if (b.async_hidden_s > 0) {
    t.add_row({"hidden async work", format_seconds(b.async_hidden_s), "",
               "copies and async computations overlapped with other work"});
  }
  t.add_row(
      {"FLOPs", format_flops(p.flops), "", absl::StrCat("matrix ", format_flops(p.matrix_flops))});
  t.add_row({"HBM traffic", format_bytes(p.hbm_bytes), "", ""});
  t.add_row({"HFU", format_percent(p.hfu), "",
             absl::StrCat("of ", format_flop_rate(p.peak_flop_rate), " (", p.peak_flop_rate_type,
                          " peak)")});
  if (p.model_flops > 0) {
    t.add_row({"MFU", format_percent(p.mfu), "",
               absl::StrCat("model FLOPs ", format_flops(p.model_flops), " over ", p.devices,
                            " device", p.devices == 1 ? "" : "s")});
  }
  return t.render();
}

// The collectives with the most time per step, at most `top`.
std::string collectives_table(const Prediction& p, size_t top) {
  std::vector<const OpPrediction*> list;
  for (const OpPrediction& op : p.ops) {
    if (op.collective) list.push_back(&op);
  }
  if (list.empty() || top == 0) return "";
  std::stable_sort(list.begin(), list.end(), [](const OpPrediction* a, const OpPrediction* b) {
    return a->collective->time_s * a->multiplier > b->collective->time_s * b->multiplier;
  });
  TextTable t({{"collective", Align::kLeft, 40},
               {"kind", Align::kLeft},
               {"N"},
               {"payload"},
               {"runs"},
               {"time"},
               {"exposed"},
               {"hidden"},
               {"formula", Align::kLeft, 48}});
  const size_t shown = std::min(top, list.size());
  for (size_t k = 0; k < shown; ++k) {
    const OpPrediction& op = *list[k];
    const CollectivePrediction& c = *op.collective;
    t.add_row({std::string(op.name()), absl::StrCat(c.kind, c.is_async ? " (async)" : ""),
               absl::StrCat(c.group_size), format_bytes(c.payload_bytes), runs(op.multiplier),
               format_seconds(c.time_s), format_seconds(c.exposed_s), format_seconds(c.hidden_s),
               c.formula});
  }
  return absl::StrFormat(
      "\n%d of %d collectives by time per step (time, exposed and hidden per "
      "execution):\n%s",
      shown, list.size(), t.render());
}

std::string ops_table(const Prediction& p, size_t top) {
  TextTable t({{"op", Align::kLeft, 40},
               {"opcode", Align::kLeft, 24},
               {"category", Align::kLeft, 24},
               {"runs"},
               {"time"},
               {"total"},
               {"of step"},
               {"bound", Align::kLeft}});
  const size_t shown = std::min(top, p.ops.size());
  for (size_t k = 0; k < shown; ++k) {
    const OpPrediction& op = p.ops[k];
    t.add_row({std::string(op.name()), std::string(op.opcode()), std::string(op.category()),
               runs(op.multiplier), format_seconds(op.time_s), format_seconds(op.total_time_s()),
               share(op.total_time_s(), p.step_time_s), std::string(bound_by_name(op.bound))});
  }
  return absl::StrFormat("\ntop %d of %d ops by total time:\n%s", shown, p.ops.size(), t.render());
}

}  // namespace

std::string prediction_summary(const Prediction& p, const SummaryOptions& options) {
  std::string out =
      absl::StrCat("device ", printable(p.device), ", topology ", p.topology, "\n");
  absl::StrAppend(&out, summary_table(p), collectives_table(p, options.top_ops));
  if (options.top_ops > 0) absl::StrAppend(&out, ops_table(p, options.top_ops));
  absl::StrAppend(&out, "\nunknown ops: ",
                  p.unknown_ops.empty() ? "none" : absl::StrJoin(p.unknown_ops, ", "), "\n");
  if (!p.diagnostics.notes.empty()) {
    absl::StrAppend(&out, "assumptions:\n");
    for (const std::string& a : p.diagnostics.notes) absl::StrAppend(&out, "  - ", a, "\n");
  }
  return out;
}

}  // namespace hloroof
