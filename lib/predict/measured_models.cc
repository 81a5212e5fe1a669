#include "predict/measured_models.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <numeric>

#include <Eigen/Dense>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hloroof/absl_compat.h"
#include "hloroof/device.h"
#include "predict/measured_files.h"

namespace hloroof::measured {
namespace {

// Added to squared distances in the weights: at a measured shape (distance 0) its own weight is
// 1 / kNearby = 100 times that of a neighbour one doubling away.
constexpr double kNearby = 0.01;

// Rows or columns below this run as a GEMV-like kernel (GemmTable::time_s).
constexpr double kGemvBelow = 64;

// The side of the tensor cores' tiles outside the measured box: m, n and k round up to it
// (GemmTable::time_s). The smallest tile of cuBLAS's and CUTLASS's tensor-core GEMMs on Ampere
// and Hopper is 64 rows or columns, and their k step 64 elements of a 16-bit type.
constexpr double kTileSide = 64;

std::array<double, 4> log2_of(const GemmShape& s) {
  return {std::log2(s.b), std::log2(s.m), std::log2(s.n), std::log2(s.k)};
}

std::string_view file_text(std::string_view name) {
  for (const internal::EmbeddedFile& f : internal::measured_table_files()) {
    if (f.name == name) return f.contents;
  }
  return {};
}

// A non-comment line split on spaces.
void split_row(absl::string_view line, std::vector<std::string_view>& row) {
  row.clear();
  for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    row.push_back(sv(field));
  }
}

// Non-comment lines split on spaces.
std::vector<std::vector<std::string_view>> table_rows(std::string_view text) {
  std::vector<std::vector<std::string_view>> rows;
  for (absl::string_view line : absl::StrSplit(sv(text), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    split_row(line, rows.emplace_back());
  }
  return rows;
}

// The rows of table_rows(text) whose first field is `device`, each given to `use` in the
// table's order; the other lines are not split (a table holds several devices' rows).
template <typename Use>
void device_rows(std::string_view text, std::string_view device, Use use) {
  std::vector<std::string_view> row;
  for (absl::string_view line : absl::StrSplit(sv(text), '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const size_t begin = line.find_first_not_of(' ');
    if (begin == absl::string_view::npos) continue;
    const absl::string_view first = line.substr(begin, line.find(' ', begin) - begin);
    if (sv(first) != device) continue;
    split_row(line, row);
    use(row);
  }
}

double number(std::string_view text) {
  double v = 0;
  const std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), v);
  return r.ec == std::errc() && r.ptr == text.data() + text.size() ? v : 0;
}

// The dense peak of the matrix class a table's rows run on ("fp8", "tf32" or "bf16"), from the
// built-in spec of the table's device (`spec`); 0 when unknown.
double table_peak(const absl::StatusOr<DeviceSpec>& spec, std::string_view dtypes) {
  if (!spec.ok()) return 0;
  const std::string_view cls = absl::StartsWith(sv(dtypes), "f8")    ? "fp8"
                               : absl::StartsWith(sv(dtypes), "f32") ? "tf32"
                                                                     : "bf16";
  auto it = spec->matrix_flops_per_s.find(cls);
  return it == spec->matrix_flops_per_s.end() ? 0 : it->second;
}

}  // namespace

// GemmFitOptions. The neighbours: enough to pin the 5 coefficients of a linear function of 4
// log sizes with some averaging of the measurement noise, few enough to stay local. The aspect
// weight: a GEMM's kernel time follows its output size b x m x n (the tiles it computes) and k
// (the steps each tile takes) far more than how the output is split between b, m and n:
// measured shapes with the same output size and k differ by a few percent, while one doubling
// of either changes the time by up to 2x (small fp8 GEMMs on H100, where the autotuner changes
// kernel from one k to the next). Distances are therefore taken in (log2 b m n, log2 k,
// aspect log2 b, aspect log2(m / n)); the aspect axes break ties between neighbours. 24
// neighbours and 0.1 gave the lowest worst-class median error of leave-one-shape-out
// predictions on the fit half of the H100 and B200 tables, among 12-32 neighbours and weights
// 0.05-1 (`accuracy_bench --loo`).
std::array<double, 4> GemmTable::coordinates(const std::array<double, 4>& x) const {
  const double a = options_.aspect;
  return {x[0] + x[1] + x[2], x[3], a * x[0], a * (x[1] - x[2])};
}

