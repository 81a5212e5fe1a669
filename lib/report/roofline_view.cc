// The roofline chart of a prediction: XProf's op-level roofline, drawn before anything runs.
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/report.h"
#include "hloroof/units.h"
#include "report/op_terms.h"

namespace hloroof {
namespace {

// One roof per distinct rate, highest first: "bf16/f16 matrix" when two types share a matrix
// peak, "f32 matrix, vector" when the vector unit runs at a matrix peak.
std::vector<RooflineChart::Roof> compute_roofs(const DeviceSpec& device) {
  std::map<double, std::vector<std::string>, std::greater<>> types_by_rate;
  for (const auto& [type, rate] : device.matrix_flops_per_s) {
    if (rate > 0) types_by_rate[rate].push_back(type);
  }
  std::map<double, std::string, std::greater<>> labels;
  for (const auto& [rate, types] : types_by_rate) {
    labels[rate] = absl::StrCat(absl::StrJoin(types, "/"), " matrix");
  }
  if (const double vector = device.vector_flops_per_s; vector > 0) {
    std::string& label = labels[vector];
    label = label.empty() ? "vector" : absl::StrCat(label, ", vector");
  }
  std::vector<RooflineChart::Roof> roofs;
  for (const auto& [rate, label] : labels) roofs.push_back({label, rate});
  return roofs;
}

struct Work {
  double flops = 0, hbm_bytes = 0, time_s = 0;
};

RooflineChart::Point point(std::string label, std::string category, const Work& w, double step_s) {
  RooflineChart::Point p;
  p.label = std::move(label);
  p.category = std::move(category);
  if (w.hbm_bytes > 0) p.intensity = w.flops / w.hbm_bytes;
  if (w.time_s > 0) p.flop_rate = w.flops / w.time_s;
  if (step_s > 0) p.share = std::min(1.0, w.time_s / step_s);
  return p;
}

}  // namespace

RooflineChart roofline_chart(const Prediction& prediction, const DeviceSpec& device,
                             const RooflineViewOptions& options) {
  RooflineChart chart;
  chart.title = absl::StrCat(device.display_name, " (", prediction.device,
                             prediction.topology.empty() ? "" : ":", prediction.topology,
                             "): predicted step ", format_seconds(prediction.step_time_s), ", HFU ",
                             format_percent(prediction.hfu));
  chart.memory_bandwidth = device.hbm_bandwidth;
  chart.roofs = compute_roofs(device);
  chart.labelled_points = options.labelled_points;

  const double step = prediction.step_time_s;
  if (options.by_category) {
    // Collectives and async waits spend network time, which no FLOP/byte roof describes.
    std::map<std::string, Work> by_category;
    size_t off_roof = 0;
    for (const OpPrediction& op : prediction.ops) {
      if (report_internal::off_roofline(op)) {
        ++off_roof;
        continue;
      }
      Work& w = by_category[std::string(op.category())];
      w.flops += op.flops * op.multiplier;
      w.hbm_bytes += op.hbm_bytes * op.multiplier;
      w.time_s += op.total_time_s();
    }
    for (const auto& [category, work] : by_category) {
      chart.points.push_back(point(category, category, work, step));
    }
    if (off_roof > 0) {
      absl::StrAppend(&chart.title, "; ", off_roof, " collective/async ops left out");
    }
    return chart;
  }
  // Collectives and async waits spend network time, which no FLOP/byte roof describes: they are
  // left out, and so are the smallest ops beyond max_points; the title says how many.
  std::vector<const OpPrediction*> ops;
  size_t off_roof = 0;
  for (const OpPrediction& op : prediction.ops) {
    if (report_internal::off_roofline(op)) {
      ++off_roof;
    } else {
      ops.push_back(&op);
    }
  }
  std::stable_sort(ops.begin(), ops.end(), [](const OpPrediction* a, const OpPrediction* b) {
    return a->total_time_s() > b->total_time_s();
  });
  size_t capped = 0;
  if (options.max_points > 0 && ops.size() > options.max_points) {
    capped = ops.size() - options.max_points;
    ops.resize(options.max_points);
  }
  if (off_roof + capped > 0) {
    absl::StrAppend(&chart.title, "; ", ops.size(), " of ", prediction.ops.size(), " ops drawn");
    if (capped > 0) absl::StrAppend(&chart.title, ", ", capped, " smallest left out");
    if (off_roof > 0) absl::StrAppend(&chart.title, ", ", off_roof, " collective/async left out");
  }
  for (const OpPrediction* op : ops) {
    // Per execution and per step give the same intensity and rate; per step sizes the point.
    chart.points.push_back(point(
        std::string(op->name()), std::string(op->category()),
        {op->flops * op->multiplier, op->hbm_bytes * op->multiplier, op->total_time_s()}, step));
  }
  return chart;
}

}  // namespace hloroof
