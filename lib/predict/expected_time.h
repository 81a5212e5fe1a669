// The expected time of an op or a collective (docs/prediction-model.md, "Expected time"): the
// roofline raised to what measurements say the device reaches. Never below the roofline.
#ifndef HLOROOF_LIB_PREDICT_EXPECTED_TIME_H_
#define HLOROOF_LIB_PREDICT_EXPECTED_TIME_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "hloroof/collective.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/instruction.h"
#include "hloroof/module.h"
#include "hloroof/roofline.h"
#include "hloroof/text_pool.h"
#include "predict/measured_models.h"
#include "util/fields.h"
#include "util/string_view_hash.h"

namespace hloroof::predict {

// The share of HBM bandwidth a memory-bound GPU kernel is expected to reach. Measured lower
// bound: in the H100 GEMM table, dot(bf16[4,256,4096], bf16[4,4096,4096]) moves
// 2 x 4 x (256 x 4096 + 4096 x 4096 + 256 x 4096) = 142.6 MB in 52.0 us = 2.74 TB/s, 0.82 of
// its 3.35 TB/s, while the table's best memory-heavy shape reaches 0.87 (docs/
// prediction-model.md shows the arithmetic). 0.87 is used for every GPU whose spec names the
// H100 in measured_on.hbm_fraction.
inline constexpr double kGpuHbmFraction = 0.87;

// The HBM shares measured, by the GPU they were measured on; a GPU's measured_on.hbm_fraction
// names one of them. The MI300X's: the median, over the ten memory-bound kernels of a JAX
// profile of elementwise programs run on one (../shared/profiles/mi300,
// jax08_elementwise.xplane.pb), of bytes / (device time - 1 us launch overhead) / 5.3 TB/s
// (0.52-0.83; sums and means the highest, sine and cosine the lowest); the profiles' other
// programs are held out (docs/accuracy.md, "The ledger").
struct GpuHbmFraction {
  std::string_view source;
  double fraction;
};
inline constexpr GpuHbmFraction kGpuHbmFractions[] = {{"h100", kGpuHbmFraction},
                                                      {"mi300x", 0.67}};

// The share of its NICs' line rate a GPU node reaches across nodes. Measured (not by us):
// two 8-GPU A100 nodes with 4 x 200 Gb/s HDR each ran NCCL's all-reduce at 86 GB/s bus
// bandwidth, 0.86 of the 4 x 25 GB/s (NVIDIA/nccl#1048; ib_write_bw reached 24 GB/s per NIC
// there); three such nodes 84.8 GB/s on average over sizes, 96 at best (NVIDIA/nccl-tests#119);
// NDR (400 Gb/s) NICs 46-48 of 50 GB/s (NVIDIA/nccl-tests#267, #290, by NVIDIA). The lowest,
// 0.86, is used: a 2-node ring is where our measurements come from.
inline constexpr double kScaleOutEfficiency = kPublishedNicEfficiency;  // hloroof/device.h

// The warning of a prediction whose collectives cross GPU nodes on a device that sets no
// interconnect.nic_efficiency (expected_collective_time notes it, predict moves it to the
// warnings). The built-in figure is the best a network reaches: on two of Jean Zay's A100 nodes
// (4 x 100 Gb/s Omni-Path a node) the built-in a100 expected 0.103-0.147 of the 24 measured
// FFT steps (docs/accuracy.md, "Across GPU nodes").
inline constexpr std::string_view kUncalibratedNetworkWarning =
    "collectives across nodes take the built-in network figures (0.86 of the NICs' line rate, "
    "one NIC per GPU), not measured on this cluster: the part across nodes may take several "
    "times longer (2-node A100 FFTs on Omni-Path ran 7-10x the built-in a100's expected step); "
    "measure it with nccl-tests across two nodes and fit the device with `hloroof calibrate` "
    "(or set interconnect.nic_efficiency)";

// GEMMs on GPUs whose operands or result have a minor (contiguous) dimension of
// kUnalignedMinDim elements or more that is not a whole number of 16-byte vectors: XLA runs them
// as Triton GEMM fusions without the vector loads and tensor-memory copies that need whole
// vectors. Measured on an H200 (bench/measured/gpu_h200_unaligned, every kernel's device time):
// ten such GEMMs (4096^3 with K or N made 4093, 4095 or 4100; GPT-2's LM head with its
// vocabulary of 50,257, forward and both backward products, bf16 and one fp8) ran at
// 0.245-0.623 of the bf16 peak, median 0.27, where their aligned twins reached 0.79-0.85 of the
// class's peak through cuBLAS. An unaligned M is not a row stride: cuBLAS ran those at the
// aligned rate. Such a GEMM is expected at the median share of the lower of its class's peak
// and the bf16 peak, and its range spans the fastest (N = 4100, whole 8-byte vectors) and the
// slowest measured (docs/prediction-model.md, "Unaligned dimensions").
inline constexpr double kUnalignedGemmShare = 0.27;
inline constexpr double kUnalignedGemmFastest = 0.623;
inline constexpr double kUnalignedGemmSlowest = 0.245;
// The same bounds mark the arrays XLA's row kernels cannot vectorize (unaligned_share).
inline constexpr int64_t kUnalignedMinDim = 128;
inline constexpr int kGpuVectorBytes = 16;

// The share of the host link (PCIe) a TPU host-offload copy (to or from memory space S(5)) is
// expected to reach. Measured on the TPU v6e profile (../shared/profiles/tpu_v6e, docs/
// prediction-model.md): a 5368709120 B f32 array copied host -> device alone took 189.18 ms
// (28.4 GB/s) and device -> host alone 182.36 ms (29.4 GB/s), 0.89 and 0.92 of the 32 GB/s
// host link; four such copies, two each way at once, took 412.6 ms (26.0 GB/s each way, 0.81).
// The lower single-direction figure is used, on every TPU whose spec names the v6e in
// measured_on.host_link.
inline constexpr double kTpuHostFraction = 0.89;
inline constexpr char kTpuHostFractionDevice[] = "tpu_v6e";

// One GEMM an instruction runs: its shape and the matrix class it runs on.
struct GemmCall {
  measured::GemmShape shape;
  PrimitiveType lhs = PrimitiveType::kInvalid;
  PrimitiveType rhs = PrimitiveType::kInvalid;
  std::string_view unit;  // matrix_flops_per_s class the FLOPs run on: "bf16", "tf32", "f32", ...
  // The kernel's time over the table's at its shape: 1 for GEMMs; a convolution's implicit GEMM
  // runs in cuDNN at kCudnnOverGemmTable times it.
  double factor = 1;
  // The first minor dimension of its operands and result (a convolution's: of its implicit
  // GEMM) of kUnalignedMinDim elements or more that is not a whole number of kGpuVectorBytes
  // vectors; 0 when none.
  int64_t unaligned_dim = 0;
};

// The GEMMs `instruction` runs: a dot, the dots of a fusion, a cuBLAS GEMM custom call. Empty
// for anything else. A dense convolution's implicit GEMM (gpu_families.h) runs as one.
std::vector<GemmCall> gemms_of(const Instruction& instruction, const DeviceSpec& device);

// A TPU splash attention kernel's matrix products (`matrix_flops` of them) as one GEMM, so that
// the MXU pads them as it pads any GEMM: every product of the kernel has the head dimension as
// its contraction (QK^T, dO V^T) or its output width (PV; dV, dK and dQ backward), the other
// sides being query and key blocks. The GEMM: m = q's rows (its elements over the head
// dimension), k = the head dimension, n = the rest of the FLOPs. Empty for any other op.
std::vector<GemmCall> splash_gemms(const Instruction& instruction, double matrix_flops,
                                   const DeviceSpec& device);

// A TPU megablox grouped matmul's matrix products (`matrix_flops`: the tiles it runs) as one
// GEMM, so that the MXU pads them as it pads any GEMM. gmm (rows [m, k] by an expert's [k, n]):
// k and n as they are, m the rows run. tgmm (each expert's [k, n] gradient, rows [m, k] and
// [m, n]): m = k, n = n, the rows run the contraction. Empty for any other op.
std::vector<GemmCall> megablox_gemms(const Instruction& instruction, double matrix_flops,
                                     const DeviceSpec& device);

// The matrix class dots of `type` run on for `device` (the precision rules of
// docs/prediction-model.md): on Ampere and later GPUs, f32 dots at DEFAULT or HIGH precision
// run on TF32 tensor cores ("tf32") unless the device lists no tf32 peak; HIGHEST, or the
// dot_f32_f32_f32 algorithm, keeps them on f32 units; c64 and c128 run as f32 and f64.
// `highest` says the dot asked for f32 units, `tf32` that it asked for TF32 explicitly.
std::string_view matrix_unit(const DeviceSpec& device, PrimitiveType type, bool highest,
                             bool tf32);

// The matrix class of the op's FLOPs: that of its GEMMs when they agree, else the class of
// `type` under the precision rules at DEFAULT precision.
std::string_view op_matrix_unit(const Instruction& instruction, const DeviceSpec& device,
                                PrimitiveType type);

// Issue slots of one element of an elementwise op: its op-profile cycles over those of an f32
// add on the same profiled device, at least 1 (docs/prediction-model.md, "Elementwise"). The
// profile is a latency; for an op the compiler expands into a long sequence of dependent
// instructions (sine, f64 and complex arithmetic, integer division) the latency counts the
// instructions, and so the lane issue slots one element takes.
struct IssueTime {
  double time_s = 0;       // slots / (lanes x clock), lanes x clock = vector_flops_per_s / 2
  double element_ops = 0;  // elements x elementwise ops
  double slots = 0;        // issue slots of them all
  std::string profile;     // the profiled device whose cycles were read ("h100"); empty: none
  bool bf16_as_f16 = false;  // a bf16 op took its f16 twin's slots (the profiles hold no bf16)
};

// The issue time of the elementwise ops `instruction` runs: itself, or the ops of its fusion
// (nested fusions included). Zero on TPUs and GPUs without a profile; ops without a profile
// count 1 slot per element. A fused op computed only where it is used counts those elements
// (`cost`: the module's, ModuleCost::element_utilization).
IssueTime elementwise_issue_time(const Instruction& instruction, const DeviceSpec& device,
                                 const ModuleCost& cost);

// What kind of kernel an op runs, for the small-kernel floor (docs/prediction-model.md,
// "Small kernels"): a reduction (a reduce, or a fusion holding one: its blocks combine partial
// results), a transpose (or a fusion holding one, no reduce: tiled through shared memory),
// any other elementwise loop (copies, slices, fills, converts, in-place updates), or none (a
// library call, which times itself, or an op that launches no kernel).
enum class KernelClass : uint8_t { kNone, kElementwise, kReduction, kTranspose };
std::string_view kernel_class_name(KernelClass c);  // "elementwise", "reduction", ...

// The class of the kernel `instruction` launches on a GPU.
KernelClass kernel_class(const Instruction& instruction);

// The bytes of an element of the result of a GPU kernel of XLA's own that computes and stores
// an element at a time (its first array's): elementwise loops and reductions of `kind`, Triton
// fusions among them; 0 for the rest: transposes (tiled, vector stores), one-byte results
// (packed), copies and fusions of a dynamic slice alone (XLA's memcpy).
int store_element_bytes(const Instruction& instruction, KernelClass kind);

// The share of the bytes of the arrays `instruction` reads and writes (its operands and
// results in device memory) that a kernel of XLA's own on a GPU cannot move in 16-byte
// vectors, from 0 to 1; 0 for ops that launch no such kernel (library calls, collectives,
// control flow). An elementwise kernel (a loop fusion, a concatenation, a lone elementwise op)
// runs over its output's elements unrolled by the largest of 4 and 2 that divides their
// count, as XLA's loop emitter does: an odd count leaves every array unvectorized. Any other
// kernel (reductions, transposes, Triton tiles and GEMM fusions) walks rows: an array whose
// minor dimension, of kUnalignedMinDim elements or more, is not a whole number of 16-byte
// vectors (rows of 1,023 f32) is read or written element by element; shorter rows are tiled
// several at a time. docs/prediction-model.md, "Unaligned dimensions".
// `kernel` is kernel_class(instruction), as the caller has it.
double unaligned_share(const Instruction& instruction, KernelClass kernel);

// The bytes a GPU reads for each element it gathers across rows: one L2 sector.
inline constexpr int kGpuSectorBytes = 32;

// The elements of the transposes that a GPU loop fusion (XLA's loop emitter, kind kLoop) runs
// across its operand's rows, and their bytes: those whose result's minor dimension is not
// their operand's. The emitter writes the result in order and reads each element from another
// row, one L2 sector per element; XLA's tiled transpose emitter (kind kInput) does not.
// Measured on an H200 (bench/measured/gpu_h200_unaligned): XLA moved fp8 GEMM operands into
// cuBLAS's layout with such fusions, 16.8 M elements in 102-116 us and 51.5 M in 317-363 us:
// a 32-byte sector per element at 0.95-1.10 of the HBM bandwidth (some hit L2), where their
// bytes alone at the achievable share take 8.7 and 25 us. {0, 0} for anything else.
struct StridedReads {
  double elements = 0;
  double bytes = 0;
};
StridedReads strided_loop_reads(const Instruction& instruction);

// Measured GEMM times already estimated in one prediction, by table (device and operand types)
// and shape: a model repeats the same few GEMM shapes in every layer, and each estimate is a
// regression over the table.
class GemmTimeCache {
 public:
  double time_s(const measured::GemmTable& table, const measured::GemmShape& shape);
  size_t size() const { return times_.size(); }