absl::StatusOr<GemmTable> GemmTable::from_rows(absl::Span<const GemmRow> rows,
                                               const GemmFitOptions& options) {
  if (rows.empty()) return absl::InvalidArgumentError("a GEMM table needs one row at least");
  if (options.neighbours < 1 || !(options.aspect >= 0) || !std::isfinite(options.aspect)) {
    return absl::InvalidArgumentError(
        "a GEMM table needs one neighbour at least and a finite, non-negative aspect weight");
  }
  GemmTable t;
  t.options_ = options;
  t.lo_.fill(std::numeric_limits<double>::infinity());
  t.hi_.fill(-std::numeric_limits<double>::infinity());
  t.min_time_s_ = std::numeric_limits<double>::infinity();
  for (const GemmRow& r : rows) {
    const GemmShape& s = r.shape;
    if (!(s.b >= 1 && s.m >= 1 && s.n >= 1 && s.k >= 1 && r.flop_per_s > 0) ||
        !std::isfinite(r.flop_per_s)) {
      return absl::InvalidArgumentError(absl::StrCat("GEMM row ", s.b, "x", s.m, "x", s.n, "x",
                                                     s.k, ": sizes must be >= 1 and the rate "
                                                     "positive"));
    }
    const std::array<double, 4> x = log2_of(s);
    for (size_t a = 0; a < 4; ++a) {
      t.lo_[a] = std::min(t.lo_[a], x[a]);
      t.hi_[a] = std::max(t.hi_[a], x[a]);
    }
    t.points_.push_back(t.coordinates(x));
    t.log_rate_.push_back(std::log(r.flop_per_s));
    t.min_time_s_ = std::min(t.min_time_s_, s.flops() / r.flop_per_s);
    t.max_rate_ = std::max(t.max_rate_, r.flop_per_s);
  }
  return t;
}

double GemmTable::rate_inside(const std::array<double, 4>& log2_sizes) const {
  // The nearest measured shapes, by squared distance in the coordinates.
  const std::array<double, 4> x = coordinates(log2_sizes);
  const size_t n = points_.size();
  std::vector<std::pair<double, size_t>> near(n);
  for (size_t i = 0; i < n; ++i) {
    double d = 0;
    for (size_t a = 0; a < 4; ++a) d += (points_[i][a] - x[a]) * (points_[i][a] - x[a]);
    near[i] = {d, i};
  }
  const size_t k = std::min(options_.neighbours, n);
  std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());

  // Weighted least squares: log rate = c0 + c . x, rows scaled by sqrt(weight).
  Eigen::MatrixXd a(static_cast<Eigen::Index>(k), 5);
  Eigen::VectorXd y(static_cast<Eigen::Index>(k));
  double weights = 0, mean = 0;
  for (size_t r = 0; r < k; ++r) {
    const auto row = static_cast<Eigen::Index>(r);
    const double w = 1.0 / (near[r].first + kNearby);
    const double sw = std::sqrt(w);
    a(row, 0) = sw;
    for (size_t c = 0; c < 4; ++c) {
      a(row, static_cast<Eigen::Index>(c + 1)) = sw * (points_[near[r].second][c] - x[c]);
    }
    y(row) = sw * log_rate_[near[r].second];
    weights += w;
    mean += w * log_rate_[near[r].second];
  }
  // Centred on x, the value at x is the intercept. A rank-deficient system (every neighbour
  // shares a size) leaves that axis out; QR with column pivoting copes.
  double log_rate = mean / weights;
  if (k >= 5) {
    const Eigen::VectorXd c = a.colPivHouseholderQr().solve(y);
    if (std::isfinite(c(0))) log_rate = c(0);
  }
  // Never above the best measured throughput: the regression may not invent speed.
  return std::min(std::exp(log_rate), max_rate_);
}

