// The collectives of the step: what each moves, over how many devices, and how much of its time
// the step waits for (XProf shows time per collective and replica group).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/report.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "report/op_terms.h"
#include "hloroof/wrap.h"

namespace hloroof {
namespace {

using Align = TextTable::Align;

std::string occurrences(double n) { return absl::StrFormat("%.6g", n); }

}  // namespace

absl::StatusOr<std::string> render_collectives(const Prediction& prediction,
                                               const OpStatsOptions& options) {
  absl::StatusOr<report_internal::OpFilter> filter =
      report_internal::OpFilter::compile(options.filter);
  if (!filter.ok()) return filter.status();
  std::vector<const OpPrediction*> ops;
  for (const OpPrediction& op : prediction.ops) {
    if (op.collective && filter->keeps(op)) ops.push_back(&op);
  }
  if (ops.empty()) return std::string();
  // What the step waits for first, then what the network carries.
  auto exposed = [](const OpPrediction* op) { return op->collective->exposed_s * op->multiplier; };
  auto busy = [](const OpPrediction* op) { return op->collective->time_s * op->multiplier; };
  std::stable_sort(ops.begin(), ops.end(), [&](const OpPrediction* a, const OpPrediction* b) {
    if (exposed(a) != exposed(b)) return exposed(a) > exposed(b);
    return busy(a) > busy(b);
  });
  const size_t total = ops.size();
  if (options.top > 0 && ops.size() > options.top) ops.resize(options.top);

  TextTable table({{"#"},
                   {"collective", Align::kLeft, 28},
                   {"kind", Align::kLeft},
                   {"N"},
                   {"payload"},
                   {"occ"},
                   {"time"},
                   {"exposed"},
                   {"hidden"}});
  bool approximate = false;
  int rank = 0;
  for (const OpPrediction* op : ops) {
    const CollectivePrediction& c = *op->collective;
    approximate |= c.approximate;
    table.add_row({absl::StrCat(++rank), std::string(op->name()), c.kind,
                   absl::StrCat(c.group_size), format_bytes(c.payload_bytes),
                   occurrences(op->multiplier),
                   format_seconds(c.time_s) + (c.approximate ? "*" : ""),
                   format_seconds(c.exposed_s), c.is_async ? format_seconds(c.hidden_s) : "sync"});
  }
  std::string out = absl::StrCat(
      "Collectives: ", ops.size() < total ? absl::StrCat("top ", ops.size(), " of ") : "", total,
      ", ranked by the time the step waits for them\n\n", table.render(), "\n",
      report_internal::wrap(
          "N: devices in a group; payload: the bytes V its time is figured from (all-gather "
          "output, reduce-scatter input, all-reduce buffer, collective-permute buffer; "
          "all-to-all: N times one device's buffer); time, exposed (the "
          "step waits) and hidden (overlapped with other ops; sync: a synchronous collective hides "
          "nothing): one execution.",
          "", ""));
  if (approximate) out += "* a conservative bound: the group is not a whole axis of the slice.\n";
  return out;
}

}  // namespace hloroof
