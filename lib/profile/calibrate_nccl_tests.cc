// A GPU cluster's network across nodes fitted to nccl-tests logs (include/profile/hloroof/
// nccl_tests.h): interconnect.nic_efficiency from the sizes the network's bandwidth bounds,
// interconnect.scale_out_latency from those its latency bounds.
//
// One figure fitted to every size (a share of line rate to a log of 8 B to 8 GiB) takes the
// small sizes' latency for bandwidth: a log whose latency is longer than NCCL's model gets a
// lower share, and its large sizes come out slow. So each figure is fitted to the sizes it
// bounds in the model: a size is bandwidth-bound where a change of nic_efficiency moves its
// predicted time nearly in full (95% or more), latency-bound where it hardly moves it (5% or
// less). The roles follow the figures, so the two fits run twice.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "device/embedded_files.h"
#include "device/spec_units.h"
#include "hloroof/absl_compat.h"
#include "hloroof/hlo_text.h"
#include "hloroof/nccl_tests.h"
#include "hloroof/predict.h"
#include "hloroof/text_table.h"
#include "hloroof/units.h"
#include "hloroof/wrap.h"
#include "nlohmann/json.hpp"
#include "predict/expected_time.h"

namespace hloroof {
namespace {

// The share of a size's predicted time that moves with nic_efficiency, at or above which it
// fits the bandwidth, at or below which the latency.
constexpr double kBandwidthBound = 0.95;
constexpr double kLatencyBound = 0.05;
// The longest latency a device spec's times take (1 s), and the rounds of the two fits.
constexpr double kMaxLatencySeconds = 1;
constexpr int kRounds = 2;
// How much lower the median error must be for the fit to be kept: 0.1 of a percentage point
// (what the figures' rounding in the written file may move it by is far less).
constexpr double kLeastGain = 0.001;

// One collective of `row`'s size as an HLO module over `ranks` devices, f32 (a size that does not
// split into whole f32 elements per rank rounds down; none: nullopt).
std::optional<std::string> collective_module(CollectiveKind kind, double size_bytes,
                                             int64_t ranks) {
  const int64_t n = ranks;
  std::string group;
  for (int64_t r = 0; r < n; ++r) absl::StrAppend(&group, r == 0 ? "" : ",", r);
  const std::string groups = absl::StrCat("replica_groups={{", group, "}}");
  const double elements = std::floor(size_bytes / 4);
  std::string body;
  switch (kind) {
    case CollectiveKind::kAllReduce: {
      if (elements < 1) return std::nullopt;
      const auto e = static_cast<int64_t>(elements);
      body = absl::StrFormat(
          "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] all-reduce(p), channel_id=1, %s, "
          "use_global_device_ids=true, to_apply=add\n",
          e, e, groups);
      break;
    }
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll: {
      const auto per = static_cast<int64_t>(std::floor(elements / static_cast<double>(n)));
      if (per < 1) return std::nullopt;
      const int64_t whole = per * n;
      if (kind == CollectiveKind::kAllGather) {
        body = absl::StrFormat(
            "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] all-gather(p), channel_id=1, %s, "
            "dimensions={0}, use_global_device_ids=true\n",
            per, whole, groups);
      } else if (kind == CollectiveKind::kReduceScatter) {
        body = absl::StrFormat(
            "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] reduce-scatter(p), channel_id=1, "
            "%s, dimensions={0}, use_global_device_ids=true, to_apply=add\n",
            whole, per, groups);
      } else {
        body = absl::StrFormat(
            "  p = f32[%d] parameter(0)\n  ROOT c = f32[%d] all-to-all(p), channel_id=1, %s, "
            "dimensions={0}\n",
            whole, whole, groups);
      }
      break;
    }
    default:
      return std::nullopt;
  }
  return absl::StrCat("HloModule nccl_tests, num_partitions=", n,
                      "\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = "
                      "f32[] add(a, b)\n}\n\nENTRY e {\n",
                      body, "}\n");
}

// A row across nodes, its module parsed once.
struct Sample {
  const NcclTestsRun* run = nullptr;
  const NcclTestsRow* row = nullptr;
  Module module;
  std::string topology;
  NcclTestsRole role = NcclTestsRole::kNone;
};

absl::StatusOr<double> expected_s(const Sample& s, const DeviceSpec& device) {
  absl::StatusOr<Topology> slice = make_topology(device, s.topology);
  if (!slice.ok()) return slice.status();
  absl::StatusOr<Prediction> p = predict_step_time(s.module, {.spec = device, .slice = *slice});
  if (!p.ok()) return p.status();
  return p->step_time_s;
}

DeviceSpec with_figures(const DeviceSpec& base, double efficiency, double latency_s) {
  DeviceSpec d = base;
  d.gpu->nic_efficiency = efficiency;
  d.gpu->scale_out_latency_s = latency_s;
  return d;
}

// The sum of squared log(expected / measured) over `samples` on `device`.
absl::StatusOr<double> loss(const std::vector<const Sample*>& samples, const DeviceSpec& device) {
  double sum = 0;
  for (const Sample* s : samples) {
    absl::StatusOr<double> t = expected_s(*s, device);
    if (!t.ok()) return t.status();
    const double r = std::log(*t / s->row->time_s);
    sum += r * r;
  }
  return sum;
}

// Each sample's role at (efficiency, latency): the share of its predicted time that a 5% lower
// efficiency moves, against the 5% a time wholly the network's bytes would move.
absl::Status assign_roles(std::vector<Sample>& samples, const DeviceSpec& base, double efficiency,
                          double latency_s) {
  constexpr double kStep = 1.05;
  const DeviceSpec at = with_figures(base, efficiency, latency_s);
  const DeviceSpec slower =
      with_figures(base, std::max(efficiency / kStep, internal::kMinEfficiency), latency_s);
  const double full = std::log(efficiency / std::max(efficiency / kStep, internal::kMinEfficiency));
  for (Sample& s : samples) {
    absl::StatusOr<double> t = expected_s(s, at);
    if (!t.ok()) return t.status();
    absl::StatusOr<double> t_slow = expected_s(s, slower);
    if (!t_slow.ok()) return t_slow.status();
    const double share = full > 0 ? std::log(*t_slow / *t) / full : 0;
    s.role = share >= kBandwidthBound  ? NcclTestsRole::kBandwidth
             : share <= kLatencyBound ? NcclTestsRole::kLatency
                                      : NcclTestsRole::kNone;
  }
  return absl::OkStatus();
}

// nic_efficiency minimising the loss over the bandwidth-bound samples at `latency_s`: golden
// sections on its log over [kMinEfficiency, 1].
absl::StatusOr<double> fit_efficiency(const std::vector<const Sample*>& samples,
                                      const DeviceSpec& base, double latency_s) {
  double lo = std::log(internal::kMinEfficiency), hi = 0;
  const double g = (std::sqrt(5.0) - 1) / 2;
  auto cost = [&](double log_e) {
    return loss(samples, with_figures(base, std::exp(log_e), latency_s));
  };
  double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  absl::StatusOr<double> fa = cost(a);
  absl::StatusOr<double> fb = cost(b);
  while (fa.ok() && fb.ok() && hi - lo > 1e-5) {
    if (*fa < *fb) {
      hi = b, b = a, fb = fa;
      a = hi - g * (hi - lo);
      fa = cost(a);
    } else {
      lo = a, a = b, fa = fb;
      b = lo + g * (hi - lo);
      fb = cost(b);
    }
  }
  if (!fa.ok()) return fa.status();
  if (!fb.ok()) return fb.status();
  return std::clamp(std::exp((lo + hi) / 2), internal::kMinEfficiency, 1.0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The latency that makes the median of measured - expected over the latency-bound samples 0 at
// `efficiency`, held to [0, kMaxLatencySeconds]; `unheld`: the latency before it was held. A
// collective's time is a max of its NVLink and network parts, so a latency added to the
// network part shows only past the other: the median gap is added again until it closes.
absl::StatusOr<double> fit_latency(const std::vector<const Sample*>& samples,
                                   const DeviceSpec& base, double efficiency, double& unheld) {
  constexpr int kSteps = 4;
  double latency = 0;
  for (int step = 0; step < kSteps; ++step) {
    const DeviceSpec device = with_figures(base, efficiency, latency);
    std::vector<double> gaps;
    for (const Sample* s : samples) {
      absl::StatusOr<double> t = expected_s(*s, device);
      if (!t.ok()) return t.status();
      gaps.push_back(s->row->time_s - *t);
    }
    unheld = latency + median(gaps);
    latency = std::clamp(unheld, 0.0, kMaxLatencySeconds);
  }
  return latency;
}

std::vector<const Sample*> with_role(const std::vector<Sample>& samples, NcclTestsRole role) {
  std::vector<const Sample*> out;
  for (const Sample& s : samples) {
    if (s.role == role) out.push_back(&s);
  }
  return out;
}

// The device's JSON text: as read, else its built-in file.
absl::StatusOr<std::string> device_text(const DeviceSpec& spec) {
  if (!spec.json.empty()) return spec.json;
  constexpr std::string_view kBuiltin = "built-in ";
  if (absl::StartsWith(sv(spec.origin), sv(kBuiltin))) {
    const std::string_view file = std::string_view(spec.origin).substr(kBuiltin.size());
    for (const internal::EmbeddedFile& f : internal::builtin_device_files()) {
      if (f.name == file) return std::string(f.contents);
    }
  }
  return absl::NotFoundError(absl::StrCat("the text of device ", spec.name, " is not at hand"));
}

}  // namespace

std::string nccl_tests_gpu(std::string_view text) {
  std::set<std::string> names;
  for (absl::string_view raw : absl::StrSplit(sv(text), '\n')) {
    // "#  Rank  0 Group  0 Pid 1000 on node-a device  0 [0000:04:00] NVIDIA A100-SXM4-80GB"
    // (older versions: no Group; the bus id "[0x07]").
    const std::string_view line = sv(absl::StripAsciiWhitespace(raw));
    if (!absl::StartsWith(sv(line), "#")) continue;
    std::vector<absl::string_view> w =
        absl::StrSplit(sv(line), absl::ByAnyChar(" \t"), absl::SkipEmpty());
    if (w.size() < 3 || w[0] != "#" || w[1] != "Rank") continue;
    const size_t device = line.find(" device ");
    if (device == std::string_view::npos) continue;
    const size_t close = line.find(']', device);
    if (close == std::string_view::npos) continue;
    const std::string name(absl::StripAsciiWhitespace(sv(line.substr(close + 1))));
    if (!name.empty()) names.insert(name);
  }
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<NcclTestsFit> fit_nccl_tests(absl::Span<const NcclTestsRun> runs,
                                            const DeviceSpec& base, std::string_view name) {
  if (base.kind != DeviceKind::kGpu || !base.gpu) {
    return absl::InvalidArgumentError(
        absl::StrCat(base.name, " is not a GPU: nccl-tests fit a GPU cluster's network"));
  }
  std::vector<Sample> samples;
  for (const NcclTestsRun& run : runs) {
    if (run.nodes < 2) continue;
    const int64_t per_node = run.ranks / run.nodes;
    if (per_node > base.gpu->nvlink_domain_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: %d ranks per node, more than %s's NVLink domain of %d: give a device whose "
          "nvlink_domain_size holds a node",
          run.origin, per_node, base.name, base.gpu->nvlink_domain_size));
    }
    for (const NcclTestsRow& row : run.rows) {
      std::optional<std::string> text = collective_module(run.kind, row.size_bytes, run.ranks);
      if (!text) continue;
      absl::StatusOr<Module> module = parse_module(*text);
      if (!module.ok()) return module.status();
      samples.push_back(
          {&run, &row, *std::move(module), absl::StrCat(run.nodes, "x", per_node), {}});
    }
  }
  if (samples.empty()) {
    return absl::InvalidArgumentError(
        "no nccl-tests run spans nodes (their 'Rank' lines name one host): nic_efficiency is "
        "the network's across nodes; collectives inside one node are fitted from profiles");
  }
  NcclTestsFit fit;
  fit.before = base.gpu->nic_efficiency.value_or(predict::kScaleOutEfficiency);
  fit.latency_before_s = base.gpu->scale_out_latency_s.value_or(0.0);
  double efficiency = fit.before, latency = fit.latency_before_s;
  double latency_gap = 0;  // the latency fitted before it is held to [0, 1 s]
  for (int round = 0; round < kRounds; ++round) {
    if (absl::Status s = assign_roles(samples, base, efficiency, latency); !s.ok()) return s;
    const std::vector<const Sample*> bandwidth = with_role(samples, NcclTestsRole::kBandwidth);
    if (!bandwidth.empty()) {
      absl::StatusOr<double> e = fit_efficiency(bandwidth, base, latency);
      if (!e.ok()) return e.status();
      efficiency = *e;
      fit.efficiency_fitted = true;
    }
    const std::vector<const Sample*> latency_bound = with_role(samples, NcclTestsRole::kLatency);
    if (!latency_bound.empty()) {
      absl::StatusOr<double> l = fit_latency(latency_bound, base, efficiency, latency_gap);
      if (!l.ok()) return l.status();
      latency = *l;
      fit.latency_fitted = true;
    }
  }
  // The roles the fitted figures give, as the table shows them.
  if (absl::Status s = assign_roles(samples, base, efficiency, latency); !s.ok()) return s;
  fit.after = efficiency;
  fit.latency_after_s = latency;
  if (!fit.efficiency_fitted) {
    fit.warnings.push_back(absl::StrFormat(
        "interconnect.nic_efficiency not fitted: no size is bandwidth-bound (%.0f%% or more of "
        "its time at the network's rate); give a log up to 1 GiB or more (nccl-tests -e 8G)",
        100 * kBandwidthBound));
  } else if (fit.after <= internal::kMinEfficiency * 1.001 || fit.after >= 0.999) {
    fit.warnings.push_back(absl::StrFormat(
        "interconnect.nic_efficiency sits at its bound %.3f: the large sizes run %s than any "
        "share of the NICs' line rate explains; check the NICs (--set "
        "interconnect.nics_per_node=N --set interconnect.nic_bandwidth=200Gb/s)",
        fit.after, fit.after >= 0.999 ? "faster" : "slower"));
  }
  if (!fit.latency_fitted) {
    fit.warnings.push_back(
        "interconnect.scale_out_latency not fitted: no size is latency-bound; give a log from "
        "small sizes on (nccl-tests -b 8)");
  } else if (latency_gap < 0 && latency <= 0) {
    fit.warnings.push_back(absl::StrFormat(
        "interconnect.scale_out_latency sits at its bound 0 s: the latency-bound sizes run %s "
        "faster than NCCL's latency model, which a latency added to it cannot follow; their "
        "errors stay",
        format_seconds(-latency_gap)));
  } else if (latency_gap > kMaxLatencySeconds) {
    fit.warnings.push_back(absl::StrFormat(
        "interconnect.scale_out_latency sits at its bound %s", format_seconds(latency)));
  }
  // Before and after, for every size.
  const DeviceSpec given = with_figures(base, fit.before, fit.latency_before_s);
  const DeviceSpec fitted = with_figures(base, fit.after, fit.latency_after_s);
  std::vector<double> errors_before, errors_after;
  for (const Sample& s : samples) {
    absl::StatusOr<double> before = expected_s(s, given);
    absl::StatusOr<double> after = expected_s(s, fitted);
    if (!before.ok()) return before.status();
    if (!after.ok()) return after.status();
    fit.points.push_back(
        {s.run->origin, s.row->size_bytes, s.row->time_s, *before, *after, s.role});
    errors_before.push_back(std::abs(*before / s.row->time_s - 1));
    errors_after.push_back(std::abs(*after / s.row->time_s - 1));
  }
  fit.error_before = median(errors_before);
  fit.error_after = median(errors_after);
  fit.accepted = fit.error_after < fit.error_before - kLeastGain;
  // The device file: the base's text with the figures, renamed.
  absl::StatusOr<std::string> text = device_text(base);
  if (!text.ok()) return text.status();
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("interconnect") ||
      !doc["interconnect"].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(base.origin, ": not a device JSON with an interconnect object"));
  }
  const std::string fitted_name = name.empty() ? absl::StrCat(base.name, "_fitted")
                                               : std::string(name);
  doc["name"] = fitted_name;
  doc["display_name"] = absl::StrCat(base.display_name, " (network fitted)");
  if (base.base.empty() && absl::StartsWith(sv(base.origin), "built-in ")) {
    doc["base"] = base.name;
  }
  doc.erase("aliases");
  const std::string how = absl::StrFormat(
      "fitted by hloroof calibrate to %d nccl-tests sizes across nodes (%d test%s)",
      static_cast<int>(fit.points.size()), static_cast<int>(runs.size()),
      runs.size() == 1 ? "" : "s");
  std::vector<std::string> written;
  if (fit.efficiency_fitted) {
    doc["interconnect"]["nic_efficiency"] = std::round(fit.after * 1e4) / 1e4;
    written.push_back("interconnect.nic_efficiency");
  }
  if (fit.latency_fitted) {
    // To the nanosecond, as the table prints it.
    doc["interconnect"]["scale_out_latency"] = {
        {"value", std::round(fit.latency_after_s * 1e9) / 1e9},
        {"unit", "s"},
        {"source", "fitted"},
        {"verified", false},
        {"note", how}};
    written.push_back("interconnect.scale_out_latency");
  }
  if (!doc.contains("notes") || !doc["notes"].is_array()) {
    doc["notes"] = nlohmann::ordered_json::array();
  }
  doc["notes"].push_back(absl::StrCat(
      how, written.empty() ? "; nothing could be fitted"
                           : absl::StrCat("; ", absl::StrJoin(written, ", "), " come from it")));
  fit.json = doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  absl::StatusOr<DeviceSpec> reread = parse_device_spec(fit.json, fitted_name);
  if (!reread.ok()) return reread.status();
  fit.device = *std::move(reread);
  return fit;
}

