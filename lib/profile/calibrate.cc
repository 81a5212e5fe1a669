// calibrate: device efficiencies fitted to measured ops by weighted least squares (Eigen).
//
// With matmul_efficiency and hbm_efficiency set, an op's expected time is max(M u, H v, R) + o
// (lib/predict/expected_time.h): M its matrix term at peak, H its HBM term at full bandwidth, R
// its largest other term, u = 1 / matmul_efficiency, v = 1 / hbm_efficiency, o the per-op
// overhead. Once each op's bounding term is known the model is linear in (u, v, o); the fit
// alternates solving for them and re-reading which term bounds each op until no op changes
// side. The terms come from roofline predictions with the other rates made unlimited, so they
// are exactly what predict_step_time charges.
// GPU collectives: with collective_latency L and collective_bandwidth_efficiency 1 / w set, a
// collective's expected time is L + w T, T its roofline bandwidth term; L and w are fitted
// likewise, from the collectives inside one NVLink domain (node). Those whose groups cross
// nodes fit the share of the NICs' line rate the network reaches, interconnect.nic_efficiency,
// apart: their expected time (NCCL's algorithms across nodes,
// lib/predict/collective_expected_time.cc) is not linear in it (a max of the NVLink and network
// parts, NCCL's protocol picked by time), so it is found by a search on a log grid, refined by
// golden sections. The written device file sets the fitted knobs, so predicting with it
// reproduces the fit.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "device/embedded_files.h"
#include "device/spec_units.h"
#include "hloroof/device_target.h"
#include "hloroof/profile.h"
#include "hloroof/wrap.h"
#include "hloroof/text_table.h"
#include "hloroof/topology.h"
#include "hloroof/units.h"
#include "nlohmann/json.hpp"
#include "predict/expected_time.h"
#include "profile/profile_internal.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

using profile_internal::OpClass;

// The largest slowdown a fit may give (1 / the smallest efficiency a device spec takes), and the
// longest overhead or latency (a device spec's times run to 1 s): a fitted device must read back.
constexpr double kMaxSlowdown = 1 / internal::kMinEfficiency;
constexpr double kMaxFittedTime = 1;
constexpr double kMaxRelativeError = 1e100;
// Ops measured shorter than a picosecond (the resolution of an XSpace) are not fitted: their
// relative errors say nothing.
constexpr double kMinMeasuredSeconds = 1e-12;
using Align = TextTable::Align;

constexpr double kUnlimited = 1e300;

// One measured op execution and the terms the model charges it.
struct Sample {
  size_t run = 0;
  std::string name;
  double measured_s = 0;  // one execution
  double given_s = 0;     // one execution, as the given device predicts it (expected time)
  bool collective = false;
  double matrix_s = 0, hbm_s = 0, rest_s = 0;  // terms at peak (non-collective ops)
  double bandwidth_s = 0;                      // collectives: the bandwidth term
  // A collective whose group spans NVLink domains (nodes): its kind and its estimate on the
  // given device, from which the expected time at any nic_efficiency follows.
  bool across_nodes = false;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  CollectiveEstimate estimate;
  std::string given_model;                     // the given device's model of the op
  bool uncertain = false;                      // its kernels' placement is uncertain
  bool unknown = false;                        // the prediction cannot tell its cost
};

// One run's step: measured and as the given device predicts it.
struct RunStep {
  double measured_s = 0;
  double given_s = 0;
  bool lower_bound = false;
};

struct Figures {
  double u = 1, v = 1, overhead_s = 0;
  double latency_s = 0, w = 1;  // GPU collectives: collective_latency, 1 / bandwidth efficiency
  // The given device's measured models kept for matrix-bound ops, for HBM-bound ops (by their
  // terms at peak), or both: such an op (and, when either is kept, an op bound by neither)
  // takes its given time with the fitted overhead in place of the given one; collectives (when
  // kept_collectives) their given time.
  bool keep_matmul = false, keep_hbm = false, kept_collectives = false;
  double given_overhead_s = 0;
  // Whether collective_latency and collective_bandwidth_efficiency are fitted (the written
  // device sets them).
  bool collectives_fitted = false;
  // Collectives across nodes: the given device with the fitted nic_efficiency (or its own),
  // whose network model times them; none: they keep the model of those inside one node.
  std::shared_ptr<const DeviceSpec> network;
};

DeviceSpec unit_spec(const DeviceSpec& base) {
  DeviceSpec d = base;
  d.matmul_efficiency = 1;
  d.hbm_efficiency = 1;
  d.per_op_overhead_s = 0;
  // The expected time's terms: every HBM byte at HBM's rate (a GPU's L2 rate only lowers the
  // roofline's floor, which is not what is fitted).
  if (d.kind == DeviceKind::kGpu) d.on_chip_bandwidth.reset();
  if (d.gpu) d.gpu->collective_launch_latency_s = 0;
  return d;
}

// Only the matrix term, only the HBM term, or only the others left finite.
DeviceSpec only(const DeviceSpec& unit, bool matrix, bool hbm, bool rest) {
  DeviceSpec d = unit;
  if (!matrix) {
    for (auto& [cls, rate] : d.matrix_flops_per_s) rate = kUnlimited;
  }
  if (!hbm) d.hbm_bandwidth = kUnlimited;
  if (!rest) {
    d.vector_flops_per_s = kUnlimited;
    d.transcendentals_per_s = kUnlimited;
    if (d.on_chip_bandwidth) d.on_chip_bandwidth = kUnlimited;
    if (d.host_bandwidth) d.host_bandwidth = kUnlimited;
  }
  return d;
}

absl::flat_hash_map<std::string, double> execution_times(const Prediction& p) {
  absl::flat_hash_map<std::string, double> out;
  for (const OpPrediction& op : p.ops) {
    out[sv(op.name())] = op.collective ? op.collective->time_s : op.time_s;
  }
  return out;
}

// A prediction on `spec` over the slice of shape `slice` (empty: inferred), as make_topology
// reads it on that spec.
absl::StatusOr<Prediction> predict_on(const Module& module, const DeviceSpec& spec,
                                      std::string_view slice, const PredictOptions& options) {
  DeviceTarget target{.spec = spec};
  if (!slice.empty()) {
    absl::StatusOr<Topology> topology = make_topology(spec, slice);
    if (!topology.ok()) return topology.status();
    target.slice = *std::move(topology);
  }
  return predict_step_time(module, target, options);
}

