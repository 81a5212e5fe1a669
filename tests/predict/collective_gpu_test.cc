// GPU collectives: the scaling book's NVLink / scale-out model (docs/sources.md, "Collective
// formulas") and XLA's NCCL (3.4) and speed-of-light (3.5) models, against 5.3 C10-C14 and
// hand-derived cases.
#include <catch2/catch.hpp>
#include <cmath>

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
  REQUIRE_OK(t);
  return {*std::move(d), *std::move(t)};
}

std::vector<int64_t> ids(int64_t n, int64_t first = 0) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(first + i);
  return v;
}

absl::StatusOr<CollectiveEstimate> estimate(const Setup& s, CollectiveKind kind, double bytes,
                                            std::vector<int64_t> group,
                                            CollectiveOptions options = {}) {
  return collective_time(s.spec, s.topology, {kind, bytes, {std::move(group)}, {}}, options);
}

CollectiveEstimate run(const Setup& s, CollectiveKind kind, double bytes,
                       std::vector<int64_t> group, CollectiveOptions options = {}) {
  absl::StatusOr<CollectiveEstimate> e = estimate(s, kind, bytes, std::move(group), options);
  INFO(e.status().ToString());
  REQUIRE_OK(e);
  return *std::move(e);
}

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kLaunch = 2e-6;  // h100 collective launch latency (h100.json: its shortest
                                  // measured collective, 2.56 us, rounded down)

TEST_CASE("C10, C11: all-gathers inside an 8xH100 node") {
  Setup s = setup("h100", "1x8");
  // C10: bf16[4096, 65536] = 512 MiB: V (8-1) / (8 x 450e9) = 1.04 ms (measured ~1.5 ms).
  CollectiveEstimate c10 = run(s, CollectiveKind::kAllGather, 0.5 * kGiB, ids(8));
  CHECK(c10.placement.shape == GroupShape::kSwitch);
  CHECK(c10.bandwidth_time_s == Approx(1.04e-3).epsilon(0.004));
  CHECK(c10.time_s == Approx(c10.bandwidth_time_s + kLaunch));
  // C11: bf16[1024, 16384] = 33,554,432 B: 65.2 us; 74.6 us ("75 us") as V / W.
  CHECK(run(s, CollectiveKind::kAllGather, 2.0 * 1024 * 16384, ids(8)).bandwidth_time_s ==
        Approx(65.2e-6).epsilon(0.001));
  CHECK(run(s, CollectiveKind::kAllGather, 2.0 * 1024 * 16384, ids(8), {.large_n = true})
            .bandwidth_time_s == Approx(74.6e-6).epsilon(0.001));
}

TEST_CASE("C12: an all-gather over two H100 nodes is bound by the node level") {
  // Node level B 7 / (8 x 450e9) = B / 514e9; scale-out B (2-1) / (2 x 400e9) = B / 800e9.
  Setup s = setup("h100", "2x8");
  const double b = 1e9;
  CollectiveEstimate e = run(s, CollectiveKind::kAllGather, b, ids(16));
  CHECK(e.placement.domains == 2);
  CHECK(e.bandwidth_time_s == Approx(b / 514.3e9).epsilon(0.001));
  CHECK(e.bandwidth == 4.5e11);
  // With 2 GPUs per node the scale-out side binds: B (2-1) / (2 x 2 x 50e9) = B / 200e9.
  Setup thin = setup("h100", "2x2");
  CollectiveEstimate t = run(thin, CollectiveKind::kAllGather, b, ids(4));
  CHECK(t.bandwidth_time_s == Approx(b / 200e9));
  CHECK(t.bandwidth == 1e11);
  // All-reduce doubles it.
  CHECK(run(s, CollectiveKind::kAllReduce, b, ids(16)).bandwidth_time_s ==
        Approx(2 * b / 514.3e9).epsilon(0.001));
}