double GemmTable::flop_per_s(const GemmShape& shape) const {
  const double t = time_s(shape);
  return t > 0 ? shape.flops() / t : max_rate_;
}

// The shape as the table reads it: sizes at least 1, a batch beyond the box joined to m.
GemmShape GemmTable::normalised(const GemmShape& shape) const {
  GemmShape s = shape;
  s.b = std::max(1.0, s.b);
  s.m = std::max(1.0, s.m);
  s.n = std::max(1.0, s.n);
  s.k = std::max(1.0, s.k);
  const double b_max = std::exp2(hi_[0]);
  if (s.b > b_max) {
    s.m *= s.b / b_max;
    s.b = b_max;
  }
  return s;
}

bool GemmTable::covers(const GemmShape& shape) const {
  const std::array<double, 4> x = log2_of(normalised(shape));
  for (size_t a = 0; a < 4; ++a) {
    if (x[a] < lo_[a] || x[a] > hi_[a]) return false;
  }
  return true;
}

double GemmTable::time_s(const GemmShape& shape) const {
  const GemmShape s = normalised(shape);
  // A k above the box may also be split (split-K, stream-K): its slices run as more output tiles
  // at once, one GEMM of k / k_max times the rows at the box's largest k, whose partial sums
  // are then added (a pass over m x n x slices, which the memory term beside this one bounds).
  // cuBLAS's heuristics take the faster kernel: without the split, a product of few output
  // tiles and a long k (256 x 256 x 2^20) would keep most of the GPU idle.
  const double k_max = std::exp2(hi_[3]);
  if (s.k > k_max) {
    return std::min(extrapolated(s), extrapolated({s.b, s.m * s.k / k_max, s.n, k_max}));
  }
  return extrapolated(s);
}

double GemmTable::extrapolated(const GemmShape& s) const {
  const std::array<double, 4> x = log2_of(s);
  // The edge: the shape clamped into the box, and the axes that leave it.
  std::array<double, 4> edge = x;
  bool outside = false, above = false;
  for (size_t a = 0; a < 4; ++a) {
    edge[a] = std::clamp(x[a], lo_[a], hi_[a]);
    outside |= edge[a] != x[a];
    above |= x[a] > hi_[a];
  }
  if (!outside) return s.flops() / rate_inside(x);
  // Outside the box the time is affine in the work, t = t_edge + (work - work_edge) / rate,
  // `rate` the marginal throughput of the table at the edge: one doubling back into the box
  // along the axes that leave it (those above the box when any is, else those below), the
  // work it adds over the time it adds. A kernel's fixed part (its launch, its first wave, its
  // pipeline's fill) is paid once, so the work beyond the edge runs at the marginal rate, not
  // at the edge's mean rate, which counts the fixed part in every FLOP. The rate is held
  // between the edge's mean rate (the intercept stays non-negative: no shape is charged more
  // than at the edge's mean) and the best measured throughput.
  auto work = [](const std::array<double, 4>& l) {
    return 2 * std::exp2(l[0] + l[1] + l[2] + l[3]);
  };
  const double work_edge = work(edge);
  const double mean_rate = rate_inside(edge);
  const double t_edge = work_edge / mean_rate;
  std::array<double, 4> back = edge;
  bool moved = false;
  for (size_t a = 0; a < 4; ++a) {
    if (above ? x[a] > hi_[a] : x[a] < lo_[a]) {
      back[a] = std::clamp(edge[a] + (above ? -1.0 : 1.0), lo_[a], hi_[a]);
      moved |= back[a] != edge[a];
    }
  }
  double rate = mean_rate;
  if (moved) {
    const double work_back = work(back);
    const double t_back = work_back / rate_inside(back);
    const double added_work = std::abs(work_edge - work_back);
    const double added_time = above ? t_edge - t_back : t_back - t_edge;
    rate = added_time > 0 ? std::clamp(added_work / added_time, mean_rate,
                                       std::max(mean_rate, max_rate_))
                          : std::max(mean_rate, max_rate_);
  }
  // The work the tensor cores do: m, n and k padded to whole tiles of kTileSide. Fewer than
  // kGemvBelow rows or columns run as a GEMV-like kernel, which streams the large operand and
  // pads nothing (the 16- and 32-row GEMMs measured run at their operands' memory).
  auto padded = [](double size, bool gemv_axis) {
    if (gemv_axis && size < kGemvBelow) return size;
    return std::ceil(size / kTileSide) * kTileSide;
  };
  const double tiled = 2 * s.b * padded(s.m, true) * padded(s.n, true) * padded(s.k, false);
  // A GEMV-like kernel is not a kernel of the table: its work runs at the edge's mean rate, with
  // no fixed part and no floor of the table's (the memory term, beside this one, bounds it).
  if (s.m < kGemvBelow || s.n < kGemvBelow) return tiled / mean_rate;
  // No kernel of the table runs shorter than its shortest measured one.
  return std::max(t_edge + (tiled - work_edge) / rate, min_time_s_);
}

