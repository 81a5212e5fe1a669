// Building topologies from shape strings or device counts, and the id -> coordinate map.
#include "hloroof/topology.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

// Enough for any pod of slices; keeps the coordinate table small.
constexpr int64_t kMaxDevices = int64_t{1} << 20;
constexpr std::string_view kTorusAxisNames[] = {"x", "y", "z"};

absl::StatusOr<int64_t> parse_dim(absl::string_view text, absl::string_view shape) {
  int64_t v = 0;
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), absl::ascii_isdigit);
  if (digits && (!absl::SimpleAtoi(text, &v) || v > kMaxDevices)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad topology '", shape, "': '", text, "' is more than the ", kMaxDevices,
                     " devices a topology holds"));
  }
  if (!absl::SimpleAtoi(text, &v) || v < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad topology '", shape, "': '", text, "' is not a positive count"));
  }
  return v;
}

absl::StatusOr<std::vector<int64_t>> parse_dims(absl::string_view dims_text,
                                                absl::string_view shape) {
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(dims_text, 'x')) {
    absl::StatusOr<int64_t> d = parse_dim(part, shape);
    if (!d.ok()) return d.status();
    dims.push_back(*d);
  }
  return dims;
}

std::string dims_text(absl::Span<const int64_t> dims) { return absl::StrJoin(dims, "x"); }

// Fills coords in the default order: row-major, first axis fastest.
absl::Status fill_default_coords(Topology& t) {
  int64_t n = 1;
  for (const TopologyAxis& a : t.axes) {
    n *= a.size;
    if (n > kMaxDevices) {
      return absl::InvalidArgumentError(
          absl::StrCat("topology '", t.shape, "' has more than ", kMaxDevices, " devices"));
    }
  }
  t.coords.resize(static_cast<size_t>(n));
  for (int64_t id = 0; id < n; ++id) {
    DeviceCoords& c = t.coords[static_cast<size_t>(id)];
    int64_t rest = id;
    for (const TopologyAxis& a : t.axes) {
      c.push_back(rest % a.size);
      rest /= a.size;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Topology> make_tpu_topology(const DeviceSpec& spec, absl::string_view shape) {
  const TorusSpec& torus = *spec.torus;
  std::vector<absl::string_view> parts = absl::StrSplit(shape, ',');
  absl::StatusOr<std::vector<int64_t>> dims = parse_dims(parts[0], shape);
  if (!dims.ok()) return dims.status();
  if (static_cast<int>(dims->size()) != torus.rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad topology '", shape, "': ", spec.name, " is a ", torus.rank,
                     "D torus, so its slices are written with ", torus.rank, " chip counts (e.g. ",
                     torus.rank == 3 ? "4x4x4" : "4x4", ")"));
  }
  int64_t slices = 1;
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view option = parts[i];
    if (!absl::ConsumePrefix(&option, "slices=")) {
      return absl::InvalidArgumentError(absl::StrCat("bad topology '", shape, "': unknown option '",
                                                     parts[i], "'; expected slices=N"));
    }
    absl::StatusOr<int64_t> s = parse_dim(option, shape);
    if (!s.ok()) return s.status();
    slices = *s;
  }
  if (!torus.max_slice.empty()) {
    std::vector<int64_t> want = *dims, limit = torus.max_slice;
    std::sort(want.begin(), want.end());
    std::sort(limit.begin(), limit.end());
    for (size_t i = 0; i < want.size(); ++i) {
      if (want[i] > limit[i]) {
        return absl::InvalidArgumentError(absl::StrCat("bad topology '", shape, "': the largest ",
                                                       spec.name, " slice is ",
                                                       dims_text(torus.max_slice), " chips"));
      }
    }
  }
  int64_t chips = 1;
  for (int64_t d : *dims) chips *= d;  // each d <= 2^20 and rank <= 3: no overflow
  if (torus.pod_chips > 0 && chips > torus.pod_chips) {
    return absl::InvalidArgumentError(absl::StrCat("bad topology '", shape, "': ", chips,
                                                   " chips exceed a ", spec.name, " pod (",
                                                   torus.pod_chips, " chips)"));
  }
  if (slices > 1 && !torus.dcn_bandwidth_per_chip) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad topology '", shape, "': ", spec.name,
                     " has no DCN bandwidth in its spec, so it cannot span several slices"));
  }

  Topology t;
  t.device = spec.name;
  t.kind = DeviceKind::kTpu;
  t.shape = std::string(shape);
  if (torus.devices_per_chip > 1) {
    t.axes.push_back({"core", torus.devices_per_chip, LinkKind::kCore, false});
  }
  for (size_t i = 0; i < dims->size(); ++i) {
    t.axes.push_back({std::string(kTorusAxisNames[i]), (*dims)[i], LinkKind::kIci,
                      torus.wraparound.wraps(*dims, i)});
  }
  if (slices > 1) t.axes.push_back({"slice", slices, LinkKind::kDcn, false});
  if (absl::Status s = fill_default_coords(t); !s.ok()) return s;
  return t;
}

