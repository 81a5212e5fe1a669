// TPU collectives (docs/sources.md, "Collective formulas") against the worked examples of 5.3, plus
// hand-derived cases for each kind and topology shape.
#include <catch2/catch.hpp>

#include "hloroof/collective.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using Catch::Matchers::Contains;

struct Setup {
  DeviceSpec spec;
  Topology topology;
};

Setup setup(std::string_view name, std::string_view shape) {
  absl::StatusOr<DeviceSpec> d = device(name);
  REQUIRE_OK(d);
  absl::StatusOr<Topology> t = make_topology(*d, shape);
  INFO(t.status().ToString());
  REQUIRE_OK(t);
  return {*std::move(d), *std::move(t)};
}

CollectiveEstimate run(const Setup& s, CollectiveKind kind, double bytes,
                       std::vector<std::vector<int64_t>> groups, CollectiveOptions options = {}) {
  CollectiveInput in{kind, bytes, std::move(groups), {}};
  absl::StatusOr<CollectiveEstimate> e = collective_time(s.spec, s.topology, in, options);
  INFO(e.status().ToString());
  REQUIRE_OK(e);
  return *std::move(e);
}

CollectiveEstimate send(const Setup& s, double bytes,
                        std::vector<std::pair<int64_t, int64_t>> pairs) {
  CollectiveInput in{CollectiveKind::kCollectivePermute, bytes, {}, std::move(pairs)};
  absl::StatusOr<CollectiveEstimate> e = collective_time(s.spec, s.topology, in);
  INFO(e.status().ToString());
  REQUIRE_OK(e);
  return *std::move(e);
}

std::vector<int64_t> ids(int64_t n, int64_t first = 0, int64_t step = 1) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(first + i * step);
  return v;
}

constexpr CollectiveOptions kLargeN{.large_n = true};

TEST_CASE("C1: reduce-scatter over the 2-way axis of a TPU v2 4x2") {
  // worked example C1: bf16[8,1024,8192] = 134,217,728 B over 2 devices at W_bi = 1.2e11:
  // 1.342e8 / 1.2e11 = 1.118 ms (profile: 1.13 ms). The two cores of a v2 chip form a line of
  // 2 at 6e10 one way: V (2-1) / (2 x 6e10) = 1.118 ms.
  Setup s = setup("tpu_v2", "2x2");  // 4 chips, 8 TensorCores
  CollectiveEstimate e = run(s, CollectiveKind::kReduceScatter, 2.0 * 8 * 1024 * 8192, {{0, 1}});
  CHECK(e.time_s == Approx(1.118e-3).epsilon(0.001));
  CHECK(e.placement.shape == GroupShape::kLine);
  CHECK(e.group_size == 2);
}

TEST_CASE("C2, C3: all-gather over a v5e axis of 4 without wraparound") {
  // v5e mesh {X: 8, Y: 4}; the Y axis of 4 has no wraparound (only axes of 16 do).
  Setup s = setup("tpu_v5e", "8x4");
  const std::vector<int64_t> y = {0, 8, 16, 24};
  // C2: bf16[2048, 8192] = 33,554,432 B gathered over the line: 3 hops of V/4 at 4.5e10:
  // 3 x 8.39e6 / 4.5e10 = 559.2 us (measured 680 us).
  CollectiveEstimate c2 = run(s, CollectiveKind::kAllGather, 2.0 * 2048 * 8192, {y});
  CHECK(c2.placement.shape == GroupShape::kLine);
  CHECK(c2.time_s == Approx(559.2e-6).epsilon(0.0005));
  CHECK(c2.bandwidth == 4.5e10);
  // The book's ideal with wraparound, V / W_bi = 372.8 us, is what a ring of 4 would take in
  // the large-N form; the exact ring form is 3/4 of it.
  Setup ring = setup("tpu_v4", "4x4x4");
  ring.spec.torus->link_bandwidth = 4.5e10;  // v5e links on a wrapped axis of 4
  CHECK(run(ring, CollectiveKind::kAllGather, 2.0 * 2048 * 8192, {{0, 1, 2, 3}}, kLargeN).time_s ==
        Approx(372.8e-6).epsilon(0.0005));
  CHECK(run(ring, CollectiveKind::kAllGather, 2.0 * 2048 * 8192, {{0, 1, 2, 3}}).time_s ==
        Approx(0.75 * 372.8e-6).epsilon(0.0005));
  // C3: E = F = 256: V = 131,072 B; 0.73 us of bandwidth per hop's worth is below the 1 us hop
  // latency, so 3 hops bound it: 3 us (measured ~8 us).
  CollectiveEstimate c3 = run(s, CollectiveKind::kAllGather, 2.0 * 256 * 256, {y});
  CHECK(c3.time_s == Approx(3e-6));
  CHECK(c3.hops == 3);
  CHECK(c3.bandwidth_time_s < c3.latency_s);
}