 private:
  using Key = std::tuple<const measured::GemmTable*, double, double, double, double>;
  absl::flat_hash_map<Key, double> times_;
};

// A memo's key: the figures a text is made from, as their bytes, so that equal keys make equal
// texts (a double's bits, not its value: 0 and -0 are two keys).
class FigureKey {
 public:
  template <typename T>
    requires(std::is_arithmetic_v<T> || std::is_enum_v<T>)
  void add(T value) {
    std::memcpy(room(sizeof(value)), &value, sizeof(value));
  }
  // Figures of one type side by side, as one copy.
  template <typename T, size_t N>
    requires(std::is_arithmetic_v<T>)
  void add_all(const T (&values)[N]) {
    std::memcpy(room(sizeof(values)), values, sizeof(values));
  }
  // A text, after its size (two texts side by side never read as two others).
  void add_text(std::string_view text) {
    add(text.size());
    if (!text.empty()) std::memcpy(room(text.size()), text.data(), text.size());
  }
  // Where a text lies and its size: the key of a text that never changes while the key is used
  // (a static one, or one of a pool that outlives the memo).
  void add_place(std::string_view text) {
    add(reinterpret_cast<uintptr_t>(text.data()));
    add(text.size());
  }
  // A value of any type a memo reads, whole: figures as add() takes them, texts after their
  // sizes, lists after their lengths, an optional's presence before it, a pair's halves, and an
  // aggregate member by member (util/fields.h), so that a member added to it later is in the
  // key. A pointer does not compile: its address is no figure (add_place says where a text
  // lies).
  template <typename T>
  void add_fields(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      add(value);
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      add_text(value);
    } else if constexpr (requires { value.has_value(); *value; }) {
      add(value.has_value());
      if (value.has_value()) add_fields(*value);
    } else if constexpr (requires { value.first; value.second; }) {
      add_fields(value.first);
      add_fields(value.second);
    } else if constexpr (requires { value.size(); value.begin(); value.end(); }) {
      add(value.size());
      for (const auto& element : value) add_fields(element);
    } else {
      static_assert(std::is_aggregate_v<T>, "add_fields: no figure of this type");
      util::for_each_field(value, [&](const auto& member) { add_fields(member); });
    }
  }
  void clear() { size_ = 0; }
  std::string_view bytes() const { return {bytes_.data(), size_}; }

