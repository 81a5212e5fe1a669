// TPU collectives over ICI tori and DCN (docs/sources.md, "Collective formulas").
//
// Inside a slice the time is max(bandwidth term, hops x T_hop): the hop latency is a floor, as
// in 3.1. Point-to-point transfers and broadcasts are pipelined chains, so their latency adds
// to the bandwidth term. Across slices the DCN phase adds to the ICI phases (3.2).
#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "predict/collective_models.h"

namespace hloroof::internal {
namespace {

// The part of a collective inside one slice: a bandwidth term and the hops of its latency.
struct LocalCost {
  double bandwidth_time_s = 0;
  int64_t hops = 0;
  double bandwidth = 0;  // effective B/s of the bandwidth term
  std::string formula;
  bool approximate = false;
};

// (N-1)/N, or 1 in the large-N form.
double ring_factor(int64_t n, bool large_n) {
  return large_n ? 1.0 : static_cast<double>(n - 1) / static_cast<double>(n);
}

std::string axis_names(const Topology& t, const GroupPlacement& g) {
  return absl::StrJoin(
      g.axes, ",", [&](std::string* out, const AxisUse& u) { out->append(t.axes[u.axis].name); });
}

// The bandwidth one device drives along an axis a group uses: both directions of a ring
// (W_bi = 2 W_uni), one direction of a line.
double use_bandwidth(const DeviceSpec& d, const Topology& t, const AxisUse& u) {
  const double w = axis_bandwidth(d, t.axes[u.axis]);
  return u.ring ? 2 * w : w;
}

// All-gather (= reduce-scatter) of V bytes over the members of `g` inside one slice.
LocalCost local_gather(const DeviceSpec& d, const Topology& t, const GroupPlacement& g, double v,
                       bool large_n) {
  LocalCost c;
  const int64_t n = g.members_per_domain;
  switch (g.shape) {
    case GroupShape::kSingleDevice:
    case GroupShape::kSwitch:
      c.formula = "nothing to move inside a slice";
      return c;
    case GroupShape::kRing:
      c.bandwidth = use_bandwidth(d, t, g.axes.front());
      c.bandwidth_time_s = v * ring_factor(n, large_n) / c.bandwidth;
      c.hops = g.axes.front().hops;
      c.formula =
          large_n ? "ring: max(V / W_bi, N/2 T_hop)" : "ring: max(V (N-1) / (N W_bi), N/2 T_hop)";
      return c;
    case GroupShape::kLine:
      c.bandwidth = use_bandwidth(d, t, g.axes.front());
      c.bandwidth_time_s = v * ring_factor(n, false) / c.bandwidth;
      c.hops = g.axes.front().hops;
      c.formula = "line (no wraparound): max(V (N-1) / (N W_uni), (N-1) T_hop)";
      return c;
    case GroupShape::kMultiAxis:
      for (const AxisUse& u : g.axes) {
        c.bandwidth += use_bandwidth(d, t, u);
        c.hops += u.hops;
      }
      c.bandwidth_time_s = v * ring_factor(n, large_n) / c.bandwidth;
      c.formula =
          absl::StrCat(g.axes.size(), " axes (", axis_names(t, g), "), bandwidth adds up: max(V",
                       large_n ? "" : " (N-1) / N", " / sum W_axis, sum hops T_hop)");
      return c;
    case GroupShape::kPartial: {
      c.bandwidth = axis_bandwidth(d, t.axes[g.axes.front().axis]);
      for (const AxisUse& u : g.axes) {
        c.bandwidth = std::min(c.bandwidth, axis_bandwidth(d, t.axes[u.axis]));
        c.hops += u.hops;
      }
      c.bandwidth_time_s = v * ring_factor(n, false) / c.bandwidth;
      c.formula =
          "partial group as a line over its span (conservative): "
          "max(V (N-1) / (N W_uni), span T_hop)";
      c.approximate = true;
      return c;
    }
  }
  return c;
}

// All-to-all of V bytes in total over the members of `g` inside one slice (3.1): the busiest
// link of a bidirectional ring carries V/8 each way, so T = V / (4 W_bi); on a line the middle
// link carries V/4 each way, T = V / (4 W_uni). Across axes the longest axis bounds it:
// max over axes of V |axis| / (4 N W_axis).
LocalCost local_all_to_all(const DeviceSpec& d, const Topology& t, const GroupPlacement& g,
                           double v) {
  LocalCost c;
  const int64_t n = g.members_per_domain;
  switch (g.shape) {
    case GroupShape::kSingleDevice:
    case GroupShape::kSwitch:
      c.formula = "nothing to move inside a slice";
      return c;
    case GroupShape::kPartial:
      c.bandwidth = axis_bandwidth(d, t.axes[g.axes.front().axis]);
      for (const AxisUse& u : g.axes) {
        c.bandwidth = std::min(c.bandwidth, axis_bandwidth(d, t.axes[u.axis]));
        c.hops += u.hops;
      }
      c.bandwidth_time_s = v / (4 * c.bandwidth);
      c.formula = "partial group as a line (conservative): max(V / (4 W_uni), span T_hop)";
      c.approximate = true;
      return c;
    default:
      for (const AxisUse& u : g.axes) {
        const double w = use_bandwidth(d, t, u);
        const double time = v * static_cast<double>(u.members) / (4 * static_cast<double>(n) * w);
        if (time >= c.bandwidth_time_s) {
          c.bandwidth_time_s = time;
          c.bandwidth = w;
        }
        c.hops += u.hops;
      }
      c.formula = g.shape == GroupShape::kRing   ? "ring: max(V / (4 W_bi), N/2 T_hop)"
                  : g.shape == GroupShape::kLine ? "line: max(V / (4 W_uni), (N-1) T_hop)"
                                                 : "several axes: max over axes of "
                                                   "V |axis| / (4 N W_axis), floored by hops";
      return c;
  }
}

// Broadcast of V bytes from one member (derived, not from a source): the root pipelines the
// buffer down each direction it can use, V / W over the group's bandwidth, and the last byte
// arrives after the farthest member's hops.
LocalCost local_broadcast(const DeviceSpec& d, const Topology& t, const GroupPlacement& g,
                          double v) {
  LocalCost c = local_gather(d, t, g, v, /*large_n=*/true);
  if (g.shape == GroupShape::kSingleDevice) return c;
  if (g.shape == GroupShape::kPartial || g.shape == GroupShape::kLine) {
    c.bandwidth_time_s = v / c.bandwidth;  // from one end of a line, one direction
  }
  c.formula = "pipelined broadcast (derived): V / W + hops T_hop";
  return c;
}

}  // namespace

double axis_bandwidth(const DeviceSpec& device, const TopologyAxis& axis) {
  const double per_chip = device.torus ? device.torus->devices_per_chip : 1;
  switch (axis.link) {
    case LinkKind::kCore:
      return device.torus->core_link_bandwidth.value_or(device.torus->link_bandwidth);
    case LinkKind::kIci:
      return device.torus->link_bandwidth / per_chip;
    case LinkKind::kDcn:
      return device.torus->dcn_bandwidth_per_chip.value_or(0) / per_chip;
    case LinkKind::kNvlink:
      return device.gpu->nvlink_bandwidth;
    case LinkKind::kScaleOut:
      return device.gpu->scale_out_bandwidth;
  }
  return 0;
}

absl::StatusOr<CollectiveEstimate> tpu_group_time(const DeviceSpec& device,
                                                  const Topology& topology,
                                                  const GroupPlacement& group, CollectiveKind kind,
                                                  double bytes, const CollectiveOptions& options) {
  const TorusSpec& torus = *device.torus;
  const double v = bytes;
  const double slices = static_cast<double>(group.domains);

  // The ICI phase. All-reduce is a reduce-scatter and an all-gather: twice the gather.
  LocalCost local;
  double repeats = 1;
  bool additive_latency = false;  // pipelined chains add their latency
  switch (kind) {
    case CollectiveKind::kAllReduce:
      repeats = 2;
      [[fallthrough]];
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
      local = local_gather(device, topology, group, v, options.large_n);
      break;
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kRaggedAllToAll:
      // Inside each slice only the share bound for that slice moves over ICI.
      local = local_all_to_all(device, topology, group, v / slices);
      break;
    case CollectiveKind::kCollectiveBroadcast:
      local = local_broadcast(device, topology, group, v);
      additive_latency = true;
      break;
    case CollectiveKind::kCollectivePermute:
    case CollectiveKind::kSend:
    case CollectiveKind::kRecv:
      return absl::InvalidArgumentError("point-to-point collectives take source-target pairs");
  }

  CollectiveEstimate e;
  e.group_size = group.size;
  e.bytes = v;
  e.placement = group;
  e.hops = static_cast<int64_t>(repeats) * local.hops;
  e.bandwidth = local.bandwidth;
  const double ici_bw = repeats * local.bandwidth_time_s;
  const double ici_latency = static_cast<double>(e.hops) * torus.hop_latency_s;
  double time = additive_latency ? ici_bw + ici_latency : std::max(ici_bw, ici_latency);
  e.bandwidth_time_s = ici_bw;
  e.latency_s = ici_latency;
  e.formula = absl::StrCat(repeats == 2 ? "2 x " : "", local.formula);
  e.approximate = local.approximate || group.approximate;

  // The DCN phase (3.2, derived): each chip exchanges its share with its counterparts in the
  // other slices, V (S-1) / (S L W_dcn) for a gather with L members per slice.
  if (group.domains > 1) {
    TopologyAxis dcn{"slice", group.domains, LinkKind::kDcn, false};
    const double w_dcn = axis_bandwidth(device, dcn);
    const double l = static_cast<double>(group.members_per_domain);
    double dcn_bytes = 0;
    std::string dcn_formula;
    switch (kind) {
      case CollectiveKind::kAllReduce:
      case CollectiveKind::kAllGather:
      case CollectiveKind::kReduceScatter:
        dcn_bytes = repeats * v * (slices - 1) / (slices * l);
        dcn_formula = "V (S-1) / (S L W_dcn)";
        break;
      case CollectiveKind::kAllToAll:
      case CollectiveKind::kRaggedAllToAll:
        dcn_bytes = v * (slices - 1) / (slices * static_cast<double>(group.size));
        dcn_formula = "V (S-1) / (S N W_dcn)";
        break;
      default:
        dcn_bytes = v;
        dcn_formula = "V / W_dcn";
        break;
    }
    const double dcn_time = dcn_bytes / w_dcn;
    const double dcn_latency = repeats * torus.dcn_latency_s;
    time += dcn_time + dcn_latency;
    e.bandwidth_time_s += dcn_time;
    e.latency_s += dcn_latency;
    absl::StrAppend(&e.formula, " inside each slice, then over DCN (derived, docs/sources.md): ",
                    repeats == 2 ? "2 x " : "", dcn_formula, " + DCN latency");
    e.notes.push_back(absl::StrFormat("DCN: %d slices, %d members each, W_dcn %.4g B/s per device",
                                      group.domains, group.members_per_domain, w_dcn));
    e.approximate = true;  // the hierarchical DCN model is derived, not measured
  }
  e.time_s = time;
  return e;
}

CollectiveEstimate tpu_pair_time(const DeviceSpec& device, const Topology& topology, int64_t source,
                                 int64_t target, double bytes) {
  const TorusSpec& torus = *device.torus;
  const DeviceCoords& a = topology.coords[static_cast<size_t>(source)];
  const DeviceCoords& b = topology.coords[static_cast<size_t>(target)];
  CollectiveEstimate e;
  e.group_size = 2;
  e.bytes = bytes;
  bool crosses_dcn = false;
  int paths = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    const TopologyAxis& axis = topology.axes[i];
    if (axis.link == LinkKind::kDcn) {
      crosses_dcn = true;
      continue;
    }
    ++paths;
    e.hops += axis_distance(axis, a[i], b[i]);
    const double w = axis_bandwidth(device, axis);
    e.bandwidth = e.bandwidth == 0 ? w : std::min(e.bandwidth, w);
  }
  if (crosses_dcn) {
    // Over DCN the slowest link is the chip's NIC share; ICI hops at either end are ignored.
    e.bandwidth = axis_bandwidth(device, {"slice", 2, LinkKind::kDcn, false});
    e.bandwidth_time_s = bytes / e.bandwidth;
    e.latency_s = torus.dcn_latency_s;
    e.hops = 0;
    e.formula = "point to point across slices: bytes / W_dcn + DCN latency";
    e.approximate = true;
  } else {
    // Routes that first move along different axes share no link, so a payload can be split
    // over as many paths as axes it crosses (3.1: both ports of a 2D torus).
    e.bandwidth *= paths;
    e.bandwidth_time_s = bytes / e.bandwidth;
    e.latency_s = static_cast<double>(e.hops) * torus.hop_latency_s;
    e.formula = absl::StrCat("point to point: bytes / (", paths, " W_uni) + hops T_hop");
  }
  e.time_s = e.bandwidth_time_s + e.latency_s;
  return e;
}

}  // namespace hloroof::internal
