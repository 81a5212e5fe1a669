// Topologies from shape strings and device counts, id -> coordinate maps, and replica group
// classification (docs/sources.md, "Replica groups" and "Group placement").
#include "hloroof/topology.h"

#include <catch2/catch.hpp>
#include <numeric>
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;

DeviceSpec spec(std::string_view name) {
  absl::StatusOr<DeviceSpec> d = device(name);
  REQUIRE_OK(d);
  return *std::move(d);
}

Topology topo(std::string_view name, std::string_view shape) {
  absl::StatusOr<Topology> t = make_topology(spec(name), shape);
  INFO(name << ":" << shape << " " << t.status().ToString());
  REQUIRE_OK(t);
  return *std::move(t);
}

std::string topology_error(std::string_view name, std::string_view shape) {
  absl::StatusOr<Topology> t = make_topology(spec(name), shape);
  REQUIRE(!t.ok());
  return std::string(t.status().message());
}

GroupPlacement place(const Topology& t, std::vector<int64_t> ids) {
  absl::StatusOr<GroupPlacement> g = place_group(t, ids);
  INFO(g.status().ToString());
  REQUIRE_OK(g);
  return *std::move(g);
}

std::vector<int64_t> iota(int64_t n, int64_t first = 0, int64_t step = 1) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(first + i * step);
  return v;
}

TEST_CASE("a TPU slice maps ids row-major with x fastest") {
  Topology t = topo("tpu_v5e", "4x4");
  CHECK(t.num_devices() == 16);
  CHECK(t.to_string() == "tpu_v5e:4x4");
  REQUIRE(t.axes.size() == 2);
  CHECK(t.axes[0].name == "x");
  CHECK(t.axes[1].name == "y");
  CHECK(!t.axes[0].wraps);  // v5e axes of 4 do not wrap
  CHECK(t.coords[5] == DeviceCoords{1, 1});
  CHECK(t.coords[7] == DeviceCoords{3, 1});
  CHECK(t.describe() == "x:4 ICI line, y:4 ICI line");
  CHECK(!t.inferred);
}

TEST_CASE("each axis wraps by the device's rule") {
  Topology v5e = topo("tpu_v5e", "8x16");
  CHECK(!v5e.axes[0].wraps);
  CHECK(v5e.axes[1].wraps);  // only axes of 16
  Topology cube = topo("tpu_v5p", "4x4x8");
  CHECK((cube.axes[0].wraps && cube.axes[1].wraps && cube.axes[2].wraps));
  Topology not_cubes = topo("tpu_v4", "2x4x4");
  CHECK((!not_cubes.axes[0].wraps && !not_cubes.axes[1].wraps && !not_cubes.axes[2].wraps));
}

TEST_CASE("chips with two devices get a core axis, fastest in the id order") {
  Topology t = topo("tpu7x", "2x2x1");
  CHECK(t.num_devices() == 8);
  REQUIRE(t.axes.size() == 4);
  CHECK(t.axes[0].name == "core");
  CHECK(t.axes[0].link == LinkKind::kCore);
  CHECK(t.coords[1] == DeviceCoords{1, 0, 0, 0});  // core 1 of chip (0,0,0)
  CHECK(t.coords[2] == DeviceCoords{0, 1, 0, 0});
}

TEST_CASE("several slices join over DCN as the slowest axis") {
  Topology t = topo("tpu_v5e", "4x4,slices=2");
  CHECK(t.num_devices() == 32);
  CHECK(t.axes.back().name == "slice");
  CHECK(t.axes.back().link == LinkKind::kDcn);
  CHECK(t.coords[17] == DeviceCoords{1, 0, 1});
  CHECK_THAT(topology_error("tpu_v4", "4x4x4,slices=2"), Contains("no DCN bandwidth"));
}

TEST_CASE("a GPU topology is NVLink domains x GPUs") {
  Topology t = topo("h100", "2x8");
  CHECK(t.num_devices() == 16);
  CHECK(t.coords[9] == DeviceCoords{1, 1});  // GPU 1 of node 1
  CHECK(t.axes[1].link == LinkKind::kScaleOut);
  CHECK(topo("h100", "4").axes.size() == 1);
  CHECK(topo("gb200", "2x72").num_devices() == 144);
  CHECK_THAT(topology_error("h100", "1x16"), Contains("holds at most 8 GPUs"));
  CHECK_THAT(topology_error("h100", "2x2x2"), Contains("NODESxGPUS"));
}

