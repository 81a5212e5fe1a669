// The step at a glance (XProf's Overview), and the whole text report: overview, op stats,
// collectives.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "hloroof/report.h"
#include "hloroof/units.h"
#include "report/unknown_work.h"
#include "hloroof/wrap.h"
#include "hloroof/text_safety.h"

namespace hloroof {
namespace {

using report_internal::UnknownWork;
using report_internal::unknown_work;
using report_internal::wrap;

constexpr size_t kUnknownOpsShown = 10;

std::string share(double part, double whole) {
  return whole > 0 ? format_percent(part / whole) : "-";
}

// "  label ........ value   share  note" with the values aligned.
void line(std::string& out, std::string_view label, const std::string& value,
          const std::string& rest = "") {
  const std::string head = absl::StrFormat("  %-22s %10s", label, value);
  if (rest.empty()) {
    absl::StrAppend(&out, head, "\n");
  } else {
    out += wrap(rest, head + "  ", std::string(head.size() + 2, ' '));
  }
}

}  // namespace

std::string render_overview(const Prediction& p, const DeviceSpec& device) {
  // Names from a device file print escaped (a name holding `\e[2J` must not clear the screen).
  std::string out =
      absl::StrCat("Predicted step of one device: ", printable(device.display_name), " (",
                   printable(p.device), p.topology.empty() ? "" : ":", p.topology, ")\n");
  for (const std::string& w : p.diagnostics.warnings) out += wrap(w, "warning: ", "  ");
  out += "\n";
  const double step = p.step_time_s;
  const auto& b = p.breakdown;
  line(out, "step time", format_seconds(step),
       absl::StrCat("expected, ", format_seconds(p.roofline_step_time_s), " at the roofline",
                    p.is_lower_bound
                        ? " (lower bounds: see the unknown work and assumptions below)"
                        : ""));
  if (const std::optional<TimeRange>& r = p.step_time_range) {
    line(out, "step time range",
         absl::StrCat(format_seconds(r->low_s), " to ", format_seconds(r->high_s)),
         absl::StrCat("ops whose time the data decide: low end, ", r->low, "; high end, ",
                      r->high));
  }
  line(out, "compute", format_seconds(b.compute_s), share(b.compute_s, step));
  line(out, "memory", format_seconds(b.memory_s), share(b.memory_s, step));
  line(out, "collectives, exposed", format_seconds(b.collective_exposed_s),
       share(b.collective_exposed_s, step));
  line(out, "overhead", format_seconds(b.overhead_s), share(b.overhead_s, step));
  line(out, "collectives, hidden", format_seconds(b.collective_hidden_s),
       "overlapped with the above, not in the step");
  if (b.async_hidden_s > 0) {
    line(out, "other async, hidden", format_seconds(b.async_hidden_s),
         "copies and async computations overlapped, not in the step");
  }
  out += "\n";

  const double flop_rate = step > 0 ? p.flops / step : 0;
  const double hbm_rate = step > 0 ? p.hbm_bytes / step : 0;
  const std::string peak_type = p.peak_flop_rate_type.empty() ? "" : " " + p.peak_flop_rate_type;
  // Every FLOP that runs counts, rematerialized ones included: hardware FLOP utilization, not
  // the model FLOP utilization of the training literature.
  line(out, "HFU", format_percent(p.hfu),
       absl::StrCat(format_flop_rate(flop_rate), " of the ", format_flop_rate(p.peak_flop_rate),
                    peak_type, " peak (", format_flops(p.flops),
                    " per step; hardware FLOP utilization: every FLOP run, rematerialized ones "
                    "included)"));
  // The model's FLOPs alone, when given: model FLOP utilization as MaxText and the scaling book
  // count it, over every device the module runs on.
  if (p.model_flops > 0) {
    line(out, "MFU", format_percent(p.mfu),
         absl::StrCat("model FLOPs ", format_flops(p.model_flops), " per step over ", p.devices,
                      p.devices == 1 ? " device" : " devices", ", ",
                      format_flops(p.model_flops / static_cast<double>(p.devices)),
                      " each, against the same peak"));
  }
  line(out, "HBM bandwidth used", share(hbm_rate, device.hbm_bandwidth),
       absl::StrCat(format_byte_rate(hbm_rate), " of ", format_byte_rate(device.hbm_bandwidth),
                    " (", format_bytes(p.hbm_bytes), " per step)"));
  if (p.matrix_flops > 0) {
    line(out, "matrix FLOPs", format_flops(p.matrix_flops),
         absl::StrCat(share(p.matrix_flops, p.flops), " of all FLOPs"));
  }

  if (!p.unknown_ops.empty()) {
    // Names and targets come from the module: control characters escaped for the terminal.
    std::vector<std::string> shown;
    for (size_t k = 0; k < std::min(p.unknown_ops.size(), kUnknownOpsShown); ++k) {
      shown.push_back(printable(p.unknown_ops[k]));
    }
    std::string list = absl::StrJoin(shown, ", ");
    if (p.unknown_ops.size() > shown.size()) {
      absl::StrAppend(&list, " and ", p.unknown_ops.size() - shown.size(), " more");
    }
    absl::StrAppend(&out, "\nUnknown work (", p.unknown_ops.size(),
                    " ops not costed: their time below only moves their operands and results,\n"
                    "the step may hide more):\n");
    for (const UnknownWork& w : unknown_work(p)) {
      absl::StrAppend(&out, absl::StrFormat("  %-40s %5d ops %10s %7s of the step\n",
                                            printable(w.target).substr(0, 40), w.count,
                                            format_seconds(w.time_s), share(w.time_s, step)));
    }
    out += wrap(list, "  ops: ", "    ");
  }
  if (!p.diagnostics.notes.empty()) {
    out += "\nAssumptions:\n";
    for (const std::string& a : p.diagnostics.notes) out += wrap(a, "  - ", "    ");
  }
  return out;
}

absl::StatusOr<std::string> render_text_report(const Prediction& prediction,
                                               const DeviceSpec& device,
                                               const OpStatsOptions& options) {
  absl::StatusOr<OpStats> stats = op_stats(prediction, device, options);
  if (!stats.ok()) return stats.status();
  absl::StatusOr<std::string> collectives = render_collectives(prediction, options);
  if (!collectives.ok()) return collectives.status();
  return absl::StrCat(render_overview(prediction, device), "\n", render_op_stats(*stats),
                      collectives->empty() ? "" : "\n", *collectives);
}

}  // namespace hloroof
