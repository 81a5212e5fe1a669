// VariantTable: one module's step re-timed on many variants of its device (faster FLOPs, more
// HBM bandwidth, faster links) without parsing, costing or walking the module again.
//
//   absl::StatusOr<hloroof::VariantTable> t = hloroof::VariantTable::build(module, *target);
//   absl::StatusOr<hloroof::VariantTime> v =
//       t->time({.flop_rate_scale = 2, .hbm_bandwidth_scale = 1.5});
//   v->step_time_s;            // the step with every FLOP peak x2 and the HBM bandwidth x1.5
//
// The table is made by the expected walk of the step (predict_step_time's: the same ops, loops
// and async pairs). Each op keeps its expected and roofline times on the device and the
// roofline terms of its work at the speed of light: compute (its matrix, vector and
// transcendental FLOPs), HBM, the rest (on-chip memory, host link) and the per-op overhead. A
// variant scales an op's times as its roofline scales, (max(compute / f, hbm / h, rest) +
// overhead) / (max(compute, hbm, rest) + overhead): the op keeps the efficiency its model gives
// it on the device. A collective's times are t(1) + b (1/l - 1) for links l times as fast, b
// from a second walk with the links (ICI, NVLink) twice as fast: exact at both, the form of a
// latency plus bytes over a bandwidth between. Every computation is then scheduled again, async
// pairs overlapping the ops between them, loops their trip counts, conditionals their slowest
// branch. The device as it is (all scales 1) gives predict_step_time's step_time_s and
// roofline_step_time_s exactly (docs/sweep.md, "Design-space what-ifs").
#ifndef HLOROOF_VARIANT_TABLE_H_
#define HLOROOF_VARIANT_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hloroof/device_target.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"

namespace hloroof {

// A device variant: each rate of the device times its scale (> 0).
struct DeviceVariant {
  double flop_rate_scale = 1;       // every FLOP peak: matrix, vector, transcendental
  double hbm_bandwidth_scale = 1;   // hbm.bandwidth
  double link_bandwidth_scale = 1;  // the links of the slice or node: ICI, NVLink
};

struct VariantTime {
  double step_time_s = 0;           // expected
  double roofline_step_time_s = 0;  // at the roofline; never above step_time_s
};

class VariantTable {
 public:
  // The walks of `module` on `target` (predict_step_time's errors). The table refers
  // to no part of the module: it may outlive it.
  static absl::StatusOr<VariantTable> build(const Module& module, const DeviceTarget& target,
                                            const PredictOptions& options = {});

  // The step on `variant`. Errors: a scale that is not a finite number above 0.
  absl::StatusOr<VariantTime> time(const DeviceVariant& variant) const;

  size_t op_count() const { return ops_.size(); }  // instructions scheduled, all computations

  // One scheduled instruction, as a variant re-times it (public for the .cc's helpers).
  struct Op {
    uint8_t role = 0;        // predict::Role
    uint8_t scaling = 0;     // 0: none, 1: the op's work, 2: a collective
    uint8_t queue = 0;       // an async start: the engine its work queues on (FlowTiming)
    int32_t partner = -1;    // the other op of an async pair, in its computation
    int32_t body = -1;       // a computation run (index into computations_), or -1
    int32_t condition = -1;  // a while loop's condition
    int32_t branches = -1;   // a conditional: first of its branches in branches_
    int32_t branch_count = 0;
    double trips = 1;
    double time_s = 0;      // expected: an op's time, an async start's latency
    double roofline_s = 0;  // the same at the roofline
    // Expected: how long its traffic occupies the memory (InstructionTiming::hbm_s) on the
    // device as it is; an op that runs a computation takes that computation's.
    double occupancy_s = 0;
    // Roofline terms at the speed of light (scaling 1); a collective's (scaling 2): b of its
    // expected time in compute_s, of its roofline in rest_s.
    double compute_s = 0;
    double hbm_s = 0;
    double rest_s = 0;
    double overhead_s = 0;
  };

 private:
  struct Computation {
    size_t first = 0;  // its ops, ops_[first, first + count)
    size_t count = 0;
  };
  VariantTable() = default;

  std::vector<Op> ops_;
  std::vector<Computation> computations_;  // callees before callers
  std::vector<int32_t> branches_;
  size_t entry_ = 0;     // the entry computation's index
  size_t max_count_ = 0;  // the most ops of one computation
};

}  // namespace hloroof

#endif  // HLOROOF_VARIANT_TABLE_H_