TEST_CASE("bad TPU shapes are refused with a reason") {
  CHECK_THAT(topology_error("tpu_v5e", "4x4x4"), Contains("2D torus"));
  CHECK_THAT(topology_error("tpu_v5p", "4x4"), Contains("3 chip counts"));
  CHECK_THAT(topology_error("tpu_v5e", "32x8"), Contains("the largest tpu_v5e slice is 16x16"));
  CHECK_THAT(topology_error("tpu_v5e", "0x4"), Contains("'0' is not a positive count"));
  CHECK_THAT(topology_error("tpu_v5e", "4xq"), Contains("'q' is not a positive count"));
  CHECK_THAT(topology_error("tpu_v5e", "4x4,rings=2"), Contains("unknown option 'rings=2'"));
  CHECK_THAT(topology_error("tpu_v5e", ""), Contains("empty topology"));
  CHECK_THAT(topology_error("tpu7x", "64x64x64"), Contains("exceed a tpu7x pod (9216 chips)"));
}

TEST_CASE("topology text splits at the last colon") {
  TopologyText a = split_topology_text("tpu_v5e:4x4");
  CHECK(a.device == "tpu_v5e");
  CHECK(a.shape == "4x4");
  TopologyText b = split_topology_text("h100");
  CHECK(b.device == "h100");
  CHECK(b.shape.empty());
  CHECK(split_topology_text("/specs/my:tpu.json:2x2").device == "/specs/my:tpu.json");
}

TEST_CASE("inferred TPU slices are the smallest power-of-two slice, smallest axis doubled") {
  auto inferred = [](std::string_view name, int64_t n) {
    absl::StatusOr<Topology> t = infer_topology(spec(name), n);
    INFO(t.status().ToString());
    REQUIRE_OK(t);
    CHECK(t->inferred);
    return t->shape;
  };
  CHECK(inferred("tpu_v5e", 1) == "1x1");
  CHECK(inferred("tpu_v5e", 2) == "1x2");
  CHECK(inferred("tpu_v5e", 8) == "2x4");
  CHECK(inferred("tpu_v5e", 6) == "2x4");  // rounded up to 8 chips
  CHECK(inferred("tpu_v5e", 16) == "4x4");
  CHECK(inferred("tpu_v5e", 256) == "16x16");
  CHECK(inferred("tpu_v5p", 4) == "1x2x2");
  CHECK(inferred("tpu_v5p", 64) == "4x4x4");
  CHECK(inferred("tpu_v5p", 128) == "4x4x8");
  CHECK(inferred("tpu7x", 8) == "1x2x2");  // 2 devices per chip: 4 chips
  CHECK(inferred("tpu_v3", 8) == "2x2");
  CHECK(inferred("h100", 4) == "1x4");
  CHECK(inferred("h100", 16) == "2x8");
  CHECK(inferred("h100", 12) == "2x8");
  CHECK(inferred("gb200", 144) == "2x72");
  absl::StatusOr<Topology> too_many = infer_topology(spec("tpu_v5e"), 512);
  REQUIRE(!too_many.ok());
  CHECK_THAT(std::string(too_many.status().message()),
             Contains("no single tpu_v5e slice holds 512 devices"));
  CHECK(!infer_topology(spec("tpu_v5e"), 0).ok());
}

TEST_CASE("explicit coordinates replace the default order") {
  Topology t = topo("tpu_v5e", "2x2");
  // Snake order: ids 2 and 3 swapped.
  REQUIRE_OK(set_device_coords(t, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}));
  CHECK(t.coords[2] == DeviceCoords{1, 1});
  // Now {1, 2} is a line along y.
  CHECK(place(t, {1, 2}).description == "line along y (2 chips, no wraparound)");
  CHECK_THAT(std::string(set_device_coords(t, {{0, 0}, {1, 0}, {1, 1}}).message()),
             Contains("4 devices, but 3 coordinates"));
  CHECK_THAT(std::string(set_device_coords(t, {{0, 0}, {1, 0}, {1, 1}, {1, 1}}).message()),
             Contains("device 3: its coordinates are given to another device too"));
  CHECK_THAT(std::string(set_device_coords(t, {{0, 0}, {2, 0}, {1, 1}, {0, 1}}).message()),
             Contains("coordinate 2 is outside axis x"));
  CHECK_THAT(std::string(set_device_coords(t, {{0}, {1, 0}, {1, 1}, {0, 1}}).message()),
             Contains("expected 2 coordinates"));
}

TEST_CASE("groups along one full axis are rings or lines") {
  Topology t = topo("tpu_v5e", "4x4");
  GroupPlacement x = place(t, {0, 1, 2, 3});
  CHECK(x.shape == GroupShape::kLine);
  CHECK(x.size == 4);
  CHECK(x.axes.size() == 1);
  CHECK(x.axes[0].hops == 3);  // N - 1 on a line
  CHECK(!x.approximate);
  CHECK(x.description == "line along x (4 chips, no wraparound)");
  GroupPlacement y = place(t, {1, 5, 9, 13});
  CHECK(y.shape == GroupShape::kLine);
  CHECK(t.axes[y.axes[0].axis].name == "y");

  Topology ring = topo("tpu_v5e", "16x16");
  GroupPlacement r = place(ring, iota(16));
  CHECK(r.shape == GroupShape::kRing);
  CHECK(r.axes[0].hops == 8);  // floor(16 / 2)
  CHECK(r.description == "ring along x (16 chips)");
}