double LatencyBandwidth::time_s(double bytes) const {
  return std::max({latency_s + bytes * seconds_per_byte, min_time_s,
                   max_bytes_per_s > 0 ? bytes / max_bytes_per_s : 0.0});
}

absl::StatusOr<LatencyBandwidth> fit_latency_bandwidth(absl::Span<const CollectivePoint> points) {
  if (points.size() < 2) {
    return absl::InvalidArgumentError("a latency-bandwidth fit needs two measurements");
  }
  const auto n = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  LatencyBandwidth f;
  f.min_time_s = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < n; ++i) {
    const CollectivePoint& p = points[static_cast<size_t>(i)];
    if (!(p.bytes > 0 && p.time_s > 0 && p.weight > 0) || !std::isfinite(p.weight)) {
      return absl::InvalidArgumentError(
          "collective measurements need positive sizes, times and weights");
    }
    // Relative error: (a + b x) / t - 1, so row i is [1/t, x/t] against 1, all scaled by
    // sqrt(weight).
    const double sw = std::sqrt(p.weight);
    a(i, 0) = sw / p.time_s;
    a(i, 1) = sw * p.bytes / p.time_s;
    ones(i) = sw;
    f.min_time_s = std::min(f.min_time_s, p.time_s);
    f.max_bytes_per_s = std::max(f.max_bytes_per_s, p.bytes / p.time_s);
  }
  Eigen::Vector2d c = a.colPivHouseholderQr().solve(ones);
  if (!(c(0) >= 0)) {  // no latency: time = b x
    c(0) = 0;
    c(1) = a.col(1).dot(ones) / a.col(1).squaredNorm();
  } else if (!(c(1) >= 0)) {  // no bandwidth term: time = a
    c(1) = 0;
    c(0) = a.col(0).dot(ones) / a.col(0).squaredNorm();
  }
  f.latency_s = c(0);
  f.seconds_per_byte = c(1);
  return f;
}

absl::StatusOr<CollectiveCurve> CollectiveCurve::from_points(std::vector<CollectivePoint> points) {
  if (points.size() < 2) {
    return absl::InvalidArgumentError("a collective curve needs two measurements");
  }
  CollectiveCurve c;
  c.min_time_s_ = std::numeric_limits<double>::infinity();
  for (const CollectivePoint& p : points) {
    if (!(p.bytes > 0 && p.time_s > 0)) {
      return absl::InvalidArgumentError("collective measurements need positive sizes and times");
    }
    c.min_time_s_ = std::min(c.min_time_s_, p.time_s);
    c.max_bytes_per_s_ = std::max(c.max_bytes_per_s_, p.bytes / p.time_s);
  }
  std::sort(points.begin(), points.end(),
            [](const CollectivePoint& a, const CollectivePoint& b) { return a.bytes < b.bytes; });
  c.points_ = std::move(points);
  return c;
}

std::vector<CollectivePoint> CollectiveCurve::nearest(double bytes, size_t count) const {
  const double x = std::log2(std::max(bytes, 1.0));
  std::vector<std::pair<double, size_t>> near(points_.size());
  for (size_t i = 0; i < points_.size(); ++i) {
    near[i] = {std::abs(std::log2(points_[i].bytes) - x), i};
  }
  const size_t k = std::min(count, near.size());
  std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());
  std::vector<CollectivePoint> local;
  for (size_t r = 0; r < k; ++r) local.push_back(points_[near[r].second]);
  return local;
}