bool fits_collectives(const DeviceSpec& d, const PredictOptions& o) {
  return d.gpu.has_value() && o.collective_formula == CollectiveFormula::kNetwork;
}

// The samples of one run: its measured ops that the prediction knows, with their terms.
absl::Status add_samples(const CalibrationRun& run, size_t index, const DeviceSpec& base,
                         const CalibrationOptions& options, std::vector<Sample>& out,
                         RunStep& step) {
  ProfileOptions po = options.profile;
  po.module_name.clear();
  if (absl::Status s = predicted_profile_error(*run.profile); !s.ok()) return s;
  // The module's own program among those of its name, as `profile` joins it.
  po.program_id = run.program_id;
  if (absl::Status s = profile_internal::join_own_program(*run.profile, *run.module, po);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<MeasuredModule> measured = measure_module(*run.profile, *run.module, po);
  if (!measured.ok()) return measured.status();
  absl::StatusOr<Prediction> given =
      predict_on(*run.module, base, options.topology, options.predict);
  if (!given.ok()) return given.status();
  const absl::flat_hash_map<std::string, double> given_s = execution_times(*given);
  step = {measured->step_s, given->step_time_s, given->is_lower_bound};
  absl::flat_hash_map<std::string_view, const OpPrediction*> given_ops;
  for (const OpPrediction& op : given->ops) given_ops[op.name()] = &op;
  const absl::flat_hash_set<std::string_view> unknown(given->unknown_ops.begin(),
                                                      given->unknown_ops.end());
  // The terms at the roofline: no measured model, no calibration.
  PredictOptions roofline = options.predict;
  roofline.roofline_only = true;
  const DeviceSpec unit = unit_spec(base);
  absl::StatusOr<Prediction> p0 = predict_on(*run.module, unit, options.topology, roofline);
  if (!p0.ok()) return p0.status();
  std::vector<absl::flat_hash_map<std::string, double>> terms;
  for (auto [m, h, r] : {std::tuple{true, false, false}, std::tuple{false, true, false},
                         std::tuple{false, false, true}}) {
    absl::StatusOr<Prediction> p =
        predict_on(*run.module, only(unit, m, h, r), options.topology, roofline);
    if (!p.ok()) return p.status();
    terms.push_back(execution_times(*p));
  }
  absl::flat_hash_map<std::string_view, const OpPrediction*> predicted;
  for (const OpPrediction& op : p0->ops) predicted[op.name()] = &op;
  for (const MeasuredOp& m : measured->ops) {
    auto it = predicted.find(m.name);
    if (it == predicted.end() || m.occurrences <= 0 || m.time_s <= 0) continue;
    if (!(m.time_s / m.occurrences >= kMinMeasuredSeconds)) continue;
    const OpPrediction& op = *it->second;
    Sample s;
    s.run = index;
    s.name = m.name;
    s.measured_s = m.time_s / m.occurrences;
    s.given_s = given_s.at(sv(op.name()));
    s.given_model = std::string(given_ops.at(op.name())->model());
    s.uncertain = m.alignment_uncertain;
    s.unknown = unknown.contains(op.name());
    if (op.collective) {
      if (!fits_collectives(base, options.predict)) continue;
      s.collective = true;
      s.bandwidth_s = op.collective->time_s;  // the unit spec has no launch latency
      const CollectivePrediction* g = given_ops.at(op.name())->collective.get();
      if (g && g->estimate && g->estimate->placement.domains > 1) {
        s.across_nodes = true;
        s.estimate = *g->estimate;
        s.kind = collective_kind_from_name(g->kind).value_or(CollectiveKind::kAllReduce);
      }
    } else if (op.async) {
      continue;  // copy-start / done and async computations: no roofline of their own
    } else {
      s.matrix_s = terms[0][sv(op.name())];
      s.hbm_s = terms[1][sv(op.name())];
      s.rest_s = terms[2][sv(op.name())];
      // Unlimited rates leave a term of ~1e-300 s: none.
      for (double* t : {&s.matrix_s, &s.hbm_s, &s.rest_s}) {
        if (*t < 1e-30) *t = 0;
      }
    }
    out.push_back(std::move(s));
  }
  return absl::OkStatus();
}

// The class by the terms at peak.
OpClass raw_class(const Sample& s) {
  if (s.collective) return OpClass::kCollective;
  const double m = s.matrix_s, h = s.hbm_s;
  if (m > 0 && m >= h && m >= s.rest_s) return OpClass::kMatmul;
  if (h > 0 && h >= s.rest_s) return OpClass::kMemory;
  return OpClass::kOther;
}

bool kept_any(const Figures& f) { return f.keep_matmul || f.keep_hbm; }

// Whether the op takes its given time (plus the overhead's change) under `f`.
bool given_form(const Sample& s, const Figures& f) {
  if (s.collective || !kept_any(f)) return false;
  const OpClass k = raw_class(s);
  return !((k == OpClass::kMatmul && !f.keep_matmul) || (k == OpClass::kMemory && !f.keep_hbm));
}

OpClass sample_class(const Sample& s, const Figures& f) {
  if (s.collective) return OpClass::kCollective;
  if (kept_any(f)) return raw_class(s);
  const double m = s.matrix_s * f.u, h = s.hbm_s * f.v;
  if (m > 0 && m >= h && m >= s.rest_s) return OpClass::kMatmul;
  if (h > 0 && h >= s.rest_s) return OpClass::kMemory;
  return OpClass::kOther;
}

// A collective across nodes as `device` times it (its expected time).
double network_s(const Sample& s, const DeviceSpec& device) {
  std::vector<std::string> notes;
  return predict::expected_collective_time(s.kind, s.estimate, device, notes).time_s;
}

double model_s(const Sample& s, const Figures& f) {
  if (s.collective && s.across_nodes) {
    if (f.network) return network_s(s, *f.network);
    // The fitted device's collective knobs apply to it, or else its given model.
    return f.collectives_fitted ? f.latency_s + f.w * s.bandwidth_s : s.given_s;
  }
  if (s.collective) {
    return f.kept_collectives ? s.given_s : f.latency_s + f.w * s.bandwidth_s;
  }
  if (given_form(s, f)) return std::max(s.given_s - f.given_overhead_s + f.overhead_s, 0.0);
  return std::max({s.matrix_s * f.u, s.hbm_s * f.v, s.rest_s}) + f.overhead_s;
}

// Weighted least squares of y ~ offset + X b with weights 1 / y; columns `fixed` keep `b`'s
// value.
// Returns false when the free columns do not determine their coefficients.
bool solve(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
           const std::vector<bool>& fixed, std::vector<double>& b,
           const std::vector<double>& offset = {}) {
  const size_t cols = b.size();
  std::vector<size_t> free;
  for (size_t j = 0; j < cols; ++j) {
    if (!fixed[j]) free.push_back(j);
  }
  if (free.empty()) return true;
  Eigen::MatrixXd a(static_cast<Eigen::Index>(y.size()), static_cast<Eigen::Index>(free.size()));
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(y.size()));
  for (size_t i = 0; i < y.size(); ++i) {
    const double w = 1 / y[i];
    double target = y[i] - (offset.empty() ? 0.0 : offset[i]);
    for (size_t j = 0; j < cols; ++j) {
      if (fixed[j]) target -= x[i][j] * b[j];
    }
    rhs(static_cast<Eigen::Index>(i)) = target * w;
    for (size_t k = 0; k < free.size(); ++k) {
      a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) = x[i][free[k]] * w;
    }
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  if (qr.rank() < static_cast<Eigen::Index>(free.size())) return false;
  const Eigen::VectorXd solution = qr.solve(rhs);
  for (size_t k = 0; k < free.size(); ++k) {
    b[free[k]] = solution(static_cast<Eigen::Index>(k));
  }
  return true;
}