TEST_CASE("all-to-all, broadcast and point to point on GPUs") {
  const double v = 1e9;
  // In one node: V (N-1) / (N^2 W_gpu) = 1e9 x 7 / (64 x 450e9) = 0.2431 ms.
  Setup node = setup("h100", "1x8");
  CHECK(run(node, CollectiveKind::kAllToAll, v, ids(8)).bandwidth_time_s ==
        Approx(v * 7 / (64 * 4.5e11)));
  // Across 2 nodes of 8: max(V/2 x 7 / (64 x 450e9), V (2-1) / (4 x 8 x 50e9)) = 0.625 ms.
  Setup two = setup("h100", "2x8");
  CHECK(run(two, CollectiveKind::kAllToAll, v, ids(16)).bandwidth_time_s ==
        Approx(v / (4 * 8 * 5e10)));
  // Broadcast in a node: V / W_gpu.
  CHECK(run(node, CollectiveKind::kCollectiveBroadcast, v, ids(8)).time_s ==
        Approx(v / 4.5e11 + kLaunch));
  // Point to point: NVLink inside a node, the NIC across nodes.
  CollectiveInput inside{CollectiveKind::kCollectivePermute, v, {}, {{0, 1}}};
  CHECK(collective_time(two.spec, two.topology, inside)->time_s == Approx(v / 4.5e11 + kLaunch));
  CollectiveInput across{CollectiveKind::kSend, v, {}, {{0, 8}}};
  CHECK(collective_time(two.spec, two.topology, across)->time_s == Approx(v / 5e10 + kLaunch));
  // A group of one moves nothing.
  CHECK(run(node, CollectiveKind::kAllReduce, v, {3}).time_s == 0);
}

TEST_CASE("C13: XLA's NCCL model for an all-reduce of 1 GiB over 8 H100") {
  // n_ch = min(18 links, max(8, 32)) = 18; bw = min(20e9 x 18 x 0.92, 18 x 36.7e9) x 8/14
  // = 331.2e9 x 8/14 = 189.26e9 B/s.
  Setup s = setup("h100", "1x8");
  const CollectiveOptions nccl{.formula = CollectiveFormula::kXlaGpuNccl};
  CollectiveEstimate sync = run(s, CollectiveKind::kAllReduce, kGiB, ids(8), nccl);
  CHECK(sync.bandwidth == Approx(189.26e9).epsilon(0.0001));
  // Sync all-reduce charges operand + output = 2 GiB: XLA's launch overhead, 5 us (its own
  // constant, not the device's 2 us), + 2^31 / 189.26e9 = 11.35 ms.
  CHECK(sync.time_s == Approx(11.35e-3).epsilon(0.001));
  // all-reduce-start charges the output only: 5.68 ms.
  CollectiveOptions start = nccl;
  start.async_start = true;
  CHECK(run(s, CollectiveKind::kAllReduce, kGiB, ids(8), start).time_s ==
        Approx(5.68e-3).epsilon(0.001));
  // Without NVLink information: 32 channels on the ladder's 60 GB/s:
  // min(60e9 x 32 x 0.92, 32 x 36.7e9) x 8/14 = 671.1e9: 5 us + 2^30 / 671.1e9 = 3.205 ms.
  CollectiveOptions ladder = nccl;
  ladder.nvlink_links_known = false;
  CollectiveEstimate l = run(s, CollectiveKind::kAllReduce, kGiB, ids(8), ladder);
  CHECK(l.bandwidth == Approx(671.1e9).epsilon(0.0001));
  CHECK(l.time_s == Approx(3.205e-3).epsilon(0.0002));
  // All-gather: bytes V (3N-1)/N, ratio N/(N-1): 5 us + 1 GiB x 23/8 / (331.2e9 x 8/7).
  CHECK(run(s, CollectiveKind::kAllGather, kGiB, ids(8), nccl).time_s ==
        Approx(5e-6 + kGiB * 23 / 8 / (331.2e9 * 8 / 7)));
  // Kinds the model does not cover, and groups of one, cost the launch only.
  CollectiveEstimate a2a = run(s, CollectiveKind::kAllToAll, kGiB, ids(8), nccl);
  CHECK(a2a.time_s == 5e-6);
  CHECK_THAT(a2a.notes[0], Contains("does not model all-to-all"));
  CHECK(run(s, CollectiveKind::kAllReduce, kGiB, {0}, nccl).time_s == 5e-6);
}

