// Measured models of GPU op families whose time neither the roofline nor the GEMM table gives
// (docs/prediction-model.md, "Op families on GPUs"): CUB radix sorts, XLA's sort kernel, the TopK
// kernel, cuFFT, scatters (atomics), row gathers, depthwise convolutions, column reductions of few
// blocks, and the host's share of library calls and of while loops. Each is a function of the
// op's shapes, types and attributes with a few constants fitted to the op-family sweep measured
// on an H200 (../shared/measured/gpu_h200_opfamilies, per-op device times from its profile); the
// H100 sweep is held out. `python3 bench/opfamilies.py --cases` prints every case's error on both.
#ifndef HLOROOF_LIB_PREDICT_GPU_FAMILIES_H_
#define HLOROOF_LIB_PREDICT_GPU_FAMILIES_H_

#include <optional>
#include <string>
#include <string_view>

#include "hloroof/device.h"
#include "hloroof/instruction.h"
#include "hloroof/predict.h"
#include "hloroof/roofline.h"
#include "predict/measured_models.h"

namespace hloroof::predict {

struct FamilyTime {
  double device_s = 0;    // the kernels' own time
  double host_gap_s = 0;  // device idle while the host prepares the call (library calls)
  std::string_view family;  // "cub radix sort", "cuFFT", ...
  // Where its figures come from: "measured" (the op-family sweeps) or "published" (another's
  // benchmark, borrowed).
  std::string_view source = "measured";
  std::string basis;        // how the time was made, with its figures and their provenance
  // The range device_s spans where the data decide it (a scatter's repeated indices), device
  // time at each end; none for most families.
  std::optional<TimeRange> range;
  // A bound from below (a column reduction's wait on its rows): where the general model's time
  // is longer, it stands.
  bool at_least = false;
};

// The measured model of `i` on an NVIDIA GPU, where one applies; nullopt otherwise (other
// devices, other ops: their expected time is the general one).
// `matrix_share`: the share of its measured rate matrix work keeps (OpView::matrix_share).
std::optional<FamilyTime> gpu_family_time(const Instruction& i, const OpWork& work,
                                          const DeviceSpec& device, double matrix_share = 1);

// Which filter taps an implicit GEMM runs: all of them (cuDNN's kernels multiply the padding's
// zeros too), or only those over real input elements (a TPU, where XLA writes a matrix product
// as a convolution whose one spatial dimension is a padded window: 64 taps of which one is real).
enum class ConvTaps { kAll, kValid };

// The implicit GEMM of a dense convolution (an HLO convolution or a cuDNN call, any pass): b =
// feature groups, m = batch x output positions, n = output features per group, k = input
// features per group x filter taps (kValid: the taps over real input elements, per output
// position). nullopt for a depthwise convolution or unreadable shapes.
std::optional<measured::GemmShape> implicit_gemm(const Instruction& conv,
                                                 ConvTaps taps = ConvTaps::kAll);

// The cuDNN factor on the measured GEMM table's time at a convolution's implicit GEMM shape
// (forward, data gradient, filter gradient alike): the geometric mean of measured over table
// time on the H200 sweep's 34 dense cuDNN calls (0.67 on the H100's, held out).
inline constexpr double kCudnnOverGemmTable = 0.63;

// The host's time per kernel a small GPU while loop's body launches, every trip: XLA's runtime
// launches the body's kernels one thunk at a time when the body is too small for a command
// buffer (fewer than kCommandBufferMinKernels kernels); a cuBLAS call (a GEMM XLA leaves to
// cuBLAS) takes kLoopHostCublasS. The host runs ahead of the device: a trip takes the longer of
// the body's launches and its kernels (step_walk.cc). Fitted to the sweeps' loops: the fori
// loops and the two scans of small GEMMs, whose trips are the host's (2 and 3 kernels in
// 15.6-17.6 us and 24.9-27.1 us a trip: 7.8-9.0 us a kernel, 8.5 their geometric mean), and
// the scan of 128 GEMMs 256 x 4096 x 4096 (cuBLAS and two fusions in 35.4 us a trip on the
// H100, 31.9 us on the H200, above its 21 and 18 us of kernels: 18.4 and 14.9 us for the
// cuBLAS call, 16.5 their geometric mean).
inline constexpr double kLoopHostPerKernelS = 8.5e-6;
inline constexpr double kLoopHostCublasS = 16.5e-6;
inline constexpr int kCommandBufferMinKernels = 5;

// The host's time to launch `i`'s kernel every time it runs, where `i` launches one in the body
// of a while loop too small for a command buffer: kLoopHostPerKernelS (kLoopHostCublasS for a
// cuBLAS call); else 0.
double loop_host_gap_s(const Instruction& i, const DeviceSpec& device);

// The first kernel of `c` where the host launches its kernels one at a time: `c` is an entry
// computation of fewer than kCommandBufferMinKernels kernels and no control flow, async work
// or collectives (no command buffer: the host launches each kernel after the one before, the
// step beginning with the first); nullptr otherwise. It reads every instruction of `c`: ask
// once per computation.
const Instruction* host_launched_program(const Computation& c);

// The host's time to launch `i`'s kernel in the program whose first kernel is `program_first`
// (host_launched_program of `i`'s computation; a small loop's body is loop_host_gap_s's), at
// the loops' time a kernel; 0 for that first kernel, for a library call whose host gap already
// holds its launch (cuDNN, CUB) and elsewhere.
double program_launch_s(const Instruction& i, const DeviceSpec& device,
                        const Instruction* program_first);

// Whether `device` takes the family models: an NVIDIA GPU with no calibrated efficiency.
bool takes_gpu_families(const DeviceSpec& device);

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_GPU_FAMILIES_H_