struct Fit {
  Figures figures;
  std::vector<FittedFigure> report;
  std::vector<std::string> notes;
};

// The model the given device applies to the samples of `cls` (under `f`'s classes) when it is
// a measured one: the most frequent such model; empty when they are rooflines or calibrated.
std::string measured_model(const std::vector<Sample>& samples, const Figures& f, OpClass cls) {
  std::map<std::string, int64_t> count;
  for (const Sample& s : samples) {
    if (sample_class(s, f) == cls && absl::StrContains(s.given_model, "measured")) {
      ++count[s.given_model];
    }
  }
  std::string best;
  int64_t n = 0;
  for (const auto& [model, k] : count) {
    if (k > n) best = model, n = k;
  }
  return best;
}

void fit_collectives(const std::vector<Sample>& samples, const DeviceSpec& base, bool collectives,
                     Fit& out);
void fit_network(const std::vector<Sample>& samples, const DeviceSpec& base, bool collectives,
                 Fit& out);

// The efficiencies that replace the given device's measured models (GEMM tables, HBM
// fraction) and the per-op overhead, fitted together; with keep_matmul / keep_hbm, the
// measured models of those ops stay (each such op its given time, the overhead moved), and
// with both kept only the overhead moves. Collectives: fitted, except that with both kept a
// measured collective model stays too.
Fit fit(const std::vector<Sample>& samples, const DeviceSpec& base, bool collectives,
        bool keep_matmul, bool keep_hbm) {
  Fit out;
  Figures& f = out.figures;
  f.u = 1 / base.matmul_efficiency;
  f.v = 1 / base.hbm_efficiency;
  f.overhead_s = base.per_op_overhead_s;
  f.given_overhead_s = base.per_op_overhead_s;
  if (base.gpu) {
    f.latency_s = base.collective_latency_s.value_or(base.gpu->collective_launch_latency_s);
    f.w = 1 / base.collective_bandwidth_efficiency.value_or(1.0);
  }
  auto figure = [&](std::string field, double before, double after, bool fitted, std::string why) {
    out.report.push_back({std::move(field), before, after, fitted, std::move(why), ""});
  };
  f.keep_matmul = keep_matmul;
  f.keep_hbm = keep_hbm;

  // Compute ops: columns u, v, o, and R (an op bound by the other terms) held at 1.
  bool determined = true, overhead_undetermined = false;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<double>> x;
    std::vector<double> y, offset;
    bool any_matmul = false, any_memory = false;
    for (const Sample& s : samples) {
      if (s.collective) continue;
      y.push_back(s.measured_s);
      if (given_form(s, f)) {
        x.push_back({0, 0, 1, 0});
        offset.push_back(s.given_s - f.given_overhead_s);
        continue;
      }
      const OpClass k = sample_class(s, f);
      x.push_back({k == OpClass::kMatmul ? s.matrix_s : 0, k == OpClass::kMemory ? s.hbm_s : 0, 1,
                   k == OpClass::kOther ? s.rest_s : 0});
      offset.push_back(0);
      any_matmul |= k == OpClass::kMatmul;
      any_memory |= k == OpClass::kMemory;
    }
    if (y.empty()) break;
    std::vector<double> b = {f.u, f.v, f.overhead_s, 1};
    std::vector<bool> fix = {!any_matmul, !any_memory, false, true};
    overhead_undetermined = false;
    // Bounds, those a device spec may give: efficiencies from kMinEfficiency to 1 (u, v from 1
    // to 1 / kMinEfficiency), overhead from 0 to 1 s; a coefficient out of bounds is pinned to
    // its bound and the rest solved again.
    for (int pass = 0; pass < 4; ++pass) {
      determined = solve(x, y, fix, b, offset);
      if (!determined && !fix[2]) {
        fix[2] = true;  // too few distinct ops to tell the overhead apart
        overhead_undetermined = true;
        b[2] = base.per_op_overhead_s;
        determined = solve(x, y, fix, b, offset);
      }
      bool pinned = false;
      if (!fix[0] && b[0] < 1) b[0] = 1, fix[0] = pinned = true;
      if (!fix[1] && b[1] < 1) b[1] = 1, fix[1] = pinned = true;
      if (!fix[2] && b[2] < 0) b[2] = 0, fix[2] = pinned = true;
      if (!fix[0] && b[0] > kMaxSlowdown) b[0] = kMaxSlowdown, fix[0] = pinned = true;
      if (!fix[1] && b[1] > kMaxSlowdown) b[1] = kMaxSlowdown, fix[1] = pinned = true;
      if (!fix[2] && b[2] > kMaxFittedTime) b[2] = kMaxFittedTime, fix[2] = pinned = true;
      if (!pinned) break;
    }
    const Figures before = f;
    f.u = b[0], f.v = b[1], f.overhead_s = b[2];
    bool same = true;
    for (const Sample& s : samples) {
      if (!s.collective && sample_class(s, f) != sample_class(s, before)) same = false;
    }
    if (same) break;
  }
  int64_t matmul = 0, memory = 0, other = 0, collective = 0;
  for (const Sample& s : samples) {
    switch (sample_class(s, f)) {
      case OpClass::kMatmul:
        ++matmul;
        break;
      case OpClass::kMemory:
        ++memory;
        break;
      case OpClass::kOther:
        ++other;
        break;
      case OpClass::kCollective:
        ++collective;
        break;
    }
  }
  const std::string kept = "kept: the given model";
  figure("matmul_efficiency", base.matmul_efficiency, 1 / f.u, !keep_matmul && matmul > 0,
         keep_matmul  ? kept
         : matmul > 0 ? absl::StrCat(matmul, " matrix-bound ops")
                      : "no matrix-bound op");
  figure("hbm_efficiency", base.hbm_efficiency, 1 / f.v, !keep_hbm && memory > 0,
         keep_hbm     ? kept
         : memory > 0 ? absl::StrCat(memory, " HBM-bound ops")
                      : "no HBM-bound op");
  const bool overhead_fitted = matmul + memory + other >= 2 && determined && !overhead_undetermined;
  figure("per_op_overhead", base.per_op_overhead_s, f.overhead_s, overhead_fitted,
         overhead_fitted ? absl::StrCat(matmul + memory + other, " ops")
                         : "too few ops to tell it apart");

  if (keep_matmul && keep_hbm && !measured_model(samples, f, OpClass::kCollective).empty()) {
    f.kept_collectives = true;
    for (std::string field : {"collective_latency", "collective_bandwidth_efficiency"}) {
      const double v = field == "collective_latency" ? f.latency_s : 1 / f.w;
      figure(field, v, v, false, kept);
    }
  } else {
    fit_collectives(samples, base, collectives, out);
  }
  fit_network(samples, base, collectives, out);
  return out;
}

