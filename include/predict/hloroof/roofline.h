// The roofline time of one op on one device (docs/prediction-model.md, "One op"): each kind of work
// divided by the rate the device does it at, the slowest term bounds the op, plus a fixed per-op
// overhead; and the floor, which no run of the op can beat: the slowest term or the shortest
// launch, whichever is longer, with reads that a GPU's L2 may hold at L2's rate.
//
//   OpWork w;  w.matrix_flops = 1e12;  w.matrix_type = PrimitiveType::kBF16;
//   RooflineEstimate e = roofline_time(*device("h100"), w);
//   e.time_s;        // 1.011 ms + 1 us overhead
//   e.floor_s;       // 1.011 ms
//   e.explain();     // "matrix 1 TFLOP / 989 TFLOP/s (SB-roof, SB-gpu) = 1.01 ms <- bound; ..."
#ifndef HLOROOF_ROOFLINE_H_
#define HLOROOF_ROOFLINE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "hloroof/device.h"
#include "hloroof/shape.h"

namespace hloroof {

// The work of one op, as the cost layer counts it.
struct OpWork {
  double matrix_flops = 0;                           // dot / convolution FLOPs, on the matrix unit
  PrimitiveType matrix_type = PrimitiveType::kBF16;  // operand element type of those FLOPs
  // The matrix_flops_per_s class the FLOPs run on when not matrix_class(matrix_type), e.g.
  // "tf32" for an f32 dot on tensor cores (the precision rules, prediction-model.md).
  std::string_view matrix_class;
  double vector_flops = 0;     // elementwise and reduction FLOPs, on the vector unit
  double transcendentals = 0;  // exp, log, tanh, ...
  double hbm_bytes = 0;        // bytes read and written in device memory (HBM)
  // Of hbm_bytes, those read: up to a GPU L2's capacity of them may be served by L2 (the floor).
  double hbm_read_bytes = 0;
  double on_chip_bytes = 0;    // bytes in on-chip memory (S(1), VMEM)
  double host_bytes = 0;       // bytes moved to or from host memory (S(5))
};

// The resource a term measures; the one with the largest time bounds the op.
enum class Bound : uint8_t {
  kMatrix,          // matrix-unit FLOPs
  kVector,          // vector-unit FLOPs
  kTranscendental,  // transcendental unit
  kHbm,             // HBM bandwidth
  kOnChip,          // on-chip memory bandwidth
  kHost,            // host link (PCIe) bandwidth
  kOverhead,        // the fixed per-op overhead exceeds every term
};
std::string_view bound_name(Bound bound);      // "matrix", "HBM", "overhead", ...
std::string_view bound_category(Bound bound);  // "compute", "memory" or "overhead"

struct RooflineTerm {
  Bound bound = Bound::kMatrix;
  double amount = 0;        // FLOPs, transcendentals or bytes
  double rate = 0;          // per second, with the device's efficiency factor applied
  double time_s = 0;        // amount / rate
  std::string rate_source;  // the device figure behind `rate`, e.g. "hbm.bandwidth (GC-v5e)"
};

struct RooflineEstimate {
  double time_s = 0;      // roofline_s + overhead_s
  double roofline_s = 0;  // max over terms
  double overhead_s = 0;  // the device's per-op overhead
  // The floor: max(terms, launch floor), a kernel's launch overlapping its work (the launch
  // floor: DeviceSpec::launch_floor_s, at most the overhead), with up to
  // l2_read_bytes of the reads at the GPU L2's rate (on_chip_bandwidth) beside the rest at HBM's.
  // Never above time_s; what a prediction's roofline step sums.
  double floor_s = 0;
  // The floor's terms alone, without the launch floor (floor_s = max(this, launch floor)): the
  // op's work at the speed of light, L2's share of the reads included.
  double floor_work_s = 0;
  double l2_read_bytes = 0;  // 0 where the device gives no L2 rate
  // Sum of the terms plus overhead: the time when nothing overlaps (SB-roof's upper bound).
  double upper_bound_s = 0;
  Bound bound = Bound::kOverhead;
  // Every kind of work the op has, in Bound order; terms with no rate (an unknown on-chip or
  // host bandwidth) are left out and named in `notes`.
  absl::InlinedVector<RooflineTerm, 6> terms;
  std::vector<std::string> notes;  // fallbacks taken, e.g. "no fp8 peak; used bf16"

  // The formula with the device numbers, one term per line, the bounding term marked.
  std::string explain() const;
};

struct RooflineOptions {
  bool include_overhead = true;  // add DeviceSpec::per_op_overhead_s
  // Scale the rates by matmul_efficiency and hbm_efficiency; off, the roofline is the speed
  // of light (a prediction's roofline time, which leaves calibration to the expected time).
  bool apply_efficiency = true;
  // Name the device figure behind each rate (RooflineTerm::rate_source, which explain()
  // prints); off, they are left empty and the estimate is quicker to make.
  bool cite_sources = true;
};

// max(matrix / C_type, vector / C_vpu, transcendentals / C_eup, hbm / W_hbm,
//     on_chip / W_vmem, host / W_host) + overhead. The floor: max(those terms, overhead), where
// on a GPU with an L2 rate the HBM term is max((hbm - r) / W_hbm, r / W_L2) for
// r = min(hbm_read_bytes, L2 capacity).
// C_type is the matrix peak for `matrix_class` (or the class of `matrix_type`) times
// matmul_efficiency; when the device lists no peak for it, a GPU runs f32, tf32 and f64 on its
// vector units (vector_flops_per_s), anything else takes the bf16 peak (or the largest listed),
// and a note says so. W_hbm is multiplied by hbm_efficiency.
RooflineEstimate roofline_time(const DeviceSpec& device, const OpWork& work,
                               const RooflineOptions& options = {});

}  // namespace hloroof

#endif  // HLOROOF_ROOFLINE_H_
