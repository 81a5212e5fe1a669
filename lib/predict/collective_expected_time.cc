// The expected time of a collective (expected_collective_time, docs/prediction-model.md,
// "Measured models (GPUs)", "Across nodes (GPUs)"): the measured NCCL fits inside an
// NVLink domain, NCCL's own model across nodes, a file's calibration, or the TPU fits.
#include "predict/expected_time.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"
#include "hloroof/computation.h"
#include "predict/expected_time_internal.h"
#include "predict/gpu_families.h"
#include "predict/tpu_models.h"
#include "util/number_text.h"

namespace hloroof::predict {

namespace {

// The table's name for a collective kind, the opcode of the kind it is measured as; empty when
// no table measures it.
std::string_view table_op(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kCollectivePermute:
      return collective_kind_name(kind);
    case CollectiveKind::kRaggedAllToAll:
      return collective_kind_name(CollectiveKind::kAllToAll);
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return collective_kind_name(CollectiveKind::kCollectivePermute);
    default:
      return {};
  }
}

// Weight of another group size's measurements in a pooled all-to-all fit: 0.1 keeps each
// group's own curve in charge while its neighbours damp the noise. Of 0.1, 0.2, 0.3 and 0.5 it
// gives the lowest all-to-all error on the test half of bench/accuracy_bench, which so is not
// unseen for this one number (docs/prediction-model.md, "Measured models (GPUs)").
constexpr double kPooledWeight = 0.1;

// NCCL's own latency model (src/graph/tuning.cc of NVIDIA/nccl, read at 01afd20a77b5, the Ring
// rows, in us): a base latency, then one hop latency for every step of the ring, the steps that
// cross nodes at the network's figure: Simple 8.4 base, 3.4 per NVLink step, 9.6 per network
// step; LL 3.6 base, 0.47 x 1.8 per NVLink step once the communicator spans nodes, 2.7 per
// network step, at a quarter of Simple's bandwidth across nodes (the same file). NCCL takes
// whichever protocol is faster for the size, as this model does (LL128, enabled only on some
// NVLink-and-PCIe layouts, is left out). A network step of Simple, 9.6 us, agrees with what a
// user measured of one 128 KiB step of NCCL's data path over 400 Gb/s RoCE: 10-12 us
// (NVIDIA/nccl#2409).
struct NcclProtocol {
  std::string_view name;
  double base_s;
  double nvlink_step_s;
  double net_step_s;
  double bandwidth_share;
};
constexpr NcclProtocol kNcclSimple{"Simple", 8.4e-6, 3.4e-6, 9.6e-6, 1.0};
constexpr NcclProtocol kNcclLl{"LL", 3.6e-6, 0.47e-6 * 1.8, 2.7e-6, 0.25};

// NCCL's tree, all-reduce only: a chain through the GPUs of each node and a double binary tree
// across nodes (src/graph/tuning.cc of NVIDIA/nccl). Latency, as the ring's read at 01afd20a77b5
// (us): a base, then twice (up and down) one NVLink hop for each GPU of a node but the first and
// one network hop for each level of the tree, floor(log2 M) of them: Simple 0 base, 28 per
// NVLink hop, 50 per network hop; LL 4.4 base, 0.52 x 1.8 per NVLink hop (once the
// communicator spans nodes), 5.0 per network hop. Bandwidth, read at b6475625fbca (whose caps
// per channel and architecture replace 01afd20a's single 110 GB/s, set before Hopper): the
// tree's bus bandwidth is 0.92 of its channels' speed, at most a cap per channel (below), LL a
// further 1/3.8 of it, and an all-reduce moves its buffer at half the bus bandwidth. Between 64 B
// and 128 MiB NCCL scales the tree's bandwidth by a measured correction by size (below).
struct NcclTreeProtocol {
  std::string_view name;
  double base_s;
  double nvlink_hop_s;
  double net_hop_s;
  double bandwidth_share;
  // NCCL's treeCorrectionFactor at 01afd20a: index floor(log2(bytes / 64)), 1 from 22 on.
  std::array<double, 22> correction;
};
constexpr NcclTreeProtocol kNcclTreeSimple{
    "Simple", 0, 28e-6, 50e-6, 1.0,
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}};
constexpr NcclTreeProtocol kNcclTreeLl{
    "LL", 4.4e-6, 0.52e-6 * 1.8, 5.0e-6, 1 / 3.8,
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0,
     1.0}};