std::string render_nccl_tests_fit(const NcclTestsFit& fit) {
  const auto percent = [](double predicted, double measured) {
    return absl::StrFormat("%+.1f%%", 100 * (predicted / measured - 1));
  };
  const auto role_text = [](NcclTestsRole role) -> std::string {
    switch (role) {
      case NcclTestsRole::kLatency:
        return "latency";
      case NcclTestsRole::kBandwidth:
        return "bandwidth";
      case NcclTestsRole::kNone:
        break;
    }
    return "-";
  };
  std::string out;
  // Per test, in the order read: each size.
  std::vector<std::string> tests;
  for (const NcclTestsPoint& p : fit.points) {
    if (std::find(tests.begin(), tests.end(), p.test) == tests.end()) tests.push_back(p.test);
  }
  struct Errors {
    std::vector<double> before, after;
  };
  std::map<std::string, Errors> by_test;
  for (const std::string& test : tests) {
    TextTable table({{"size"},
                     {"measured"},
                     {"expected before"},
                     {"error"},
                     {"after"},
                     {"error"},
                     {"fits", TextTable::Align::kLeft}});
    for (const NcclTestsPoint& p : fit.points) {
      if (p.test != test) continue;
      table.add_row({format_bytes(p.size_bytes), format_seconds(p.measured_s),
                     format_seconds(p.before_s), percent(p.before_s, p.measured_s),
                     format_seconds(p.after_s), percent(p.after_s, p.measured_s),
                     role_text(p.role)});
      by_test[test].before.push_back(std::abs(p.before_s / p.measured_s - 1));
      by_test[test].after.push_back(std::abs(p.after_s / p.measured_s - 1));
    }
    absl::StrAppend(&out,
                    report_internal::wrap(absl::StrCat(test, ": one collective per size across "
                                                             "nodes"),
                                          "", "  "),
                    "\n", table.render(), "\n");
  }
  TextTable summary({{"test", TextTable::Align::kLeft, 48},
                     {"sizes"},
                     {"median error before"},
                     {"after"}});
  for (const std::string& test : tests) {
    const Errors& e = by_test[test];
    summary.add_row({test, std::to_string(e.before.size()),
                     absl::StrFormat("%.1f%%", 100 * median(e.before)),
                     absl::StrFormat("%.1f%%", 100 * median(e.after))});
  }
  summary.add_row({"all", std::to_string(fit.points.size()),
                   absl::StrFormat("%.1f%%", 100 * fit.error_before),
                   absl::StrFormat("%.1f%%", 100 * fit.error_after)});
  absl::StrAppend(
      &out, "|expected / measured - 1| per size, median\n\n", summary.render(), "\n",
      report_internal::wrap(
          absl::StrFormat("interconnect.nic_efficiency: %.3f -> %.3f (share of the NICs' line "
                          "rate; %s)",
                          fit.before, fit.after,
                          fit.efficiency_fitted ? "bandwidth-bound sizes" : "not fitted"),
          "", "  "),
      report_internal::wrap(
          absl::StrFormat("interconnect.scale_out_latency: %s -> %s (added to NCCL's latency "
                          "model; %s)",
                          format_seconds(fit.latency_before_s),
                          format_seconds(fit.latency_after_s),
                          fit.latency_fitted ? "latency-bound sizes" : "not fitted"),
          "", "  "));
  for (const std::string& w : fit.warnings) {
    absl::StrAppend(&out, report_internal::wrap(w, "warning: ", "  "));
  }
  absl::StrAppend(
      &out, fit.accepted
                ? absl::StrFormat("kept: the median error falls from %.1f%% to %.1f%%\n",
                                  100 * fit.error_before, 100 * fit.error_after)
                : report_internal::wrap(
                      absl::StrFormat("not kept: the median error does not fall (%.1f%% -> "
                                      "%.1f%%, 0.1 point needed); keep using the given device",
                                      100 * fit.error_before, 100 * fit.error_after),
                      "", "  "));
  return out;
}

}  // namespace hloroof
