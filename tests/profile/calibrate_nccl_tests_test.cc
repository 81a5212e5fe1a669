// A cluster's network fitted to nccl-tests logs (fit_nccl_tests): nic_efficiency from the
// bandwidth-bound sizes, scale_out_latency from the latency-bound ones.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/device.h"
#include "hloroof/nccl_tests.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// Two nodes of 8 A100s sharing 4 HDR NICs a node (200 Gb/s = 2.5e10 B/s each): 86 GB/s of bus
// bandwidth is 0.86 of the node's 4 x 25 GB/s line rate (docs/prediction-model.md, "Across
// nodes", NVIDIA/nccl#1048).
constexpr double kBusBandwidth = 86e9;
constexpr int kRanks = 16;

DeviceSpec four_nic_a100() {
  absl::StatusOr<DeviceSpec> a100 = device("a100");
  REQUIRE_OK(a100);
  absl::StatusOr<DeviceSpec> set = set_device_figures(
      *a100, {"interconnect.nics_per_node=4", "interconnect.nic_bandwidth=2.5e10"});
  REQUIRE_OK(set);
  return *set;
}

// A standard all_reduce_perf log over 2 x 8 A100s, 8 B to 8 GiB, each size taking `latency_s`
// plus its bus bytes, 2 (n-1)/n of the size, at kBusBandwidth; times printed to 0.01 us and the
// busbw column from the printed time, as nccl-tests prints them.
std::string all_reduce_log(double latency_s) {
  std::string text =
      "# nccl-tests version 2.17.6 nccl-headers=22501 nccl-library=22501\n"
      "# Collective test starting: all_reduce_perf\n"
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
      "iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < kRanks; ++r) {
    absl::StrAppendFormat(&text,
                          "#  Rank %2d Group  0 Pid %6d on node-%s device %2d [0000:07:00] "
                          "NVIDIA A100-SXM4-80GB\n",
                          r, 1000 + r, r < 8 ? "a" : "b", r % 8);
  }
  absl::StrAppend(&text,
                  "#\n#       size         count      type   redop    root     time   algbw   "
                  "busbw #wrong     time   algbw   busbw #wrong\n"
                  "#        (B)    (elements)                               (us)  (GB/s)  "
                  "(GB/s)            (us)  (GB/s)  (GB/s)\n");
  const double factor = 2.0 * (kRanks - 1) / kRanks;
  for (int k = 3; k <= 33; ++k) {
    const double size = std::ldexp(1.0, k);
    const double time_us = std::round((latency_s + size * factor / kBusBandwidth) * 1e8) / 100;
    const double algbw = size / (time_us * 1e3);
    absl::StrAppendFormat(&text,
                          "%12.0f  %12.0f     float     sum      -1  %9.2f  %6.2f  %6.2f      0"
                          "  %9.2f  %6.2f  %6.2f      0\n",
                          size, size / 4, time_us, algbw, algbw * factor, time_us, algbw,
                          algbw * factor);
  }
  absl::StrAppend(&text, "# Out of bounds values : 0 OK\n");
  return text;
}

const NcclTestsPoint& point_of(const NcclTestsFit& fit, double size) {
  for (const NcclTestsPoint& p : fit.points) {
    if (p.size_bytes == size) return p;
  }
  FAIL("no point of size " << size);
  return fit.points.front();
}