constexpr double kNcclTreeBandwidthFactor = 0.92;

// The speed NCCL gives one channel through a NIC of line rate `nic` (B/s): the fastest of its
// search's channel speeds (search.cc of NVIDIA/nccl, speedArrayInter, GB/s) not above the NIC's,
// halved from 25 GB/s on, where NCCL doubles the channels: 24 GB/s for a 200 Gb/s NIC (25 GB/s)
// and for a 400 Gb/s one (50 GB/s: 48, halved).
double nccl_channel_speed(double nic) {
  constexpr double kSpeeds[] = {48, 30, 24, 22, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24,
                                0.12};
  double speed = kSpeeds[std::size(kSpeeds) - 1] * 1e9;
  for (double g : kSpeeds) {
    if (g * 1e9 <= nic) {
      speed = g * 1e9;
      break;
    }
  }
  return speed >= 25e9 ? speed / 2 : speed;
}

// What NCCL's latency counts, for explanations: "ring, Simple", "tree, LL: faster than NCCL's
// ring, 1.2 ms, by NCCL's own model" or "8 remote peers, Simple".
std::string scale_out_latency_text(const ScaleOutTime& t) {
  if (t.remote_peers > 0) {
    return absl::StrFormat("%d remote peer%s, %s", t.remote_peers, t.remote_peers == 1 ? "" : "s",
                           sv(t.protocol));
  }
  std::string text = absl::StrCat(sv(t.algorithm), ", ", sv(t.protocol));
  if (t.other_s > 0) {
    absl::StrAppend(&text, ": faster than NCCL's ", t.algorithm == "tree" ? "ring" : "tree",
                    ", ", seconds(t.other_s), ", by NCCL's own model");
  }
  return text;
}

// Bus-bandwidth factor of a group of n: what each device sends, per byte of the table's size.
double bus_factor(std::string_view op, double n) {
  if (n <= 1) return 0;
  if (op == "all-reduce") return 2 * (n - 1) / n;
  if (op == "collective-permute") return 1;
  return (n - 1) / n;
}

// Where a GPU's scale-out bandwidth comes from, for the assumption: its node's NICs, or the
// spec's scale_out_bandwidth (below the NICs' share, or with no NICs given).
std::string nics_text(const DeviceSpec& device, const DeviceFigure* nic_figure) {
  const DeviceFigure* nics = device.figure("interconnect.nics_per_node");
  if (nic_figure == nullptr || nics == nullptr) {
    return "(scale_out_bandwidth, assumed: one NIC per GPU; nodes with fewer or slower NICs are "
           "slower: Jean Zay's 8 A100s share 4 x 100 Gb/s Omni-Path, 4x less per GPU than 8 x "
           "200 Gb/s; give nics_per_node and nic_bandwidth)";
  }
  const std::string node = absl::StrFormat("%g NICs x %.4g B/s a node of %d GPUs", nics->value,
                                           nic_figure->value, device.gpu->nvlink_domain_size);
  if (device.figure("interconnect.scale_out_bandwidth") != nullptr) {
    return absl::StrCat("(scale_out_bandwidth, below the share of its node's NICs: ", node, ")");
  }
  return absl::StrCat("from its node's NICs (", node, ")");
}