TEST_CASE("C4-C7: v4 4x4x4 with every axis wrapped") {
  Setup s = setup("tpu_v4", "4x4x4");
  const double b = 1024, d = 4096;
  // C4: AllGather_X of [B_X, D_Y]: each Y-slice gathers V / |Y| = 2BD / 4 = 2 MiB over a ring
  // of 4: 2BD / (W_bi Y) = 2,097,152 / 9e10 = 23.3 us.
  CollectiveEstimate c4 =
      run(s, CollectiveKind::kAllGather, 2 * b * d / 4, {{0, 1, 2, 3}}, kLargeN);
  CHECK(c4.placement.shape == GroupShape::kRing);
  CHECK(c4.bandwidth == 9e10);
  CHECK(c4.time_s == Approx(23.3e-6).epsilon(0.001));
  // C5: AllGather_XY of the same: 2BD = 8 MiB over two rings: 8,388,608 / (2 x 9e10) = 46.6 us;
  // the latency floor is 2 + 2 hops = 4 us.
  CollectiveEstimate c5 = run(s, CollectiveKind::kAllGather, 2 * b * d, {ids(16)}, kLargeN);
  CHECK(c5.placement.shape == GroupShape::kMultiAxis);
  CHECK(c5.time_s == Approx(46.6e-6).epsilon(0.001));
  CHECK(c5.latency_s == Approx(4e-6));
  // C6: AllReduce_Z of [B_X, D_Y]: the per-device buffer is 2BD / (XY) = 524,288 B; twice a
  // gather over the Z ring: 2 x 524,288 / 9e10 = 11.65 us.
  CollectiveEstimate c6 =
      run(s, CollectiveKind::kAllReduce, 2 * b * d / 16, {{0, 16, 32, 48}}, kLargeN);
  CHECK(s.topology.axes[c6.placement.axes[0].axis].name == "z");
  CHECK(c6.time_s == Approx(11.65e-6).epsilon(0.001));
  // C7: AllGather_X of bf16[128]_X: 256 B; latency bound at 2 hops: 2 us.
  CollectiveEstimate c7 = run(s, CollectiveKind::kAllGather, 256, {{0, 1, 2, 3}});
  CHECK(c7.time_s == Approx(2e-6));
  CHECK(c7.hops == 2);
}

TEST_CASE("C8: point to point across a v5e 4x4 uses both ports") {
  // bf16[8,128,8192] = 16,777,216 B from {0,0} to {3,3}: two disjoint routes, 6 hops:
  // 16,777,216 / (2 x 4.5e10) = 186.4 us of bandwidth, plus 6 us of hops = 192.4 us (the
  // mid-February-2025 scaling book adds them too: 194 us with rounding).
  Setup s = setup("tpu_v5e", "4x4");
  CollectiveEstimate e = send(s, 2.0 * 8 * 128 * 8192, {{0, 15}});
  CHECK(e.bandwidth_time_s == Approx(186.4e-6).epsilon(0.0005));
  CHECK(e.hops == 6);
  CHECK(e.latency_s == Approx(6e-6));
  CHECK(e.time_s == Approx(192.4e-6).epsilon(0.0005));
  CHECK(e.bandwidth == 9e10);
}