// Collectives: latency + w x bandwidth term; the efficiency 1 / w at most 1 (w >= 1), the
// latency at least 0.
void fit_collectives(const std::vector<Sample>& samples, const DeviceSpec& base, bool collectives,
                     Fit& out) {
  Figures& f = out.figures;
  auto figure = [&](std::string field, double before, double after, bool fitted, std::string why) {
    out.report.push_back({std::move(field), before, after, fitted, std::move(why), ""});
  };
  if (base.gpu) {
    const double latency_before = f.latency_s, efficiency_before = 1 / f.w;
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    int64_t across = 0;
    for (const Sample& s : samples) {
      across += s.collective && s.across_nodes;
      if (!s.collective || s.across_nodes) continue;
      x.push_back({1, s.bandwidth_s});
      y.push_back(s.measured_s);
    }
    std::vector<double> b = {f.latency_s, f.w};
    bool ok = collectives && y.size() >= 2 && solve(x, y, {false, false}, b) && b[1] > 0;
    if (ok && b[0] < 0) {
      b[0] = 0;
      ok = solve(x, y, {true, false}, b) && b[1] > 0;
    }
    if (ok && b[1] < 1) {
      b[1] = 1;
      ok = solve(x, y, {false, true}, b);
      if (ok && b[0] < 0) b[0] = 0;
    }
    // Those across nodes fit nic_efficiency (fit_network).
    const std::string counted =
        absl::StrCat(y.size(), " collectives", across > 0 ? " inside one node" : "");
    std::string why = !collectives   ? "XLA's GPU formulas: not fitted"
                      : y.size() < 2 ? absl::StrCat(counted, "; 2 or more needed")
                      : ok           ? counted
                                     : "collectives do not determine it";
    // A device spec's ranges (see above).
    if (ok) f.latency_s = std::min(b[0], kMaxFittedTime), f.w = std::min(b[1], kMaxSlowdown);
    f.collectives_fitted = ok;
    figure("collective_latency", latency_before, f.latency_s, ok, why);
    figure("collective_bandwidth_efficiency", efficiency_before, 1 / f.w, ok, why);
  } else {
    out.notes.push_back(
        "TPU collectives are not fitted (their time depends on hops and links, not one "
        "latency and bandwidth)");
  }
}

// Collectives across nodes: the share of the NICs' line rate, e, that makes their expected
// times (NCCL's algorithms across nodes at e) agree best with the measured ones, by weighted
// least squares (each op's relative error alike). Their time is a max of parts, one of them
// the network bytes at e, so e is found on a log grid from kMinEfficiency to 1 (121 points,
// 5.9% apart), then by golden sections between the best point's neighbours. It is fitted only
// where it matters: a change of 5% in e must move some collective's time by 1% or more (not
// so when the NVLink part, latency or the roofline bound them all).
void fit_network(const std::vector<Sample>& samples, const DeviceSpec& base, bool collectives,
                 Fit& out) {
  if (!base.gpu) return;
  Figures& f = out.figures;
  const std::optional<double> given = base.gpu->nic_efficiency;
  const double before = given.value_or(predict::kScaleOutEfficiency);
  std::vector<const Sample*> across;
  for (const Sample& s : samples) {
    if (s.collective && s.across_nodes) across.push_back(&s);
  }
  DeviceSpec device = base;
  auto times = [&](double e) {
    device.gpu->nic_efficiency = e;
    std::vector<double> t;
    t.reserve(across.size());
    for (const Sample* s : across) t.push_back(network_s(*s, device));
    return t;
  };
  auto cost = [&](double e) {
    const std::vector<double> t = times(e);
    double sum = 0;
    for (size_t k = 0; k < t.size(); ++k) {
      const double r = (t[k] - across[k]->measured_s) / across[k]->measured_s;
      sum += r * r;
    }
    return sum;
  };
  double best = before;
  bool ok = false;
  std::string why;
  if (!collectives) {
    why = "XLA's GPU formulas: not fitted";
  } else if (across.empty()) {
    why = "no collective across nodes measured";
  } else {
    constexpr int kSteps = 120;
    const double lo = std::log(internal::kMinEfficiency);
    auto grid = [&](int k) { return std::exp(lo * (1 - static_cast<double>(k) / kSteps)); };
    int at = kSteps;
    double least = std::numeric_limits<double>::infinity();
    for (int k = 0; k <= kSteps; ++k) {
      const double c = cost(grid(k));
      if (c < least) least = c, at = k;
    }
    // Golden sections on ln e between the neighbours.
    double a = std::log(grid(std::max(at - 1, 0))), b = std::log(grid(std::min(at + 1, kSteps)));
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    for (int k = 0; k < 60 && b - a > 1e-12; ++k) {
      const double c = b - ratio * (b - a), d = a + ratio * (b - a);
      if (cost(std::exp(c)) <= cost(std::exp(d))) {
        b = d;
      } else {
        a = c;
      }
    }
    const double refined = std::exp((a + b) / 2);
    best = cost(refined) <= least ? refined : grid(at);
    best = std::clamp(best, internal::kMinEfficiency, 1.0);
    // Does the network bound any of them near `best`?
    const std::vector<double> t = times(best);
    const std::vector<double> slower = times(std::max(best / 1.05, internal::kMinEfficiency));
    bool matters = false;
    for (size_t k = 0; k < t.size(); ++k) matters |= slower[k] >= 1.01 * t[k];
    ok = matters && std::isfinite(least);
    const std::string n = absl::StrCat(across.size(), " collective", across.size() == 1 ? "" : "s",
                                       " across nodes");
    why = ok ? n
             : absl::StrCat(n, ", bound by NVLink, latency or the roofline: a 5% lower "
                               "efficiency moves none by 1%");
  }
  if (!ok) best = before;
  // The fitted device times them with the fitted figure, or with its own when it has one.
  if (ok || given) {
    device.gpu->nic_efficiency = ok ? best : *given;
    f.network = std::make_shared<const DeviceSpec>(std::move(device));
  }
  out.report.push_back({"nic_efficiency", before, best, ok, std::move(why), ""});
}

