// GPU collectives in NVLink domains and across them, the scaling book's model (docs/sources.md,
// "Collective formulas"): every GPU of a domain reaches every other through NVSwitches at W_gpu one
// way, and a domain's L GPUs reach other domains through L NICs of W_so each (full bisection
// assumed). The collective's launch latency is added to the bandwidth term.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "predict/collective_models.h"

namespace hloroof::internal {
namespace {

// (n-1)/n, or 1 in the large-N form.
double spread(double n, bool large_n) { return large_n ? 1.0 : (n - 1) / n; }

}  // namespace

absl::StatusOr<CollectiveEstimate> gpu_group_time(const DeviceSpec& device,
                                                  const GroupPlacement& group, CollectiveKind kind,
                                                  double bytes, const CollectiveOptions& options) {
  const GpuFabricSpec& gpu = *device.gpu;
  const double v = bytes;
  const double n = static_cast<double>(group.size);
  const double m = static_cast<double>(group.domains);
  const double l = static_cast<double>(group.members_per_domain);
  const double w_gpu = gpu.nvlink_bandwidth;
  const double w_node = l * gpu.scale_out_bandwidth;  // the domain's egress for this group

  CollectiveEstimate e;
  e.group_size = group.size;
  e.bytes = v;
  e.placement = group;
  e.approximate = group.approximate;
  if (group.size == 1) {
    e.formula = "single device: nothing to move";
    return e;
  }

  // Bandwidth terms inside a domain and across domains; the slower one bounds the collective.
  double inside = 0, across = 0;
  double repeats = 1;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      repeats = 2;
      [[fallthrough]];
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
      if (l > 1) inside = v * spread(l, options.large_n) / w_gpu;
      if (m > 1) across = v * spread(m, options.large_n) / w_node;
      e.formula = m > 1 ? "across NVLink domains: max(V (L-1) / (L W_gpu), V (M-1) / (M L W_so))"
                        : "in one NVLink domain: V (N-1) / (N W_gpu)";
      break;
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kRaggedAllToAll:
      if (m > 1) {
        // Each domain exchanges its share V/M inside, and (M-1)/M of it with other domains.
        if (l > 1) inside = (v / m) * (l - 1) / (l * l * w_gpu);
        across = v * (m - 1) / (m * m * w_node);
        e.formula =
            "all-to-all across NVLink domains: max(V/M (L-1) / (L^2 W_gpu), "
            "V (M-1) / (M^2 L W_so))";
      } else {
        inside = options.large_n ? v / (n * w_gpu) : v * (n - 1) / (n * n * w_gpu);
        e.formula = "all-to-all in one NVLink domain: V (N-1) / (N^2 W_gpu)";
      }
      break;
    case CollectiveKind::kCollectiveBroadcast:
      // Derived: a pipelined ring carries the whole buffer over every hop.
      inside = v / w_gpu;
      if (m > 1) across = v / w_node;
      e.formula = "pipelined broadcast (derived): V / min(W_gpu, L W_so)";
      break;
    case CollectiveKind::kCollectivePermute:
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return absl::InvalidArgumentError("point-to-point collectives take source-target pairs");
  }
  if (repeats == 2) e.formula = absl::StrCat("2 x ", e.formula);
  e.bandwidth_time_s = repeats * std::max(inside, across);
  e.bandwidth = across > inside ? w_node : w_gpu;
  e.latency_s = gpu.collective_launch_latency_s;
  e.time_s = e.latency_s + e.bandwidth_time_s;
  absl::StrAppend(&e.formula, " + launch latency");
  return e;
}

CollectiveEstimate gpu_pair_time(const DeviceSpec& device, const Topology& topology, int64_t source,
                                 int64_t target, double bytes) {
  const GpuFabricSpec& gpu = *device.gpu;
  // The node axis, when present, is the second; same node means one NVLink domain.
  const DeviceCoords& a = topology.coords[static_cast<size_t>(source)];
  const DeviceCoords& b = topology.coords[static_cast<size_t>(target)];
  const bool across = a.size() > 1 && a[1] != b[1];
  CollectiveEstimate e;
  e.group_size = 2;
  e.bytes = bytes;
  e.bandwidth = across ? gpu.scale_out_bandwidth : gpu.nvlink_bandwidth;
  e.bandwidth_time_s = bytes / e.bandwidth;
  e.latency_s = gpu.collective_launch_latency_s;
  e.time_s = e.latency_s + e.bandwidth_time_s;
  e.formula = across ? "point to point across NVLink domains: bytes / W_so + launch latency"
                     : "point to point in an NVLink domain: bytes / W_gpu + launch latency";
  return e;
}

}  // namespace hloroof::internal