TEST_CASE("C9: every collective kind on a full v5e axis of 16 and on a line of 8") {
  const double v = 2.0 * 2048 * 8192;  // 33.6 MB
  Setup s = setup("tpu_v5e", "16x16");
  const std::vector<int64_t> x = ids(16);
  // Ring, W_bi = 9e10: all-gather V / W_bi = 372.8 us (349.5 us with (N-1)/N).
  CHECK(run(s, CollectiveKind::kAllGather, v, {x}, kLargeN).time_s ==
        Approx(372.8e-6).epsilon(0.0005));
  CHECK(run(s, CollectiveKind::kAllGather, v, {x}).time_s == Approx(349.5e-6).epsilon(0.0005));
  CHECK(run(s, CollectiveKind::kReduceScatter, v, {x}, kLargeN).time_s ==
        Approx(372.8e-6).epsilon(0.0005));
  CHECK(run(s, CollectiveKind::kAllReduce, v, {x}, kLargeN).time_s ==
        Approx(745.6e-6).epsilon(0.0005));
  // All-to-all: V / (4 W_bi) = 93.2 us.
  CollectiveEstimate a2a = run(s, CollectiveKind::kAllToAll, v, {x});
  CHECK(a2a.time_s == Approx(93.2e-6).epsilon(0.0005));
  CHECK(run(s, CollectiveKind::kRaggedAllToAll, v, {x}).time_s == Approx(a2a.time_s));
  // An axis of 8 has no wraparound: V 7/8 / 4.5e10 = 652.4 us; all-reduce 1305 us.
  Setup line = setup("tpu_v5e", "8x8");
  CHECK(run(line, CollectiveKind::kAllGather, v, {ids(8)}).time_s ==
        Approx(652.4e-6).epsilon(0.0005));
  CHECK(run(line, CollectiveKind::kReduceScatter, v, {ids(8)}).time_s ==
        Approx(652.4e-6).epsilon(0.0005));
  CHECK(run(line, CollectiveKind::kAllReduce, v, {ids(8)}).time_s ==
        Approx(1304.9e-6).epsilon(0.0005));
}

TEST_CASE("all-to-all on a line: the middle link carries a quarter of V each way") {
  // v5e 4x4, a line of 4 along x, V = 1e9 B: V / (4 W_uni) = 1e9 / 1.8e11 = 5.556 ms.
  Setup s = setup("tpu_v5e", "4x4");
  CHECK(run(s, CollectiveKind::kAllToAll, 1e9, {{0, 1, 2, 3}}).time_s ==
        Approx(1e9 / (4 * 4.5e10)));
  // Over both axes of a v5p 4x4x4 (rings of 4): max over axes of V 4 / (4 x 16 x 9e10):
  // 1e9 / 1.44e12 = 0.694 ms.
  Setup cube = setup("tpu_v5p", "4x4x4");
  CHECK(run(cube, CollectiveKind::kAllToAll, 1e9, {ids(16)}).time_s ==
        Approx(1e9 * 4 / (4 * 16 * 1.8e11)));
}

TEST_CASE("multi-axis gathers add the bandwidth of every axis") {
  // v5e 16x8: x wraps (16), y does not (8). A group over all 128 chips gathers V = 1e9 B over
  // W_bi(x) + W_uni(y) = 9e10 + 4.5e10 = 1.35e11: V (127/128) / 1.35e11 = 7.350 ms.
  Setup s = setup("tpu_v5e", "16x8");
  CollectiveEstimate e = run(s, CollectiveKind::kAllGather, 1e9, {ids(128)});
  CHECK(e.placement.shape == GroupShape::kMultiAxis);
  CHECK(e.bandwidth == Approx(1.35e11));
  CHECK(e.time_s == Approx(1e9 * 127 / 128 / 1.35e11));
  // Hops: 8 on the ring of 16, 7 on the line of 8.
  CHECK(e.hops == 15);
}