absl::StatusOr<std::string> original_json(const DeviceSpec& spec) {
  constexpr std::string_view kBuiltin = "built-in ";
  if (absl::StartsWith(spec.origin, sv(kBuiltin))) {
    const std::string_view file = std::string_view(spec.origin).substr(kBuiltin.size());
    for (const internal::EmbeddedFile& f : internal::builtin_device_files()) {
      if (f.name == file) return std::string(f.contents);
    }
  }
  std::ifstream in(spec.origin, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot reopen '", spec.origin, "'"));
  std::ostringstream data;
  data << in.rdbuf();
  return std::move(data).str();
}

// `settings`: the figures set on the given device before the fit (CalibrationOptions), which
// the written device keeps; its notes name them.
absl::StatusOr<std::string> fitted_json(const DeviceSpec& base, const Fit& fit,
                                        const std::string& name, int64_t ops, size_t runs,
                                        const std::vector<std::string>& settings) {
  // The spec's own text, figures set included (set_device_figures); else its file again.
  absl::StatusOr<std::string> text = base.json.empty() ? original_json(base) : base.json;
  if (!text.ok()) return text.status();
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(*text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(base.origin, ": not a JSON object"));
  }
  const std::string how =
      absl::StrFormat("fitted by hloroof calibrate to %d measured ops of %d profile%s", ops, runs,
                      runs == 1 ? "" : "s");
  doc["name"] = name;
  doc["display_name"] = absl::StrCat(base.display_name, " (fitted)");
  // The measured tables stay those of the device fitted from (a fitted file's own base is
  // copied with its text); a file of the user's own has no tables to keep.
  const std::vector<std::string> builtin = builtin_device_names();
  if (base.base.empty() && std::find(builtin.begin(), builtin.end(), base.name) != builtin.end()) {
    doc["base"] = base.name;
  }
  doc.erase("aliases");
  // Each fitted knob is written, so the predictor applies it in place of its measured model; a
  // knob not fitted stays as the file had it (absent: the measured model).
  std::vector<std::string> written;
  for (const FittedFigure& r : fit.report) {
    if (!r.fitted) continue;
    written.push_back(r.field);
    if (r.field == "nic_efficiency") {
      // The network's own figure, beside the NICs it describes (data/hardware/README.md).
      if (!doc.contains("interconnect") || !doc["interconnect"].is_object()) {
        return absl::InvalidArgumentError(
            absl::StrCat(base.origin, ": no interconnect object for nic_efficiency"));
      }
      doc["interconnect"]["nic_efficiency"] = r.after;
    } else if (r.field == "per_op_overhead" || r.field == "collective_latency") {
      doc[r.field] = {{"value", r.after},
                      {"unit", "s"},
                      {"source", "fitted"},
                      {"verified", false},
                      {"note", how}};
    } else {
      doc[r.field] = r.after;  // an efficiency: a plain fraction
    }
  }
  if (!doc.contains("notes") || !doc["notes"].is_array())
    doc["notes"] = nlohmann::ordered_json::array();
  if (!settings.empty()) {
    doc["notes"].push_back(absl::StrCat("fitted from ", base.name, " with figures set (--set ",
                                        absl::StrJoin(settings, ", --set "), ")"));
  }
  doc["notes"].push_back(absl::StrCat(
      how, written.empty() ? "; nothing could be fitted"
                           : absl::StrCat("; ", absl::StrJoin(written, ", "), " come from it")));
  // A name of invalid UTF-8 (--name) is written with its bad bytes replaced.
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// Root mean square of relative errors, by class and over all.
// `before`: the given device's expected time (measured models unless the file calibrates it).
void add_errors(const std::vector<Sample>& samples, const Figures& after,
                std::vector<ClassError>& out) {
  struct Sum {
    int64_t n = 0;
    double before = 0, after = 0;
  };
  std::map<std::string, Sum> sums;
  for (const Sample& s : samples) {
    // Relative errors held below 1e100 so that their squares stay finite: a hostile profile's
    // op may take a picosecond against a prediction of 1e300 s.
    const auto relative = [&](double predicted_s) {
      const double e = (predicted_s - s.measured_s) / s.measured_s;
      if (std::isnan(e)) return kMaxRelativeError;
      return std::clamp(e, -kMaxRelativeError, kMaxRelativeError);
    };
    const double b = relative(s.given_s);
    const double a = relative(model_s(s, after));
    for (std::string cls : {std::string(profile_internal::op_class_name(sample_class(s, after))),
                            std::string("all")}) {
      Sum& sum = sums[cls];
      ++sum.n;
      sum.before += b * b;
      sum.after += a * a;
    }
  }
  for (std::string_view cls :
       {"matmul", "memory-bound", "other ops", "collectives exposed", "all"}) {
    auto it = sums.find(std::string(cls));
    if (it == sums.end()) continue;
    const Sum& s = it->second;
    const double n = static_cast<double>(s.n);
    out.push_back({std::string(cls == "collectives exposed" ? "collective" : cls), s.n,
                   std::sqrt(s.before / n), std::sqrt(s.after / n)});
  }
}

// The samples a fit may use, and how many were left out for each reason.
struct Selection {
  std::vector<Sample> kept;
  int64_t uncertain = 0, unknown = 0;
  std::vector<std::string> outliers;  // their names
};

// Samples whose ln(measured / model) lies more than max(ln 4, 4 x 1.4826 x MAD) from the
// median of their group (compute ops, collectives): a kernel credited to the wrong op, or work
// the model does not see. Groups of fewer than 4 are left as they are.
std::vector<bool> outliers(const std::vector<Sample>& samples,
                           const std::function<double(const Sample&)>& model) {
  std::vector<bool> out(samples.size(), false);
  for (bool collective : {false, true}) {
    std::vector<size_t> index;
    std::vector<double> r;
    for (size_t k = 0; k < samples.size(); ++k) {
      const double m = model(samples[k]);
      if (samples[k].collective != collective || !(m > 0)) continue;
      index.push_back(k);
      r.push_back(std::log(samples[k].measured_s / m));
    }
    if (r.size() < 4) continue;
    auto median = [](std::vector<double> v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    const double mid = median(r);
    std::vector<double> deviation;
    for (double x : r) deviation.push_back(std::abs(x - mid));
    const double limit = std::max(std::log(4.0), 4 * 1.4826 * median(deviation));
    for (size_t j = 0; j < r.size(); ++j) {
      if (std::abs(r[j] - mid) > limit) out[index[j]] = true;
    }
  }
  return out;
}

// Leaves out uncertain placements and unknown costs, then outliers: first against the given
// device's times, then against the fit to what is left (whose figures the others agree on).
Selection select(const std::vector<Sample>& samples, const DeviceSpec& base, bool collectives) {
  Selection out;
  std::vector<Sample> known;
  for (const Sample& s : samples) {
    if (s.uncertain) {
      ++out.uncertain;
    } else if (s.unknown) {
      ++out.unknown;
    } else {
      known.push_back(s);
    }
  }
  const std::vector<bool> against_given =
      outliers(known, [](const Sample& s) { return s.given_s; });
  std::vector<Sample> first_pass;
  for (size_t k = 0; k < known.size(); ++k) {
    if (!against_given[k]) first_pass.push_back(known[k]);
  }
  const Figures f = fit(first_pass, base, collectives, false, false).figures;
  const std::vector<bool> against_fit =
      outliers(known, [&](const Sample& s) { return model_s(s, f); });
  for (size_t k = 0; k < known.size(); ++k) {
    if (against_fit[k]) {
      out.outliers.push_back(known[k].name);
    } else {
      out.kept.push_back(known[k]);
    }
  }
  return out;
}

std::vector<std::string> first(const std::vector<std::string>& v, size_t n) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size()))};
}

