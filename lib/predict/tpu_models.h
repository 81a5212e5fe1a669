// Models fitted to the published TPU7x (Ironwood) microbenchmarks (data/measured/tpu7x.tsv,
// docs/prediction-model.md, "Measured models (TPUs)"): the per-op fixed cost and the HBM
// bandwidth reached, GEMM time by padded size, and the latency and bandwidth of ICI
// collectives. Other TPU generations read them relative to their own peaks.
#ifndef HLOROOF_LIB_PREDICT_TPU_MODELS_H_
#define HLOROOF_LIB_PREDICT_TPU_MODELS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/device.h"
#include "predict/measured_models.h"

namespace hloroof::measured {

// The device whose measurements the TPU models hold.
inline constexpr char kTpuTableDevice[] = "tpu7x";

// One row of tpu7x.tsv (tools/tpu_tables.py says what each figure counts).
struct TpuRecord {
  std::string table;  // "gemm", "hbm", "all-gather"
  std::string slice;  // the slice it ran on, "2x2x1"
  int64_t group = 1;  // all-gather: devices in one replica group
  double size = 0;    // gemm: m = n = k; hbm: the array's bytes; all-gather: one input, bytes
  double rate = 0;    // gemm: FLOP/s per device; hbm: 2 x size / time; all-gather: B/s per chip
  // The bytes the rate counts: hbm 2 x size (read and write), all-gather 2 (group - 1) size
  // (both TensorCores of a chip gather at once); gemm: the FLOPs 2 size^3.
  double work() const;
  double time_s() const { return work() / rate; }
  // The fit half (the shipped fits) or the test half (bench/accuracy_bench). HBM and ICI rows:
  // every other size of its table and slice, the smallest and the largest in the fit half (the
  // tables are too small for a hash split; alternating sizes keeps the fits' ends measured and
  // tests what they interpolate). GEMM rows are all in the fit half: every measured size is a
  // knot of the interpolated ramp, which is concave in log-log, so a size left out is read
  // up to 31% slow from its neighbours (4096^3, near most programs' GEMMs, 18%).
  // accuracy_bench scores them left out one at a time.
  bool fit_half = true;
};
const std::vector<TpuRecord>& tpu_records();

// The FLOPs a GEMM runs on a systolic matrix unit `mxu` wide (docs/prediction-model.md): the
// array holds a k x n tile of weights, so k and n are padded to a multiple of `mxu`; the m rows
// stream through it, padded to the 8 sublanes of a vreg.
double padded_flops(const GemmShape& shape, int64_t mxu);

struct TpuFits {
  // HBM copies: time = fixed + bytes moved x seconds_per_byte. latency_s is the per-op fixed
  // cost of a TPU op; 1 / seconds_per_byte the HBM bandwidth reached by one device.
  LatencyBandwidth hbm;
  double hbm_fraction = 0;  // that bandwidth over the table device's HBM bandwidth
  // Square GEMMs by padded FLOPs: (padded FLOPs, measured time), ascending.
  std::vector<std::pair<double, double>> gemm;
  double gemm_peak = 0;  // the table device's bf16 peak, FLOP/s per device
  // The best measured efficiency (padded FLOPs over time x peak): TPU7x's plateau, 0.83. Other
  // generations borrow the ramp to it, not the plateau (docs/prediction-model.md).
  double gemm_plateau = 0;
  // ICI all-gathers: time = latency + chip bytes x seconds_per_byte.
  LatencyBandwidth ici;
  double ici_group = 0;        // devices per group of the fitted rows
  double ici_efficiency = 0;   // fitted chip bandwidth over the torus model's, at most 1
  double ici_model_rate = 0;   // the torus model's chip bandwidth for the same collective, B/s

  // Measured time of one GEMM of `padded` FLOPs on the table device: log-log interpolation
  // between measured sizes; below the smallest its time, above the largest its efficiency.
  double gemm_time_s(double padded) const;
};

// Fits to `records` (at least two of each table). `table_device` is the spec of the measured
// device (its peaks and torus); errors name what is missing.
absl::StatusOr<TpuFits> fit_tpu(absl::Span<const TpuRecord> records,
                                const DeviceSpec& table_device);

// The shipped fits: the fit half of tpu7x.tsv (TpuRecord::fit_half), built once; nullptr when
// the table is missing or does not fit.
const TpuFits* tpu_fits();

}  // namespace hloroof::measured

#endif  // HLOROOF_LIB_PREDICT_TPU_MODELS_H_