TEST_CASE("partial groups are bounded as a line over their span and flagged") {
  // Every second chip of a v5e ring of 16: {0, 2, ..., 14}, N = 8, span 14 hops:
  // V 7/8 / 4.5e10 for V = 1e9 = 19.44 ms.
  Setup s = setup("tpu_v5e", "16x16");
  CollectiveEstimate e = run(s, CollectiveKind::kAllGather, 1e9, {ids(8, 0, 2)});
  CHECK(e.placement.shape == GroupShape::kPartial);
  CHECK(e.approximate);
  CHECK(e.time_s == Approx(1e9 * 7 / 8 / 4.5e10));
  CHECK(e.hops == 14);
  CHECK_THAT(e.explain(), Contains("approximate"));
}

TEST_CASE("broadcast pipelines the buffer from the root") {
  // Ring of 16 on v5e, V = 9e8 B: half each way, V / W_bi = 10 ms, plus 8 hops of 1 us.
  Setup s = setup("tpu_v5e", "16x16");
  CHECK(run(s, CollectiveKind::kCollectiveBroadcast, 9e8, {ids(16)}).time_s ==
        Approx(9e8 / 9e10 + 8e-6));
  // Line of 4: from one end, V / W_uni + 3 hops.
  Setup line = setup("tpu_v5e", "4x4");
  CHECK(run(line, CollectiveKind::kCollectiveBroadcast, 9e8, {{0, 1, 2, 3}}).time_s ==
        Approx(9e8 / 4.5e10 + 3e-6));
}

TEST_CASE("permutes: neighbours on a ring, self sends, the slowest pair") {
  Setup s = setup("tpu_v5e", "16x16");
  // A ring shift along x: every pair is one hop on one link: 4.5e8 / 4.5e10 + 1 us.
  std::vector<std::pair<int64_t, int64_t>> shift;
  for (int64_t i = 0; i < 16; ++i) shift.push_back({i, (i + 1) % 16});
  CollectiveEstimate e = send(s, 4.5e8, shift);
  CHECK(e.time_s == Approx(10e-3 + 1e-6));
  CHECK(e.hops == 1);  // 15 -> 0 crosses the wraparound
  CHECK_THAT(e.notes.back(), Contains("16 pairs at once"));
  // A device sending to itself moves nothing.
  CHECK(send(s, 4.5e8, {{3, 3}}).time_s == 0);
  // The slowest pair bounds: (0 -> 8) is 8 hops.
  CHECK(send(s, 4.5e8, {{0, 1}, {0, 8}}).hops == 8);
  // send/recv is one pair.
  CollectiveInput sr{CollectiveKind::kSend, 4.5e8, {}, {{0, 1}}};
  CHECK(collective_time(s.spec, s.topology, sr)->time_s == Approx(10e-3 + 1e-6));
}

TEST_CASE("devices sharing a chip share its links; the core axis has its own link") {
  // TPU7x 4x4x4 (whole cubes: every axis wraps): a ring of 4 along x among core-0 devices.
  // The chip's 9e10 links are shared by its 2 devices: W_bi per device = 2 x 4.5e10 = 9e10.
  // V = 9e8: V 3/4 / 9e10 = 7.5 ms.
  Setup s = setup("tpu7x", "4x4x4");
  CollectiveEstimate x = run(s, CollectiveKind::kAllGather, 9e8, {{0, 2, 4, 6}});
  CHECK(x.placement.shape == GroupShape::kRing);
  CHECK(x.time_s == Approx(9e8 * 3 / 4 / 9e10));
  // The two cores of chip 0: a line of 2 over the core link (9e10): V / 2 / 9e10 = 5 ms.
  CollectiveEstimate core = run(s, CollectiveKind::kAllGather, 9e8, {{0, 1}});
  CHECK(core.placement.description == "line along core (2 cores)");
  CHECK(core.time_s == Approx(9e8 / 2 / 9e10));
}