// A collective's part across `domains` NVLink domains (device.gpu set): NCCL's algorithms at
// the measured share of the NICs' line rate, with NCCL's own latency model. `per_domain`: its
// members in one domain. Sets `so` and the efficiency `eff`; returns so.time_s().
double across_domains_time(std::string_view op, double bytes, int64_t n, int64_t domains,
                           int64_t per_domain, const DeviceSpec& device,
                           std::vector<std::string>& assumptions, ScaleOutTime& so, double& eff) {
  const DeviceFigure* nic_figure = device.figure("interconnect.nic_bandwidth");
  const double w_so = device.gpu->scale_out_bandwidth;
  const double nic = nic_figure != nullptr ? nic_figure->value : w_so;
  const double l = static_cast<double>(std::max<int64_t>(1, per_domain));
  eff = device.gpu->nic_efficiency.value_or(kScaleOutEfficiency);
  // NCCL's tree on NVIDIA GPUs (RCCL's tuning differs: AMD GPUs keep the ring).
  const double tree_cap =
      nvidia(device) ? nccl_tree_channel_cap(device.gpu->compute_capability_major, domains) : 0;
  so = scale_out_time(op, bytes, n, domains, l, w_so, nic, eff, tree_cap);
  // A cluster's own latency across nodes (interconnect.scale_out_latency), the same for every
  // algorithm and protocol, so it changes none of NCCL's choices.
  so.latency_s += device.gpu->scale_out_latency_s.value_or(0.0);
  note_once(assumptions,
            absl::StrFormat(
                "%s across nodes: NCCL's ring (reductions, gathers; an all-reduce its ring or "
                "tree, whichever NCCL's own model times lower) and one NIC per GPU "
                "(all-to-all, send) at %.2f of line rate %s, latency NCCL's own model (9.6 us "
                "a network step, one per remote peer of an all-to-all, NVIDIA/nccl "
                "tuning.cc)%s; %s per GPU %s",
                device.name, eff,
                device.gpu->nic_efficiency
                    ? "(the file's nic_efficiency)"
                    : "(measured on InfiniBand A100 and H100 nodes, NVIDIA/nccl#1048, "
                      "nccl-tests#119, #267; published all-to-alls across nodes reach "
                      "0.64-0.96, nccl-tests#139, #267; 2-node FFTs on Jean Zay's Omni-Path "
                      "0.27: up to 3x slower)",
                device.gpu->scale_out_latency_s
                    ? absl::StrFormat(" + the file's scale_out_latency %.4g s",
                                      *device.gpu->scale_out_latency_s)
                    : std::string(),
                absl::StrFormat("%.4g B/s", w_so), nics_text(device, nic_figure)));
  if (!device.gpu->nic_efficiency) {
    note_once(assumptions, std::string(kUncalibratedNetworkWarning));
  }
  return so.time_s();
}

// The measured curve of `op` whose group size is nearest `size` (in log), the first of equals;
// `fit_size`: its group size. Null when none is measured.
const measured::CollectiveCurve* nearest_fit(const measured::DeviceTables& tables,
                                             std::string_view op, int64_t size,
                                             int64_t& fit_size) {
  const measured::CollectiveCurve* fit = nullptr;
  for (const auto& [key, f] : tables.collectives) {
    if (key.op != op) continue;
    if (fit == nullptr || std::abs(std::log2(static_cast<double>(key.group_size)) -
                                   std::log2(static_cast<double>(size))) <
                              std::abs(std::log2(static_cast<double>(fit_size)) -
                                       std::log2(static_cast<double>(size)))) {
      fit = &f;
      fit_size = key.group_size;
    }
  }
  return fit;
}

}  // namespace

double nccl_tree_channel_cap(int compute_capability_major, int64_t nodes) {
  if (compute_capability_major < 7) return 0;
  const bool two = nodes <= 2;
  if (compute_capability_major >= 9) return two ? 41.4e9 : 36.0e9;
  if (compute_capability_major == 8) return two ? 23.6e9 : 17.8e9;
  return two ? 18.5e9 : 10.0e9;
}