 private:
  // `n` more bytes at the end, to write: the buffer grows (doubling) and is kept from one key
  // to the next, so that most figures are written as one copy of their bytes.
  char* room(size_t n) {
    if (bytes_.size() - size_ < n) [[unlikely]] grow(n);
    char* const at = bytes_.data() + size_;
    size_ += n;
    return at;
  }
  // Out of line, so that room() is inlined where each figure is added.
  [[gnu::noinline]] void grow(size_t n) {
    bytes_.resize(std::max(2 * bytes_.size(), size_ + n + 64));
  }

  std::string bytes_;
  size_t size_ = 0;
};

// Texts made once for each key: explanations by the figures they print, as a module's ops repeat
// a few hundred explanations thousands of times (gemma3 4b: 161 for 15,895 ops). The texts are
// saved in `pool`: a view stays valid while the pool lives. The first kMaxTexts keys are kept;
// past them each text is made anew and saved without its key (TextPool::save), as is every
// text when memoizing is turned off (what a test compares the memo's texts with).
class TextMemo {
 public:
  explicit TextMemo(TextPool& pool) : pool_(pool) {}
  TextMemo(const TextMemo&) = delete;
  TextMemo& operator=(const TextMemo&) = delete;

  // The text `make` writes; `key` holds, as bytes, everything `make` reads (FigureKey).
  std::string_view text(std::string_view key, absl::FunctionRef<std::string()> make);
  // `text` saved in the pool, with no key.
  std::string_view save(std::string_view text) {
    if (transient_) return last_.assign(text);
    return pool_.save(text);
  }
  // A key to fill, empty: the memo's own, reused from one text to the next.
  FigureKey& new_key() {
    key_.clear();
    return key_;
  }
  void set_memoize(bool on) { memoize_ = on; }
  // Transient: each text made anew and held by the memo only until the next one it gives (no
  // key kept, nothing saved in the pool), for a caller that copies it into a text of its own
  // at once.
  void set_transient(bool on) { transient_ = on; }
  size_t size() const { return texts_.size(); }

