// What the expected-time models (expected_time.cc, expected_inputs.cc, gpu_expected_time.cc,
// tpu_expected_time.cc, calibrated_expected_time.cc, collective_expected_time.cc) share among
// themselves.
#ifndef HLOROOF_LIB_PREDICT_EXPECTED_TIME_INTERNAL_H_
#define HLOROOF_LIB_PREDICT_EXPECTED_TIME_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "hloroof/collective.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/roofline.h"
#include "predict/expected_time.h"

namespace hloroof::predict {

// The device whose measured tables stand in for `device`, and how: its own ("h100"), or a
// borrowed one, read in units of each device's own peak.
struct Source {
  std::string_view name;  // tables' device, e.g. "h100": a view of the device's measured_on
  bool borrowed = false;
};

// The set of measurements `measured_on` names (a field of device.measured_on): none when empty,
// borrowed when taken on a device other than table_device(device).
Source measured_source(const DeviceSpec& device, const std::string& measured_on);

// The device whose measured tables apply to `device` as to itself: the built-in device a file
// was made from (a device fitted by hloroof calibrate keeps its base's), else its own name.
std::string_view table_device(const DeviceSpec& device);

// The tables were measured on NVIDIA GPUs (cuBLAS, NCCL, CUDA kernels).
bool nvidia(const DeviceSpec& device);

// A GPU's GEMM tables and collective tables (measured_on.gemm_tables, .collective_tables).
Source gemm_source(const DeviceSpec& device);
Source collective_source(const DeviceSpec& device);

// The built-in spec of a table's device, for its peaks and NVLink bandwidth; read once.
const DeviceSpec* source_spec(std::string_view name);

std::optional<double> peak(const DeviceSpec& device, std::string_view cls);

// "%.4g s". Made once for each value met, on each thread: a module's ops repeat a few hundred
// times thousands of times, and their explanations name them (to_chars with a precision costs
// as much as the rest of a line). A table of the last ones by a hash of their bits.
std::string seconds(double s);

void note_once(std::vector<std::string>& assumptions, std::string line);

// Which explanation a memo key is of (its first byte): keys of two kinds never meet.
enum class ExplanationKind : uint8_t { kOp, kTpuOp };

// Whether `device` takes the measured TPU models: a TPU whose file sets no calibration.
bool tpu_measured(const DeviceSpec& device);

// "measured on tpu7x" or "measured on tpu7x, borrowed".
const std::string& tpu_provenance(const DeviceSpec& device);

// The TPU fits of a collective (tpu_expected_time.cc).
CollectiveExpectedTime expected_tpu_collective_time(const CollectiveEstimate& roofline,
                                                    const DeviceSpec& device,
                                                    std::vector<std::string>& assumptions);

// The explanation of an op's expected time `time_s` made on `device` from `basis`
// (GpuTableModel, CalibratedModel).
std::string_view explain_gpu_op(double time_s, const GpuOpBasis& basis, const DeviceSpec& device,
                                TextMemo& memo);

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_EXPECTED_TIME_INTERNAL_H_