TEST_CASE("nccl-tests fit: the latency moves the latency, not the bandwidth") {
  // Five logs of one network (86 GB/s of bus bandwidth) whose small sizes take 25 to 150 us.
  // One figure fitted to every size took their latency for bandwidth (0.713 of line rate at
  // 150 us, a 1 GiB all-reduce 20% off); here the share stays at 0.86 and the latency goes to
  // scale_out_latency.
  const DeviceSpec base = four_nic_a100();
  // NCCL's latency for a small all-reduce of 16 GPUs on 2 nodes (collective_expected_time.cc):
  // its tree with LL, 4.4 base + 2 x (7 NVLink hops x 0.52 x 1.8 + 1 network hop x 5.0) =
  // 27.50 us (its ring with LL: 32.69 us), and a100's launch latency of 2 us: 29.50 us before
  // any latency of the file's own.
  constexpr double kModelLatency = 29.504e-6;
  for (double latency_us : {25.0, 42.0, 60.0, 100.0, 150.0}) {
    INFO("latency " << latency_us << " us");
    const std::string text = all_reduce_log(latency_us * 1e-6);
    CHECK(nccl_tests_gpu(text) == "NVIDIA A100-SXM4-80GB");
    absl::StatusOr<std::vector<NcclTestsRun>> runs = parse_nccl_tests(text, "ar.log");
    REQUIRE_OK(runs);
    absl::StatusOr<NcclTestsFit> fit = fit_nccl_tests(*runs, base, "");
    REQUIRE_OK(fit);
    INFO(render_nccl_tests_fit(*fit));
    CHECK(fit->before == 0.86);
    CHECK(fit->efficiency_fitted);
    CHECK(fit->latency_fitted);
    // The bandwidth stays put: the largest sizes carry NCCL's Simple latency (122.8 us + the
    // file's), which the log's few tens of us do not, so within 2%.
    CHECK(fit->after == Approx(0.86).epsilon(0.02));
    // The latency: what the log's smallest sizes take beyond the model's 29.50 us, at least 0
    // (the median over the latency-bound sizes, whose bytes the two count apart: within 1 us).
    CHECK(fit->latency_after_s ==
          Approx(std::max(0.0, latency_us * 1e-6 - kModelLatency)).margin(1e-6));
    // A 1 GiB all-reduce within 2% of the log (1.875 GiB of bus bytes at 86 GB/s: 23.41 ms,
    // and the latency).
    const NcclTestsPoint& gib = point_of(*fit, 1073741824.0);
    CHECK(gib.measured_s == Approx(latency_us * 1e-6 + 1073741824.0 * 1.875 / 86e9).epsilon(1e-4));
    CHECK(gib.after_s == Approx(gib.measured_s).epsilon(0.02));
    CHECK(gib.role == NcclTestsRole::kBandwidth);
    CHECK(point_of(*fit, 8).role == NcclTestsRole::kLatency);
    // The smallest size is predicted as measured once the latency is free to follow (within the
    // 1 us the latency-bound sizes' model bytes differ by).
    if (latency_us * 1e-6 > kModelLatency) {
      CHECK(point_of(*fit, 8).after_s == Approx(latency_us * 1e-6).margin(1e-6));
      CHECK(fit->accepted);
      CHECK(fit->error_after < fit->error_before);
      CHECK(fit->warnings.empty());
      REQUIRE(fit->device.gpu->scale_out_latency_s);
      CHECK(*fit->device.gpu->scale_out_latency_s ==
            Approx(fit->latency_after_s).margin(1e-9));
    } else {
      // 25 us is below the model's own latency (the larger of the 29.50 us across nodes and
      // the 35.5 us of the NVLink part's fit): the figure sits at its bound, and says so.
      REQUIRE(fit->warnings.size() == 1);
      CHECK(absl::StrContains(fit->warnings[0], "scale_out_latency sits at its bound 0 s"));
    }
    const std::string shown = render_nccl_tests_fit(*fit);
    CHECK(absl::StrContains(shown, "1 GiB"));
    CHECK(absl::StrContains(shown, "bandwidth"));
    CHECK(absl::StrContains(shown, fit->accepted ? "kept:" : "not kept:"));
  }
}

TEST_CASE("nccl-tests fit: a fit no better than the device is not kept") {
  // A device already fitted to the log, fitted to it again: the same figures, nothing to gain,
  // so the fit is not kept (as the median error stayed 15.4% -> 15.4% and a device was written
  // before).
  const DeviceSpec base = four_nic_a100();
  absl::StatusOr<std::vector<NcclTestsRun>> runs =
      parse_nccl_tests(all_reduce_log(50e-6), "ar.log");
  REQUIRE_OK(runs);
  absl::StatusOr<NcclTestsFit> first = fit_nccl_tests(*runs, base, "");
  REQUIRE_OK(first);
  REQUIRE(first->accepted);
  // Fitted again from the fitted device: the same figures, no lower error.
  absl::StatusOr<NcclTestsFit> again = fit_nccl_tests(*runs, first->device, "");
  REQUIRE_OK(again);
  CHECK(again->after == Approx(first->after).epsilon(0.001));
  CHECK(again->latency_after_s == Approx(first->latency_after_s).margin(1e-8));
  CHECK_FALSE(again->accepted);
  CHECK(absl::StrContains(render_nccl_tests_fit(*again), "not kept: the median error does not "
                                                         "fall"));
}

TEST_CASE("nccl-tests fit: the GPU the ranks name") {
  CHECK(nccl_tests_gpu("#  Rank  0 Group  0 Pid  1 on a device  0 [0x07] NVIDIA H100 80GB HBM3\n"
                       "#  Rank  1 Group  0 Pid  2 on b device  0 [0x07] NVIDIA H100 80GB HBM3\n") ==
        "NVIDIA H100 80GB HBM3");
  // Older versions: no Group.
  CHECK(nccl_tests_gpu("#   Rank  0 Pid  1 on a device  0 [0x07] Tesla V100-SXM2-32GB\n") ==
        "Tesla V100-SXM2-32GB");
  CHECK(nccl_tests_gpu("#  Rank  0 Group  0 Pid  1 on a device  0 [0x07] NVIDIA A100-SXM4-80GB\n"
                       "#  Rank  1 Group  0 Pid  2 on b device  0 [0x07] NVIDIA H100 80GB HBM3\n") ==
        "NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3");
  CHECK(nccl_tests_gpu("# Using devices\n#  size count\n").empty());
}

}  // namespace
}  // namespace hloroof