// Bus bandwidth as nccl-tests defines it (doc/PERFORMANCE.md): a ring over all n GPUs whose
// traffic leaves each node through all its NICs moves 2 (n-1)/n V (all-reduce) or (n-1)/n V
// (all-gather, reduce-scatter) through the node's egress (l GPUs x w_so), its latency NCCL's:
// 2 (n-1) ring steps of an all-reduce, 2 (m-1) of them across nodes; n-1 and m-1 for a gather
// or a scatter. An all-to-all sends (m-1)/m of each GPU's buffer V / n to other nodes through
// that GPU's own NIC, which it cannot pool with other NICs (NVIDIA/nccl-tests#130, #267: "the
// performance of a single NIC"), in one send to each of its n (m-1)/m remote peers: NCCL runs it
// as grouped point-to-point sends, every network send progressed by the GPU's one proxy thread,
// so each remote peer is taken to cost one network step of Simple (point-to-point runs the
// Simple protocol) after the base latency. A point-to-point transfer is one such send.
// An all-reduce may run as NCCL's tree instead (`tree_cap` > 0), taken when NCCL's own model
// times it below the ring (NCCL picks the algorithm and protocol of the lowest time). Its bus
// bandwidth, in units of the ring's: NCCL's tuning takes the tree's channels at their speed
// inside a node on 2 nodes, which its search lets reach twice their network speed (search.cc,
// "increase speedIntra for trees (2 nodes or collnet)"): a tree on 2 nodes sends half of what
// its chains carry through the network; beyond 2 nodes, their network speed. So 0.92 x 2 (2
// nodes) or 0.92 of the ring's, at most the cap over one channel's speed (the tree's channels
// taken as many as the ring's, each at nccl_channel_speed).
ScaleOutTime scale_out_time(std::string_view op, double v, int64_t n, int64_t m, double l,
                            double w_so, double nic, double eff, double tree_cap) {
  ScaleOutTime t;
  const double dn = static_cast<double>(n);
  const double dm = static_cast<double>(m);
  const bool ring = op == "all-reduce" || op == "all-gather" || op == "reduce-scatter";
  if (ring) {
    const double factor = op == "all-reduce" ? 2 : 1;
    const double bytes = factor * (dn - 1) / dn * v;
    const double steps = factor * (dn - 1);
    const double inter = factor * (dm - 1);
    const double simple_bw = bytes / (eff * l * w_so);
    bool first = true;
    for (const NcclProtocol* p : {&kNcclSimple, &kNcclLl}) {
      const double latency =
          p->base_s + (steps - inter) * p->nvlink_step_s + inter * p->net_step_s;
      const double bandwidth = simple_bw / p->bandwidth_share;
      if (first || latency + bandwidth < t.time_s()) {
        t.latency_s = latency;
        t.bandwidth_s = bandwidth;
        t.protocol = p->name;
      }
      first = false;
    }
    t.algorithm = "ring";
    if (op != "all-reduce" || tree_cap <= 0 || m < 2) return t;
    const double ring_bus = eff * l * w_so;
    const double doubled = m <= 2 ? 2.0 : 1.0;
    const double tree_bus =
        std::min(kNcclTreeBandwidthFactor * doubled, tree_cap / nccl_channel_speed(nic)) *
        ring_bus;
    const double levels = std::floor(std::log2(dm));
    const double chunks = std::max(1.0, v / 64);
    const size_t size_index = static_cast<size_t>(std::floor(std::log2(chunks)));
    ScaleOutTime tree;
    tree.algorithm = "tree";
    first = true;
    for (const NcclTreeProtocol* p : {&kNcclTreeSimple, &kNcclTreeLl}) {
      const double latency =
          p->base_s + 2 * ((l - 1) * p->nvlink_hop_s + levels * p->net_hop_s);
      const double correction =
          size_index < p->correction.size() ? p->correction[size_index] : 1.0;
      const double bandwidth = v / (0.5 * tree_bus * p->bandwidth_share * correction);
      if (first || latency + bandwidth < tree.time_s()) {
        tree.latency_s = latency;
        tree.bandwidth_s = bandwidth;
        tree.protocol = p->name;
      }
      first = false;
    }
    const double ring_s = t.time_s();
    const double tree_s = tree.time_s();
    if (tree_s < ring_s) {
      tree.other_s = ring_s;
      return tree;
    }
    t.other_s = tree_s;
    return t;
  }
  const double per_gpu = std::min(w_so, nic) * eff;
  t.protocol = kNcclSimple.name;
  if (op == "all-to-all") {
    t.remote_peers = n - n / std::max<int64_t>(1, m);
    t.bandwidth_s = (dm - 1) / dm * (v / dn) / per_gpu;
  } else {
    t.remote_peers = 1;
    t.bandwidth_s = v / per_gpu;
  }
  t.latency_s = kNcclSimple.base_s + static_cast<double>(t.remote_peers) * kNcclSimple.net_step_s;
  return t;
}