TEST_CASE("groups over several full axes are multi-axis") {
  Topology t = topo("tpu_v5p", "4x4x4");
  GroupPlacement xy = place(t, iota(16));
  CHECK(xy.shape == GroupShape::kMultiAxis);
  REQUIRE(xy.axes.size() == 2);
  CHECK(xy.axes[0].ring);
  CHECK(xy.axes[0].hops + xy.axes[1].hops == 4);  // 2 + 2 on rings of 4
  CHECK(xy.description == "2 full axes: x (4 chips, ring), y (4 chips, ring)");
  CHECK(place(t, iota(64)).axes.size() == 3);
}

TEST_CASE("partial and strided groups are flagged approximate with their span") {
  Topology t = topo("tpu_v5e", "16x16");
  GroupPlacement strided = place(t, {0, 2});
  CHECK(strided.shape == GroupShape::kPartial);
  CHECK(strided.approximate);
  CHECK(strided.axes[0].hops == 2);
  // On a ring the span leaves out the largest gap: {0, 15} are neighbours across the wrap.
  CHECK(place(t, {0, 15}).axes[0].hops == 1);
  CHECK(place(t, {0, 4, 8, 12}).axes[0].hops == 12);
  // A 2x2 block of a 4x4 slice is partial on both axes.
  Topology small = topo("tpu_v5e", "4x4");
  GroupPlacement block = place(small, {0, 1, 4, 5});
  CHECK(block.shape == GroupShape::kPartial);
  CHECK(block.axes.size() == 2);
  CHECK(block.description ==
        "partial subset: 2 of 4 along x over 1 hops, 2 of 4 along y over 1 hops");
  // An L-shape varies along two full axes but is not their product.
  CHECK(place(small, {0, 1, 2, 3, 4, 8, 12}).shape == GroupShape::kPartial);
}

TEST_CASE("groups spanning slices or NVLink domains count them") {
  Topology t = topo("tpu_v5e", "4x4,slices=2");
  GroupPlacement pair = place(t, {0, 16});
  CHECK(pair.shape == GroupShape::kSingleDevice);
  CHECK(pair.domains == 2);
  CHECK(pair.members_per_domain == 1);
  CHECK(pair.description == "one device x 2 slices over DCN");
  GroupPlacement lines = place(t, {0, 1, 2, 3, 16, 17, 18, 19});
  CHECK(lines.shape == GroupShape::kLine);
  CHECK(lines.uniform);
  CHECK(lines.members_per_domain == 4);
  GroupPlacement uneven = place(t, {0, 1, 16});
  CHECK(!uneven.uniform);
  CHECK(uneven.approximate);
  CHECK(uneven.members_per_domain == 1);

  Topology gpus = topo("h100", "2x8");
  GroupPlacement node = place(gpus, iota(8));
  CHECK(node.shape == GroupShape::kSwitch);
  CHECK(node.domains == 1);
  CHECK(node.description == "NVLink domain (8 GPUs)");
  GroupPlacement both = place(gpus, iota(16));
  CHECK(both.domains == 2);
  CHECK(both.members_per_domain == 8);
  CHECK(both.description == "NVLink domain (8 GPUs) x 2 NVLink domains");
  CHECK(place(gpus, {0, 8}).shape == GroupShape::kSingleDevice);
}

TEST_CASE("bad groups are errors, not guesses") {
  Topology t = topo("tpu_v5e", "2x2");
  CHECK(!place_group(t, std::vector<int64_t>{}).ok());
  CHECK_THAT(std::string(place_group(t, std::vector<int64_t>{0, 4}).status().message()),
             Contains("device 4 is not in topology tpu_v5e:2x2 (4 devices)"));
  CHECK_THAT(std::string(place_group(t, std::vector<int64_t>{1, 1}).status().message()),
             Contains("device 1 appears twice"));
  CHECK(!place_group(t, std::vector<int64_t>{-1}).ok());
}

TEST_CASE("axis distance goes the short way round a ring") {
  TopologyAxis ring{"x", 16, LinkKind::kIci, true};
  TopologyAxis line{"x", 16, LinkKind::kIci, false};
  CHECK(axis_distance(ring, 0, 15) == 1);
  CHECK(axis_distance(ring, 3, 11) == 8);
  CHECK(axis_distance(line, 0, 15) == 15);
}

}  // namespace
}  // namespace hloroof
