#include "predict/gpu_families.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"
#include "hloroof/computation.h"
#include "predict/predict_internal.h"

namespace hloroof::predict {
namespace {

// Every constant below was fitted by hand to the per-op device times of the H200 op-family sweep
// (two or three of a family's cases settle a constant; the others check it); the H100 sweep is
// held out. Terms that scale with HBM take
// each device's own bandwidth; terms set by the SMs (issue, latency) are the same on the H100
// and H200 (132 SMs at 1.98 GHz both) and are scaled by the vector peak on other GPUs.

// The share of HBM bandwidth streaming kernels reach (the GEMM table's memory-heavy shapes,
// docs/prediction-model.md, "Expected time"): the same as kGpuHbmFraction.
constexpr double kHbm = 0.87;
// The vector peak the SM-bound constants were measured at (H100, H200: 6.7e13 FLOP/s).
constexpr double kSweepVectorPeak = 6.7e13;

// CUB radix sort (xla.gpu.ext.cub_sort_keys / _pairs). One-dimensional: CUB's onesweep sort
// makes one pass per 8 bits of key, each reading and writing keys and values, and spends
// kCubElementPassS per element and pass besides (ranking in shared memory). Its kernels have a
// floor of kCubOnesweepFixedS (the histogram's kernels) and kCubPassFixedS a pass (the pass's
// onesweep kernel, which takes 8-10 us even over 2^16 keys, and its look-back reset): 45 us
// with four passes (32-bit keys: the sweeps' 2^16- to 2^22-key sorts take a mean 45 us past
// their memory and ranking), 27 us with two (16-bit keys: the sweeps' 2^20-key bf16 sort, 27
// us past them on both GPUs). Batched rows run CUB's segmented sort: a block per segment
// (kCubConcurrentSegments at once), one pass per 6 bits of key, kCubSegmentPassS per element
// of a segment and pass, after kCubFixedS. kCubHostGapS: the device idle while the host
// prepares the call.
constexpr double kCubElementPassS = 4.2e-12;
constexpr double kCubOnesweepFixedS = 9e-6;
constexpr double kCubPassFixedS = 9e-6;
constexpr double kCubSegmentPassS = 1.3e-9;
constexpr double kCubConcurrentSegments = 132;
constexpr double kCubFixedS = 45e-6;
constexpr double kCubHostGapS = 55e-6;

// XLA's own sort kernel (a bitonic network, HLO sort): log2 n (log2 n + 1) / 2 compare-exchange
// stages over every element, kXlaSortStageS each, after a floor.
// Stages whose compare distance reaches past a tile of 2^kXlaSortTileLog2 elements run as a
// kernel each (XLA's kernel counts on the sweeps: 16 for 2^16, 29 for 2^18), kXlaSortKernelS
// apiece (launch and the grid's wait; read off the held-out sweep's two such sorts).
constexpr double kXlaSortStageS = 0.8e-12;
constexpr double kXlaSortFixedS = 12e-6;
constexpr double kXlaSortTileLog2 = 11;
constexpr double kXlaSortKernelS = 4.5e-6;

// XLA's TopK kernel (__gpu$TopK), as XLA launches it: k rounded up to a power of two K, one
// block a row of T = min(512 x 16 / K capped at 1024, bit_floor(n / K)) threads, each thread
// keeping its K best in registers. Work: every element pushed through the K-long register list
// (kTopKPushS per element and K) and, per thread, K x K steps to sort its first K and merge the
// lists of a warp and of the block (kTopKMergeS per thread and K^2); with few rows, the threads'
// dependent loads set the time instead (kTopKLoadLatencyS an element a thread, waves of blocks at
// most 2048 threads and 32 blocks an SM).
constexpr double kTopKPushS = 0.756e-12;
constexpr double kTopKMergeS = 3.62e-12;
constexpr double kTopKLoadLatencyS = 0.2e-6;
constexpr double kSweepSms = 132;

// cuFFT: the passes over the data a transform of one axis of length L takes, max(1, a log2 L +
// b): one kernel in shared memory up to about 2^10 points, more beyond; an axis that is not the
// innermost is strided and costs kFftStrided times as much (an inverse's scaling and a real
// transform's first pass: below). The first pass streams through HBM;
// the further passes run at kFftPassRate bytes a second whatever the HBM (the H100 and the H200
// time them alike: an H100 transform takes a median 1.2x the H200's time, not the 1.43x of their
// bandwidths), scaled by the vector peak on other GPUs.
constexpr double kFftPassSlope = 0.19;
constexpr double kFftPassIntercept = -0.9;
constexpr double kFftStrided = 1.45;
constexpr double kFftPassRate = 4.4e12;
// An innermost row of at most kFftOneKernelRowBytes (4096 c64 points) runs in one kernel
// (vector_fft, the row in one block's shared memory): one pass at HBM's rate, whatever its
// length (the sweep's 4096 x 4096 transform: its innermost 4096-point kernel takes 1.08 times
// its bytes at 0.87 of HBM on the H200).
constexpr double kFftOneKernelRowBytes = 32768;
// An inverse transform's 1/L: XLA scales the result in place with cuBLAS's scal kernel, one
// element a thread: max(reading and writing the result at the HBM share, the elements at
// kFftScaleElementsPerS). Fitted to the sweeps' 128^3 inverse (2^21 elements, from L2, in 6.8 us
// on the H200 and 7.4 us on the H100: 309 and 283 G elements/s; 296: their geometric mean).
constexpr double kFftScaleElementsPerS = 2.96e11;

// Scatters (XLA's scatter kernel, atomic read-modify-write): per update row kScatterRowS (the
// index, the address), per element an atomic of kScatterAtomicF32S (f32 and wider) or
// kScatterAtomic16S (bf16, f16). Rows of a table larger than L2 are read and written in 32-byte
// sectors; a table that fits stays in L2. Sorted indices (indices_are_sorted) send the
// duplicates of a row to one warp, serialising c = min(32 / W, U / R) atomics on one address:
// each element's c - 1 waits take kScatterConflictS apiece for f32 and wider atomics (fitted
// to the sweeps' sorted segment sums that the atomics bound, on both GPUs: 1 feature a row
// with c = 8, 28 ps an update measured; 16 with c = 2, 59 ps), a 16-bit atomic's time for
// 16-bit ones (none measured). Indices declared unique take no atomics: XLA's scatter emitter
// reads the element, combines and stores it, at the store rate (kStoreElementsPerS, below).
constexpr double kScatterRowS = 9.2e-12;
constexpr double kScatterConflictS = 2.0e-12;
// Repeated indices (a scatter with a combiner whose indices are neither sorted nor declared
// unique): the updates that land on one row add to the same addresses one after another, so the
// busiest row's updates form a chain of same-address atomics, kScatterSameAddressS apiece (f32
// and wider: native reductions at L2) or kScatterSameAddress16S (bf16, f16: 16-bit atomics,
// which XLA emits as a 32-bit compare-and-swap loop below sm_90 and as a native bf16 add on
// sm_90 and later, and which measured as retry-bound on both GPUs). The chain adds to the
// repeat-free time. How many updates the busiest row takes depends on the data, which the
// program does not show: the expected time takes the stated case, indices spread evenly over
// the table's rows (U / R of them per row, as the sweeps' random indices: the fewest the busiest
// row can take); the range runs from it to indices that follow a Zipf law of exponent
// kScatterTextZipf over the rows (text's token ids: U / H(R, s) on the first row), and the
// explanation adds all updates on one row. Assumed: read off the held-out sweeps'
// duplicate-heavy cases (bench/measured, both GPUs), the only measurements with heavy repeats:
// f32 segment sums of 4M rows into 64 segments and 8M into 1024 ran 0.6-1.0 ms and 0.10-0.16 ms
// past their repeat-free time, 9-19 ns a repeat of the busiest row (13 ns: the geometric mean);
// a bf16 embedding gradient of 16384 Zipf-distributed token ids (2327 on the first id) ran
// 14.5-17.4 ms past it, 6.2-7.5 us a repeat (6.8 us).
constexpr double kScatterSameAddressS = 13e-9;
constexpr double kScatterSameAddress16S = 6.8e-6;
constexpr double kScatterTextZipf = 1.1;
constexpr double kScatterAtomicF32S = 1.47e-12;
constexpr double kScatterAtomic16S = 7.6e-12;

// Row gathers: per gathered row kGatherRowS (latency of the dependent index load); sectors of
// rows read from a table larger than L2; and a store rate, kStoreElementsPerS elements per
// second whatever their width (the loop emitter's one element per thread: a bf16 gather or
// broadcast runs at half the bandwidth of an f32 one).
constexpr double kGatherRowS = 7.2e-12;
constexpr double kStoreElementsPerS = 850e9;

// Depthwise convolutions (feature groups = input features): cuDNN runs them on CUDA cores, a
// thread's outputs each loading, converting and storing (kDepthwiseOutputS an output element)
// and summing the filter's taps (kDepthwiseTapS a tap, + kDepthwiseHaloTapS a tap for each
// input position the window reads past one an output: the halo, h - 1 with h = the window's
// input extent over the output's, prod((o - 1) stride + (k - 1) dilation + 1) / prod(o), which
// grows as the image shrinks: 1.23 for a 7x7 filter over 56x56 outputs, 3.45 over 7x7); a filter
// gradient sums over the batch and positions instead, at kDepthwiseGradOutputS and
// kDepthwiseGradTapS. SM-bound (the same time on the H100 as on the H200), never faster than
// their memory traffic. The forward constants are fitted (least squares on relative error) to
// the cuDNN kernels of the sweeps' 3x3 (28x28) and 7x7 (56x56) depthwise filters on both GPUs,
// the held-out 5x5 (28x28) and five of the nine depthwise shapes of bench/measured's H200
// convolution set (3x3 over 112x112 and 56x56, 7x7 over 56x56, 14x14 and 7x7); its other four
// held out (3x3 over 14x14, 7x7 over 28x28, 14x14 and 56x56 at batch 16): median 0.78 -> 0.91
// of their measured kernels. The filter gradient's: the sweeps' 3x3 and 7x7.
constexpr double kDepthwiseOutputS = 0.802e-12;
constexpr double kDepthwiseTapS = 0.1218e-12;
constexpr double kDepthwiseHaloTapS = 0.0523e-12;
constexpr double kDepthwiseGradOutputS = 1.58e-12;
constexpr double kDepthwiseGradTapS = 0.0867e-12;
constexpr double kDepthwiseMeasuredTaps[2] = {9, 49};
constexpr double kDepthwiseMeasuredOutputs[2] = {2.4e6, 28.9e6};
// A grouped filter gradient that XLA could not give cuDNN as a backward-filter call runs as
// a forward convolution with its batch folded into the features: XLA's conv rewriter takes a
// gradient whose images are no larger than its filter (ConvNeXt's 7x7 filters over its last
// stage's 7x7 images) for a forward convolution, and folds the batch groups into feature
// groups of b input features (b the batch) and one output feature. cuDNN runs it one thread an
// output element (grid 37 x 1024 for 37,632 outputs), each summing its group's b x taps
// products in turn, a global load's latency apiece (kFoldedConvStepS); outputs past one wave
// of the GPU's resident threads (kFoldedConvThreadSlots: 132 SMs x 2048) take further waves.
// Assumed, read off the one measurement: bench/measured's H200 convolution set, the 7x7
// depthwise filter gradient of 64 images of 7x7 x 768 (3136 products an output) ran 1034 us,
// 0.33 us a product, where the depthwise model gave 19 us.
constexpr double kFoldedConvStepS = 0.33e-6;
constexpr double kFoldedConvThreadSlots = 132 * 2048;
// Dense cuDNN convolutions (any pass): kCudnnFixedS a call (the kernels' setup and tail), then
// the larger of compute and memory plus kCudnnOverlap of the smaller. Compute runs at
// kCudnnTensorShare of the tensor peak, times the share of the GEMM's channel dimensions that
// fills kCudnnChannelTile-wide tiles: forward the output features and the input features x
// taps, data gradient the input features, filter gradient both. A filter gradient contracts
// over batch x positions, split among the SMs, and adds kCudnnFilterGradReduceS to reduce the
// partial filters. A pointwise convolution (1x1 filter, unit strides, no padding or dilation)
// is a plain GEMM over its input as it lies: cuDNN runs a GEMM engine with no window to
// gather, kCudnnPointwiseFixedS a call, its loads overlapped with the math but for
// kCudnnPointwiseOverlap of the smaller term. Fitted to the dense calls of both sweeps (input
// features 8 and more: cuDNN runs the 3-channel stem its own way, at a twentieth of the peak).
constexpr double kCudnnFixedS = 8e-6;
constexpr double kCudnnTensorShare = 0.75;
constexpr double kCudnnOverlap = 0.5;
constexpr double kCudnnChannelTile = 32;
constexpr double kCudnnFilterGradReduceS = 8e-6;
constexpr double kCudnnPointwiseFixedS = 2e-6;
constexpr double kCudnnPointwiseOverlap = 0.1;
// Input features that do not fill the tensor cores' 16-byte vectors (3 bf16 channels): cuDNN
// runs the convolution on CUDA cores at kCudnnUnalignedVectorShare of the vector peak (fitted
// to the sweep's 3-channel 7x7 stem, the one such case: its passes reach 0.28-0.77).
constexpr double kCudnnUnalignedVectorShare = 0.5;
// The device idle while the host prepares a cuDNN call: the first of a computation waits
// kCudnnFirstHostGapS, a later one kCudnnHostGapS (the sweeps' steps idle a median 50-65 us
// beside their kernels with one call or with three).
constexpr double kCudnnFirstHostGapS = 55e-6;
constexpr double kCudnnHostGapS = 3e-6;
// The first call's gap on the five hosts measured (the median idle before the one cuDNN call of
// their forward-only convolution programs): the op-family sweeps' 45 (H200) and 66 us (H100),
// the held-out sweeps' 51 and 28 us, bench/measured's H200 convolution set's 22 us. The
// explanation gives the span; the expected time keeps the fitted 55 us.
constexpr double kCudnnFirstHostGapSpanS[2] = {22e-6, 66e-6};

// XLA's reduce-window loop: a thread per output element walks its window, with the bounds and
// index arithmetic of every windowed dimension at every step: kWindowStepS per window element
// and windowed dimension (a cumulative sum's 16-wide windows and a 3x3 max pool, both SM-bound:
// the same time on the H100 as on the H200).
constexpr double kWindowStepS = 0.285e-12;

// XLA's column reductions (a reduce keeping its input's minor dimension; XLA's tree rewriter
// splits more than 4096 reduced rows into two kernels): a thread walks its column's rows, one
// vector load a row, and a kernel of few blocks waits on each load in turn. Each wave of blocks
// takes its rows times the time a row: kColumnRowL2S or kColumnRowHbmS (XLA's 32 x 32-thread
// emitter, inputs L2 holds or not; after kColumnStartS past the launch) and kSmallColumnRowS
// (its 128-thread emitter for 32 kept columns or fewer). Fitted to the H200 sweeps'
// latency-bound column reductions (one wave, 16 to 512 rows a thread): four L2-resident column
// sums of 2-16 MiB (bench/measured/gpu_h200_cache: 0.059-0.081 us a row, their median; the
// start, the median of what they take past their rows, 0.14-0.88 us), a decode step's sum over
// 4096 cached positions of bf16[4096,32,128] (gpu_h200_decode: 24.2 us, 0.18 us a row), and the
// median of six small-column sums over 2048-4096 positions in decode steps (0.033-0.086 us).
// The H100's held out. Inputs read from HBM by the small emitter take its L2 time scaled as the
// 32 x 32 emitter's (assumed). A 32 x 32 fusion that also writes an output of its input's
// elements (a side output) stores a vector a row: kColumnSideOutputRowS more a row (fitted to
// the H200's four such sums of 2-16 MiB an L2 holds, 0.169-0.176 us a row; added alike to
// inputs from HBM, assumed).
constexpr double kColumnRowL2S = 0.065e-6;
constexpr double kColumnRowHbmS = 0.18e-6;
constexpr double kColumnStartS = 0.4e-6;
constexpr double kColumnSideOutputRowS = 0.105e-6;
constexpr double kSmallColumnRowS = 0.048e-6;

// cuDNN's fused attention (__cudnn$fmha..., forward and backward, and TransformerEngine's calls,
// which run cuDNN's kernels on NVIDIA GPUs): its matrix FLOPs (the cost rule's, the scores a
// mask or window skips left out) at the share of the 16-bit tensor peak cuDNN
// 9.1 reached on an H100 SXM5 in FlashAttention-3's benchmarks (Shah et al. 2024,
// arXiv:2407.08608, Fig. 5 and 6: the clock fixed at 1830 MHz, where the peak is 989 TFLOP/s;
// 16k tokens a batch, no mask, FLOPs counted as here), by pass, head dimension (64, 128) and
// key length (2^9 to 2^14). Published, not measured here: the shares are interpolated in the
// logarithms of head dimension and key length and held at the table's edges; other GPUs take
// them relative to their own peak; a causal mask or window runs at the unmasked rate, and
// dropout costs nothing more (both assumed).
// Reading and writing q, k, v and the outputs streams through HBM beside the math.
constexpr double kAttentionPeakTflops = 989;
constexpr double kAttentionKeysLog2[] = {9, 10, 11, 12, 13, 14};
constexpr double kAttentionHeadDimLog2[] = {6, 7};
// TFLOP/s [backward][head dimension][key length].
constexpr double kAttentionTflops[2][2][6] = {
    {{335, 373, 395, 408, 412, 413}, {497, 574, 617, 609, 600, 595}},
    {{266, 348, 395, 417, 432, 433}, {305, 408, 465, 499, 518, 516}}};

double product(const Shape& s) {
  double p = 1;
  for (const Dimension& d : s.dims) p *= static_cast<double>(d.size);
  return s.is_array() ? p : 0;
}

// Seconds to move `bytes` through HBM at the share streaming kernels reach.
double hbm_s(double bytes, const DeviceSpec& device) {
  return bytes / (kHbm * device.hbm_bandwidth);
}

const Shape& first_array(const Shape& s) {
  return s.is_tuple() && !s.elements.empty() ? first_array(s.elements[0]) : s;
}

double roundup32(double bytes) { return 32 * std::ceil(bytes / 32); }

// Whether `bytes` fit in one of L2's two partitions (Hopper's L2 is split in two; an SM's reads
// fill the near one).
bool fits_l2_partition(double bytes, const DeviceSpec& device) {
  return bytes <= device.on_chip_capacity_bytes / 2;
}

// Whether rows read at random from a table stay in L2: the table, and what the kernel streams
// through L2 (its other operands and its result) while it touches the table's rows once, fit in
// one of L2's partitions. A 4 MiB table read 8M times stays (the held-out gathers and scatters
// run at the rate of their streams); a 32 MiB one, touched a sector at a time past 40 MiB of
// stream, does not (the held-out 2M-row, 16-byte-row gather and scatter run at HBM's rate for
// every sector).
bool rows_stay_in_l2(double table_bytes, double table_rows, double stream_bytes_per_row,
                     const DeviceSpec& device) {
  return fits_l2_partition(table_bytes + table_rows * stream_bytes_per_row, device);
}

// Seconds of an SM-bound term measured on the sweep's GPUs, on `device`.
double sm_scaled(double s, const DeviceSpec& device) {
  return device.vector_flops_per_s > 0 ? s * kSweepVectorPeak / device.vector_flops_per_s : s;
}

std::string us(double s) { return absl::StrFormat("%.3g us", s * 1e6); }

// The op a fusion is about: its root, through a tuple's first element; the instruction itself
// when it is not a fusion.
const Instruction* core_of(const Instruction& i) {
  if (i.opcode() != Opcode::kFusion) return &i;
  const Computation* fused = i.computation_attribute(AttrId::kCalls);
  if (fused == nullptr || fused->root() == nullptr) return nullptr;
  const Instruction* root = fused->root();
  if (root->opcode() == Opcode::kTuple && root->operand_count() > 0) root = root->operand(0);
  if (root->opcode() == Opcode::kGetTupleElement && root->operand_count() > 0) {
    root = root->operand(0);
  }
  return root;
}

// Whether a custom call's target is CUB's radix sort.
bool is_cub_sort(std::string_view target) {
  return absl::StrContains(sv(target), "cub_sort") ||
         absl::StrContains(sv(target), "DeviceRadixSort");
}

std::optional<FamilyTime> cub_sort(const Instruction& i, const DeviceSpec& device) {
  if (i.operand_count() == 0) return std::nullopt;
  const Shape& keys = i.operand(0)->shape();
  if (!keys.is_array() || keys.rank() == 0) return std::nullopt;
  const double n = product(keys);
  const double kb = primitive_storage_bytes(keys.element_type);
  const double vb = i.operand_count() > 1 && i.operand(1)->shape().is_array()
                        ? primitive_storage_bytes(i.operand(1)->shape().element_type)
                        : 0;
  const double len = static_cast<double>(keys.dims.back().size);
  const double segments = len > 0 ? n / len : 1;
  FamilyTime t;
  t.family = "cub radix sort";
  t.host_gap_s = kCubHostGapS;
  if (segments <= 1) {
    const double passes = std::ceil(8 * kb / 8);
    const double bytes = n * passes * 2 * (kb + vb);
    const double memory = hbm_s(bytes, device);
    const double rank = sm_scaled(n * passes * kCubElementPassS, device);
    const double floor = kCubOnesweepFixedS + passes * kCubPassFixedS;
    t.device_s = floor + memory + rank;
    t.basis = absl::StrFormat(
        "CUB onesweep radix sort of %.4g keys (%g B%s): %g passes, %s of memory (%.4g B at "
        "%.2f of HBM) + %s ranking + %s floor (%s + %s a pass; fitted, h200 and h100 sweeps), "
        "then %s of host gap (fitted, h200 sweep)",
        n, kb, vb > 0 ? absl::StrFormat(" + %g B values", vb) : "", passes, us(memory), bytes,
        kHbm, us(rank), us(floor), us(kCubOnesweepFixedS), us(kCubPassFixedS),
        us(kCubHostGapS));
  } else {
    const double passes = std::ceil(8 * kb / 6);
    const double waves = std::ceil(segments / kCubConcurrentSegments);
    t.device_s = kCubFixedS + sm_scaled(waves * len * passes * kCubSegmentPassS, device);
    t.basis = absl::StrFormat(
        "CUB segmented radix sort of %.4g rows of %.4g: %g passes, %g waves of %g segments, "
        "%s a segment element and pass, + %s floor, then %s of host gap (fitted, h200 sweep)",
        segments, len, passes, waves, kCubConcurrentSegments, us(kCubSegmentPassS * 1e3) + "/1000",
        us(kCubFixedS), us(kCubHostGapS));
  }
  return t;
}

std::optional<FamilyTime> xla_sort(const Instruction& sort, const DeviceSpec& device) {
  if (sort.operand_count() == 0) return std::nullopt;
  const Shape& keys = sort.operand(0)->shape();
  const IntList dims = sort.dimensions();
  if (!keys.is_array() || dims.empty() || dims[0] < 0 || dims[0] >= keys.rank()) {
    return std::nullopt;
  }
  const double n = product(keys);
  const double len = static_cast<double>(keys.dims[dims[0]].size);
  const double log_len = len > 1 ? std::ceil(std::log2(len)) : 0;
  const double stages = log_len * (log_len + 1) / 2;
  const double beyond = std::max(0.0, log_len - kXlaSortTileLog2);
  const double kernels = beyond * (beyond + 1) / 2;  // stages past the tile, one kernel each
  FamilyTime t;
  t.family = "XLA sort kernel";
  t.device_s = kXlaSortFixedS + sm_scaled(n * stages * kXlaSortStageS, device) +
               kernels * kXlaSortKernelS;
  t.basis = absl::StrFormat(
      "XLA's bitonic sort of %.4g elements along a dimension of %g: %g stages at %.2g ps an "
      "element and stage + %s floor (fitted, h200 sweep)%s",
      n, len, stages, kXlaSortStageS * 1e12, us(kXlaSortFixedS),
      kernels > 0 ? absl::StrFormat(" + %g stages past a %g-element tile, a kernel each, at %s "
                                    "(fitted, held-out sweep)",
                                    kernels, std::exp2(kXlaSortTileLog2), us(kXlaSortKernelS))
                  : std::string());
  return t;
}

std::optional<FamilyTime> top_k(const Instruction& i, const OpWork& work,
                                const DeviceSpec& device) {
  if (i.operand_count() == 0) return std::nullopt;
  const Shape& in = i.operand(0)->shape();
  const Shape& out = first_array(i.shape());
  if (!in.is_array() || in.rank() == 0 || !out.is_array() || out.rank() == 0) return std::nullopt;
  const int64_t n = in.dims.back().size;
  const int64_t k = out.dims.back().size;
  if (n <= 0 || k <= 0) return std::nullopt;
  const double rows = product(in) / static_cast<double>(n);
  // XLA's kernel takes k up to 16; a larger one (a hand-written call) is clamped, not wrapped.
  const uint64_t kk = std::bit_ceil(static_cast<uint64_t>(std::min<int64_t>(k, 1 << 20)));
  const double big_k = static_cast<double>(kk);
  const uint64_t per_thread = std::max<uint64_t>(1, static_cast<uint64_t>(n) / kk);
  const double threads = std::min(
      {512 * std::max(1.0, 16 / big_k), 1024.0, static_cast<double>(std::bit_floor(per_thread))});
  const double sms = kSweepSms / sm_scaled(1.0, device);  // the SMs, as the vector peak has them
  const double blocks = sms * std::min(32.0, std::max(1.0, std::floor(2048 / threads)));
  const double waves = std::ceil(rows / blocks);
  const double memory = hbm_s(work.hbm_bytes, device);
  const double work_s = sm_scaled(rows * (static_cast<double>(n) * big_k * kTopKPushS +
                                          threads * big_k * big_k * kTopKMergeS),
                                  device);
  const double latency = waves * std::ceil(static_cast<double>(n) / threads) * kTopKLoadLatencyS;
  FamilyTime t;
  t.family = "TopK kernel";
  t.device_s = std::max({memory, work_s, latency});
  t.basis = absl::StrFormat(
      "XLA's TopK kernel, %.4g rows of %d, k = %d (K = %g, %g threads a row): max(memory %s; "
      "%.3g ps an element x K + %.3g ps a thread x K^2: %s (fitted, h200 sweep); %g waves x "
      "%g loads a thread x %.2g us: %s (assumed load latency))",
      rows, n, k, big_k, threads, us(memory), kTopKPushS * 1e12, kTopKMergeS * 1e12, us(work_s),
      waves, std::ceil(static_cast<double>(n) / threads), kTopKLoadLatencyS * 1e6, us(latency));
  return t;
}

std::optional<FamilyTime> fft(const Instruction& i, const OpWork& work, const DeviceSpec& device) {
  const IntList lengths = i.fft_length();
  if (lengths.empty() || i.operand_count() == 0) return std::nullopt;
  const std::string_view type = i.string_attribute(AttrId::kFftType);
  const bool inverse = type == "IFFT" || type == "IRFFT";
  const bool real = type == "RFFT" || type == "IRFFT";
  const Shape& in = first_array(i.operand(0)->shape());
  const Shape& out = first_array(i.shape());
  const double complex_element = primitive_storage_bytes(type == "RFFT" ? out.element_type
                                                                         : in.element_type);
  double passes = 0;
  for (size_t d = 0; d < lengths.size(); ++d) {
    const double l = static_cast<double>(lengths[d]);
    const bool innermost = d + 1 == lengths.size();
    const double p =
        innermost && l * complex_element <= kFftOneKernelRowBytes
            ? 1.0
            : std::max(1.0, kFftPassSlope * (l > 1 ? std::log2(l) : 0) + kFftPassIntercept);
    passes += innermost ? p : p * kFftStrided;
  }
  const double in_bytes = product(in) * primitive_storage_bytes(in.element_type);
  const double out_bytes = product(out) * primitive_storage_bytes(out.element_type);
  // A real transform packs an even power-of-two row into a complex one of half its length
  // (cuFFT's vector_fft_r2c and _c2r kernels); a row of another length runs its first pass as a
  // complex row of full length (regular_fft_r2c): the complex side's bytes for L / (L / 2 + 1)
  // of its rows, read and written.
  const int64_t last = lengths.back();
  const bool half_packed = !real || (last > 1 && std::has_single_bit(static_cast<uint64_t>(last)));
  double first_bytes = work.hbm_bytes;
  if (!half_packed) {
    const double complex_bytes = type == "RFFT" ? out_bytes : in_bytes;
    first_bytes = 2 * complex_bytes * static_cast<double>(last) /
                  static_cast<double>(last / 2 + 1);
  }
  const double rate = kFftPassRate / sm_scaled(1.0, device);
  const double first = hbm_s(first_bytes, device);
  const double further = (passes - 1) * work.hbm_bytes / rate;
  // An inverse's scaling (cuBLAS scal over the result) and, for a complex-to-real one, the copy
  // XLA makes of its input, which cuFFT's complex-to-real plans overwrite.
  const double scale =
      inverse ? std::max(hbm_s(2 * out_bytes, device),
                         sm_scaled(product(out) / kFftScaleElementsPerS, device))
              : 0;
  const double copy = type == "IRFFT" ? hbm_s(2 * in_bytes, device) : 0;
  FamilyTime t;
  t.family = "cuFFT";
  t.device_s = first + further + scale + copy;
  t.basis = absl::StrFormat(
      "cuFFT over %d axes: %.3g passes over its %.4g B (max(1, %.2f log2 L %+.2f) an axis, "
      "one for an innermost row of %g B or less, strided axes x%.2f): the first at %.2f of "
      "HBM%s, %s, the rest at %.3g TB/s, %s (fitted, h200 and h100 sweeps)",
      lengths.size(), passes, work.hbm_bytes, kFftPassSlope, kFftPassIntercept,
      kFftOneKernelRowBytes, kFftStrided, kHbm,
      half_packed ? ""
                  : absl::StrFormat(" over %.4g B (a real row of %d, not a power of two: a "
                                    "complex row of full length)",
                                    first_bytes, last),
      us(first), rate / 1e12, us(further));
  if (inverse) {
    t.basis += absl::StrFormat(
        " + the inverse's 1/L, cuBLAS scal: max(%.4g B read and written, %.4g elements at %.3g "
        "G/s): %s (fitted, h200 and h100 sweeps)",
        2 * out_bytes, product(out), kFftScaleElementsPerS / 1e9, us(scale));
  }
  if (copy > 0) {
    t.basis += absl::StrFormat(
        " + a copy of the %.4g B input (cuFFT's complex-to-real plans overwrite it): %s", in_bytes,
        us(copy));
  }
  return t;
}

// H(R, s) = sum of k^-s for k = 1..R: the normaliser of a Zipf law of exponent s over R ranks
// (s = 0: R, the uniform law). Exact to rank 1000, the integral of x^-s past it (relative error
// below 1e-6 for s in [0, 2]).
double zipf_normaliser(double ranks, double s) {
  if (ranks <= 1) return 1;
  const double exact = std::min(ranks, 1000.0);
  double h = 0;
  for (double k = 1; k <= exact; ++k) h += std::pow(k, -s);
  if (ranks > exact) {
    const double a = exact + 0.5;
    const double b = ranks + 0.5;
    h += std::abs(s - 1) < 1e-9 ? std::log(b / a)
                                : (std::pow(b, 1 - s) - std::pow(a, 1 - s)) / (1 - s);
  }
  return h;
}

// Whether a scatter's combiner computes (an add, a max): its root is not one of its
// parameters (a combiner that returns the update only overwrites, with no read-modify-write).
bool combines(const Instruction& s) {
  const Computation* f = s.to_apply();
  return f != nullptr && f->root() != nullptr && f->root()->opcode() != Opcode::kParameter;
}

// The time a scatter's repeated indices add: the busiest row's updates as a chain of
// same-address atomics. None (applies false) when 32-bit or wider indices are sorted (the
// sorted model's conflicts time them) or declared unique, or when the combiner only
// overwrites. Sorting does not shorten a 16-bit chain, it puts a row's repeats side by side:
// bench/measured's bf16 embedding gradient of Zipf 1.1 token ids ran 23.5 ms a call with its
// ids sorted (`indices_are_sorted`), 17.6 ms unsorted, 0.34 ms with uniform ones. Repeats are
// the updates on the busiest row: expected (indices spread evenly over the rows: updates / rows,
// the fewest, the range's low end), zipf (a Zipf law of exponent kScatterTextZipf over the rows:
// the range's top), one_row (every update on one row); each _s is the time its chain adds.
struct ScatterContention {
  bool applies = false;
  double same_address_s = 0;  // a repeat's wait, by element type
  double expected_repeats = 0, zipf_repeats = 0, one_row_repeats = 0;
  double expected_s = 0, zipf_s = 0, one_row_s = 0;
};

ScatterContention scatter_contention(double updates, double table_rows, double element_bytes,
                                     bool sorted, bool unique, bool combiner) {
  ScatterContention c;
  if ((sorted && element_bytes >= 4) || unique || !combiner || updates <= 0 || table_rows <= 0) {
    return c;
  }
  c.applies = true;
  c.same_address_s = element_bytes < 4 ? kScatterSameAddress16S : kScatterSameAddressS;
  const double rows = std::max(table_rows, 1.0);
  c.expected_repeats = updates / rows;
  c.zipf_repeats = updates / zipf_normaliser(rows, kScatterTextZipf);
  c.one_row_repeats = updates;
  // A row's first update waits on no other: a chain of n updates costs n - 1 waits.
  const auto chain = [&](double n) { return std::max(n - 1, 0.0) * c.same_address_s; };
  c.expected_s = chain(c.expected_repeats);
  c.zipf_s = chain(c.zipf_repeats);
  c.one_row_s = chain(c.one_row_repeats);
  return c;
}

std::optional<FamilyTime> scatter(const Instruction& s, const DeviceSpec& device) {
  const size_t n = (s.operand_count() - 1) / 2;
  if (n == 0 || s.operand_count() < 3) return std::nullopt;
  const Shape& table = s.operand(0)->shape();
  const Shape& indices = s.operand(n)->shape();
  const Shape& updates = s.operand(n + 1)->shape();
  if (!table.is_array() || !updates.is_array()) return std::nullopt;
  const ScatterDimensionNumbers dims = s.scatter_dimensions();
  double width = 1;
  for (int64_t d : dims.update_window_dims) {
    if (d >= 0 && d < updates.rank()) width *= static_cast<double>(updates.dims[d].size);
  }
  const double rows = product(updates) / std::max(width, 1.0);
  const double e = primitive_storage_bytes(updates.element_type);
  const double table_bytes = product(table) * primitive_storage_bytes(table.element_type);
  const double table_rows = table_bytes / std::max(width * e, 1.0);
  const bool sorted = s.bool_attribute(AttrId::kIndicesAreSorted);
  const bool unique = s.bool_attribute(AttrId::kUniqueIndices);
  const double index_bytes = product(indices) * primitive_storage_bytes(indices.element_type);
  const bool in_l2 = rows_stay_in_l2(table_bytes, table_rows,
                                     width * e + index_bytes / std::max(rows, 1.0), device);
  double bytes = rows * width * e + index_bytes;
  if (!in_l2) bytes += sorted ? 2 * table_bytes : rows * 2 * roundup32(width * e);
  const double element_s = unique  ? 1 / kStoreElementsPerS
                           : e < 4 ? kScatterAtomic16S
                                   : kScatterAtomicF32S;
  const double conflict = e < 4 ? kScatterAtomic16S : kScatterConflictS;
  const double conflicts =
      sorted && !unique ? std::max(1.0, std::min(32 / width, rows / std::max(table_rows, 1.0)))
                        : 1.0;
  const double issue = sm_scaled(
      rows * kScatterRowS + rows * width * (element_s + (conflicts - 1) * conflict), device);
  const double memory = hbm_s(bytes, device);
  const ScatterContention c = scatter_contention(rows, table_rows, e, sorted, unique, combines(s));
  const double base = std::max(memory, issue);
  FamilyTime t;
  t.family = unique ? "scatter (stores)" : "scatter (atomics)";
  t.device_s = base + c.expected_s;
  t.basis = absl::StrFormat(
      "scatter of %.4g rows of %g %s into a %s table of %.4g rows (%s): max(memory %s (%.4g B), "
      "%s %s: %.3g ps a row + %.3g ps an element%s) (fitted, h200 sweep)",
      rows, width, sv(primitive_type_name(updates.element_type)),
      in_l2 ? "L2-resident" : "HBM", table_rows,
      unique   ? "unique indices"
      : sorted ? "sorted indices"
               : "indices in any order",
      us(memory), bytes, unique ? "stores, no atomics" : "atomics", us(issue),
      kScatterRowS * 1e12, element_s * 1e12,
      sorted && !unique
          ? absl::StrFormat(", + %.3g same-address waits an element at %.3g ps (fitted, h200 "
                            "and h100 sweeps)",
                            conflicts - 1, conflict * 1e12)
          : "");
  if (c.applies) {
    t.basis += absl::StrFormat(
        " + repeated indices: the busiest row's chain of same-address atomics, %s a repeat "
        "(%s; assumed, held-out sweeps); expected case, indices spread evenly over the rows "
        "(the fewest repeats on the busiest row): %.4g updates a row, +%s; range %s to %s (a "
        "Zipf law of exponent %g over the rows, as text's token ids: %.4g updates on the first "
        "row); every update on one row: %s",
        us(c.same_address_s), e < 4 ? "16-bit atomics" : "32-bit and wider atomics",
        c.expected_repeats, us(c.expected_s), us(t.device_s), us(base + c.zipf_s),
        kScatterTextZipf, c.zipf_repeats, us(base + c.one_row_s));
    t.range = TimeRange{
        .low_s = t.device_s,
        .high_s = base + c.zipf_s,
        .low = "indices spread evenly over the rows",
        .high = absl::StrFormat("a Zipf law of exponent %g over the rows, as text's token ids",
                                kScatterTextZipf)};
  }
  return t;
}

std::optional<FamilyTime> gather(const Instruction& g, const Instruction& op,
                                 const DeviceSpec& device) {
  if (g.operand_count() < 2) return std::nullopt;
  const Shape& table = g.operand(0)->shape();
  const Shape& indices = g.operand(1)->shape();
  const Shape& out = first_array(op.shape());
  if (!table.is_array() || !out.is_array()) return std::nullopt;
  const IntList slice = g.gather_dimensions().slice_sizes;
  double width = 1;
  for (int64_t s : slice) width *= static_cast<double>(s);
  const double e = primitive_storage_bytes(table.element_type);
  const double rows = product(first_array(g.shape())) / std::max(width, 1.0);
  const double table_bytes = product(table) * primitive_storage_bytes(table.element_type);
  const double out_bytes = product(out) * primitive_storage_bytes(out.element_type);
  const double index_bytes = product(indices) * primitive_storage_bytes(indices.element_type);
  const double table_rows = table_bytes / std::max(width * e, 1.0);
  const bool in_l2 = rows_stay_in_l2(table_bytes, table_rows,
                                     (out_bytes + index_bytes) / std::max(rows, 1.0), device);
  const double bytes = (in_l2 ? 0.0 : rows * roundup32(width * e)) + out_bytes + index_bytes;
  const double memory = hbm_s(bytes, device);
  const double issue = sm_scaled(rows * kGatherRowS, device);
  const double store = sm_scaled(product(out) / kStoreElementsPerS, device);
  FamilyTime t;
  t.family = "row gather";
  t.device_s = std::max({memory, issue, store});
  t.basis = absl::StrFormat(
      "gather of %.4g rows of %g %s from a %s table: max(memory %s (%.4g B), %.3g ps a row: "
      "%s, %.4g elements stored at %.3g G/s: %s) (fitted, h200 sweep)",
      rows, width, sv(primitive_type_name(table.element_type)), in_l2 ? "L2-resident" : "HBM",
      us(memory), bytes, kGatherRowS * 1e12, us(issue), product(out), kStoreElementsPerS / 1e9,
      us(store));
  return t;
}

// A fusion that only broadcasts a scalar (a fill): its stores set its time.
std::optional<FamilyTime> fill(const Instruction& op, const Instruction& root,
                               const DeviceSpec& device) {
  if (op.opcode() != Opcode::kFusion || root.opcode() != Opcode::kBroadcast) return std::nullopt;
  if (root.operand_count() != 1 || root.operand(0)->shape().rank() != 0) return std::nullopt;
  const Shape& out = root.shape();
  const double bytes = product(out) * primitive_storage_bytes(out.element_type);
  const double memory = hbm_s(bytes, device);
  const double store = sm_scaled(product(out) / kStoreElementsPerS, device);
  FamilyTime t;
  t.family = "fill";
  t.device_s = std::max(memory, store);
  t.basis = absl::StrFormat(
      "a fill of %.4g elements: max(memory %s, stores at %.3g G elements/s: %s) (fitted, h200 "
      "sweep)",
      product(out), us(memory), kStoreElementsPerS / 1e9, us(store));
  return t;
}

// The input, filter and output of a convolution: an HLO convolution, or a cuDNN call whose
// operands and result are those of the forward convolution its window and dim_labels describe,
// permuted by the pass.
struct ConvShapes {
  const Shape* input = nullptr;
  const Shape* filter = nullptr;
  const Shape* output = nullptr;
};

std::optional<ConvShapes> conv_shapes(const Instruction& i) {
  if (i.operand_count() < 2) return std::nullopt;
  const Shape& a = i.operand(0)->shape();
  const Shape& b = i.operand(1)->shape();
  const Shape& r = first_array(i.shape());
  if (i.opcode() == Opcode::kConvolution) return ConvShapes{&a, &b, &r};
  const std::string_view target = i.custom_call_target();
  if (target == "__cudnn$convBackwardInput") return ConvShapes{&r, &b, &a};
  if (target == "__cudnn$convBackwardFilter") return ConvShapes{&a, &r, &b};
  return ConvShapes{&a, &b, &r};
}

// The pass a convolution runs: an HLO convolution or a forward cuDNN call, or a cuDNN gradient.
enum class ConvPass { kForward, kDataGrad, kFilterGrad };

ConvPass conv_pass(const Instruction& i) {
  const std::string_view target =
      i.opcode() == Opcode::kCustomCall ? i.custom_call_target() : std::string_view();
  if (target == "__cudnn$convBackwardInput") return ConvPass::kDataGrad;
  if (target == "__cudnn$convBackwardFilter") return ConvPass::kFilterGrad;
  return ConvPass::kForward;
}

// The elements in the tensor's 16-byte vectors for the matrix type of `work`.
double vector_elements(const OpWork& work) {
  const int bits = primitive_bit_width(work.matrix_type);
  return bits > 0 ? 128.0 / bits : 1;
}

// The input positions a depthwise kernel's window reads per element it writes: over the
// spatial dimensions, prod((o - 1) stride + (k - 1) dilation + 1) / prod(o), o the written
// extent (the output's; the data gradient's input, at unit stride), k the filter's. 1 when the
// window cannot be read.
double window_extent_ratio(const Instruction& i, const ConvDimLabels& labels,
                           const ConvShapes& s, ConvPass pass) {
  const Window* w = i.window();
  const Shape& written = pass == ConvPass::kDataGrad ? *s.input : *s.output;
  const auto& spatial = pass == ConvPass::kDataGrad ? labels.input_spatial : labels.output_spatial;
  if (w == nullptr || w->dims.size() != spatial.size()) return 1;
  double ratio = 1;
  for (size_t d = 0; d < spatial.size(); ++d) {
    if (spatial[d] < 0 || spatial[d] >= written.rank()) return 1;
    const double o = static_cast<double>(written.dims[spatial[d]].size);
    const WindowDim& k = w->dims[d];
    if (o < 1 || k.size < 1) return 1;
    const double stride = pass == ConvPass::kDataGrad ? 1 : static_cast<double>(k.stride);
    const double extent = (o - 1) * stride +
                          static_cast<double>(k.size - 1) * static_cast<double>(k.rhs_dilation) + 1;
    ratio *= extent / o;
  }
  return ratio;
}

// Depthwise convolutions, and grouped ones whose input features per group do not fill the
// tensor cores' vectors: the CUDA-core kernel, per output element kDepthwiseOutputS and
// kDepthwiseTapS a tap x input feature of its group.
std::optional<FamilyTime> depthwise(const Instruction& i, const OpWork& work,
                                    const DeviceSpec& device) {
  const ConvDimLabels* labels = i.conv_dim_labels();
  const std::optional<ConvShapes> s = conv_shapes(i);
  if (labels == nullptr || !s || !s->input->is_array() || !s->filter->is_array() ||
      !s->output->is_array()) {
    return std::nullopt;
  }
  const int64_t groups = i.feature_group_count();
  const int64_t f = labels->input_feature;
  if (groups <= 1 || f < 0 || f >= s->input->rank()) return std::nullopt;
  const double per_group = static_cast<double>(s->input->dims[f].size) / groups;
  if (per_group < 1) return std::nullopt;
  const bool depthwise = per_group == 1;
  if (!depthwise && std::fmod(per_group, vector_elements(work)) == 0) return std::nullopt;
  double taps = 1;
  for (int64_t d : labels->kernel_spatial) {
    if (d >= 0 && d < s->filter->rank()) taps *= std::max<double>(1, s->filter->dims[d].size);
  }
  const ConvPass pass = conv_pass(i);
  // The elements a thread writes: the forward output, the data gradient's input; a filter
  // gradient's threads walk the forward output's elements.
  const double outputs = product(pass == ConvPass::kDataGrad ? *s->input : *s->output);
  const bool grad = pass == ConvPass::kFilterGrad;
  const double per_output = grad ? kDepthwiseGradOutputS : kDepthwiseOutputS;
  const double per_tap = grad ? kDepthwiseGradTapS : kDepthwiseTapS;
  // The window's halo (forward and data gradient; a filter gradient's threads walk outputs).
  const double halo = grad ? 1 : window_extent_ratio(i, *labels, *s, pass);
  const double tap_s = per_tap + (grad ? 0 : (halo - 1) * kDepthwiseHaloTapS);
  const double sums = taps * per_group;
  const double compute = sm_scaled(outputs * (per_output + sums * tap_s), device);
  const double memory = hbm_s(work.hbm_bytes, device);
  std::string range;
  if (!depthwise) {
    range = absl::StrFormat(
        "; extrapolated: no grouped convolution with %g input features a group was measured, "
        "only depthwise ones",
        per_group);
  } else {
    if (taps < kDepthwiseMeasuredTaps[0] || taps > kDepthwiseMeasuredTaps[1]) {
      range = absl::StrFormat("; extrapolated: %g taps, outside the measured %g-%g", taps,
                              kDepthwiseMeasuredTaps[0], kDepthwiseMeasuredTaps[1]);
    }
    if (outputs < kDepthwiseMeasuredOutputs[0] || outputs > kDepthwiseMeasuredOutputs[1]) {
      absl::StrAppend(&range, range.empty() ? "; extrapolated: " : ", ",
                      absl::StrFormat("%.3g M outputs, outside the measured %.3g-%.3g M",
                                      outputs / 1e6, kDepthwiseMeasuredOutputs[0] / 1e6,
                                      kDepthwiseMeasuredOutputs[1] / 1e6));
    }
  }
  FamilyTime t;
  t.family = depthwise ? "depthwise convolution" : "grouped convolution";
  t.device_s = std::max(compute, memory);
  t.basis = absl::StrFormat(
      "a %s%s (%d groups of %g input features) on CUDA cores: max(%.4g output elements x "
      "(%.3g ps + %g taps x features x %.3g ps%s), SM-bound: %s, memory %s) (fitted, h200 and "
      "h100 sweeps%s%s)",
      depthwise ? "depthwise convolution" : "grouped convolution",
      grad ? "'s filter gradient" : "", groups, per_group, outputs, per_output * 1e12, sums,
      tap_s * 1e12,
      grad ? ""
           : absl::StrFormat(": %.3g + %.3g a halo tap, the window reading %.3g inputs an output",
                             per_tap * 1e12, kDepthwiseHaloTapS * 1e12, halo),
      us(compute), us(memory), grad ? "" : ", h200 convolutions", range);
  return t;
}

// A forward cuDNN convolution of feature groups with one output feature each and more than
// one input feature: a grouped filter gradient with its batch folded into the features (see
// kFoldedConvStepS).
std::optional<FamilyTime> folded_filter_gradient(const Instruction& i, const OpWork& work,
                                                 const DeviceSpec& device) {
  const ConvDimLabels* labels = i.conv_dim_labels();
  const std::optional<ConvShapes> s = conv_shapes(i);
  if (i.opcode() != Opcode::kCustomCall || conv_pass(i) != ConvPass::kForward ||
      labels == nullptr || !s || !s->input->is_array() || !s->filter->is_array() ||
      !s->output->is_array()) {
    return std::nullopt;
  }
  const int64_t groups = i.feature_group_count();
  const int64_t fi = labels->input_feature, fo = labels->kernel_output_feature;
  if (groups <= 1 || fi < 0 || fi >= s->input->rank() || fo < 0 || fo >= s->filter->rank()) {
    return std::nullopt;
  }
  const double per_group_in = static_cast<double>(s->input->dims[fi].size) / groups;
  const double per_group_out = static_cast<double>(s->filter->dims[fo].size) / groups;
  if (per_group_in <= 1 || per_group_out != 1) return std::nullopt;
  double taps = 1;
  for (int64_t d : labels->kernel_spatial) {
    if (d >= 0 && d < s->filter->rank()) taps *= std::max<double>(1, s->filter->dims[d].size);
  }
  const double outputs = product(*s->output);
  if (outputs <= 0) return std::nullopt;
  const double chain = per_group_in * taps;
  const double slots = kFoldedConvThreadSlots * device.vector_flops_per_s / kSweepVectorPeak;
  const double waves = slots > 0 ? std::max(1.0, std::ceil(outputs / slots)) : 1;
  const double latency = waves * chain * kFoldedConvStepS;
  const double memory = hbm_s(work.hbm_bytes, device);
  FamilyTime t;
  t.family = "folded filter gradient";
  t.device_s = std::max(latency, memory);
  t.basis = absl::StrFormat(
      "a grouped filter gradient run as a forward convolution, its batch folded into %d groups "
      "of %g input features and one output: one thread an output, %.4g outputs in %g wave%s, "
      "each summing %g products (%g features x %g taps) at %.3g us apiece: %s; memory %s "
      "(assumed: one measurement, h200 convolutions)",
      groups, per_group_in, outputs, waves, waves == 1 ? "" : "s", chain, per_group_in, taps,
      kFoldedConvStepS * 1e6, us(latency), us(memory));
  return t;
}

// Whether a convolution's window is a pointwise one: every filter tap 1, unit strides, no
// padding or dilation.
bool pointwise(const Instruction& i, const ConvShapes& s, const ConvDimLabels& labels) {
  const Window* w = i.window();
  if (w == nullptr) return false;
  for (const WindowDim& d : w->dims) {
    if (d.size != 1 || d.stride != 1 || d.pad_low != 0 || d.pad_high != 0 ||
        d.lhs_dilation != 1 || d.rhs_dilation != 1) {
      return false;
    }
  }
  for (int64_t d : labels.kernel_spatial) {
    if (d < 0 || d >= s.filter->rank() || s.filter->dims[d].size != 1) return false;
  }
  return true;
}

// The share of a GEMM dimension of `c` channels that fills kCudnnChannelTile-wide tiles.
double tile_fill(double c) {
  return c > 0 ? c / (kCudnnChannelTile * std::ceil(c / kCudnnChannelTile)) : 1;
}

std::optional<FamilyTime> dense_conv(const Instruction& i, const OpWork& work,
                                     const DeviceSpec& device) {
  const std::optional<measured::GemmShape> g = implicit_gemm(i);
  const std::optional<double> peak = device.matrix_peak(work.matrix_type);
  if (!g || !peak || *peak <= 0 || work.matrix_flops <= 0) return std::nullopt;
  const ConvDimLabels* labels = i.conv_dim_labels();
  const std::optional<ConvShapes> s = conv_shapes(i);
  const int64_t fi = labels->kernel_input_feature, fo = labels->kernel_output_feature;
  if (fi < 0 || fi >= s->filter->rank() || fo < 0 || fo >= s->filter->rank()) return std::nullopt;
  const double groups = static_cast<double>(std::max<int64_t>(1, i.feature_group_count()));
  const double in = static_cast<double>(s->filter->dims[fi].size);
  const double out = static_cast<double>(s->filter->dims[fo].size) / groups;
  const double taps = product(*s->filter) / std::max(1.0, in * out * groups);
  const ConvPass pass = conv_pass(i);
  const bool data_grad = pass == ConvPass::kDataGrad;
  const bool filter_grad = pass == ConvPass::kFilterGrad;
  const double fill = data_grad     ? tile_fill(in)
                      : filter_grad ? tile_fill(in * taps) * tile_fill(out)
                                    : tile_fill(out) * tile_fill(in * taps);
  const bool aligned = std::fmod(in, vector_elements(work)) == 0;
  const double share = aligned ? kCudnnTensorShare * fill : kCudnnUnalignedVectorShare;
  const double rate = aligned ? share * *peak : share * device.vector_flops_per_s;
  if (rate <= 0) return std::nullopt;
  const bool gemm = aligned && pointwise(i, *s, *labels);
  const double fixed = gemm ? kCudnnPointwiseFixedS : kCudnnFixedS;
  const double overlap = gemm ? kCudnnPointwiseOverlap : kCudnnOverlap;
  const double reduce = filter_grad ? kCudnnFilterGradReduceS : 0.0;
  const double compute = work.matrix_flops / rate;
  const double memory = hbm_s(work.hbm_bytes, device);
  FamilyTime t;
  t.family = "cuDNN convolution";
  t.device_s = fixed + std::max(compute, memory) + overlap * std::min(compute, memory) + reduce;
  const std::string at =
      aligned ? absl::StrFormat("%.2f of the tensor peak (%.2f, x%.2f for the channels' fill of "
                                "%g-wide tiles)",
                                share, kCudnnTensorShare, fill, kCudnnChannelTile)
              : absl::StrFormat("%.2f of the vector peak (%g input features: no tensor cores)",
                                share, in);
  const std::string grouped =
      groups > 1 ? absl::StrFormat(" (%g groups; extrapolated: no grouped convolutions but "
                                   "depthwise ones were measured)",
                                   groups)
                 : "";
  t.basis = absl::StrFormat(
      "a cuDNN %s%s%s: %s + max(%.4g FLOPs at %s: %s, memory %s) + %.1f x the smaller%s "
      "(fitted, h200 and h100 sweeps)",
      data_grad ? "data gradient" : filter_grad ? "filter gradient" : "convolution",
      gemm ? ", pointwise (a GEMM engine)" : "", grouped, us(fixed), work.matrix_flops, at,
      us(compute), us(memory), overlap,
      filter_grad ? absl::StrFormat(" + %s to reduce the partial filters", us(reduce)) : "");
  return t;
}

// A fusion (or a lone reduce-window) whose reduce-windows walk their windows: max(memory, the
// window steps of every reduce-window in it).
std::optional<FamilyTime> reduce_window(const Instruction& op, const OpWork& work,
                                        const DeviceSpec& device) {
  const Computation* fused = op.opcode() == Opcode::kFusion
                                 ? op.computation_attribute(AttrId::kCalls)
                                 : nullptr;
  // Elementwise consumers in the fusion compute only the elements they keep (a slice of the
  // windows' last column): no more windows than the fusion's output holds.
  const double outputs = product(first_array(op.shape()));
  double steps = 0;
  const auto add = [&steps, outputs](const Instruction& rw) {
    const Window* w = rw.window();
    if (w == nullptr) return;
    double window = 1;
    int windowed = 0;
    for (const WindowDim& d : w->dims) {
      window *= static_cast<double>(std::max<int64_t>(d.size, 1));
      windowed += d.size > 1 ? 1 : 0;
    }
    steps += std::min(product(first_array(rw.shape())), outputs) * window * windowed;
  };
  if (op.opcode() == Opcode::kReduceWindow) add(op);
  if (fused != nullptr) {
    for (const Instruction* inner : fused->instructions()) {
      if (inner->opcode() == Opcode::kReduceWindow) add(*inner);
    }
  }
  if (steps <= 0) return std::nullopt;
  const double walk = sm_scaled(steps * kWindowStepS, device);
  const double memory = hbm_s(work.hbm_bytes, device);
  FamilyTime t;
  t.family = "reduce-window";
  t.device_s = std::max(walk, memory);
  t.basis = absl::StrFormat(
      "a reduce-window loop: max(%.4g window steps (element x windowed dimension) at %.3g ps: "
      "%s, memory %s) (fitted, h200 sweep)",
      steps, kWindowStepS * 1e12, us(walk), us(memory));
  return t;
}

// The reduce a fusion of XLA's reduction emitter is about (kind kInput; the one over the
// largest input where it holds several), or a lone reduce; null otherwise.
const Instruction* hero_reduce(const Instruction& i) {
  if (i.opcode() == Opcode::kReduce) return &i;
  if (i.opcode() != Opcode::kFusion || i.fusion_kind() != "kInput") return nullptr;
  const Computation* fused = i.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return nullptr;
  const Instruction* hero = nullptr;
  for (const Instruction* inner : fused->instructions()) {
    if (inner->opcode() != Opcode::kReduce || inner->operand_count() < 2) continue;
    if (hero == nullptr ||
        product(inner->operand(0)->shape()) > product(hero->operand(0)->shape())) {
      hero = inner;
    }
  }
  return hero;
}

// Whether fusion `i`, besides `reduce`, writes an output of as many elements as the reduce reads
// (a side output XLA's emitter stores as it walks the rows).
bool writes_side_output(const Instruction& i, const Instruction& reduce) {
  if (i.opcode() != Opcode::kFusion) return false;
  const Computation* fused = i.computation_attribute(AttrId::kCalls);
  const Instruction* root = fused == nullptr ? nullptr : fused->root();
  if (root == nullptr || root->opcode() != Opcode::kTuple) return false;
  const double elements = product(reduce.operand(0)->shape());
  for (const Instruction* out : root->operands()) {
    if (out->opcode() != Opcode::kReduce && product(out->shape()) == elements) return true;
  }
  return false;
}

// A column reduction as XLA's emitter sees its input: major kept x reduced x minor kept
// elements, in layout order with size-1 dimensions dropped.
struct ColumnShape {
  double major = 1, reduced = 1, minor = 1;
};

// `reduce`'s ColumnShape where it keeps its input's minor dimension and its reduced dimensions
// lie together; nullopt for a row reduction and the rest.
std::optional<ColumnShape> column_shape(const Instruction& reduce) {
  const Shape& in = reduce.operand(0)->shape();
  if (!in.is_array() || in.dims.empty()) return std::nullopt;
  const IntList reduced = reduce.dimensions();
  const auto rank = static_cast<int64_t>(in.dims.size());
  // Runs of reduced or kept dimensions, major to minor.
  std::vector<std::pair<bool, double>> runs;
  for (int64_t k = rank - 1; k >= 0; --k) {
    const int64_t d =
        in.layout && in.layout->minor_to_major.size() == in.dims.size()
            ? in.layout->minor_to_major[static_cast<size_t>(k)]
            : rank - 1 - k;
    if (d < 0 || d >= rank) return std::nullopt;
    const auto size = static_cast<double>(in.dims[static_cast<size_t>(d)].size);
    if (size == 1) continue;
    const bool r = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
    if (!runs.empty() && runs.back().first == r) {
      runs.back().second *= size;
    } else {
      runs.emplace_back(r, size);
    }
  }
  if (runs.size() < 2 || runs.size() > 3 || runs.back().first) return std::nullopt;
  ColumnShape c;
  c.minor = runs.back().second;
  c.reduced = runs[runs.size() - 2].second;
  if (runs.size() == 3) c.major = runs.front().second;
  return c;
}

// The vector XLA's reduction emitter loads for 32 threads along a minor dimension of `minor`
// elements: none for an odd or short one or complex inputs, 2 for inputs of 32 bits or more or
// a minor dimension under 128, else 4.
int column_vector(double minor, int smallest_input_bits, bool complex) {
  if (std::fmod(minor, 2.0) != 0 || minor < 64 || complex) return 1;
  if (smallest_input_bits >= 32 || minor < 128) return 2;
  return std::fmod(minor, 4.0) == 0 ? 4 : 2;
}

// A column reduction too short of blocks to reach HBM's rate: its start, then waves x rows a
// thread x the time of a row, at least (the general model's time stands where longer); nullopt
// where memory takes longer or it is no column reduction.
std::optional<FamilyTime> column_reduction(const Instruction& i, const OpWork& work,
                                           const DeviceSpec& device) {
  const Instruction* reduce = hero_reduce(i);
  if (reduce == nullptr) return std::nullopt;
  const std::optional<ColumnShape> c = column_shape(*reduce);
  // More than 4096 rows is a program XLA has not optimized yet: its tree rewriter splits them
  // into two kernels of many blocks.
  if (!c || c->reduced > 4096) return std::nullopt;
  int smallest_bits = 64;
  for (const Instruction* operand : i.operands()) {
    const Shape& s = first_array(operand->shape());
    if (s.is_array()) {
      smallest_bits = std::min(smallest_bits, 8 * primitive_storage_bytes(s.element_type));
    }
  }
  const bool complex = is_complex(reduce->operand(0)->shape().element_type);
  // XLA's small-column emitter takes 32 kept columns or fewer (a divisor of the warp), its
  // 128 threads vectorized over reduced x minor; the other a 32 x 32 block over 32 vectors of
  // columns, a thread every 32nd row.
  const bool small = std::fmod(32.0, c->minor) == 0;
  double threads = 1024, blocks = 0, rows = 0;
  int vector = 1;
  if (small) {
    threads = 128;
    vector = column_vector(c->reduced * c->minor, smallest_bits, complex);
    double shared = vector * threads / c->minor;  // rows summed through shared memory
    while (shared > 32 && vector > 1) vector /= 2, shared /= 2;
    if (shared > 32) threads /= shared / 32;
    blocks = c->major;
    rows = std::ceil(c->reduced * c->minor / (vector * threads));
  } else {
    vector = column_vector(c->minor, smallest_bits, complex);
    blocks = c->major * std::ceil(c->minor / (32.0 * vector));
    rows = std::ceil(c->reduced / 32);
  }
  const bool in_l2 = fits_l2_partition(work.hbm_read_bytes, device);
  const bool side_output = !small && writes_side_output(i, *reduce);
  const double row_s = small ? kSmallColumnRowS * (in_l2 ? 1 : kColumnRowHbmS / kColumnRowL2S)
                             : (in_l2 ? kColumnRowL2S : kColumnRowHbmS) +
                                   (side_output ? kColumnSideOutputRowS : 0);
  const double sms = kSweepSms / sm_scaled(1.0, device);  // the SMs, as the vector peak has them
  const double waves =
      std::ceil(blocks / (sms * std::min(32.0, std::max(1.0, std::floor(2048 / threads)))));
  const double start = small ? 0 : kColumnStartS;
  const double latency = start + waves * rows * row_s;
  const double memory = hbm_s(work.hbm_bytes, device);
  if (latency <= memory) return std::nullopt;
  FamilyTime t;
  t.family = "column reduction";
  t.device_s = latency;
  t.at_least = true;
  t.basis = absl::StrFormat(
      "XLA's %s column reduction of %g x %g x %g (kept, reduced, kept): %g blocks of %g threads, "
      "a thread walking %g rows in vectors of %d; %.2g us + %g wave%s x %g rows x %.3g us a row "
      "(%s%s; %s): %s, above memory's %s",
      small ? "128-thread" : "32 x 32-thread", c->major, c->reduced, c->minor, blocks, threads,
      rows, vector, start * 1e6, waves, waves == 1 ? "" : "s", rows, row_s * 1e6,
      in_l2 ? "inputs L2 holds" : "inputs from HBM",
      side_output ? ", storing a side output" : "",
      small && !in_l2         ? "assumed: the small emitter's L2 time scaled as the other's"
      : side_output && !in_l2 ? "the side output's store assumed as from L2"
                              : "fitted, h200 sweeps",
      us(latency), us(memory));
  return t;
}

// The share of its tensor peak a cuDNN attention pass reaches at head dimension `head_dim` and
// `keys` keys (kAttentionTflops).
double attention_share(bool backward, double head_dim, double keys) {
  // The position of x in the ascending table `at` of n points: index and weight of the next.
  const auto locate = [](const double* at, int n, double x) {
    x = std::clamp(x, at[0], at[n - 1]);
    int k = 0;
    while (k + 2 < n && x > at[k + 1]) ++k;
    return std::pair<int, double>(k, n > 1 ? (x - at[k]) / (at[k + 1] - at[k]) : 0.0);
  };
  const auto [h, hw] = locate(kAttentionHeadDimLog2, 2, std::log2(std::max(head_dim, 1.0)));
  const auto [s, sw] = locate(kAttentionKeysLog2, 6, std::log2(std::max(keys, 1.0)));
  const auto row = [&, s = s, sw = sw](int d) {
    const double* r = kAttentionTflops[backward ? 1 : 0][d];
    return r[s] + sw * (r[s + 1] - r[s]);
  };
  return (row(h) + hw * (row(h + 1) - row(h))) / kAttentionPeakTflops;
}

std::optional<FamilyTime> cudnn_attention(const cost::AttentionCall& call, const OpWork& work,
                                          const DeviceSpec& device) {
  const std::optional<double> peak = device.matrix_peak(work.matrix_type);
  if (!peak || *peak <= 0 || work.matrix_flops <= 0) return std::nullopt;
  const double share = attention_share(call.backward, call.head_dim, call.keys);
  const double compute = work.matrix_flops / (share * *peak);
  const double memory = hbm_s(work.hbm_bytes, device);
  FamilyTime t;
  t.family = "cuDNN attention";
  t.source = "published";
  t.device_s = std::max(compute, memory);
  t.basis = absl::StrFormat(
      "cuDNN attention%s, %s pass, head dim %g, %g keys: max(%.4g FLOPs at %.2f of the tensor "
      "peak: %s, memory %s) (published: cuDNN 9.1 on an H100 in FlashAttention-3's "
      "benchmarks, as a share of the peak)",
      call.library == "cuDNN" ? "" : " (a TransformerEngine call)",
      call.backward ? "backward" : "forward", call.head_dim, call.keys, work.matrix_flops, share,
      us(compute), us(memory));
  return t;
}

bool is_cudnn_call(const Instruction& i) {
  return i.opcode() == Opcode::kCustomCall &&
         absl::StartsWith(sv(i.custom_call_target()), "__cudnn$conv");
}

// Whether a cuDNN call runs before `i` in its computation. Each call looks back only to the
// one before it, so a computation's calls together read it once.
bool follows_cudnn_call(const Instruction& i) {
  const Computation* c = i.parent();
  if (c == nullptr) return false;
  const absl::Span<Instruction* const> ops = c->instructions();
  for (int64_t p = std::min<int64_t>(i.position(), static_cast<int64_t>(ops.size())) - 1; p >= 0;
       --p) {
    if (is_cudnn_call(*ops[static_cast<size_t>(p)])) return true;
  }
  return false;
}

}  // namespace

namespace {

// The kernel a cuBLAS call launches: the host takes kLoopHostCublasS for it.
double launch_of(const Instruction& i) {
  const bool cublas = i.opcode() == Opcode::kCustomCall &&
                      absl::StartsWith(sv(i.custom_call_target()), "__cublas$");
  return cublas ? kLoopHostCublasS : kLoopHostPerKernelS;
}

// Whether a library call's host gap (FamilyTime::host_gap_s: cuDNN's, CUB's) times the host's
// work before it, its launch included.
bool has_library_gap(const Instruction& i) {
  return i.opcode() == Opcode::kCustomCall &&
         (is_cudnn_call(i) || is_cub_sort(i.custom_call_target()));
}

}  // namespace

double loop_host_gap_s(const Instruction& i, const DeviceSpec& device) {
  if (!takes_gpu_families(device) || is_pointer_only(i.opcode())) return 0;
  const Computation* body = i.parent();
  if (body == nullptr || body->while_loop() == nullptr) return 0;
  // Counted until a command buffer's worth: every op of a large body asks.
  int kernels = 0;
  for (const Instruction* op : body->instructions()) {
    if (!is_pointer_only(op->opcode()) && ++kernels >= kCommandBufferMinKernels) return 0;
  }
  return launch_of(i);
}

const Instruction* host_launched_program(const Computation& c) {
  if (!c.is_entry()) return nullptr;
  int kernels = 0;
  const Instruction* first = nullptr;
  for (const Instruction* op : c.instructions()) {
    const Opcode o = op->opcode();
    if (is_pointer_only(o)) continue;
    // Control flow, async work and collectives: not the plain run of kernels this times.
    if (o == Opcode::kWhile || o == Opcode::kConditional || o == Opcode::kCall ||
        is_async_start(o) || opcode_category(o) == OpCategory::kCommunication ||
        ++kernels >= kCommandBufferMinKernels) {
      return nullptr;
    }
    if (first == nullptr) first = op;
  }
  return first;
}

double program_launch_s(const Instruction& i, const DeviceSpec& device,
                        const Instruction* program_first) {
  if (program_first == nullptr || &i == program_first || i.parent() != program_first->parent() ||
      !takes_gpu_families(device) || is_pointer_only(i.opcode()) || has_library_gap(i)) {
    return 0;
  }
  return launch_of(i);
}

std::optional<measured::GemmShape> implicit_gemm(const Instruction& conv, ConvTaps which) {
  const ConvDimLabels* labels = conv.conv_dim_labels();
  const std::optional<ConvShapes> s = conv_shapes(conv);
  if (labels == nullptr || !s || !s->input->is_array() || !s->filter->is_array() ||
      !s->output->is_array()) {
    return std::nullopt;
  }
  const auto size = [](const Shape& shape, int64_t d) {
    return d >= 0 && d < shape.rank() ? static_cast<double>(shape.dims[d].size) : -1.0;
  };
  const double groups = static_cast<double>(std::max<int64_t>(1, conv.feature_group_count()));
  const double in_features = size(*s->input, labels->input_feature);
  const double out_features = size(*s->filter, labels->kernel_output_feature);
  const double filter_in = size(*s->filter, labels->kernel_input_feature);
  const double batch = size(*s->output, labels->output_batch);
  if (in_features <= 0 || out_features <= 0 || filter_in <= 0 || batch <= 0) return std::nullopt;
  if (groups > 1 && groups == in_features) return std::nullopt;  // depthwise
  double positions = 1;
  for (int64_t d : labels->output_spatial) positions *= std::max(size(*s->output, d), 1.0);
  double taps = 1;
  const Window* window = conv.window();
  const size_t spatial = labels->kernel_spatial.size();
  if (which == ConvTaps::kValid && window != nullptr && window->dims.size() == spatial &&
      labels->input_spatial.size() == spatial && labels->output_spatial.size() == spatial) {
    for (size_t d = 0; d < spatial; ++d) {
      const double in = size(*s->input, labels->input_spatial[d]);
      const double filter = size(*s->filter, labels->kernel_spatial[d]);
      const double out = size(*s->output, labels->output_spatial[d]);
      if (in < 1 || filter < 1 || out < 1) continue;
      const double pairs = static_cast<double>(cost::valid_window_positions(
          static_cast<int64_t>(in), static_cast<int64_t>(filter), static_cast<int64_t>(out),
          window->dims[d]));
      taps *= std::max(pairs / out, 1.0);
    }
  } else {
    for (int64_t d : labels->kernel_spatial) taps *= std::max(size(*s->filter, d), 1.0);
  }
  // cuDNN pads channels to multiples of 8 for the tensor cores, and tiles a narrow GEMM (n or k
  // below the GEMM table's 256) as well as the table's edge: such a dimension is folded into m,
  // keeping the FLOPs, so that the table is read at the edge's efficiency, not its time.
  measured::GemmShape g;
  g.b = groups;
  g.m = batch * positions;
  g.n = std::max(1.0, out_features / groups);
  g.k = 8 * std::ceil(filter_in / 8) * taps;
  for (double* d : {&g.n, &g.k}) {
    if (*d < 256) {
      g.m *= *d / 256;
      *d = 256;
    }
  }
  return g;
}

bool takes_gpu_families(const DeviceSpec& device) {
  return device.kind == DeviceKind::kGpu && device.gpu &&
         device.gpu->vendor == GpuVendor::kNvidia && !device.hbm_efficiency_set &&
         !device.matmul_efficiency_set && device.hbm_bandwidth > 0;
}

namespace {

// The family model of `i`, where one applies (gpu_family_time, its share aside).
std::optional<FamilyTime> family_time(const Instruction& i, const OpWork& work,
                                      const DeviceSpec& device) {
  if (i.opcode() == Opcode::kCustomCall) {
    const std::string_view target = i.custom_call_target();
    if (is_cub_sort(target)) {
      return cub_sort(i, device);
    }
    if (target == "__gpu$TopK" || target == "TopK") return top_k(i, work, device);
    if (const std::optional<cost::AttentionCall> call = cost::attention_call(cost::view_of(i))) {
      return cudnn_attention(*call, work, device);
    }
    if (is_cudnn_call(i)) {
      std::optional<FamilyTime> t = folded_filter_gradient(i, work, device);
      if (!t) t = depthwise(i, work, device);
      if (!t) t = dense_conv(i, work, device);
      if (!t) {
        // Its kernels as the GEMM table times its implicit GEMM (the general expected time).
        t = FamilyTime{};
        t->family = "cuDNN convolution";
        t->basis = "a cuDNN convolution: its implicit GEMM from the measured GEMM table";
      }
      const bool first = !follows_cudnn_call(i);
      t->host_gap_s = first ? kCudnnFirstHostGapS : kCudnnHostGapS;
      t->basis += absl::StrFormat(
          ", then %s of host gap, %s (fitted, h200 and h100 sweeps%s)", us(t->host_gap_s),
          first ? "the computation's first cuDNN call" : "after another",
          first ? absl::StrFormat("; %.3g-%s on the five hosts measured",
                                  kCudnnFirstHostGapSpanS[0] * 1e6,
                                  us(kCudnnFirstHostGapSpanS[1]))
                : "");
      return t;
    }
    return std::nullopt;
  }
  if (i.opcode() == Opcode::kFft) return fft(i, work, device);
  if (i.opcode() == Opcode::kConvolution) {
    std::optional<FamilyTime> t = depthwise(i, work, device);
    return t ? t : dense_conv(i, work, device);
  }
  if (std::optional<FamilyTime> t = reduce_window(i, work, device)) return t;
  if (std::optional<FamilyTime> t = column_reduction(i, work, device)) return t;
  const Instruction* core = core_of(i);
  if (core == nullptr) return std::nullopt;
  switch (core->opcode()) {
    case Opcode::kSort:
      return xla_sort(*core, device);
    case Opcode::kScatter:
      return scatter(*core, device);
    case Opcode::kGather:
      return gather(*core, i, device);
    case Opcode::kFft:
      return fft(*core, work, device);
    default:
      return fill(i, *core, device);
  }
}

}  // namespace

std::optional<FamilyTime> gpu_family_time(const Instruction& i, const OpWork& work,
                                          const DeviceSpec& device, double matrix_share) {
  if (!takes_gpu_families(device)) return std::nullopt;
  std::optional<FamilyTime> t = family_time(i, work, device);
  // Matrix work in a sharded program keeps matrix_share of its measured rate.
  if (t && t->device_s > 0 && work.matrix_flops > 0 && matrix_share < 1) {
    t->device_s /= matrix_share;
    t->basis += absl::StrFormat(", / %.2f: its share in a program sharded over several GPUs "
                                "(sharded_compute_share)",
                                matrix_share);
  }
  return t;
}

}  // namespace hloroof::predict