LatencyBandwidth CollectiveCurve::at(double bytes) const {
  absl::StatusOr<LatencyBandwidth> fit = fit_latency_bandwidth(nearest(bytes, kLocalSizes));
  LatencyBandwidth f = fit.ok() ? *fit : LatencyBandwidth{};
  f.min_time_s = min_time_s_;
  f.max_bytes_per_s = max_bytes_per_s_;
  return f;
}

LatencyBandwidth pooled_fit(const CollectiveCurve& own, double own_bus,
                            absl::Span<const PooledCurve> others, double bytes) {
  if (!(own_bus > 0)) return own.at(bytes);
  std::vector<CollectivePoint> points;
  auto add = [&points, bytes](const CollectiveCurve& c, double bus, double weight) {
    for (CollectivePoint p : c.nearest(bytes, CollectiveCurve::kLocalSizes)) {
      p.bytes *= bus;  // bus bytes: what one device sends
      p.weight = weight;
      points.push_back(p);
    }
  };
  add(own, own_bus, 1.0);
  // No device sends faster than the best bus throughput measured in any of the curves.
  double bus_rate = own.max_bytes_per_s() * own_bus;
  for (const PooledCurve& o : others) {
    if (o.curve != nullptr && o.bus_factor > 0 && o.weight > 0) {
      add(*o.curve, o.bus_factor, o.weight);
      bus_rate = std::max(bus_rate, o.curve->max_bytes_per_s() * o.bus_factor);
    }
  }
  absl::StatusOr<LatencyBandwidth> fit = fit_latency_bandwidth(points);
  if (!fit.ok()) return own.at(bytes);
  LatencyBandwidth f = *fit;
  f.seconds_per_byte *= own_bus;  // back to the size of `own`
  f.min_time_s = own.min_time_s();
  f.max_bytes_per_s = bus_rate / own_bus;
  return f;
}

bool in_fit_half(std::string_view shape_key) {
  // FNV-1a, 64 bits, with a fixed offset basis (the "seed").
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : shape_key) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  // The high bits mix best.
  return (h >> 63) == 0;
}

std::string GemmRecord::shape_key() const {
  return absl::StrCat(row.shape.b, ",", row.shape.m, ",", row.shape.n, ",", row.shape.k);
}

std::string CollectiveRecord::shape_key() const {
  return absl::StrCat(op, " ", groups, "x", group_size, " ", point.bytes);
}

std::vector<std::vector<std::string_view>> measured_table_rows(std::string_view name) {
  return table_rows(file_text(name));
}

const std::vector<GemmRecord>& gemm_records() {
  static const std::vector<GemmRecord>* records = [] {
    auto* out = new std::vector<GemmRecord>;
    for (const std::vector<std::string_view>& f : table_rows(file_text("gemm.tsv"))) {
      if (f.size() != 7) continue;
      out->push_back({std::string(f[0]), std::string(f[1]),
                      {{number(f[2]), number(f[3]), number(f[4]), number(f[5])}, number(f[6])}});
    }
    return out;
  }();
  return *records;
}

const std::vector<CollectiveRecord>& collective_records() {
  static const std::vector<CollectiveRecord>* records = [] {
    auto* out = new std::vector<CollectiveRecord>;
    for (const std::vector<std::string_view>& f : table_rows(file_text("collectives.tsv"))) {
      if (f.size() != 6) continue;
      const double bytes = number(f[4]), rate = number(f[5]);
      if (!(bytes > 0 && rate > 0)) continue;
      out->push_back({std::string(f[0]), std::string(f[1]), static_cast<int64_t>(number(f[2])),
                      static_cast<int64_t>(number(f[3])), {bytes, bytes / rate}});
    }
    return out;
  }();
  return *records;
}