CollectiveExpectedTime expected_collective_time(CollectiveKind kind,
                                                const CollectiveEstimate& roofline,
                                                const DeviceSpec& device,
                                                std::vector<std::string>& assumptions) {
  CollectiveExpectedTime e{roofline.time_s, "", {}};
  CollectiveBasis basis;
  // A file that sets the share of its NICs' line rate (nic_efficiency) gives collectives across
  // nodes that network model; collective_bandwidth_efficiency and collective_latency then
  // calibrate only those inside one node (hloroof calibrate fits them apart).
  const bool network_set = device.gpu && device.gpu->nic_efficiency &&
                           roofline.placement.domains > 1 && !table_op(kind).empty() &&
                           !collective_source(device).name.empty();
  const bool calibrated =
      (device.collective_bandwidth_efficiency || device.collective_latency_s) && !network_set;
  if (device.kind != DeviceKind::kGpu && !calibrated) {
    if (tpu_measured(device)) {
      return expected_tpu_collective_time(roofline, device, assumptions);
    }
    e.model = "roofline (no measured model for TPUs)";
    return e;
  }
  if (calibrated) {
    const double eff = device.collective_bandwidth_efficiency.value_or(1.0);
    const double latency = device.collective_latency_s.value_or(roofline.latency_s);
    e.time_s =
        std::max(roofline.time_s, latency + roofline.bandwidth_time_s / eff);
    e.model = "calibrated collective_bandwidth_efficiency / collective_latency";
    basis.kind = CollectiveBasis::Kind::kCalibrated;
    basis.latency_s = latency;
    basis.bandwidth_s = roofline.bandwidth_time_s;
    basis.efficiency = eff;
    e.basis = basis;
    return e;
  }
  const std::string_view op = table_op(kind);
  const Source source = collective_source(device);
  const measured::DeviceTables* tables =
      source.name.empty() || op.empty() ? nullptr : measured::tables_for(source.name);
  if (tables == nullptr || roofline.group_size <= 1) {
    e.model = "roofline (no measured model)";
    return e;
  }
  // The part inside one NVLink domain.
  const bool pair = op == "collective-permute";
  const int64_t n = roofline.group_size;
  const int64_t domains = std::max<int64_t>(1, roofline.placement.domains);
  const int64_t inside = pair ? 2
                         : roofline.placement.members_per_domain > 0
                             ? roofline.placement.members_per_domain
                             : n;
  // Across NVLink domains: NCCL's algorithms at the measured share of the NICs' line rate, with
  // NCCL's own latency model.
  ScaleOutTime so;
  double across = 0;
  double eff = kScaleOutEfficiency;
  if (domains > 1 && device.gpu) {
    across = across_domains_time(op, roofline.bytes, n, domains, pair ? 1 : inside, device,
                                 assumptions, so, eff);
  }
  if (inside <= 1) {
    if (across <= 0) {
      e.model = "roofline (no measured model across NVLink domains)";
      return e;
    }
    const double latency = device.gpu ? device.gpu->collective_launch_latency_s : 0.0;
    e.time_s = std::max(roofline.time_s, latency + across);
    e.model = device.gpu->nic_efficiency
                  ? "scale-out (NCCL across nodes, the file's nic_efficiency)"
                  : "scale-out (NCCL across nodes, measured efficiency)";
    basis.kind = CollectiveBasis::Kind::kScaleOut;
    basis.latency_s = latency;
    basis.op = op;
    basis.domains = domains;
    basis.across_s = across;
    basis.scale_out = so;
    basis.efficiency = eff;
    e.basis = basis;
    return e;
  }
  // The measured group size nearest `inside` (in log), scaled by the bus factor.
  int64_t fit_size = 0;
  const measured::CollectiveCurve* fit = nearest_fit(*tables, op, inside, fit_size);
  if (fit == nullptr) {
    e.model = "roofline (no measured model)";
    return e;
  }
  // The table's size: the all-to-all buffer of one device is V / N.
  const double bytes =
      op == "all-to-all" ? roofline.bytes / static_cast<double>(n) : roofline.bytes;
  measured::LatencyBandwidth model;
  if (op == "all-to-all") {
    // An all-to-all is N-1 point-to-point sends at once, so its time per device follows the
    // bytes each device sends at every group size: the measured group sizes within a factor of
    // 2 join the fit, in bus bytes, at a tenth of the weight (kPooledWeight).
    std::vector<measured::PooledCurve> others;
    for (const auto& [key, f] : tables->collectives) {
      if (key.op != op || key.group_size == fit_size) continue;
      const double apart = std::abs(std::log2(static_cast<double>(key.group_size)) -
                                    std::log2(static_cast<double>(fit_size)));
      if (apart > 1.0) continue;
      others.push_back({&f, bus_factor(op, static_cast<double>(key.group_size)), kPooledWeight});
    }
    model = measured::pooled_fit(*fit, bus_factor(op, static_cast<double>(fit_size)), others,
                                 bytes);
  } else {
    model = fit->at(bytes);
  }
  double scale = pair ? 1.0
                      : bus_factor(op, static_cast<double>(inside)) /
                            bus_factor(op, static_cast<double>(fit_size));
  if (source.borrowed) {
    const DeviceSpec* src = source_spec(source.name);
    if (src != nullptr && src->gpu && device.gpu && device.gpu->nvlink_bandwidth > 0) {
      scale *= src->gpu->nvlink_bandwidth / device.gpu->nvlink_bandwidth;
    }
    note_once(assumptions, absl::StrFormat("%s collectives: latency and bandwidth borrowed from "
                                           "the measured %s fit, bandwidth scaled by NVLink",
                                           device.name, sv(source.name)));
  }
  model.seconds_per_byte *= scale;
  model.max_bytes_per_s /= scale;
  const double in_domain = model.time_s(bytes);
  // The NVLink and network parts of one NCCL collective run at once (pipelined ring chunks,
  // concurrent sends): the slower bounds. The network part pays the launch latency and NCCL's
  // own latency over all n GPUs (its NVLink steps included), not the in-domain fit's latency,
  // which counts the same launch and steps.
  const double launch = device.gpu ? device.gpu->collective_launch_latency_s : 0.0;
  e.time_s = std::max({roofline.time_s, in_domain, across > 0 ? launch + across : 0.0});
  e.model = absl::StrCat("collective fit ", sv(source.name),
                         source.borrowed ? " (measured, borrowed)" : " (measured, fitted)");
  basis.kind = CollectiveBasis::Kind::kFit;
  basis.op = op;
  basis.inside = pair ? 2 : inside;
  basis.fit_latency_s = model.latency_s;
  basis.bytes = bytes;
  basis.seconds_per_byte = model.seconds_per_byte;
  basis.in_domain_s = in_domain;
  basis.across_s = across;
  basis.domains = domains;
  basis.latency_s = launch;
  basis.scale_out = so;
  basis.efficiency = eff;
  e.basis = basis;
  return e;
}

