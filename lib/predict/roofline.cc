#include "hloroof/roofline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"
#include "predict/roofline_internal.h"

namespace hloroof {

std::string cite_figure(const DeviceSpec& device, std::string_view path) {
  const DeviceFigure* f = device.figure(path);
  if (f == nullptr || f->source.empty()) return std::string(path);
  return absl::StrCat(sv(path), " (", f->source, f->verified ? "" : ", unverified", ")");
}

std::string_view rate_figure(Bound bound) {
  switch (bound) {
    case Bound::kVector:
      return "vector_flops_per_s";
    case Bound::kTranscendental:
      return "transcendentals_per_s";
    case Bound::kHbm:
      return "hbm.bandwidth";
    case Bound::kOnChip:
      return "on_chip_memory.bandwidth";
    case Bound::kHost:
      return "host_link.bandwidth";
    case Bound::kMatrix:
    case Bound::kOverhead:
      break;
  }
  return {};
}

namespace {

std::string_view amount_unit(Bound b) {
  switch (b) {
    case Bound::kMatrix:
    case Bound::kVector:
      return "FLOP";
    case Bound::kTranscendental:
      return "op";
    default:
      return "B";
  }
}

// The matrix rate for `type` and where it came from; falls back to bf16, then to the largest
// listed rate, when the device lists none for the type.
// The source is left empty when `cited` is false.
std::pair<double, std::string> matrix_rate(const DeviceSpec& device, PrimitiveType type,
                                           std::string_view unit, bool cited,
                                           std::vector<std::string>& notes) {
  const std::string_view cls = unit.empty() ? matrix_class(type) : unit;
  if (auto listed = device.matrix_flops_per_s.find(cls);
      !cls.empty() && listed != device.matrix_flops_per_s.end()) {
    if (!cited) return {listed->second, ""};
    return {listed->second, cite_figure(device, absl::StrCat("matrix_flops_per_s.", sv(cls)))};
  }
  if (device.kind == DeviceKind::kGpu && (cls == "f32" || cls == "tf32" || cls == "f64")) {
    notes.push_back(absl::StrCat(device.name, " lists no matrix peak for ", sv(cls),
                                 "; run on its vector units"));
    return {device.vector_flops_per_s, cited ? cite_figure(device, "vector_flops_per_s") : ""};
  }
  std::string fallback = "bf16";
  auto it = device.matrix_flops_per_s.find(fallback);
  if (it == device.matrix_flops_per_s.end()) {
    it = std::max_element(device.matrix_flops_per_s.begin(), device.matrix_flops_per_s.end(),
                          [](const auto& a, const auto& b) { return a.second < b.second; });
    fallback = it->first;
  }
  notes.push_back(absl::StrCat(device.name, " lists no matrix peak for ",
                               sv(primitive_type_name(type)), cls.empty() ? "" : " (", sv(cls),
                               cls.empty() ? "" : ")", "; charged at its ", fallback, " peak"));
  if (!cited) return {it->second, ""};
  return {it->second, cite_figure(device, absl::StrCat("matrix_flops_per_s.", fallback))};
}

}  // namespace

std::string_view bound_name(Bound bound) {
  switch (bound) {
    case Bound::kMatrix:
      return "matrix";
    case Bound::kVector:
      return "vector";
    case Bound::kTranscendental:
      return "transcendental";
    case Bound::kHbm:
      return "HBM";
    case Bound::kOnChip:
      return "on-chip memory";
    case Bound::kHost:
      return "host link";
    case Bound::kOverhead:
      return "overhead";
  }
  return "?";
}

std::string_view bound_category(Bound bound) {
  switch (bound) {
    case Bound::kMatrix:
    case Bound::kVector:
    case Bound::kTranscendental:
      return "compute";
    case Bound::kHbm:
    case Bound::kOnChip:
    case Bound::kHost:
      return "memory";
    case Bound::kOverhead:
      return "overhead";
  }
  return "?";
}

RooflineEstimate roofline_time(const DeviceSpec& device, const OpWork& work,
                               const RooflineOptions& options) {
  RooflineEstimate e;
  // The citation is built only for terms the op has: most ops have two or three.
  auto add = [&](Bound bound, double amount, std::optional<double> rate, auto source) {
    if (amount <= 0) return;
    if (!rate || *rate <= 0) {
      e.notes.push_back(absl::StrCat(device.name, " has no ", sv(bound_name(bound)), " rate; its ",
                                     amount, " ", sv(amount_unit(bound)), " are not charged"));
      return;
    }
    e.terms.push_back(
        {bound, amount, *rate, amount / *rate, options.cite_sources ? source() : std::string()});
  };
  auto cited = [&](Bound bound) {
    return [&device, bound] { return cite_figure(device, rate_figure(bound)); };
  };

  if (work.matrix_flops > 0) {
    // Not a structured binding: clang 14 cannot capture those in a lambda.
    auto rate =
        matrix_rate(device, work.matrix_type, work.matrix_class, options.cite_sources, e.notes);
    add(Bound::kMatrix, work.matrix_flops,
        rate.first * (options.apply_efficiency ? device.matmul_efficiency : 1.0),
        [&rate] { return std::move(rate.second); });
  }
  add(Bound::kVector, work.vector_flops, device.vector_flops_per_s, cited(Bound::kVector));
  add(Bound::kTranscendental, work.transcendentals, device.transcendentals_per_s,
      cited(Bound::kTranscendental));
  add(Bound::kHbm, work.hbm_bytes,
      device.hbm_bandwidth * (options.apply_efficiency ? device.hbm_efficiency : 1.0),
      cited(Bound::kHbm));
  add(Bound::kOnChip, work.on_chip_bytes, device.on_chip_bandwidth, cited(Bound::kOnChip));
  add(Bound::kHost, work.host_bytes, device.host_bandwidth, cited(Bound::kHost));

  e.overhead_s = options.include_overhead ? device.per_op_overhead_s : 0.0;
  double sum = 0;
  for (const RooflineTerm& t : e.terms) {
    sum += t.time_s;
    if (t.time_s > e.roofline_s) {
      e.roofline_s = t.time_s;
      e.bound = t.bound;
    }
  }
  // An op whose every term is below the fixed overhead is overhead bound.
  if (e.overhead_s > e.roofline_s) e.bound = Bound::kOverhead;
  e.time_s = e.roofline_s + e.overhead_s;
  e.upper_bound_s = sum + e.overhead_s;
  // The floor's fixed part: the launch floor where the device measures one, never above the
  // overhead.
  const double launch =
      std::min(e.overhead_s, options.include_overhead
                                 ? device.launch_floor_s.value_or(device.per_op_overhead_s)
                                 : 0.0);
  e.floor_work_s = e.roofline_s;
  e.floor_s = std::max(e.roofline_s, launch);
  // Reads a GPU's L2 may hold, at most its capacity, are not bound by HBM's rate (the floor).
  if (device.kind == DeviceKind::kGpu && device.on_chip_bandwidth && work.hbm_read_bytes > 0) {
    e.l2_read_bytes =
        std::min({work.hbm_read_bytes, work.hbm_bytes, device.on_chip_capacity_bytes});
    double others = 0;
    double hbm_rate = 0;
    for (const RooflineTerm& t : e.terms) {
      if (t.bound == Bound::kHbm) {
        hbm_rate = t.rate;
      } else {
        others = std::max(others, t.time_s);
      }
    }
    if (hbm_rate > 0) {
      e.floor_work_s = std::max({others, (work.hbm_bytes - e.l2_read_bytes) / hbm_rate,
                                 e.l2_read_bytes / *device.on_chip_bandwidth});
      e.floor_s = std::max(e.floor_work_s, launch);
    }
  }
  return e;
}

// StrCat writes doubles with six significant digits, several times faster than a printf
// format: every op of a large module explains itself.
std::string RooflineEstimate::explain() const {
  std::string out =
      absl::StrCat("time = max(terms) + overhead = ", roofline_s, " s + ", overhead_s,
                   " s = ", time_s, " s (", sv(bound_category(bound)),
                   " bound: ", sv(bound_name(bound)), "); floor = max(terms, launch floor)",
                   l2_read_bytes > 0 ? ", reads from L2" : "", " = ", floor_s, " s");
  if (l2_read_bytes > 0) {
    absl::StrAppend(&out, "\n  floor: up to ", l2_read_bytes,
                    " B of the reads from L2 (its capacity at most), beside the rest from HBM");
  }
  for (const RooflineTerm& t : terms) {
    const absl::string_view unit = sv(amount_unit(t.bound));
    absl::StrAppend(&out, "\n  ", sv(bound_name(t.bound)), ": ", t.amount, " ", unit, " / ", t.rate,
                    " ", unit, "/s = ", t.time_s, " s [", t.rate_source, "]",
                    t.bound == bound ? " <- bound" : "");
  }
  for (const std::string& n : notes) absl::StrAppend(&out, "\n  note: ", n);
  return out;
}

}  // namespace hloroof