 private:
  static constexpr size_t kMaxTexts = 4096;
  TextPool& pool_;
  bool memoize_ = true;
  bool transient_ = false;
  std::string last_;  // the transient text given last
  absl::flat_hash_map<std::string, std::string_view, detail::StringViewHash, detail::StringViewEq>
      texts_;
  FigureKey key_;
};

// The part of a GPU collective that crosses NVLink domains (nodes), as NCCL runs it
// (docs/prediction-model.md, "Across nodes (GPUs)"): NCCL's own latency plus the bytes each GPU
// sends through the network at the share of the NICs' line rate it reaches.
struct ScaleOutTime {
  double latency_s = 0;       // NCCL's latency model: ring steps, or one step per remote peer
  double bandwidth_s = 0;     // network bytes at the protocol's share of the reached rate
  std::string_view protocol;  // NCCL protocol of the minimum: "Simple" or "LL"
  std::string_view algorithm;  // reductions and gathers: NCCL's "ring" or (all-reduce) "tree"
  double other_s = 0;          // all-reduce: the other algorithm's time (0: only the ring)
  int64_t remote_peers = 0;   // all-to-all and sends: the peers on other nodes of one GPU
  double time_s() const { return latency_s + bandwidth_s; }
};

// What an expected time was made from, as its model's explanation prints it: the table or fit
// used, the efficiencies, the terms named with their times, and where a table was left
// (extrapolation). One kind for each device model (op_model.h) that explains figures; a
// collective's for collectives.