double relative_error(double predicted, double measured) {
  return measured > 0 ? predicted / measured - 1 : std::numeric_limits<double>::quiet_NaN();
}

// The run's step as the device with `fit`'s figures predicts it.
absl::StatusOr<double> fitted_step(const CalibrationRun& run, const DeviceSpec& base,
                                   const Fit& fit, const std::string& name,
                                   const CalibrationOptions& options) {
  absl::StatusOr<std::string> json = fitted_json(base, fit, name, 0, 0, options.settings);
  if (!json.ok()) return json.status();
  absl::StatusOr<DeviceSpec> spec = parse_device_spec(*json, "the fitted device");
  if (!spec.ok()) return spec.status();
  absl::StatusOr<Prediction> p = predict_on(*run.module, *spec, options.topology, options.predict);
  if (!p.ok()) return p.status();
  return p->step_time_s;
}

// A fit of the kept samples (keeping the given device's matrix and HBM models as asked) and
// how well it predicts steps beside the given device.
struct Candidate {
  Fit fit;
  std::vector<CalibrationResult::HeldOut> held_out;
  double score = 0, given_score = 0;  // mean |step error|: the fit's and the given device's
  int64_t counted = 0, worse = 0;
};

// One fit of `kept`, scored on the runs' steps: held out (each run's step predicted by the fit
// of the others' samples) where there are two runs or more, else the runs' own steps.
absl::StatusOr<Candidate> candidate(absl::Span<const CalibrationRun> runs,
                                    const std::vector<RunStep>& run_steps,
                                    const std::vector<Sample>& kept, const DeviceSpec& base,
                                    bool collectives, bool keep_matmul, bool keep_hbm,
                                    const std::string& name, const CalibrationOptions& opts) {
  Candidate c;
  c.fit = fit(kept, base, collectives, keep_matmul, keep_hbm);
  if (runs.size() >= 2) {
    for (size_t k = 0; k < runs.size(); ++k) {
      std::vector<Sample> train, test;
      for (const Sample& s : kept) (s.run == k ? test : train).push_back(s);
      if (test.empty() || train.empty()) continue;
      const Fit others = fit(train, base, collectives, keep_matmul, keep_hbm);
      std::vector<ClassError> e;
      add_errors(test, others.figures, e);
      absl::StatusOr<double> step = fitted_step(runs[k], base, others, name, opts);
      if (!step.ok()) return step.status();
      const RunStep& given = run_steps[k];
      c.held_out.push_back({runs[k].label, e.back().before, e.back().after,
                            relative_error(given.given_s, given.measured_s),
                            relative_error(*step, given.measured_s), given.lower_bound});
    }
    for (const CalibrationResult::HeldOut& h : c.held_out) {
      if (h.lower_bound || !std::isfinite(h.step_before) || !std::isfinite(h.step_after)) {
        continue;
      }
      c.given_score += std::abs(h.step_before);
      c.score += std::abs(h.step_after);
      c.worse += std::abs(h.step_after) > std::abs(h.step_before);
      ++c.counted;
    }
  }
  if (c.counted == 0) {
    // One run, or none held out: the runs' own steps.
    c.score = c.given_score = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
      const RunStep& given = run_steps[k];
      if (given.lower_bound || given.measured_s <= 0) continue;
      absl::StatusOr<double> step = fitted_step(runs[k], base, c.fit, name, opts);
      if (!step.ok()) return step.status();
      c.given_score += std::abs(relative_error(given.given_s, given.measured_s));
      c.score += std::abs(relative_error(*step, given.measured_s));
      c.worse += std::abs(relative_error(*step, given.measured_s)) >
                 std::abs(relative_error(given.given_s, given.measured_s));
      ++c.counted;
    }
  }
  if (c.counted > 0) {
    c.score /= static_cast<double>(c.counted);
    c.given_score /= static_cast<double>(c.counted);
  }
  return c;
}

