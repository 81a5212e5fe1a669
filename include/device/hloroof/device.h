// What an accelerator can do, as data: peak rates, memories, interconnect and per-op overheads
// of one JAX device. Built-in specs come from data/hardware/*.json, compiled into the library;
// a user's JSON file in the same schema (data/hardware/README.md) works too.
//
//   absl::StatusOr<hloroof::DeviceSpec> d = hloroof::device("tpu_v5e");
//   d->hbm_bandwidth;                     // 8.19e11 B/s
//   d->matrix_peak(PrimitiveType::kBF16);  // 1.97e14 FLOP/s
//
// Every number is in base units (B, B/s, FLOP/s, s) whatever unit the JSON used; `figures`
// keeps each one's source tag (docs/sources.md, "Source tags") so an estimate can cite it.
#ifndef HLOROOF_DEVICE_H_
#define HLOROOF_DEVICE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/shape.h"

namespace hloroof {

// One numeric fact of a spec and where it came from.
struct DeviceFigure {
  std::string path;          // JSON path, e.g. "hbm.bandwidth", "matrix_flops_per_s.bf16"
  double value = 0;          // in `unit`
  std::string unit;          // base unit: "B", "B/s", "FLOP/s", "op/s", "s", or a count word
  std::string source;        // a tag of docs/sources.md, "Source tags" ("derived", "assumed", ...)
  bool verified = true;      // false: treat as a configurable default, not as truth
  std::string note;          // derivation, or what a per-device figure was halved from
  std::string alternatives;  // other published values, not used
};

// How a TPU slice closes its torus axes into rings (data/hardware/README.md, `wraparound`).
struct Wraparound {
  enum class Rule {
    kNone,        // no axis wraps
    kAxisSizes,   // an axis wraps when its size is listed (v5e, v6e: only 16)
    kWholeCubes,  // every axis wraps when every axis is a multiple of `cube` (v4, v5p)
  };
  Rule rule = Rule::kNone;
  std::vector<int64_t> axis_sizes;
  int64_t cube = 4;