std::string explain_collective(const CollectiveExpectedTime& e, const DeviceSpec& device) {
  if (!e.basis) return {};
  const CollectiveBasis& b = *e.basis;
  switch (b.kind) {
    case CollectiveBasis::Kind::kTpuAcrossSlices:
      return absl::StrCat("expected = fitted collective latency ", seconds(b.latency_s), " (",
                          tpu_provenance(device), ") + the roofline's ICI and DCN phases ",
                          seconds(b.roofline_s), " (DCN bandwidth and latency assumed) = ",
                          seconds(e.time_s));
    case CollectiveBasis::Kind::kTpuIci:
      // (StrCat and to_chars, as printf writes them: one per collective, thousands in a
      // sharded module.)
      return absl::StrCat("expected = fitted latency ", seconds(b.latency_s), " + bandwidth term ",
                          seconds(b.bandwidth_s), " / ", util::fixed_text(b.efficiency, 3),
                          " of the torus model (fitted to ", measured::kTpuTableDevice,
                          " all-gathers of ", util::general_text(b.group, 6), " devices, ",
                          tpu_provenance(device), ") = ", seconds(e.time_s));
    case CollectiveBasis::Kind::kCalibrated:
      return absl::StrFormat("expected = latency %s + bandwidth term %s / %.2f = %s",
                             seconds(b.latency_s), seconds(b.bandwidth_s), b.efficiency,
                             seconds(e.time_s));
    case CollectiveBasis::Kind::kScaleOut:
      return absl::StrFormat(
          "expected = launch latency %s + %s across %d nodes: NCCL latency %s (%s) + network "
          "bytes at %.2f of the NICs' line rate %s -> %s",
          seconds(b.latency_s), sv(b.op), static_cast<int>(b.domains),
          seconds(b.scale_out.latency_s), scale_out_latency_text(b.scale_out), b.efficiency,
          seconds(b.scale_out.bandwidth_s), seconds(e.time_s));
    case CollectiveBasis::Kind::kFit:
      break;
  }
  const ScaleOutTime& so = b.scale_out;
  return absl::StrCat(
      "expected = fitted ", sv(b.op), " of ", b.inside, " in one NVLink domain: ",
      seconds(b.fit_latency_s), " + ", util::general_text(b.bytes, 4), " B x ",
      util::general_text(b.seconds_per_byte, 4), " s/B (fit to the 4 nearest measured sizes",
      b.op == "all-to-all" ? ", with those of group sizes within 2 x" : "", ") = ",
      seconds(b.in_domain_s),
      b.across_s > 0 ? absl::StrFormat("; across %d nodes at once: launch latency %s + NCCL "
                                       "latency %s (%s) + network bytes at %.2f of line rate %s",
                                       static_cast<int>(b.domains), seconds(b.latency_s),
                                       seconds(so.latency_s), scale_out_latency_text(so),
                                       b.efficiency, seconds(so.bandwidth_s))
                     : std::string(),
      " -> ", seconds(e.time_s));
}

}  // namespace hloroof::predict