// An op's on a GPU (GpuTableModel), or on a device with a file's calibrated efficiencies
// (CalibratedModel), whose terms are a subset of a GPU's.
struct GpuOpBasis {
  // The terms named, with their times: the measured GEMMs' first (when `gemms` > 0), then the
  // roofline's in its order, then the element stores and the elementwise issue time (each
  // where it is the slowest so far), then the small-kernel floor.
  enum class Term : uint8_t { kHbm, kMatrix, kIssue, kKernelFloor, kUnalignedGemm, kStores };
  absl::InlinedVector<std::pair<Term, double>, 4> terms;
  std::string_view table;        // the GEMM table's device ("h100"): static, or the device's
  int gemms = 0;                 // GEMMs the table timed
  int outside = 0;               // of them, outside its measured shapes (extrapolated)
  double gemm_s = 0;             // their time
  double matrix_share = 1;       // of the table's rate, the share they keep (OpView)
  double hbm_fraction = 0;       // kHbm: the share of the bandwidth reached
  // kHbm: the share of the bytes moved without 16-byte vectors (unaligned_share), and the rate
  // they move at (hbm.unaligned_bandwidth, at most the achievable HBM rate); 0: none.
  double unaligned_share = 0;
  double unaligned_rate = 0;
  double stored_elements = 0;  // kStores: the elements written, at the device's stores_per_s
  // kHbm: elements read across rows, a kGpuSectorBytes sector each at the HBM bandwidth
  // (strided_loop_reads); 0: none.
  double strided_elements = 0;
  bool hbm_calibrated = false;   // kHbm: the file's hbm_efficiency (else the measured share)
  double matmul_efficiency = 0;  // kMatrix: the file's matmul_efficiency
  // kIssue: the elementwise issue time's figures (IssueTime).
  double element_ops = 0;
  double slots = 0;
  std::string_view profile;  // a view of the op's IssueTime::profile
  // kKernelFloor: the small-kernel floor's figures (its time is the term's): the kernel's
  // class, its start, the ramp over its bytes, its floor's work, and where they were measured.
  KernelClass kernel_class = KernelClass::kNone;
  double floor_start_s = 0;
  double floor_ramp_s = 0;
  double floor_per_doubling_s = 0;  // the ramp's time a doubling of the bytes
  double floor_work_s = 0;
  std::string_view floor_source;  // "h200": static
  bool floor_borrowed = false;
  // kUnalignedGemm: the GEMMs with an unaligned dimension (the first such dimension), at
  // kUnalignedGemmShare of their peak (the term's time), kUnalignedGemmFastest and
  // kUnalignedGemmSlowest.
  int unaligned_gemms = 0;
  int64_t unaligned_dim = 0;
  double unaligned_fastest_s = 0;
  double unaligned_slowest_s = 0;
};

