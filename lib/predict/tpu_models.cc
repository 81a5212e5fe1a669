#include "predict/tpu_models.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hloroof/absl_compat.h"
#include "hloroof/collective.h"
#include "hloroof/topology.h"

namespace hloroof::measured {
namespace {

double number(std::string_view text) {
  double v = 0;
  return absl::SimpleAtod(sv(text), &v) ? v : 0;
}

double round_up(double x, double multiple) { return std::ceil(x / multiple) * multiple; }

// The torus model's chip bandwidth for the benchmark's all-gather: `group` devices, one
// TensorCore of each chip of `slice` (the other TensorCores gather in groups of their own at
// once), each gathering `bytes` from every other member. Chip bytes over the model's time.
absl::StatusOr<double> torus_chip_rate(const DeviceSpec& device, std::string_view slice,
                                       int64_t group, double bytes) {
  absl::StatusOr<Topology> topology = make_topology(device, slice);
  if (!topology.ok()) return topology.status();
  const int64_t per_chip = device.torus ? device.torus->devices_per_chip : 1;
  CollectiveInput input;
  input.kind = CollectiveKind::kAllGather;
  input.bytes = bytes * static_cast<double>(group);  // V: the gathered output
  for (int64_t core = 0; core < per_chip; ++core) {
    std::vector<int64_t>& ids = input.groups.emplace_back();
    for (int64_t j = 0; j < group; ++j) ids.push_back(core + per_chip * j);
  }
  absl::StatusOr<CollectiveEstimate> e = collective_time(device, *topology, input);
  if (!e.ok()) return e.status();
  if (!(e->bandwidth_time_s > 0)) return absl::InternalError("the torus model moved nothing");
  return static_cast<double>(per_chip) * static_cast<double>(group - 1) * bytes /
         e->bandwidth_time_s;
}

}  // namespace

double TpuRecord::work() const {
  if (table == "gemm") return 2 * size * size * size;
  if (table == "hbm") return 2 * size;
  return 2 * static_cast<double>(group - 1) * size;
}

const std::vector<TpuRecord>& tpu_records() {
  static const std::vector<TpuRecord>* records = [] {
    auto* out = new std::vector<TpuRecord>;
    for (const std::vector<std::string_view>& f : measured_table_rows("tpu7x.tsv")) {
      if (f.size() != 5) continue;
      TpuRecord r{std::string(f[0]), std::string(f[1]), static_cast<int64_t>(number(f[2])),
                  number(f[3]), number(f[4])};
      if (r.size > 0 && r.rate > 0 && r.group >= 1) out->push_back(std::move(r));
    }
    std::sort(out->begin(), out->end(), [](const TpuRecord& a, const TpuRecord& b) {
      return std::tie(a.table, a.slice, a.size) < std::tie(b.table, b.slice, b.size);
    });
    for (size_t i = 0, index = 0; i < out->size(); ++i, ++index) {
      TpuRecord& r = (*out)[i];
      if (i > 0 && (r.table != (*out)[i - 1].table || r.slice != (*out)[i - 1].slice)) index = 0;
      const bool last = i + 1 == out->size() || r.table != (*out)[i + 1].table ||
                        r.slice != (*out)[i + 1].slice;
      r.fit_half = r.table == "gemm" || index % 2 == 0 || last;
    }
    return out;
  }();
  return *records;
}

double padded_flops(const GemmShape& s, int64_t mxu) {
  const double w = static_cast<double>(std::max<int64_t>(mxu, 1));
  return 2 * s.b * round_up(s.m, 8) * round_up(s.n, w) * round_up(s.k, w);
}

double TpuFits::gemm_time_s(double padded) const {
  if (gemm.empty() || !(padded > 0)) return 0;
  if (padded <= gemm.front().first) return gemm.front().second;
  if (padded >= gemm.back().first) {
    return gemm.back().second * padded / gemm.back().first;  // the largest one's efficiency
  }
  auto hi = std::upper_bound(gemm.begin(), gemm.end(), padded,
                             [](double x, const auto& p) { return x < p.first; });
  auto lo = hi - 1;
  const double f = std::log(padded / lo->first) / std::log(hi->first / lo->first);
  return std::exp(std::log(lo->second) + f * std::log(hi->second / lo->second));
}

absl::StatusOr<TpuFits> fit_tpu(absl::Span<const TpuRecord> records,
                                const DeviceSpec& table_device) {
  TpuFits fits;
  const DeviceFigure* width = table_device.figure("mxu_size");
  const int64_t mxu = width != nullptr && width->value >= 1 ? static_cast<int64_t>(width->value)
                                                            : 128;
  std::vector<CollectivePoint> hbm, ici;
  std::string ici_slice;
  double ici_size = 0;
  for (const TpuRecord& r : records) {
    if (r.table == "hbm") {
      hbm.push_back({r.work(), r.time_s()});
    } else if (r.table == "gemm") {
      const GemmShape s{1, r.size, r.size, r.size};
      fits.gemm.emplace_back(padded_flops(s, mxu), r.time_s());
    } else if (r.table == "all-gather") {
      if (fits.ici_group != 0 && fits.ici_group != static_cast<double>(r.group)) {
        return absl::InvalidArgumentError("TPU all-gather rows of several group sizes");
      }
      fits.ici_group = static_cast<double>(r.group);
      ici_slice = r.slice;
      ici_size = r.size;
      ici.push_back({r.work(), r.time_s()});
    }
  }
  if (fits.gemm.size() < 2) return absl::InvalidArgumentError("fewer than 2 TPU GEMM rows");
  std::sort(fits.gemm.begin(), fits.gemm.end());
  absl::StatusOr<LatencyBandwidth> h = fit_latency_bandwidth(hbm);
  if (!h.ok()) return h.status();
  absl::StatusOr<LatencyBandwidth> c = fit_latency_bandwidth(ici);
  if (!c.ok()) return c.status();
  fits.hbm = *h;
  fits.ici = *c;
  if (!(fits.hbm.seconds_per_byte > 0 && fits.ici.seconds_per_byte > 0)) {
    return absl::InvalidArgumentError("a TPU fit found no bandwidth term");
  }
  fits.hbm_fraction = 1 / (fits.hbm.seconds_per_byte * table_device.hbm_bandwidth);
  const std::optional<double> peak = table_device.matrix_peak(PrimitiveType::kBF16);
  if (!peak) return absl::InvalidArgumentError("the TPU table device has no bf16 peak");
  fits.gemm_peak = *peak;
  for (const auto& [padded, time] : fits.gemm) {
    fits.gemm_plateau = std::max(fits.gemm_plateau, padded / (time * fits.gemm_peak));
  }
  // The model's rate does not depend on the size: any size gives it.
  absl::StatusOr<double> model = torus_chip_rate(
      table_device, ici_slice, static_cast<int64_t>(fits.ici_group), ici_size);
  if (!model.ok()) return model.status();
  fits.ici_model_rate = *model;
  fits.ici_efficiency = std::min(1.0, 1 / (fits.ici.seconds_per_byte * *model));
  return fits;
}

const TpuFits* tpu_fits() {
  static const TpuFits* fits = []() -> const TpuFits* {
    absl::StatusOr<DeviceSpec> spec = device(kTpuTableDevice);
    if (!spec.ok()) return nullptr;
    std::vector<TpuRecord> half;
    for (const TpuRecord& r : tpu_records()) {
      if (r.fit_half) half.push_back(r);
    }
    absl::StatusOr<TpuFits> f = fit_tpu(half, *spec);
    return f.ok() ? new TpuFits(*std::move(f)) : nullptr;
  }();
  return fits;
}

}  // namespace hloroof::measured