TEST_CASE("C14: XLA's SoL model for 1 GiB over 2 nodes x 8 H100") {
  // m = 2^30 / 16; one step m 1.025 / 25e9 + 16 x 6 us + 31 us = 2.878 ms; all-reduce
  // 2 x 15/8 steps + 45 us = 10.84 ms; all-gather 15/8 steps + 45 us = 5.44 ms.
  Setup s = setup("h100", "2x8");
  const CollectiveOptions sol{.formula = CollectiveFormula::kXlaGpuSol};
  CHECK(run(s, CollectiveKind::kAllReduce, kGiB, ids(16), sol).time_s ==
        Approx(10.84e-3).epsilon(0.001));
  CHECK(run(s, CollectiveKind::kAllGather, kGiB, ids(16), sol).time_s ==
        Approx(5.44e-3).epsilon(0.001));
  CHECK(run(s, CollectiveKind::kReduceScatter, kGiB, ids(16), sol).time_s ==
        Approx(5.44e-3).epsilon(0.001));
}

TEST_CASE("XLA's SoL model: all-to-all, symmetric-memory all-reduce, send/recv, gaps") {
  const CollectiveOptions sol{.formula = CollectiveFormula::kXlaGpuSol};
  Setup two = setup("h100", "2x8");
  // All-to-all over 2 nodes of 8, 1 GiB: peer = 2^30 / 15 = 71,582,788 B; 8 x (2-1) steps of
  // peer 1.025 / 25e9 + ceil(peer / 4 MiB) = 18 chunks x 6 us + 31 us, plus 45 us.
  const double peer = kGiB / 15;
  CHECK(run(two, CollectiveKind::kAllToAll, kGiB, ids(16), sol).time_s ==
        Approx(45e-6 + 8 * (peer * 1.025 / 25e9 + 18 * 6e-6 + 31e-6)));
  // Inside one node, small all-reduces use symmetric-memory kernels with
  // BW = 18 links x 20e9 = 3.6e11: one-shot (128 KiB) 1 us + 7 V / BW + 1.5 us barrier;
  // two-shot (1 MiB) 1 us + 2 (7 V / (8 BW) + 1.5 us).
  Setup node = setup("h100", "1x8");
  CHECK(run(node, CollectiveKind::kAllReduce, 131072, ids(8), sol).time_s ==
        Approx(1e-6 + 7 * 131072 / 3.6e11 + 1.5e-6));
  CHECK(run(node, CollectiveKind::kAllReduce, 1048576, ids(8), sol).time_s ==
        Approx(1e-6 + 2 * (7 * 1048576 / (8 * 3.6e11) + 1.5e-6)));
  // Send/recv across nodes: a ring of 2 with one GPU per node and the whole buffer per step.
  CollectiveInput sr{CollectiveKind::kSend, kGiB, {}, {{0, 8}}};
  CHECK(collective_time(two.spec, two.topology, sr, sol)->time_s ==
        Approx(45e-6 + kGiB * 1.025 / 25e9 + 256 * 6e-6 + 31e-6));
  // Gaps are errors, not guesses.
  CHECK(estimate(two, CollectiveKind::kCollectiveBroadcast, kGiB, ids(16), sol).status().code() ==
        absl::StatusCode::kUnimplemented);
  CHECK(estimate(node, CollectiveKind::kAllToAll, kGiB, ids(8), sol).status().code() ==
        absl::StatusCode::kUnimplemented);
  Setup bare = setup("h100", "2x8");
  bare.spec.gpu->xla_sol.reset();
  absl::StatusOr<CollectiveEstimate> missing =
      estimate(bare, CollectiveKind::kAllReduce, kGiB, ids(16), sol);
  REQUIRE(!missing.ok());
  CHECK_THAT(std::string(missing.status().message()), Contains("h100 has no xla_sol constants"));
}

TEST_CASE("a GPU estimate explains itself") {
  Setup s = setup("h100", "2x8");
  const std::string text = run(s, CollectiveKind::kAllGather, 1e9, ids(16)).explain();
  CHECK_THAT(text, Contains("across NVLink domains"));
  CHECK_THAT(text, Contains("N = 16"));
  CHECK_THAT(text, Contains("group: NVLink domain (8 GPUs) x 2 NVLink domains"));
}

}  // namespace
}  // namespace hloroof