  // Whether axis `axis` of a slice of `dims` chips is a ring. An axis of 1 or 2 chips never
  // counts as a ring: both neighbours are the same chip, so there is no second direction.
  bool wraps(absl::Span<const int64_t> dims, size_t axis) const;
};

// ICI torus of a TPU (docs/sources.md, "Hardware figures" and "Collective formulas").
struct TorusSpec {
  int rank = 2;               // torus axes
  int devices_per_chip = 1;   // TensorCores exposed as separate JAX devices (v2, v3, TPU7x: 2)
  // TensorCores per chip. More than devices_per_chip on a megacore chip (v4, v5p), one JAX
  // device per chip on the hardware; libtpu's offline compiler gives one device per TensorCore
  // there, which per_core_spec describes.
  int cores_per_chip = 1;
  double link_bandwidth = 0;  // W_uni: one direction of one link, B/s
  int links_per_chip = 0;
  Wraparound wraparound;
  double hop_latency_s = 0;  // T_hop
  // One direction between the devices of one chip, B/s (only when cores_per_chip > 1).
  std::optional<double> core_link_bandwidth;
  std::optional<double> dcn_bandwidth_per_chip;  // B/s egress per chip to other slices
  double dcn_latency_s = 0;
  std::vector<int64_t> host_shape;  // chips per host, per axis
  std::vector<int64_t> max_slice;   // chips per axis of the largest slice; empty when unknown
  int64_t pod_chips = 0;            // chips in one pod (product of max_slice when not given)
};

// Constants of XLA's speed-of-light GPU collective model for one device (docs/sources.md, "XLA's
// GPU collective models"), with XLA's 0.45 coefficient already applied.
struct SolModelSpec {
  double nccl_op_launch_s = 0;
  double nic_speed = 0;  // B/s
  double chunk_prep_s = 0;
  double rtt_s = 0;
  int64_t gpus_per_node = 8;
  double chunk_size_bytes = 0;
  double nvlink_barrier_s = 0;
};

// Who made a GPU: the models measured on NVIDIA GPUs (GEMM and collective tables, op profiles,
// NCCL's and XProf's rules) stand in only for NVIDIA GPUs.
enum class GpuVendor { kNvidia, kAmd };
std::string_view gpu_vendor_name(GpuVendor vendor);  // "NVIDIA", "AMD"

// The share of its NICs' line rate a GPU node reaches across nodes when the spec gives none:
// 0.86, measured on two 8-GPU A100 nodes (docs/prediction-model.md, "Across nodes (GPUs)").
inline constexpr double kPublishedNicEfficiency = 0.86;

// NVLink domains (xGMI on AMD GPUs: `interconnect.type` "xgmi") joined by a scale-out network
// (docs/sources.md, "Hardware figures" and "Collective formulas"). The nvlink_* figures are the
// GPU-to-GPU fabric inside one node, whichever it is.
struct GpuFabricSpec {
  GpuVendor vendor = GpuVendor::kNvidia;
  int64_t nvlink_domain_size = 8;  // GPUs per NVLink domain ("node")
  double nvlink_bandwidth = 0;     // W_gpu: one way, per GPU, B/s
  int nvlink_links = 0;            // links per GPU (XLA's NCCL model caps channels by it)
  double scale_out_bandwidth = 0;  // one way, per GPU, B/s
  // The share of the NICs' line rate NCCL reaches across nodes on this cluster (a plain fraction,
  // `interconnect.nic_efficiency`); unset: the published figure the model uses
  // (kPublishedNicEfficiency).
  std::optional<double> nic_efficiency;
  // Latency added to NCCL's latency model for every collective across nodes, s (a cluster's own
  // figure, `interconnect.scale_out_latency`, fitted by `hloroof calibrate` to nccl-tests logs);
  // unset: none.
  std::optional<double> scale_out_latency_s;
  double collective_launch_latency_s = 0;
  // NVIDIA's compute capability; on AMD GPUs the GFX version ROCm reports the same way
  // (9.4 is gfx942, the MI300 series).
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  std::optional<SolModelSpec> xla_sol;
};

enum class DeviceKind { kTpu, kGpu };
std::string_view device_kind_name(DeviceKind kind);  // "tpu", "gpu"

// Which device each set of measurements the expected times read was taken on (a spec's
// `measured_on`, data/hardware/README.md): the device's own name (or its `base`) where it was
// measured itself, another built-in device's name where it borrows that one's, empty where
// none applies. A file that gives none takes its `base`'s, else the closest built-in device's.
struct MeasuredOn {
  std::string gemm_tables;        // GPU GEMM tables (data/measured/gemm.tsv)
  std::string collective_tables;  // GPU collective tables (data/measured/collectives.tsv)
  std::string op_profiles;        // GPU cycles of elementwise ops (op_profiles.tsv)
  std::string kernel_floor;       // GPU small-kernel floor (op-family sweeps)
  std::string hbm_fraction;       // GPU share of HBM bandwidth a memory-bound kernel reaches
  std::string host_link;          // TPU share of the host link a host-offload copy reaches
  std::string tpu_fits;           // TPU microbenchmark fits: GEMM ramp, HBM share, ICI
};

struct DeviceSpec {
  std::string name;          // "tpu_v5e"
  std::string display_name;  // "Google TPU v5e"
  std::vector<std::string> aliases;
  DeviceKind kind = DeviceKind::kTpu;
  std::string origin;       // "built-in tpu_v5e.json" or the path it was read from
  std::string device_note;  // what one JAX device is (a chip, one TensorCore, a GPU)
  // The built-in device a file was made from ("gb200" for one `hloroof calibrate` fitted from
  // gb200): its measured tables apply as to that device. Empty: the device's own name.
  std::string base;
  MeasuredOn measured_on;