const std::vector<OpProfileRecord>& op_profile_records() {
  static const std::vector<OpProfileRecord>* records = [] {
    auto* out = new std::vector<OpProfileRecord>;
    for (const std::vector<std::string_view>& f : table_rows(file_text("op_profiles.tsv"))) {
      if (f.size() != 4 || !(number(f[3]) > 0)) continue;
      out->push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]), number(f[3])});
    }
    return out;
  }();
  return *records;
}

std::optional<double> op_profile_cycles(std::string_view device, std::string_view opcode,
                                        std::string_view type) {
  for (const OpProfileRecord& r : op_profile_records()) {
    if (r.device == device && r.opcode == opcode && r.type == type) return r.cycles;
  }
  return std::nullopt;
}

absl::StatusOr<DeviceTables> build_tables(std::string_view device, bool fit_half_only) {
  DeviceTables t;
  // The device's rows only, read as gemm_records() and collective_records() read every row.
  std::map<std::string, std::vector<GemmRow>, std::less<>> gemm_rows;
  device_rows(file_text("gemm.tsv"), device, [&](const std::vector<std::string_view>& f) {
    if (f.size() != 7) return;
    const GemmRecord r{std::string(f[0]), std::string(f[1]),
                       {{number(f[2]), number(f[3]), number(f[4]), number(f[5])}, number(f[6])}};
    if (fit_half_only && !in_fit_half(r.shape_key())) return;
    gemm_rows[r.dtypes].push_back(r.row);
  });
  absl::StatusOr<DeviceSpec> spec;
  if (fit_half_only && !gemm_rows.empty()) spec = hloroof::device(device);
  for (auto& [dtypes, rows] : gemm_rows) {
    // A row faster than the dense peak of its class cannot be a dense GEMM as measured (the
    // upstream table has such rows for H100 fp8, up to 1.3 x the 1979 TFLOP/s peak): it is
    // left out of the fit, so that its neighbours are not pulled above what the device can do.
    // Kept when every row would go.
    const double peak = fit_half_only ? table_peak(spec, dtypes) : 0;
    if (peak > 0) {
      std::vector<GemmRow> kept;
      for (const GemmRow& r : rows) {
        if (r.flop_per_s <= peak) kept.push_back(r);
      }
      if (!kept.empty()) rows = std::move(kept);
    }
    absl::StatusOr<GemmTable> table = GemmTable::from_rows(rows);
    if (!table.ok()) return table.status();
    t.gemm.emplace(dtypes, *std::move(table));
  }
  // collective-permute is keyed by its pairs, whatever their pattern: each device sends one
  // buffer to one peer in every measured pattern.
  std::map<CollectiveKey, std::vector<CollectivePoint>> points;
  device_rows(file_text("collectives.tsv"), device, [&](const std::vector<std::string_view>& f) {
    if (f.size() != 6) return;
    const double bytes = number(f[4]), rate = number(f[5]);
    if (!(bytes > 0 && rate > 0)) return;
    const CollectiveRecord r{std::string(f[0]), std::string(f[1]),
                             static_cast<int64_t>(number(f[2])),
                             static_cast<int64_t>(number(f[3])), {bytes, bytes / rate}};
    if (fit_half_only && !in_fit_half(r.shape_key())) return;
    const int64_t size = r.op == "collective-permute" ? 2 : r.group_size;
    points[{r.op, size}].push_back(r.point);
  });
  for (const auto& [key, list] : points) {
    if (list.size() < 2) continue;
    absl::StatusOr<CollectiveCurve> curve = CollectiveCurve::from_points(list);
    if (!curve.ok()) return curve.status();
    t.collectives.emplace(key, *std::move(curve));
  }
  return t;
}

const DeviceTables* tables_for(std::string_view device) {
  static std::mutex mu;
  static auto* cache = new std::map<std::string, std::optional<DeviceTables>, std::less<>>;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(device);
  if (it == cache->end()) {
    absl::StatusOr<DeviceTables> t = build_tables(device);
    std::optional<DeviceTables> entry;
    if (t.ok() && (!t->gemm.empty() || !t->collectives.empty())) entry = *std::move(t);
    it = cache->emplace(std::string(device), std::move(entry)).first;
  }
  return it->second ? &*it->second : nullptr;
}

}  // namespace hloroof::measured
