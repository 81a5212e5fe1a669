// The time of one collective on a topology (docs/prediction-model.md, "One op", and
// docs/sources.md, "Collective formulas").
//
//   CollectiveInput c{CollectiveKind::kAllGather, /*bytes=*/33554432, {{0, 1, 2, 3}}};
//   absl::StatusOr<CollectiveEstimate> e = collective_time(spec, topology, c);
//   e->time_s; e->formula; e->placement.description;  // "line along x (4 chips, ...)"
//
// Models, chosen by CollectiveOptions::formula:
//   kNetwork    the scaling book's models: TPU ICI rings, lines and multi-axis groups with a
//               hop-latency floor, DCN between slices, GPU NVLink domains and the scale-out
//               network (docs/sources.md, "Collective formulas").
//   kXlaGpuNccl XLA's GPU collective model, what XLA's analytical latency estimator uses.
//   kXlaGpuSol  XLA's speed-of-light GPU model (both: docs/sources.md, "XLA's GPU collective
//               models").
#ifndef HLOROOF_COLLECTIVE_H_
#define HLOROOF_COLLECTIVE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hloroof/collective_kind.h"
#include "hloroof/device.h"
#include "hloroof/topology.h"

namespace hloroof {

enum class CollectiveFormula { kNetwork, kXlaGpuNccl, kXlaGpuSol };
std::string_view collective_formula_name(CollectiveFormula formula);
// The formula collective_formula_name names so ("network", "xla-gpu-nccl", "xla-gpu-sol");
// an error naming them for any other text, `option` (the caller's name of the setting) first.
absl::StatusOr<CollectiveFormula> collective_formula_from_name(std::string_view name,
                                                              std::string_view option);

struct CollectiveOptions {
  CollectiveFormula formula = CollectiveFormula::kNetwork;
  // The scaling book's large-N form, V / W_bi instead of V (N-1) / (N W_bi), on rings, across
  // axes and in NVLink domains, as its worked examples write it. Lines keep (N-1) / N, as the
  // book does. Default: exact.
  bool large_n = false;
  // kXlaGpuNccl: the instruction is the async `all-reduce-start` (charged V, not 2V).
  bool async_start = false;
  // kXlaGpuNccl: the device description reports its active NVLink links, which caps the
  // channel count; without it XLA falls back to its bandwidth ladder (docs/sources.md, "XLA's GPU
  // collective models").
  bool nvlink_links_known = true;
};

struct CollectiveInput {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  // V, as docs/cost-conventions.md, "Collectives" takes it from the shapes: the all-gather output,
  // the reduce-scatter input, the all-reduce buffer, N x the per-device all-to-all input (for
  // ragged all-to-all, its output buffer); for collective-permute and send/recv, the bytes each
  // pair moves; for collective-broadcast, the broadcast buffer.
  double bytes = 0;
  // Replica groups as device ids (already expanded, group mode resolved). Every group runs at
  // once; the slowest bounds the collective. Unused by permute and send/recv.
  std::vector<std::vector<int64_t>> groups;
  // collective-permute and send/recv: source -> target device ids.
  std::vector<std::pair<int64_t, int64_t>> pairs;
};

struct CollectiveEstimate {
  double time_s = 0;
  std::string formula;          // name and shape of the formula, e.g. "ring: V (N-1) / (N W_bi)"
  int64_t group_size = 0;       // N of the slowest group (2 for a pair)
  double bytes = 0;             // V
  double bandwidth = 0;         // effective B/s behind the bandwidth term
  double bandwidth_time_s = 0;  // the bandwidth term
  int64_t hops = 0;             // ICI hops of the latency term (TPU)
  // The latency term: hops x T_hop (TPU floor, or added for point-to-point), plus DCN latency,
  // or the launch latency (GPU; added).
  double latency_s = 0;
  GroupPlacement placement;  // of the slowest group or pair
  bool approximate = false;  // a conservative bound (partial groups, uneven domains, ...)
  std::vector<std::string> notes;

  // The formula with its inputs: N, V, bandwidth, hops, latency.
  std::string explain() const;
};

// The time of `input` on `topology` of `device`. Errors: no groups (expand `{}` first), device
// ids outside the topology, negative bytes, a model that does not apply (XLA's GPU models on a
// TPU, SoL without constants for the device, a kind a model has no formula for).
absl::StatusOr<CollectiveEstimate> collective_time(const DeviceSpec& device,
                                                   const Topology& topology,
                                                   const CollectiveInput& input,
                                                   const CollectiveOptions& options = {});

}  // namespace hloroof

#endif  // HLOROOF_COLLECTIVE_H_