absl::StatusOr<Topology> make_gpu_topology(const DeviceSpec& spec, absl::string_view shape) {
  const GpuFabricSpec& gpu = *spec.gpu;
  absl::StatusOr<std::vector<int64_t>> dims = parse_dims(shape, shape);
  if (!dims.ok()) return dims.status();
  if (dims->size() > 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad topology '", shape, "': a GPU topology is NODESxGPUS (e.g. 2x8) or GPUS"));
  }
  const int64_t per_node = dims->back();
  const int64_t nodes = dims->size() == 2 ? dims->front() : 1;
  if (per_node > gpu.nvlink_domain_size) {
    return absl::InvalidArgumentError(absl::StrCat("bad topology '", shape, "': a ", spec.name,
                                                   " NVLink domain holds at most ",
                                                   gpu.nvlink_domain_size, " GPUs"));
  }
  Topology t;
  t.device = spec.name;
  t.kind = DeviceKind::kGpu;
  t.shape = std::string(shape);
  t.axes.push_back({"gpu", per_node, LinkKind::kNvlink, false});
  if (nodes > 1) t.axes.push_back({"node", nodes, LinkKind::kScaleOut, false});
  if (absl::Status s = fill_default_coords(t); !s.ok()) return s;
  return t;
}

}  // namespace

std::string_view link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::kCore:
      return "chip-local";
    case LinkKind::kIci:
      return "ICI";
    case LinkKind::kDcn:
      return "DCN";
    case LinkKind::kNvlink:
      return "NVLink";
    case LinkKind::kScaleOut:
      return "scale-out";
  }
  return "?";
}

std::string Topology::to_string() const { return absl::StrCat(device, ":", shape); }

std::string Topology::describe() const {
  return absl::StrJoin(axes, ", ", [](std::string* out, const TopologyAxis& a) {
    absl::StrAppend(out, a.name, ":", a.size, " ", sv(link_kind_name(a.link)));
    if (a.link == LinkKind::kIci) absl::StrAppend(out, a.wraps ? " ring" : " line");
  });
}

TopologyText split_topology_text(std::string_view text) {
  // A device file whose path holds a ':' ("runs:3/h100.json") is the whole text.
  std::error_code error;
  if (std::filesystem::is_regular_file(std::filesystem::path(text), error)) {
    return {std::string(text), ""};
  }
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return {std::string(text), ""};
  return {std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

absl::StatusOr<Topology> make_topology(const DeviceSpec& device, std::string_view shape) {
  if (shape.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty topology for ", device.name, "; expected e.g. ",
                     device.kind == DeviceKind::kGpu ? "2x8" : "4x4"));
  }
  if (device.kind == DeviceKind::kTpu) {
    if (!device.torus) return absl::InvalidArgumentError(device.name + " has no torus spec");
    return make_tpu_topology(device, sv(shape));
  }
  if (!device.gpu) return absl::InvalidArgumentError(device.name + " has no NVLink spec");
  return make_gpu_topology(device, sv(shape));
}

absl::StatusOr<Topology> infer_topology(const DeviceSpec& device, int64_t num_devices) {
  if (num_devices < 1 || num_devices > kMaxDevices) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot infer a topology for ", num_devices, " devices"));
  }
  std::string shape;
  if (device.kind == DeviceKind::kGpu) {
    if (!device.gpu) return absl::InvalidArgumentError(device.name + " has no NVLink spec");
    const int64_t per_node = std::min(num_devices, device.gpu->nvlink_domain_size);
    const int64_t nodes = (num_devices + per_node - 1) / per_node;
    shape = absl::StrCat(nodes, "x", per_node);
  } else {
    if (!device.torus) return absl::InvalidArgumentError(device.name + " has no torus spec");
    const int64_t per_chip = device.torus->devices_per_chip;
    const int64_t chips = (num_devices + per_chip - 1) / per_chip;
    std::vector<int64_t> dims(static_cast<size_t>(device.torus->rank), 1);
    int64_t have = 1;
    while (have < chips) {
      // Double the smallest axis; among equals the last, so dims stay ascending.
      size_t smallest = dims.size() - 1;
      for (size_t i = dims.size(); i-- > 0;) {
        if (dims[i] < dims[smallest]) smallest = i;
      }
      dims[smallest] *= 2;
      have *= 2;
    }
    shape = dims_text(dims);
  }
  absl::StatusOr<Topology> t = make_topology(device, shape);
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("no single ", device.name, " slice holds ",
                                                   num_devices, " devices (", t.status().message(),
                                                   "); give the topology explicitly"));
  }
  t->inferred = true;
  return t;
}

absl::Status set_device_coords(Topology& topology, std::vector<DeviceCoords> coords) {
  if (coords.size() != topology.coords.size()) {
    return absl::InvalidArgumentError(absl::StrCat("topology ", topology.to_string(), " has ",
                                                   topology.coords.size(), " devices, but ",
                                                   coords.size(), " coordinates were given"));
  }
  absl::flat_hash_set<int64_t> seen;
  for (size_t id = 0; id < coords.size(); ++id) {
    const DeviceCoords& c = coords[id];
    if (c.size() != topology.axes.size()) {
      return absl::InvalidArgumentError(absl::StrCat("device ", id, ": expected ",
                                                     topology.axes.size(), " coordinates (",
                                                     topology.describe(), "), got ", c.size()));
    }
    int64_t linear = 0, stride = 1;
    for (size_t a = 0; a < c.size(); ++a) {
      if (c[a] < 0 || c[a] >= topology.axes[a].size) {
        return absl::InvalidArgumentError(absl::StrCat("device ", id, ": coordinate ", c[a],
                                                       " is outside axis ", topology.axes[a].name,
                                                       " (size ", topology.axes[a].size, ")"));
      }
      linear += c[a] * stride;
      stride *= topology.axes[a].size;
    }
    if (!seen.insert(linear).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("device ", id, ": its coordinates are given to another device too"));
    }
  }
  topology.coords = std::move(coords);
  return absl::OkStatus();
}

int64_t axis_distance(const TopologyAxis& axis, int64_t a, int64_t b) {
  const int64_t d = std::abs(a - b);
  return axis.wraps ? std::min(d, axis.size - d) : d;
}

}  // namespace hloroof
