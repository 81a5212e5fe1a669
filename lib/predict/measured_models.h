// Models learned from measurements (docs/prediction-model.md, "Expected time"): GEMM
// throughput interpolated in a measured table, collective latency and bandwidth fitted to
// measured collectives, and the tables themselves (data/measured/*.tsv, compiled in).
#ifndef HLOROOF_LIB_PREDICT_MEASURED_MODELS_H_
#define HLOROOF_LIB_PREDICT_MEASURED_MODELS_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/collective_kind.h"

namespace hloroof::measured {

// One GEMM: dot(lhs[b, m, k], rhs[b, k, n]).
struct GemmShape {
  double b = 1, m = 1, n = 1, k = 1;
  double flops() const { return 2 * b * m * n * k; }
};

struct GemmRow {
  GemmShape shape;
  double flop_per_s = 0;
};

// Measured GEMM throughput of one device and one operand type combination at scattered
// (b, m, n, k). The estimate is a locally weighted linear regression of log(throughput) on the
// log2 sizes over the nearest measured shapes (Eigen least squares): the measured sizes double
// from one to the next, so log space spaces them evenly, and throughput changes smoothly and
// nearly linearly there (it rises with every dimension until the kernel saturates the tensor
// cores). Nearness is measured mostly in the output size b x m x n and in k: how the output is
// split between b, m and n weighs a tenth as much (measured times follow the tiles and the
// steps per tile, not the aspect; GemmFitOptions). Unlike multilinear
// interpolation it needs no full grid, so it works on the fit half of a table as well as on
// the whole. Weights fall with the squared distance, so at a measured shape it returns
// (nearly) the measurement.
// Outside the measured box: a batch larger than the largest measured one joins m (b x m rows
// of one larger GEMM); then the time is affine in the work along the way out of the box: the
// edge's time (the shape clamped into the box) plus the tile-padded work beyond it (or less the
// work short of it) at the table's marginal throughput there, never below the shortest measured
// kernel (GemmTable::time_s says how). Work grows at the rate the table adds work at its edge,
// not at the edge's mean rate, which holds the kernel's fixed part.
// How a GemmTable chooses the measured shapes it regresses over. The defaults are the shipped
// model's, chosen by leave-one-shape-out on the fit half (measured_models.cc says how;
// `accuracy_bench --loo` reruns it).
struct GemmFitOptions {
  size_t neighbours = 24;  // the nearest measured shapes in one estimate
  // The weight of log2 b and log2(m / n) in distances, beside log2 b m n and log2 k at 1.
  double aspect = 0.1;
};

class GemmTable {
 public:
  // Needs one row at least; sizes and rates must be positive; at least one neighbour and a
  // finite, non-negative aspect weight.
  static absl::StatusOr<GemmTable> from_rows(absl::Span<const GemmRow> rows,
                                             const GemmFitOptions& options = {});

  double flop_per_s(const GemmShape& shape) const;  // throughput at `shape`
  double time_s(const GemmShape& shape) const;      // shape.flops() / flop_per_s(shape)
  // Whether `shape` lies inside the measured box (interpolated), else it is extrapolated.
  bool covers(const GemmShape& shape) const;
  double min_time_s() const { return min_time_s_; }  // the shortest measured kernel
  double max_flop_per_s() const { return max_rate_; }
  size_t size() const { return log_rate_.size(); }

 private:
  GemmShape normalised(const GemmShape& shape) const;
  // time_s of a normalised shape, k not split.
  double extrapolated(const GemmShape& s) const;
  // The throughput (FLOP/s) at log2 sizes (b, m, n, k) inside the box.
  double rate_inside(const std::array<double, 4>& log2_sizes) const;

  std::array<double, 4> coordinates(const std::array<double, 4>& log2_sizes) const;