// Notes on the samples the selection left out, by why.
void note_left_out(const Selection& chosen, std::vector<std::string>& notes) {
  if (chosen.uncertain > 0) {
    notes.push_back(absl::StrFormat(
        "%d op(s) left out: their kernels ran in CUDA graphs or async wrappers and another "
        "instruction could own them equally well",
        chosen.uncertain));
  }
  if (chosen.unknown > 0) {
    notes.push_back(absl::StrFormat("%d op(s) left out: their cost is not known",
                                      chosen.unknown));
  }
  if (!chosen.outliers.empty()) {
    notes.push_back(absl::StrFormat(
        "%d op%s left out as outlier%s, more than 4x from what the other ops agree on "
        "(mis-joined kernels, or work the model does not see), e.g. %s",
        chosen.outliers.size(), chosen.outliers.size() == 1 ? "" : "s",
        chosen.outliers.size() == 1 ? "" : "s", absl::StrJoin(first(chosen.outliers, 3), ", ")));
  }
}

}  // namespace

absl::StatusOr<CalibrationResult> calibrate(absl::Span<const CalibrationRun> runs,
                                            std::string_view device,
                                            const CalibrationOptions& options) {
  if (runs.empty()) return absl::InvalidArgumentError("calibrate needs at least one profile");
  // The command's --device rule: aliases, real slices only, a topology given once.
  absl::StatusOr<DeviceTarget> target = resolve_device(
      device, runs[0].module,
      {.topology = options.topology, .settings = options.settings,
       .device_option = "device", .topology_option = "topology"});
  if (!target.ok()) return target.status();
  const DeviceSpec* base = &target->spec;
  CalibrationOptions opts = options;
  opts.topology = target->slice ? target->slice->shape : std::string();
  const bool collectives = fits_collectives(*base, opts.predict);

  std::vector<Sample> samples;
  std::vector<RunStep> run_steps(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    if (runs[k].module == nullptr || runs[k].profile == nullptr) {
      return absl::InvalidArgumentError("a calibration run without a module or a profile");
    }
    absl::Status s = add_samples(runs[k], k, *base, opts, samples, run_steps[k]);
    if (!s.ok()) {
      // Profile errors name their file already.
      if (absl::StartsWith(s.message(), runs[k].profile->origin)) return s;
      return absl::Status(s.code(), absl::StrCat(runs[k].label, ": ", s.message()));
    }
  }
  if (samples.empty()) {
    return absl::InvalidArgumentError(
        "no measured op matches a predicted one: nothing to fit (do the profiles and the HLO "
        "files belong together?)");
  }

  // What the fit may use: kernels placed with certainty, ops of known cost, no outliers.
  CalibrationResult r;
  if (!opts.settings.empty()) {
    // The "given" figures below are these.
    r.notes.push_back(absl::StrCat("the fit starts from ", base->name, " with figures set: ",
                                   absl::StrJoin(opts.settings, ", ")));
  }
  Selection chosen = select(samples, *base, collectives);
  r.ops_used = static_cast<int64_t>(chosen.kept.size());
  r.ops_left_out = static_cast<int64_t>(samples.size() - chosen.kept.size());
  note_left_out(chosen, r.notes);
  if (chosen.kept.empty()) {
    return absl::InvalidArgumentError(
        "every measured op was left out (uncertain placement, unknown cost or outlier): "
        "nothing to fit");
  }

  // Both fits, in sample and held out; the one that predicts steps better is proposed, and
  // kept only if it predicts them better than the given device.
  const std::string name = opts.name.empty() ? absl::StrCat(base->name, "_fitted") : opts.name;
  std::vector<Candidate> candidates;
  for (auto [keep_matmul, keep_hbm] : {std::pair{false, false}, std::pair{true, false},
                                        std::pair{false, true}, std::pair{true, true}}) {
    absl::StatusOr<Candidate> c = candidate(runs, run_steps, chosen.kept, *base, collectives,
                                            keep_matmul, keep_hbm, name, opts);
    if (!c.ok()) return c.status();
    candidates.push_back(*std::move(c));
  }
  // Of the fits that predict steps better than the given device (on average, and no worse
  // for more than half of them), the best; none: nothing is kept.
  auto passes = [](const Candidate& c) {
    return c.counted > 0 && c.score < c.given_score && 2 * c.worse <= c.counted;
  };
  size_t best = 0;
  for (size_t k = 1; k < candidates.size(); ++k) {
    const Candidate &a = candidates[k], &b = candidates[best];
    if (passes(a) != passes(b) ? passes(a) : a.score < b.score) best = k;
  }
  Candidate& c = candidates[best];
  const bool held_out = !c.held_out.empty() && c.counted > 0 && runs.size() >= 2;
  r.figures = c.fit.report;
  r.notes.insert(r.notes.end(), c.fit.notes.begin(), c.fit.notes.end());
  r.held_out = c.held_out;
  // The models the given device really applies, beside its figures.
  Figures raw;
  raw.keep_matmul = raw.keep_hbm = true;
  for (FittedFigure& f : r.figures) {
    if (f.field == "matmul_efficiency" && !base->matmul_efficiency_set) {
      f.given_model = measured_model(chosen.kept, raw, OpClass::kMatmul);
    } else if (f.field == "hbm_efficiency" && !base->hbm_efficiency_set) {
      f.given_model = measured_model(chosen.kept, raw, OpClass::kMemory);
    } else if (absl::StartsWith(f.field, "collective_") && !base->collective_latency_s &&
               !base->collective_bandwidth_efficiency) {
      f.given_model = measured_model(chosen.kept, raw, OpClass::kCollective);
    }
  }
  add_errors(chosen.kept, c.fit.figures, r.errors);
  for (size_t k = 0; k < runs.size(); ++k) {
    absl::StatusOr<double> step = fitted_step(runs[k], *base, c.fit, name, opts);
    if (!step.ok()) return step.status();
    r.steps.push_back({runs[k].label, run_steps[k].measured_s, run_steps[k].given_s, *step,
                       run_steps[k].lower_bound});
  }
  const std::string scope = held_out ? "held-out steps" : "the profiled steps";
  const std::string figures = absl::StrFormat(
      "mean |step error| over %d %s: given %s, fitted %s (%d of %d worse)", c.counted,
      held_out ? "held-out steps" : "steps", format_percent(c.given_score),
      format_percent(c.score), c.worse, c.counted);
  if (!passes(c)) {
    r.accepted = false;
    r.rejected_why = absl::StrCat("the fit predicts ", scope, " worse than the given device: ",
                                  figures, "; the given device stays");
    return r;
  }
  r.notes.push_back(c.counted > 0 ? figures
                                  : "no step could be compared (each is a lower bound)");
  if (kept_any(c.fit.figures)) {
    r.notes.push_back(absl::StrCat(
        "the given device's measured models of ",
        c.fit.figures.keep_matmul && c.fit.figures.keep_hbm ? "matrix- and HBM-bound ops are"
        : c.fit.figures.keep_matmul                          ? "matrix-bound ops are"
                                                             : "HBM-bound ops are",
        " kept: an efficiency fitted in their place predicts steps worse"));
  }
  absl::StatusOr<std::string> json =
      fitted_json(*base, c.fit, name, r.ops_used, runs.size(), opts.settings);
  if (!json.ok()) return json.status();
  absl::StatusOr<DeviceSpec> fitted = parse_device_spec(*json, "the fitted device");
  if (!fitted.ok()) return fitted.status();
  r.json = *std::move(json);
  r.device = *std::move(fitted);
  return r;
}

