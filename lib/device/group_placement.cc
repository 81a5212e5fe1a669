// Classifying a replica group by which axes its members vary along (docs/sources.md, "Group
// placement").
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/topology.h"

namespace hloroof {
namespace {

const char* member_word(LinkKind link) {
  switch (link) {
    case LinkKind::kCore:
      return "cores";
    case LinkKind::kNvlink:
      return "GPUs";
    default:
      return "chips";
  }
}

// The axis that joins slices (TPU) or NVLink domains (GPU), if the topology has one.
std::optional<size_t> domain_axis(const Topology& t) {
  for (size_t a = 0; a < t.axes.size(); ++a) {
    if (t.axes[a].link == LinkKind::kDcn || t.axes[a].link == LinkKind::kScaleOut) return a;
  }
  return std::nullopt;
}

// See AxisUse::hops. `positions` is sorted and distinct.
int64_t axis_hops(const TopologyAxis& axis, absl::Span<const int64_t> positions, bool full) {
  if (full && axis.wraps) return axis.size / 2;
  const int64_t span = positions.back() - positions.front();
  if (!axis.wraps) return span;
  // On a ring, the stretch holding every member leaves out the largest gap between neighbours.
  int64_t largest_gap = axis.size - span;  // the gap across the wraparound
  for (size_t i = 1; i < positions.size(); ++i) {
    largest_gap = std::max(largest_gap, positions[i] - positions[i - 1]);
  }
  return axis.size - largest_gap;
}

std::string describe_local(const Topology& t, const GroupPlacement& g) {
  auto axis_text = [&](const AxisUse& u) {
    const TopologyAxis& a = t.axes[u.axis];
    return absl::StrCat(a.name, " (", u.members, " ", member_word(a.link), u.ring ? ", ring" : "",
                        ")");
  };
  switch (g.shape) {
    case GroupShape::kSingleDevice:
      return "one device";
    case GroupShape::kRing:
    case GroupShape::kLine: {
      const AxisUse& u = g.axes.front();
      const TopologyAxis& a = t.axes[u.axis];
      return absl::StrCat(
          g.shape == GroupShape::kRing ? "ring" : "line", " along ", a.name, " (", u.members, " ",
          member_word(a.link),
          g.shape == GroupShape::kLine && a.link == LinkKind::kIci ? ", no wraparound" : "", ")");
    }
    case GroupShape::kMultiAxis:
      return absl::StrCat(g.axes.size(), " full axes: ",
                          absl::StrJoin(g.axes, ", ", [&](std::string* out, const AxisUse& u) {
                            out->append(axis_text(u));
                          }));
    case GroupShape::kPartial:
      return absl::StrCat("partial subset: ",
                          absl::StrJoin(g.axes, ", ", [&](std::string* out, const AxisUse& u) {
                            const TopologyAxis& a = t.axes[u.axis];
                            absl::StrAppend(out, u.members, " of ", a.size, " along ", a.name,
                                            " over ", u.hops, " hops");
                          }));
    case GroupShape::kSwitch:
      return absl::StrCat("NVLink domain (", g.axes.front().members, " GPUs)");
  }
  return "";
}

}  // namespace

std::string_view group_shape_name(GroupShape shape) {
  switch (shape) {
    case GroupShape::kSingleDevice:
      return "single device";
    case GroupShape::kRing:
      return "ring";
    case GroupShape::kLine:
      return "line";
    case GroupShape::kMultiAxis:
      return "multi-axis";
    case GroupShape::kPartial:
      return "partial";
    case GroupShape::kSwitch:
      return "NVLink domain";
  }
  return "?";
}

absl::StatusOr<GroupPlacement> place_group(const Topology& t,
                                           absl::Span<const int64_t> device_ids) {
  if (device_ids.empty()) return absl::InvalidArgumentError("empty replica group");
  // A bit per device (a group of a few hundred devices checks them without an allocation).
  absl::InlinedVector<uint64_t, 4> seen((static_cast<size_t>(t.num_devices()) + 63) / 64, 0);
  for (int64_t id : device_ids) {
    if (id < 0 || id >= t.num_devices()) {
      return absl::InvalidArgumentError(absl::StrCat("device ", id, " is not in topology ",
                                                     t.to_string(), " (", t.num_devices(),
                                                     " devices)"));
    }
    const uint64_t bit = uint64_t{1} << (id % 64);
    if (seen[static_cast<size_t>(id / 64)] & bit) {
      return absl::InvalidArgumentError(absl::StrCat("device ", id, " appears twice in a group"));
    }
    seen[static_cast<size_t>(id / 64)] |= bit;
  }

  // Members per slice / domain, as coordinates without the domain axis: (domain, coordinates)
  // sorted and each once, so that each domain's members form one run, in order.
  const std::optional<size_t> dom = domain_axis(t);
  absl::InlinedVector<std::pair<int64_t, DeviceCoords>, 8> members;
  members.reserve(device_ids.size());
  for (int64_t id : device_ids) {
    DeviceCoords c = t.coords[static_cast<size_t>(id)];
    int64_t d = 0;
    if (dom) {
      d = c[*dom];
      c.erase(c.begin() + static_cast<ptrdiff_t>(*dom));
    }
    members.emplace_back(d, std::move(c));
  }
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  using Run = absl::Span<const std::pair<int64_t, DeviceCoords>>;
  absl::InlinedVector<Run, 4> by_domain;  // each domain's members, domains in order
  for (size_t k = 0; k < members.size();) {
    size_t end = k + 1;
    while (end < members.size() && members[end].first == members[k].first) ++end;
    by_domain.push_back(Run(members).subspan(k, end - k));
    k = end;
  }
  const auto same_members = [](Run a, Run b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const auto& x, const auto& y) { return x.second == y.second; });
  };

  GroupPlacement g;
  g.size = static_cast<int64_t>(device_ids.size());
  g.domains = static_cast<int64_t>(by_domain.size());
  const Run local = by_domain.front();
  g.members_per_domain = static_cast<int64_t>(local.size());
  for (const Run& run : by_domain) {
    g.members_per_domain = std::min(g.members_per_domain, static_cast<int64_t>(run.size()));
    g.uniform = g.uniform && same_members(run, local);
  }

  // Which local axes vary, over how many positions.
  absl::InlinedVector<size_t, 6> local_axes;
  for (size_t a = 0; a < t.axes.size(); ++a) {
    if (!dom || a != *dom) local_axes.push_back(a);
  }
  int64_t full_product = 1;
  bool all_full = true;
  absl::InlinedVector<int64_t, 16> positions;  // sorted, each once
  for (size_t i = 0; i < local_axes.size(); ++i) {
    positions.clear();
    for (const auto& [d, c] : local) positions.push_back(c[i]);
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    if (positions.size() < 2) continue;
    const TopologyAxis& axis = t.axes[local_axes[i]];
    AxisUse u;
    u.axis = local_axes[i];
    u.members = static_cast<int64_t>(positions.size());
    u.full = u.members == axis.size;
    u.ring = u.full && axis.wraps;
    u.hops = axis_hops(axis, positions, u.full);
    all_full = all_full && u.full;
    full_product *= axis.size;
    g.axes.push_back(u);
  }

  const int64_t local_size = static_cast<int64_t>(local.size());
  if (local_size == 1) {
    g.shape = GroupShape::kSingleDevice;
  } else if (t.kind == DeviceKind::kGpu) {
    g.shape = GroupShape::kSwitch;  // an NVSwitch connects every pair alike
  } else if (all_full && local_size == full_product) {
    g.shape = g.axes.size() == 1 ? (g.axes.front().ring ? GroupShape::kRing : GroupShape::kLine)
                                 : GroupShape::kMultiAxis;
  } else {
    g.shape = GroupShape::kPartial;
    g.approximate = true;
  }
  if (!g.uniform) g.approximate = true;

  g.description = describe_local(t, g);
  if (g.domains > 1) {
    absl::StrAppend(&g.description, " x ", g.domains,
                    t.kind == DeviceKind::kTpu ? " slices over DCN" : " NVLink domains",
                    g.uniform ? "" : " (uneven)");
  }
  return g;
}

}  // namespace hloroof