// An op's on a TPU's fits (TpuFitModel, tpu_models.h): GEMMs on the measured ramp, HBM and
// host link at their measured shares, a fitted per-op fixed cost.
struct TpuOpBasis {
  enum class Term : uint8_t { kGemm, kKernelMatrix, kHbm, kHost };
  absl::InlinedVector<std::pair<Term, double>, 4> terms;
  size_t gemms = 0;         // the op's GEMMs
  int64_t mxu = 0;          // the MXU width they were padded to (with a kGemm term)
  double chip_plateau = 0;  // kKernelMatrix: the share of peak the chip's large GEMMs reach
  bool include_overhead = true;  // the fitted fixed cost added
};

// A collective's expected time: which model, and the figures its explanation prints.
struct CollectiveBasis {
  enum class Kind : uint8_t {
    kTpuAcrossSlices,  // TPU: fitted latency + the roofline's ICI and DCN phases
    kTpuIci,           // TPU: fitted latency + the bandwidth term at the fitted share
    kCalibrated,       // a file's collective_bandwidth_efficiency / collective_latency
    kScaleOut,         // GPU: one member in each NVLink domain: all of it across nodes
    kFit,              // GPU: the measured fit inside a domain (and across nodes at once)
  };
  Kind kind = Kind::kFit;
  double latency_s = 0;    // the fitted or calibrated latency; GPUs: the launch latency
  double roofline_s = 0;   // kTpuAcrossSlices: the roofline's time
  double bandwidth_s = 0;  // the roofline's bandwidth term (kTpuIci, kCalibrated)
  double efficiency = 0;   // its share reached; GPUs: the NICs' share of line rate
  double group = 0;        // kTpuIci: the group size the fit was made at
  std::string_view op;     // GPUs: the table's name of the collective ("all-reduce"), static
  int64_t inside = 0;      // kFit: the members in one NVLink domain (2 for a pair)
  int64_t domains = 0;     // GPUs: the NVLink domains (nodes) crossed
  double bytes = 0;        // kFit: the table's size
  double fit_latency_s = 0;     // kFit: the fit's latency
  double seconds_per_byte = 0;  // kFit: the fit's slope, scaled
  double in_domain_s = 0;       // kFit: the fit's time
  double across_s = 0;          // GPUs: NCCL's time across nodes (0: none)
  ScaleOutTime scale_out;       // GPUs: NCCL's part across nodes
};

