// How the devices of a job are wired, and where a replica group sits on that wiring.
//
// A Topology is a grid of axes. A TPU slice has one axis per torus dimension ("x", "y", "z",
// in chips), a leading "core" axis when a chip holds several JAX devices (v2, v3, TPU7x), and a
// trailing "slice" axis when several slices are joined by DCN. A GPU cluster has a "gpu" axis
// (GPUs of one NVLink domain) and a "node" axis (domains joined by the scale-out network).
//
//   absl::StatusOr<Topology> t = make_topology(*device("tpu_v5e"), "4x4");
//   absl::StatusOr<GroupPlacement> g = place_group(*t, {0, 1, 2, 3});  // a line along x
#ifndef HLOROOF_TOPOLOGY_H_
#define HLOROOF_TOPOLOGY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/device.h"

namespace hloroof {

enum class LinkKind {
  kCore,      // between the TensorCores of one TPU chip
  kIci,       // along one TPU torus axis
  kDcn,       // between TPU slices (data-center network)
  kNvlink,    // inside one GPU NVLink domain
  kScaleOut,  // between NVLink domains (InfiniBand / Ethernet)
};
std::string_view link_kind_name(LinkKind kind);

struct TopologyAxis {
  std::string name;  // "core", "x", "y", "z", "slice", "gpu", "node"
  int64_t size = 1;
  LinkKind link = LinkKind::kIci;
  bool wraps = false;  // a ring: the device's wraparound rule closes this ICI axis
};

// One index per axis of a topology.
using DeviceCoords = absl::InlinedVector<int64_t, 5>;

struct Topology {
  std::string device;  // DeviceSpec::name
  DeviceKind kind = DeviceKind::kTpu;
  std::vector<TopologyAxis> axes;    // the first axis varies fastest in the default id order
  std::vector<DeviceCoords> coords;  // coords[device id]
  std::string shape;                 // as given or inferred: "4x4", "4x4x4,slices=2", "2x8"
  bool inferred = false;             // chosen by infer_topology, not given by the user

  int64_t num_devices() const { return static_cast<int64_t>(coords.size()); }
  std::string to_string() const;  // "tpu_v5e:4x4"
  // "x 4 (ICI line) x y 4 (ICI line)": every axis with its link and ring/line.
  std::string describe() const;
};

// Splits "tpu_v5e:4x4" into the device ("tpu_v5e") and the shape ("4x4"); text without ':'
// is a device alone (empty shape). A regular file named by the whole text is a device alone;
// else the last ':' splits, so a path may hold ':' too.
struct TopologyText {
  std::string device;
  std::string shape;
};
TopologyText split_topology_text(std::string_view text);

// The topology of `shape` on `device`:
//   TPU  "XxY" / "XxYxZ": chips per torus axis (as many as the torus rank), optionally
//        followed by ",slices=S" for S slices joined by DCN (the device needs a DCN figure).
//        Chips holding several devices get a leading "core" axis.
//   GPU  "MxG": M NVLink domains of G GPUs each; "G" alone is one domain.
// Device ids map to coordinates row-major with the first axis fastest: core, x, y, z, slice;
// gpu, node (docs/sources.md, "Replica groups"; the TPU order is an assumption [unverified]).
// Wraparound per axis follows the device's rule (Wraparound::wraps).
absl::StatusOr<Topology> make_topology(const DeviceSpec& device, std::string_view shape);

// The smallest slice for `num_devices` devices (num_partitions x replica_count), one slice:
//   TPU  chips = ceil(num_devices / devices_per_chip), rounded up to a power of two; the
//        slice starts at 1x1(x1) and doubles its smallest axis (the last one among equals)
//        until it holds that many chips: 1x2, 2x2, 2x4, 4x4, 4x8, ... and 1x1x2, 1x2x2,
//        2x2x2, 2x2x4, 2x4x4, 4x4x4, ... It must fit the device's largest slice.
//   GPU  G = min(num_devices, NVLink domain size) GPUs per domain, ceil(num_devices / G)
//        domains.
// Devices beyond `num_devices` exist in the topology but no group uses them.
absl::StatusOr<Topology> infer_topology(const DeviceSpec& device, int64_t num_devices);

// Replaces the default id -> coordinate map with `coords` (coords[id], one index per axis, e.g.
// built from jax.devices()[id].coords and core_on_chip). Every grid position exactly once.
absl::Status set_device_coords(Topology& topology, std::vector<DeviceCoords> coords);

// Hops between positions `a` and `b` of `axis`: the shorter way round a ring.
int64_t axis_distance(const TopologyAxis& axis, int64_t a, int64_t b);

// Where a replica group sits (docs/sources.md, "Group placement").
enum class GroupShape {
  kSingleDevice,  // one member: nothing to move
  kRing,          // exactly one full axis, which wraps: the ring formula with W_bi
  kLine,          // exactly one full axis without wraparound: W_uni, N-1 hops
  kMultiAxis,     // several full axes: bandwidth adds up over the axes
  kPartial,       // a partial or strided subset: conservative bound, flagged approximate
  kSwitch,        // GPU: several GPUs of one switched NVLink domain
};
std::string_view group_shape_name(GroupShape shape);

// How a group uses one axis inside a slice (TPU) or NVLink domain (GPU).
struct AxisUse {
  size_t axis = 0;      // index into Topology::axes
  int64_t members = 0;  // distinct positions the group occupies along the axis
  bool full = false;    // members == the axis size
  bool ring = false;    // full, and the axis wraps
  // Hops a ring or line collective needs along the axis: floor(size / 2) on a full ring,
  // otherwise the length of the shortest stretch of the axis that holds every member.
  int64_t hops = 0;
};

struct GroupPlacement {
  int64_t size = 0;  // N
  // Shape of the part inside one slice (TPU) or one NVLink domain (GPU).
  GroupShape shape = GroupShape::kSingleDevice;
  std::vector<AxisUse> axes;  // varying axes inside a slice / domain
  // Slices (TPU, DCN) or NVLink domains (GPU) the group spans, and members in each. When the
  // domains hold different numbers or patterns of members, `members_per_domain` is the
  // smallest count and `uniform` is false.
  int64_t domains = 1;
  int64_t members_per_domain = 0;
  bool uniform = true;
  // The time of a collective on this group is a conservative bound, not a model of it
  // (partial or strided subsets, uneven domains).
  bool approximate = false;
  std::string description;  // "ring along y (16 chips)", "2 NVLink domains x 8 GPUs"
};

// Classifies a group of device ids on `topology`. Errors: empty group, id out of range,
// repeated id.
absl::StatusOr<GroupPlacement> place_group(const Topology& topology,
                                           absl::Span<const int64_t> device_ids);

}  // namespace hloroof

#endif  // HLOROOF_TOPOLOGY_H_
