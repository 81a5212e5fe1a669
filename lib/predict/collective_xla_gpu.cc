// XLA's own GPU collective models, kept selectable so predictions can be compared with what
// XLA's scheduler assumes: the NCCL model (docs/sources.md, "XLA's GPU collective models") and the
// speed-of-light model (same section).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "predict/collective_models.h"

namespace hloroof::internal {
namespace {

// Per-generation constants of XLA's NCCL model (XLA-gpu-coll), by compute capability major.
struct NcclGeneration {
  double lane_bandwidth;    // NVLink per lane, B/s
  double ll128_bandwidth;   // per channel, B/s
  double ladder_bandwidth;  // the top of the speed ladder, used without NVLink information
};

NcclGeneration nccl_generation(int cc_major) {
  NcclGeneration g;
  g.lane_bandwidth = cc_major <= 6 ? 18e9 : cc_major <= 9 ? 20e9 : 40e9;
  g.ll128_bandwidth = cc_major >= 9 ? 36.7e9 : 20e9;
  g.ladder_bandwidth = cc_major >= 9 ? 60e9 : 40e9;
  return g;
}

constexpr int kMaxChannelsRing = 32;    // kMaxNumChannelsRing
constexpr double kRingDiscount = 0.92;  // ring algorithm efficiency (CUDA)
constexpr double kSolHeaderOverhead = 0.025;
constexpr double kSolOneShotLimit = 256 * 1024;       // symmetric-memory one-shot all-reduce
constexpr double kSolTwoShotLimit = 4 * 1024 * 1024;  // and two-shot
constexpr double kSolSymmetricLaunch = 1e-6;
// XLA's NCCL kernel launch overhead: one figure for every GPU (gpu_performance_model_base.h).
// Not the device's own collective_launch_latency, which our models take from measurements.
constexpr double kXlaNcclLaunch = 5e-6;

absl::StatusOr<const SolModelSpec*> sol_spec(const DeviceSpec& device) {
  if (!device.gpu || !device.gpu->xla_sol) {
    return absl::FailedPreconditionError(absl::StrCat(
        device.name, " has no xla_sol constants in its spec; XLA's SoL model needs them"));
  }
  return &*device.gpu->xla_sol;
}

// One ring step of the SoL model for a message of `m` bytes per GPU.
double sol_step(const SolModelSpec& sol, double m) {
  return m * (1 + kSolHeaderOverhead) / sol.nic_speed +
         std::ceil(m / sol.chunk_size_bytes) * sol.chunk_prep_s + sol.rtt_s;
}

}  // namespace

absl::StatusOr<CollectiveEstimate> xla_nccl_time(const DeviceSpec& device, CollectiveKind kind,
                                                 double bytes, int64_t n,
                                                 const CollectiveOptions& options) {
  const GpuFabricSpec& gpu = *device.gpu;
  if (gpu.vendor != GpuVendor::kNvidia) {
    // Its constants are NVLink's and NCCL's by CUDA compute capability.
    return absl::FailedPreconditionError(absl::StrCat(
        "XLA's NCCL model describes NVIDIA GPUs; ", device.name, " is an ",
        sv(gpu_vendor_name(gpu.vendor)), " GPU"));
  }
  CollectiveEstimate e;
  e.group_size = n;
  e.bytes = bytes;
  e.latency_s = kXlaNcclLaunch;
  const bool modelled = kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kAllGather ||
                        kind == CollectiveKind::kReduceScatter;
  if (!modelled || n <= 1) {
    e.time_s = e.latency_s;
    e.formula = "XLA NCCL model: launch latency only";
    e.notes.push_back(
        n <= 1 ? "a group of one device"
               : absl::StrCat("XLA's NCCL model does not model ", sv(collective_kind_name(kind))));
    return e;
  }
  const double nd = static_cast<double>(n);
  // Bytes as XLA's GPU cost analysis charges them, and the ratio of those to what one link
  // moves (XLA-gpu-hca).
  double charged = 0, ratio = 0;
  if (kind == CollectiveKind::kAllReduce) {
    charged = options.async_start ? bytes : 2 * bytes;
    ratio = nd / (2 * (nd - 1));
  } else {
    charged = bytes * (3 * nd - 1) / nd;
    ratio = nd / (nd - 1);
  }
  const NcclGeneration g = nccl_generation(gpu.compute_capability_major);
  int channels = std::max<int>(static_cast<int>(std::min<int64_t>(n, 1 << 20)), kMaxChannelsRing);
  double lane = g.ladder_bandwidth;
  if (options.nvlink_links_known) {
    channels = std::min(channels, gpu.nvlink_links);
    lane = g.lane_bandwidth;
  }
  const double ch = channels;
  e.bandwidth = std::min(lane * ch * kRingDiscount, ch * g.ll128_bandwidth) * ratio;
  e.bandwidth_time_s = charged / e.bandwidth;
  e.time_s = e.latency_s + e.bandwidth_time_s;
  e.formula = "XLA NCCL model: launch + bytes / (min(W_lane n_ch 0.92, n_ch W_ll128) ratio)";
  e.notes.push_back(absl::StrFormat(
      "bytes charged %.6g, %d channels, lane %.4g B/s, ratio %.4g; the per-channel compute "
      "term is left out",
      charged, channels, lane, ratio));
  return e;
}

absl::StatusOr<CollectiveEstimate> xla_sol_group_time(const DeviceSpec& device,
                                                      const GroupPlacement& group,
                                                      CollectiveKind kind, double bytes) {
  absl::StatusOr<const SolModelSpec*> spec = sol_spec(device);
  if (!spec.ok()) return spec.status();
  const SolModelSpec& sol = **spec;
  CollectiveEstimate e;
  e.group_size = group.size;
  e.bytes = bytes;
  e.placement = group;
  e.approximate = group.approximate;
  e.bandwidth = sol.nic_speed;
  if (group.size <= 1) {
    e.formula = "single device: nothing to move";
    return e;
  }
  const double n = static_cast<double>(group.size);
  const double nodes = static_cast<double>(group.domains);
  const double per_node = std::floor(n / nodes);  // XLA divides integers

  switch (kind) {
    case CollectiveKind::kAllReduce:
      if (group.domains == 1 && bytes <= kSolTwoShotLimit) {
        // Symmetric-memory kernels inside one node.
        const GpuFabricSpec& gpu = *device.gpu;
        const double bw =
            gpu.nvlink_links * nccl_generation(gpu.compute_capability_major).lane_bandwidth;
        e.bandwidth = bw;
        if (bytes <= kSolOneShotLimit) {
          e.bandwidth_time_s = (n - 1) * bytes / bw;
          e.latency_s = kSolSymmetricLaunch + sol.nvlink_barrier_s;
          e.formula = "XLA SoL one-shot all-reduce: 1 us + (N-1) V / BW + barrier";
        } else {
          e.bandwidth_time_s = 2 * (n - 1) * bytes / (n * bw);
          e.latency_s = kSolSymmetricLaunch + 2 * sol.nvlink_barrier_s;
          e.formula = "XLA SoL two-shot all-reduce: 1 us + 2 ((N-1) V / (N BW) + barrier)";
        }
        e.time_s = e.bandwidth_time_s + e.latency_s;
        return e;
      }
      [[fallthrough]];
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: {
      const double rounds = kind == CollectiveKind::kAllReduce ? 2 : 1;
      const double m = std::floor(bytes / n);
      const double steps = rounds * (n - 1) / per_node;
      e.bandwidth_time_s = steps * m * (1 + kSolHeaderOverhead) / sol.nic_speed;
      e.latency_s = sol.nccl_op_launch_s +
                    steps * (std::ceil(m / sol.chunk_size_bytes) * sol.chunk_prep_s + sol.rtt_s);
      e.time_s = sol.nccl_op_launch_s + steps * sol_step(sol, m);
      e.formula =
          "XLA SoL ring: launch + rounds (N-1)/g (m 1.025 / NIC + ceil(m / chunk) "
          "prep + RTT), m = V/N";
      return e;
    }
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kRaggedAllToAll: {
      if (group.domains == 1) break;
      const double peer = bytes / (n - 1);
      const double steps = per_node * (nodes - 1);
      e.bandwidth_time_s = steps * peer * (1 + kSolHeaderOverhead) / sol.nic_speed;
      e.time_s = sol.nccl_op_launch_s + steps * sol_step(sol, peer);
      e.latency_s = e.time_s - e.bandwidth_time_s;
      e.formula =
          "XLA SoL all-to-all: launch + g (nodes-1) (peer 1.025 / NIC + prep + RTT), "
          "peer = V/(N-1)";
      return e;
    }
    default:
      break;
  }
  return absl::UnimplementedError(absl::StrCat("XLA's SoL model has no formula for ",
                                               sv(collective_kind_name(kind)),
                                               group.domains == 1 ? " inside one node" : ""));
}

absl::StatusOr<CollectiveEstimate> xla_sol_pair_time(const DeviceSpec& device, double bytes,
                                                     bool across_nodes) {
  absl::StatusOr<const SolModelSpec*> spec = sol_spec(device);
  if (!spec.ok()) return spec.status();
  const SolModelSpec& sol = **spec;
  // XLA treats send/recv as a ring of 2 GPUs with the whole buffer as the message.
  const double per_node = across_nodes ? 1 : 2;
  CollectiveEstimate e;
  e.group_size = 2;
  e.bytes = bytes;
  e.bandwidth = sol.nic_speed;
  e.bandwidth_time_s = bytes * (1 + kSolHeaderOverhead) / sol.nic_speed / per_node;
  e.time_s = sol.nccl_op_launch_s + sol_step(sol, bytes) / per_node;
  e.latency_s = e.time_s - e.bandwidth_time_s;
  e.formula = "XLA SoL send/recv: launch + (2-1)/g (V 1.025 / NIC + ceil(V / chunk) prep + RTT)";
  return e;
}

}  // namespace hloroof::internal
