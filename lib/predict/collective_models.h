// The collective models behind collective_time(), one group or pair at a time.
#ifndef HLOROOF_LIB_PREDICT_COLLECTIVE_MODELS_H_
#define HLOROOF_LIB_PREDICT_COLLECTIVE_MODELS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "hloroof/collective.h"
#include "hloroof/device.h"
#include "hloroof/topology.h"

namespace hloroof::internal {

// One direction of what one device can send along `axis`, B/s. The links of a chip are shared
// by its devices (every device runs the same SPMD collective at once), so ICI and DCN figures
// are divided by devices_per_chip.
double axis_bandwidth(const DeviceSpec& device, const TopologyAxis& axis);

// The scaling book's models (docs/sources.md, "Collective formulas") for one group.
absl::StatusOr<CollectiveEstimate> tpu_group_time(const DeviceSpec& device,
                                                  const Topology& topology,
                                                  const GroupPlacement& group, CollectiveKind kind,
                                                  double bytes, const CollectiveOptions& options);
absl::StatusOr<CollectiveEstimate> gpu_group_time(const DeviceSpec& device,
                                                  const GroupPlacement& group, CollectiveKind kind,
                                                  double bytes, const CollectiveOptions& options);

// Point to point: `bytes` from `source` to `target` (distinct devices).
CollectiveEstimate tpu_pair_time(const DeviceSpec& device, const Topology& topology, int64_t source,
                                 int64_t target, double bytes);
CollectiveEstimate gpu_pair_time(const DeviceSpec& device, const Topology& topology, int64_t source,
                                 int64_t target, double bytes);

// XLA's GPU collective model (docs/sources.md, "XLA's GPU collective models") for a group of `n`
// devices.
absl::StatusOr<CollectiveEstimate> xla_nccl_time(const DeviceSpec& device, CollectiveKind kind,
                                                 double bytes, int64_t n,
                                                 const CollectiveOptions& options);

// XLA's speed-of-light GPU model (docs/sources.md, "XLA's GPU collective models").
absl::StatusOr<CollectiveEstimate> xla_sol_group_time(const DeviceSpec& device,
                                                      const GroupPlacement& group,
                                                      CollectiveKind kind, double bytes);
absl::StatusOr<CollectiveEstimate> xla_sol_pair_time(const DeviceSpec& device, double bytes,
                                                     bool across_nodes);

}  // namespace hloroof::internal

#endif  // HLOROOF_LIB_PREDICT_COLLECTIVE_MODELS_H_