  GemmFitOptions options_;
  std::vector<std::array<double, 4>> points_;  // the regression's coordinates of each row
  std::vector<double> log_rate_;               // natural log of FLOP/s
  std::array<double, 4> lo_{}, hi_{};          // the box, per axis (log2)
  double min_time_s_ = 0;
  double max_rate_ = 0;
};

struct CollectivePoint {
  double bytes = 0;   // the table's tensor size
  double time_s = 0;  // measured time of one collective
  double weight = 1;  // its weight in a fit (fit_latency_bandwidth)
};

// time = latency_s + bytes * seconds_per_byte, never below what the data allows.
struct LatencyBandwidth {
  double latency_s = 0;
  double seconds_per_byte = 0;
  double min_time_s = 0;           // the shortest measured time: no collective runs faster
  double max_bytes_per_s = 0;      // the best measured throughput: none moves data faster
  double time_s(double bytes) const;
};

// Least-squares fit of time = a + b x bytes (Eigen, QR), minimising the weighted relative error
// sum w_i ((a + b x_i) / t_i - 1)^2 so that small and large sizes weigh alike. a and b are kept
// non-negative (a negative one is dropped and the other refitted). Needs two points, weights
// positive.
absl::StatusOr<LatencyBandwidth> fit_latency_bandwidth(absl::Span<const CollectivePoint> points);

// Measured times of one collective at many sizes. The time at a size is the latency-bandwidth
// fit (fit_latency_bandwidth) to the kLocalSizes measured sizes nearest it in log size: NCCL
// changes protocol and algorithm with the size, so one line for 1 KiB .. 2 GiB misses both
// ends (the median error of one line on the test half is 2-4 times that of the local fits),
// while four neighbours still average out the noise of one measurement. The floors of the
// whole curve hold everywhere: never below the shortest measured time, never faster than the
// best measured throughput.
class CollectiveCurve {
 public:
  static constexpr size_t kLocalSizes = 4;
  // Needs two points; sizes and times must be positive.
  static absl::StatusOr<CollectiveCurve> from_points(std::vector<CollectivePoint> points);
  LatencyBandwidth at(double bytes) const;  // the local fit at `bytes`, with the floors
  double time_s(double bytes) const { return at(bytes).time_s(bytes); }
  size_t size() const { return points_.size(); }
  // The `count` measured points nearest `bytes` in log size.
  std::vector<CollectivePoint> nearest(double bytes, size_t count) const;
  double min_time_s() const { return min_time_s_; }
  double max_bytes_per_s() const { return max_bytes_per_s_; }

 private:
  std::vector<CollectivePoint> points_;  // by size
  double min_time_s_ = 0;
  double max_bytes_per_s_ = 0;
};

// A curve of the same collective at another group size, lent to a pooled fit: `bus_factor` is
// what each device sends per byte of that curve's size, `weight` that of its points.
struct PooledCurve {
  const CollectiveCurve* curve = nullptr;
  double bus_factor = 1;
  double weight = 1;
};

// The local latency-bandwidth fit of `own` at `bytes` (as CollectiveCurve::at) with the kLocalSizes
// nearest points of every curve in `others` joining it. Sizes are compared in bus bytes (size x bus
// factor: what one device sends), so the fitted seconds per byte is that of the links, shared by
// every group size; the result is in `own`'s size (its seconds per byte times `own_bus`). Floors:
// never below `own`'s shortest measured time, never faster than the best bus throughput measured in
// any of the curves. For collectives whose time per device follows the bytes each device sends
// whatever the group (all-to-all: N-1 point-to-point sends at once), the neighbours average out the
// noise of one group's measurements.
LatencyBandwidth pooled_fit(const CollectiveCurve& own, double own_bus,
                            absl::Span<const PooledCurve> others, double bytes);

// What the measured tables hold for one device (data/measured/*.tsv).
struct CollectiveKey {
  std::string op;  // "all-reduce", ... as the table spells it
  int64_t group_size = 0;
  friend auto operator<=>(const CollectiveKey&, const CollectiveKey&) = default;
};

struct DeviceTables {
  std::map<std::string, GemmTable, std::less<>> gemm;  // by operand types, "bf16xbf16->bf16"
  std::map<CollectiveKey, CollectiveCurve> collectives;
};

// Whether a measured row belongs to the fit half (the model is fitted on it) or the test half
// (held out, for bench/accuracy_bench): an FNV-1a hash of the row's shape key with a fixed
// seed, so the halves are the same whatever order the rows come in.
bool in_fit_half(std::string_view shape_key);

// The rows of the compiled-in table data/measured/NAME: its non-comment lines split on spaces.
std::vector<std::vector<std::string_view>> measured_table_rows(std::string_view name);

// Raw rows of the compiled-in tables.
struct GemmRecord {
  std::string device, dtypes;
  GemmRow row;
  std::string shape_key() const;  // "b,m,n,k": a shape is held out for every device and type
};
struct CollectiveRecord {
  std::string device, op;
  int64_t groups = 0, group_size = 0;
  CollectivePoint point;
  std::string shape_key() const;  // "op groups x size bytes"
};
const std::vector<GemmRecord>& gemm_records();
const std::vector<CollectiveRecord>& collective_records();

// Clock cycles of one elementwise op on one element in a dependent chain (op_profiles.tsv, a
// latency), by device ("h100", "b200", "gb300"), opcode and element type as HLO spells them
// ("exponential", "f32"); nullopt when not profiled.
std::optional<double> op_profile_cycles(std::string_view device, std::string_view opcode,
                                        std::string_view type);
struct OpProfileRecord {
  std::string device, opcode, type;
  double cycles = 0;
};
const std::vector<OpProfileRecord>& op_profile_records();

// Models of `device`'s tables, fitted on the fit half of the rows (the shipped model) or on
// every row. Empty maps when the device has no table.
absl::StatusOr<DeviceTables> build_tables(std::string_view device, bool fit_half_only = true);

// The shipped tables of `device` ("h100", "b200", "gb200", "gb300"), built once; nullptr when
// the tables hold nothing for it.
const DeviceTables* tables_for(std::string_view device);

}  // namespace hloroof::measured

#endif  // HLOROOF_LIB_PREDICT_MEASURED_MODELS_H_