// A collective's expected time (expected_collective_time): the time, the model that gave it
// and what it was made from, for its explanation (explain_collective); no basis where the time
// is the roofline's.
struct CollectiveExpectedTime {
  double time_s = 0;
  std::string model;  // which model gave it, e.g. "collective fit h100 (measured)"
  std::optional<CollectiveBasis> basis;
};

// How, with the numbers, `e` was made on `device`; empty where it has no basis.
std::string explain_collective(const CollectiveExpectedTime& e, const DeviceSpec& device);

// What a TPU prediction's expected times rest on, one line each (measured, fitted, borrowed,
// assumed), for its assumptions; empty for GPUs.
std::vector<std::string> tpu_model_assumptions(const DeviceSpec& device);

// The spec a module that is one GEMM alone runs on, where it differs from `device`: on a chip
// whose GEMM ramp is measured on GEMMs alone (tpu7x, its microbenchmarks) and whose
// gemm_plateau figure is the share of peak its GEMMs reach inside programs, a module whose
// entry does nothing but one GEMM (a dot, a convolution, or one fusion of one) is what the
// microbenchmarks timed: `device` without that figure. Nullopt for any other module or chip.
std::optional<DeviceSpec> tpu_spec_for_gemm_alone(const Module& module, const DeviceSpec& device);

// `op` names the collective as the measured tables do ("all-reduce", "all-gather",
// "reduce-scatter", "all-to-all", "collective-permute"); `v` the roofline's bytes V; `n` the
// group size over `m` nodes with `l` members on each (1 for a pair); `w_so` each GPU's share of
// its node's NICs and `nic` one NIC, both one way in B/s; `eff` the share of line rate reached;
// `tree_cap` NCCL's cap on one tree channel's bus bandwidth (nccl_tree_channel_cap), 0 where
// only the ring is modelled.
ScaleOutTime scale_out_time(std::string_view op, double v, int64_t n, int64_t m, double l,
                            double w_so, double nic, double eff, double tree_cap = 0);

// NCCL's cap on one tree channel's bus bandwidth, B/s (tuning.cc of NVIDIA/nccl at
// b6475625fbca, perChMaxTreeBws): Volta (compute capability 7) 18.5e9 on 2 nodes, 10e9 beyond;
// Ampere (8) 23.6e9 and 17.8e9; Hopper (9) and later 41.4e9 and 36e9; 0 below 7 (no tree).
double nccl_tree_channel_cap(int compute_capability_major, int64_t nodes);

// A collective whose roofline estimate is `roofline` (kind as in the HLO).
CollectiveExpectedTime expected_collective_time(CollectiveKind kind,
                                                const CollectiveEstimate& roofline,
                                                const DeviceSpec& device,
                                                std::vector<std::string>& assumptions);

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_EXPECTED_TIME_H_