// The labels less the folder they all share (said once above the tables).
std::vector<std::string> short_labels(std::vector<std::string> labels, std::string& shared) {
  shared.clear();
  if (labels.size() < 2) return labels;
  std::string_view prefix = labels.front();
  for (const std::string& l : labels) {
    size_t n = 0;
    while (n < prefix.size() && n < l.size() && prefix[n] == l[n]) ++n;
    prefix = prefix.substr(0, n);
  }
  const size_t slash = prefix.rfind('/');
  if (slash == std::string_view::npos) return labels;
  shared = std::string(prefix.substr(0, slash + 1));
  for (std::string& l : labels) l = l.substr(shared.size());
  return labels;
}

std::string render_calibration(const CalibrationResult& r) {
  std::string out =
      r.accepted ? absl::StrFormat("fitted %s to %d measured ops", r.device.name, r.ops_used)
                 : absl::StrFormat("fit to %d measured ops NOT KEPT", r.ops_used);
  if (r.ops_left_out > 0) absl::StrAppendFormat(&out, " (%d left out)", r.ops_left_out);
  out += "\n\n";
  TextTable figures({{"figure", Align::kLeft}, {"given"}, {"fitted"}, {"why", Align::kLeft, 36}});
  auto value = [](const FittedFigure& f, double v) {
    // An efficiency is a fraction, a bandwidth efficiency too.
    if (absl::StrContains(f.field, "efficiency")) return format_percent(v);
    if (absl::StrContains(f.field, "bandwidth")) return format_byte_rate(v);
    return format_seconds(v);
  };
  std::vector<std::string> models;
  for (const FittedFigure& f : r.figures) {
    std::string given = value(f, f.before);
    if (!f.given_model.empty()) {
      given = "measured*";
      models.push_back(absl::StrCat(f.field, ": ", f.given_model));
    }
    figures.add_row({f.field, given, f.fitted ? value(f, f.after) : "(kept)", f.why});
  }
  out += figures.render();
  for (const std::string& m : models) out += report_internal::wrap(m, "* ", "  ");
  out += "\nError per op class: RMS of (predicted - measured) / measured, one execution each\n";
  TextTable errors({{"class", Align::kLeft}, {"ops"}, {"given"}, {"fitted"}});
  for (const ClassError& e : r.errors) {
    errors.add_row(
        {e.op_class, absl::StrCat(e.ops), format_percent(e.before), format_percent(e.after)});
  }
  out += errors.render();
  auto step_error = [](double e) {
    return std::isfinite(e) ? absl::StrFormat("%+.1f%%", 100 * e) : std::string("-");
  };
  std::vector<std::string> labels;
  for (const CalibrationStep& s : r.steps) labels.push_back(s.label);
  for (const CalibrationResult::HeldOut& h : r.held_out) labels.push_back(h.label);
  std::string shared;
  labels = short_labels(std::move(labels), shared);
  size_t label = 0;
  if (!r.steps.empty()) {
    out += "\nStep per profile: measured (median step), and predicted / measured - 1\n";
    if (!shared.empty()) out += report_internal::wrap(shared, "profiles in ", "  ");
    TextTable steps({{"profile", Align::kLeft, 40}, {"measured"}, {"given"}, {"fitted"}});
    for (const CalibrationStep& s : r.steps) {
      steps.add_row({absl::StrCat(labels[label++], s.lower_bound ? " (floor)" : ""),
                     format_seconds(s.measured_s),
                     step_error(s.measured_s > 0 ? s.given_s / s.measured_s - 1 : NAN),
                     step_error(s.measured_s > 0 ? s.fitted_s / s.measured_s - 1 : NAN)});
    }
    out += steps.render();
  }
  if (!r.held_out.empty()) {
    out += "\nHeld out (leave one out): each profile predicted by the fit to the others\n";
    TextTable held({{"profile", Align::kLeft, 34},
                    {"op RMS given"},
                    {"fitted"},
                    {"step given"},
                    {"fitted"}});
    for (const CalibrationResult::HeldOut& h : r.held_out) {
      held.add_row({absl::StrCat(labels[label++], h.lower_bound ? " (floor)" : ""),
                    format_percent(h.before), format_percent(h.after), step_error(h.step_before),
                    step_error(h.step_after)});
    }
    out += held.render();
  }
  for (const std::string& n : r.notes) {
    out += report_internal::wrap(n, "note: ", "      ");
  }
  if (!r.accepted) out += report_internal::wrap(r.rejected_why, "not kept: ", "          ");
  return out;
}

}  // namespace hloroof