  // Peak matrix-unit rates, keyed by the classes of data/hardware/README.md: "bf16", "f16",
  // "tf32", "f32", "f64", "int8", "int4", "fp8", "fp6", "fp4".
  std::map<std::string, double, std::less<>> matrix_flops_per_s;
  double vector_flops_per_s = 0;     // C_vpu (GPU: fp32 CUDA cores)
  double transcendentals_per_s = 0;  // C_eup
  double hbm_capacity_bytes = 0;
  double hbm_bandwidth = 0;         // W_hbm, B/s
  // GPU: the rate a kernel of XLA's own reaches on arrays it cannot read or write in 16-byte
  // vectors (rows of 1,023 f32); unset: not modelled (docs/prediction-model.md).
  std::optional<double> hbm_unaligned_bandwidth;
  std::string on_chip_memory_name;  // "VMEM", "L2"; empty when unknown
  double on_chip_capacity_bytes = 0;
  std::optional<double> on_chip_bandwidth;  // B/s; unknown: S(1) traffic is not charged
  std::optional<double> host_bandwidth;     // host<->device, each way, B/s
  double per_op_overhead_s = 0;             // GPU: kernel launch
  // The shortest a top-level op can take, for the roofline's floor; per_op_overhead_s when unset.
  std::optional<double> launch_floor_s;
  // GPU: the elements a second XLA's own kernels store (an element at a time, whatever its
  // width: bf16 results at half an f32 one's bytes a second); unset: stores not modelled.
  std::optional<double> stores_per_s;
  // TPU: the share of this chip's peak its large GEMMs reach inside programs, the plateau of the
  // measured ramp the TPU expected time borrows; unset: its peak.
  std::optional<double> gemm_plateau;
  // NVIDIA GPU: the share of its measured rate (GEMM tables, attention, convolutions) a GPU's
  // matrix work keeps in a program sharded over several GPUs; unset: all of it.
  std::optional<double> sharded_compute_share;
  // Calibration (data/hardware/README.md): the fraction of matrix peak and of HBM bandwidth
  // reached. roofline_time applies them; a prediction's roofline does not, and uses them for
  // the expected time in place of the measured models when the file sets them (`*_set`).
  double matmul_efficiency = 1.0;
  double hbm_efficiency = 1.0;
  bool matmul_efficiency_set = false;
  bool hbm_efficiency_set = false;
  // Calibration of collectives' expected time, in place of the measured fits when set: the
  // fraction of the roofline's bandwidth reached, and the fixed time per collective (s).
  std::optional<double> collective_bandwidth_efficiency;
  std::optional<double> collective_latency_s;

  std::optional<TorusSpec> torus;    // TPU
  std::optional<GpuFabricSpec> gpu;  // GPU

  // Tiles for layouts that carry none (docs/sources.md, "TPU tiling and padding"), keyed by element
  // bit width.
  std::map<int, std::vector<Tile>> default_tiles;

  std::vector<DeviceFigure> figures;  // every numeric fact, in file order
  std::vector<std::string> notes;
  // The spec as JSON, the schema of data/hardware/README.md: the text it was read from (with
  // set_device_figures' changes). `hloroof devices NAME --json` prints it; it reads back.
  std::string json;

  // Peak matrix FLOP/s for a dot whose operands have element type `type`; nullopt when the
  // device lists no rate for that type's class (see matrix_class).
  std::optional<double> matrix_peak(PrimitiveType type) const;
  // The figure at `path`, or nullptr.
  const DeviceFigure* figure(std::string_view path) const;
};

// The key of matrix_flops_per_s for an element type: bf16 -> "bf16", s8/u8 -> "int8",
// f8e4m3fn -> "fp8", ...; empty for types no matrix unit takes (pred, s32, c64, ...).
std::string_view matrix_class(PrimitiveType type);

// Parses a spec from JSON text. `origin` names it in errors: a bad file gets
// `ORIGIN: field 'hbm.bandwidth': ...` (missing field, wrong type, unit, negative value...).
absl::StatusOr<DeviceSpec> parse_device_spec(std::string_view json, std::string_view origin);

// A built-in spec by name or alias ("tpu_v5e", "v5e"), or a spec read from a JSON file when
// `name_or_path` names no built-in one (a path contains '/' or ends in ".json").
absl::StatusOr<DeviceSpec> device(std::string_view name_or_path);

// Names of the built-in specs, sorted.
std::vector<std::string> builtin_device_names();

// `spec` with figures set anew, each `PATH=VALUE` (`interconnect.scale_out_bandwidth=12.5e9`):
// PATH as `hloroof devices NAME` lists the figures, VALUE in the figure's base unit (B, B/s,
// FLOP/s, s, ...; a count or a plain fraction as it is). The figure's source becomes "set",
// its note says what it was. The calibration fractions (matmul_efficiency, hbm_efficiency,
// collective_bandwidth_efficiency) and collective_latency may be set when the spec has none.
// The result is read as a spec file is, so every check applies. Errors: no '=', a value that is
// not a number, a path the spec has no figure at (its figures are listed), a refused value.
absl::StatusOr<DeviceSpec> set_device_figures(const DeviceSpec& spec,
                                              const std::vector<std::string>& settings);

// A megacore chip's spec (cores_per_chip > devices_per_chip: v4, v5p) as one JAX device per
// TensorCore, as libtpu's offline compiler gives it: the chip's compute, HBM and on-chip
// bandwidth and HBM capacity divided among its cores, devices_per_chip = cores_per_chip; its
// topologies gain the "core" axis. Other specs come back as they are. Errors: a spec whose
// JSON is not at hand, or whose divided figures the reader refuses.
absl::StatusOr<DeviceSpec> per_core_spec(const DeviceSpec& spec);

}  // namespace hloroof

#endif  // HLOROOF_DEVICE_H_