TEST_CASE("across slices the DCN phase adds to the ICI phases") {
  // v5e 4x4, 2 slices. All-reduce over a line of 4 along x in each slice (8 devices), V = 1e9:
  //   ICI: 2 x V 3/4 / 4.5e10           = 33.33 ms
  //   DCN: 2 x V (2-1) / (2 x 4 x 3.125e9) = 80 ms, plus 2 x 20 us of DCN latency.
  Setup s = setup("tpu_v5e", "4x4,slices=2");
  CollectiveEstimate e = run(s, CollectiveKind::kAllReduce, 1e9, {{0, 1, 2, 3, 16, 17, 18, 19}});
  CHECK(e.placement.domains == 2);
  CHECK(e.time_s == Approx(2 * 1e9 * 0.75 / 4.5e10 + 2 * 1e9 / (2 * 4 * 3.125e9) + 40e-6));
  CHECK(e.approximate);
  CHECK_THAT(e.formula, Contains("DCN"));
  // One device per slice: only DCN. All-gather V = 1e9 over 2 slices: V / 2 / 3.125e9 + 20 us.
  CHECK(run(s, CollectiveKind::kAllGather, 1e9, {{0, 16}}).time_s ==
        Approx(1e9 / 2 / 3.125e9 + 20e-6));
  // A pair across slices goes over DCN.
  CHECK(send(s, 1e9, {{0, 16}}).time_s == Approx(1e9 / 3.125e9 + 20e-6));
}

TEST_CASE("a group of one device costs nothing; the slowest group bounds") {
  Setup s = setup("tpu_v5e", "4x4");
  CHECK(run(s, CollectiveKind::kAllReduce, 1e9, {{5}}).time_s == 0);
  // Groups {0,1,2,3} (line along x) and {4,8} (partial along y): the line is slower.
  CollectiveEstimate e = run(s, CollectiveKind::kAllGather, 1e9, {{0, 1, 2, 3}, {4, 8}});
  CHECK(e.group_size == 4);
  CHECK(e.time_s == Approx(1e9 * 0.75 / 4.5e10));
}

TEST_CASE("bad collective inputs are errors") {
  Setup s = setup("tpu_v5e", "4x4");
  auto error = [&](CollectiveInput in, CollectiveOptions options = {}) {
    absl::StatusOr<CollectiveEstimate> e = collective_time(s.spec, s.topology, in, options);
    REQUIRE(!e.ok());
    return std::string(e.status().message());
  };
  CHECK_THAT(error({CollectiveKind::kAllReduce, 1e6, {}, {}}),
             Contains("no replica groups; expand an empty `{}`"));
  CHECK_THAT(error({CollectiveKind::kAllReduce, -1, {{0, 1}}, {}}), Contains("non-negative"));
  CHECK_THAT(error({CollectiveKind::kAllReduce, 1e6, {{0, 16}}, {}}), Contains("device 16"));
  CHECK_THAT(error({CollectiveKind::kCollectivePermute, 1e6, {{0, 1}}, {}}),
             Contains("needs source-target pairs"));
  CHECK_THAT(error({CollectiveKind::kAllReduce, 1e6, {{0, 1}}, {}},
                   {.formula = CollectiveFormula::kXlaGpuNccl}),
             Contains("is not a GPU"));
  Setup other = setup("tpu_v5p", "4x4x4");
  CHECK(
      !collective_time(s.spec, other.topology, {CollectiveKind::kAllReduce, 1, {{0, 1}}, {}}).ok());
}

}  // namespace
}  // namespace hloroof
