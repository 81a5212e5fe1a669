// nccl-tests logs read (NVIDIA/nccl-tests' output format) and a cluster's nic_efficiency fitted
// to them.
#include "hloroof/nccl_tests.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// The head of a log of nccl-tests 2.17 over 2 hosts of `per_host` GPUs: its version, test and
// rank lines, then the column header.
std::string log_head(std::string_view test, int per_host, bool marker = true) {
  std::string text;
  if (marker) {
    absl::StrAppend(&text, "# nccl-tests version 2.17.6 nccl-headers=22501 nccl-library=22501\n",
                    "# Collective test starting: ", std::string(test), "\n");
  }
  absl::StrAppend(&text,
                  "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup "
                  "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n");
  for (int r = 0; r < 2 * per_host; ++r) {
    absl::StrAppendFormat(&text,
                          "#  Rank %2d Group  0 Pid %6d on node-%s device %2d [0000:04:00] "
                          "NVIDIA A100-SXM4-80GB\n",
                          r, 1000 + r, r < per_host ? "a" : "b", r % per_host);
  }
  absl::StrAppend(
      &text,
      "#\n#                                                              out-of-place          "
      "             in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong   "
      "  time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)          "
      "  (us)  (GB/s)  (GB/s)\n");
  return text;
}

TEST_CASE("nccl-tests: a log's tests, ranks, hosts and out-of-place rows") {
  const std::string text =
      log_head("all_reduce_perf", 8) +
      "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    "
      "207.2    5.06    9.49      0\n"
      "  1073741824     268435456     float     sum      -1   6759.0  158.86  297.86      0   "
      "6737.4  159.37  298.82      0\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 153.8\n";
  CHECK(looks_like_nccl_tests(text));
  CHECK_FALSE(looks_like_nccl_tests("HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }\n"));
  absl::StatusOr<std::vector<NcclTestsRun>> runs = parse_nccl_tests(text, "ar.log");
  REQUIRE_OK(runs);
  REQUIRE(runs->size() == 1);
  const NcclTestsRun& r = runs->front();
  CHECK(r.kind == CollectiveKind::kAllReduce);
  CHECK(r.ranks == 16);
  CHECK(r.nodes == 2);
  REQUIRE(r.rows.size() == 2);
  // The out-of-place columns: 6759.0 us, 297.86 GB/s.
  CHECK(r.rows[1].size_bytes == 1073741824.0);
  CHECK(r.rows[1].time_s == Approx(6759.0e-6));
  CHECK(r.rows[1].bus_bytes_per_s == Approx(297.86e9));
}

TEST_CASE("nccl-tests: a log without its test line is named by its file") {
  // Versions before 2.17 print no "Collective test starting" line; older all_gather_perf no
  // redop or root columns, and "error" for "#wrong".
  std::string text = log_head("", 4, /*marker=*/false);
  const size_t header = text.find("#       size");
  text.erase(header);
  absl::StrAppend(&text,
                  "#       size         count      type     time   algbw   busbw  error     "
                  "time   algbw   busbw  error\n"
                  "    33554432       8388608     float    950.1   35.32   30.90  0e+00    "
                  "951.3   35.27   30.86  0e+00\n");
  absl::StatusOr<std::vector<NcclTestsRun>> named =
      parse_nccl_tests(text, "logs/all_gather_perf.txt");
  REQUIRE_OK(named);
  CHECK(named->front().kind == CollectiveKind::kAllGather);
  CHECK(named->front().ranks == 8);
  CHECK(named->front().rows.front().time_s == Approx(950.1e-6));
  absl::StatusOr<std::vector<NcclTestsRun>> unnamed = parse_nccl_tests(text, "run.log");
  REQUIRE_FALSE(unnamed.ok());
  CHECK(unnamed.status().message().find("rename it") != std::string::npos);
}

TEST_CASE("nccl-tests: errors a person can act on") {
  // No rank lines: the nodes cannot be told.
  std::string text = log_head("alltoall_perf", 8);
  const size_t first = text.find("#  Rank");
  text.erase(first, text.find("#\n#  ") - first);
  absl::StrAppend(&text, "     1048576        262144     float    none      -1    203.2    5.16 "
                         "   4.84      0    207.2    5.06    4.74      0\n");
  absl::StatusOr<std::vector<NcclTestsRun>> runs = parse_nccl_tests(text, "a2a.log");
  REQUIRE_FALSE(runs.ok());
  CHECK(runs.status().message().find("Using devices") != std::string::npos);
  // No result rows.
  CHECK_FALSE(parse_nccl_tests(log_head("alltoall_perf", 8), "a2a.log").ok());
  CHECK_FALSE(parse_nccl_tests("", "empty.log").ok());
}

TEST_CASE("nccl-tests: a header without 'time', a size past 1 PiB, a row contradicting itself") {
  // A header naming busbw but no time column: refused at its line (it was read at column -1,
  // past the row's words).
  std::string text = log_head("all_reduce_perf", 8);
  const size_t header = text.find("#       size");
  text.erase(header);
  absl::StrAppend(&text, "#  size  count  type  redop  algbw  busbw\n",
                  "  1048576  262144  float  sum  5.16  9.68\n");
  absl::StatusOr<std::vector<NcclTestsRun>> no_time = parse_nccl_tests(text, "ar.log");
  REQUIRE_FALSE(no_time.ok());
  CHECK(no_time.status().message() ==
        "ar.log, line 24: the column header has no 'time' column, so no row can be read; "
        "nccl-tests prints '#  size  count  type ... time  algbw  busbw ...'");
  // A size past 2^63 (and any past 2^50 B = 1 PiB) is an error, not a module of 2^62 floats.
  const std::string huge =
      log_head("all_reduce_perf", 8) +
      "  18446744073709551616  4611686018427387904  float  sum  -1  6759.0  158.86  297.86  0  "
      "6737.4  159.37  298.82  0\n";
  absl::StatusOr<std::vector<NcclTestsRun>> too_big = parse_nccl_tests(huge, "ar.log");
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.status().message().find("line 26: a size of 18446744073709551616 B, past the "
                                        "largest") != std::string::npos);
  // 2^50 B itself is read.
  const double pib = 1125899906842624.0;  // 2^50; in 6759 s: 166.58 GB/s, x 2 x 15/16 = 312.3
  const std::string at_limit = log_head("all_reduce_perf", 8) +
                               "  1125899906842624  281474976710656  float  sum  -1  6759000000 "
                               " 166.58  312.34  0  6759000000  166.58  312.34  0\n";
  absl::StatusOr<std::vector<NcclTestsRun>> limit = parse_nccl_tests(at_limit, "ar.log");
  REQUIRE_OK(limit);
  CHECK(limit->front().rows.front().size_bytes == pib);
  // One row's time cut to 1 us while its busbw stays: 1 GiB in 1 us over 16 ranks is
  // 1073741824 / 1e3 x 2 x 15/16 = 2.013e6 GB/s against the 297.86 printed. Refused at its line.
  const std::string edited =
      log_head("all_reduce_perf", 8) +
      "     1048576        262144     float     sum      -1    203.2    5.16    9.68      0    "
      "207.2    5.06    9.49      0\n"
      "  1073741824     268435456     float     sum      -1      1.0  158.86  297.86      0   "
      "6737.4  159.37  298.82      0\n";
  absl::StatusOr<std::vector<NcclTestsRun>> contradicts = parse_nccl_tests(edited, "ar.log");
  REQUIRE_FALSE(contradicts.ok());
  CHECK(contradicts.status().message() ==
        "ar.log (all_reduce_perf), line 27: the row contradicts itself: 1073741824 B in 1 us "
        "over 16 ranks is a bus bandwidth of 2.013e+06 GB/s, but its busbw column says 297.86 "
        "GB/s; correct the row or delete it");
}

TEST_CASE("nccl-tests: a log of 712 GPUs is found by its header past 64 KiB of rank lines") {
  // 89 nodes of 8 GPUs: 712 rank lines of 97 bytes, 69 KB before the header.
  std::string text = "# nccl-tests version 2.17.6 nccl-headers=22501 nccl-library=22501\n"
                     "# Collective test starting: all_reduce_perf\n#\n# Using devices\n";
  for (int r = 0; r < 712; ++r) {
    absl::StrAppendFormat(
        &text,
        "#  Rank %3d Group  0 Pid %6d on node-%03d.cluster device %2d [0000:04:00] "
        "NVIDIA A100-SXM4-80GB\n",
        r, 1000 + r, r / 8, r % 8);
  }
  REQUIRE(text.size() > 65536);
  // 1 GiB in 6759 us: 158.86 GB/s, x 2 x 711/712 = 317.27 GB/s.
  absl::StrAppend(
      &text,
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n",
      "  1073741824     268435456     float     sum      -1   6759.0  158.86  317.27      0\n");
  CHECK(looks_like_nccl_tests(text));
  absl::StatusOr<std::vector<NcclTestsRun>> runs = parse_nccl_tests(text, "big.log");
  REQUIRE_OK(runs);
  CHECK(runs->front().ranks == 712);
  CHECK(runs->front().nodes == 89);
  // The word alone is not a header.
  CHECK_FALSE(looks_like_nccl_tests(std::string(70000, 'x') + " busbw\n# size busbw\n"));
}

// One all-to-all of `bytes` per GPU over 2 nodes of 8 A100s, predicted with nic_efficiency `e`.
double all_to_all_s(double bytes, double e) {
  const int64_t elements = static_cast<int64_t>(bytes / 4);
  const std::string hlo = absl::StrFormat(
      "HloModule m, num_partitions=16\n\nENTRY e {\n  p = f32[%d] parameter(0)\n  ROOT c = "
      "f32[%d] all-to-all(p), channel_id=1, replica_groups={{0,1,2,3,4,5,6,7,8,9,10,11,12,13,"
      "14,15}}, dimensions={0}\n}\n",
      elements, elements);
  absl::StatusOr<Module> m = parse_module(hlo);
  REQUIRE_OK(m);
  absl::StatusOr<DeviceSpec> d = device("a100");
  REQUIRE_OK(d);
  d->gpu->nic_efficiency = e;
  absl::StatusOr<DeviceTarget> on = testing::spec_on(*d, "2x8");
  REQUIRE_OK(on);
  absl::StatusOr<Prediction> p = testing::predict_on(*m, *on);
  REQUIRE_OK(p);
  return p->step_time_s;
}

TEST_CASE("nccl-tests: nic_efficiency fitted to all-to-alls across two nodes") {
  // Measurements made by the model itself at a share of 0.43 of line rate: the fit finds it
  // again, and a second, single-node log adds nothing (nothing of it crosses nodes).
  constexpr double kShare = 0.43;
  std::string text = log_head("alltoall_perf", 8);
  for (double bytes : {16777216.0, 67108864.0, 268435456.0, 1073741824.0}) {
    const double t = all_to_all_s(bytes, kShare);
    absl::StrAppendFormat(&text, "%12.0f  %12.0f     float    none      -1  %7.1f  %6.2f  %6.2f"
                                 "      0  %7.1f  %6.2f  %6.2f      0\n",
                          bytes, bytes / 4, t * 1e6, bytes / t / 1e9, bytes / t / 1e9 * 15 / 16,
                          t * 1e6, bytes / t / 1e9, bytes / t / 1e9 * 15 / 16);
  }
  absl::StatusOr<std::vector<NcclTestsRun>> runs = parse_nccl_tests(text, "a2a.log");
  REQUIRE_OK(runs);
  absl::StatusOr<DeviceSpec> a100 = device("a100");
  REQUIRE_OK(a100);
  absl::StatusOr<NcclTestsFit> fit = fit_nccl_tests(*runs, *a100, "my_cluster");
  REQUIRE_OK(fit);
  CHECK(fit->before == 0.86);  // the published share, a100 setting none
  // The times are printed to 0.1 us (the log's precision), so the share within 0.2%.
  CHECK(fit->after == Approx(kShare).epsilon(0.002));
  REQUIRE(fit->points.size() == 4);
  for (const NcclTestsPoint& p : fit->points) {
    CHECK(p.after_s == Approx(p.measured_s).epsilon(0.002));
    CHECK(p.before_s < p.measured_s);  // 0.86 of line rate is faster than 0.43
  }
  // The device file reads back with the figure, named as asked, keeping a100's tables.
  REQUIRE(fit->device.gpu->nic_efficiency);
  CHECK(*fit->device.gpu->nic_efficiency == Approx(kShare).epsilon(0.002));
  CHECK(fit->device.name == "my_cluster");
  CHECK(fit->device.base == "a100");
  const std::string shown = render_nccl_tests_fit(*fit);
  CHECK(shown.find("interconnect.nic_efficiency: 0.860 -> 0.430") != std::string::npos);
  // A single node: nothing to fit.
  std::string one = log_head("alltoall_perf", 8);
  for (size_t at = one.find("node-b"); at != std::string::npos; at = one.find("node-b")) {
    one.replace(at, 6, "node-a");
  }
  absl::StrAppend(&one, "    16777216       4194304     float    none      -1    500.0   33.55 "
                        "  31.46      0    500.0   33.55   31.46      0\n");
  absl::StatusOr<std::vector<NcclTestsRun>> single = parse_nccl_tests(one, "one.log");
  REQUIRE_OK(single);
  CHECK(single->front().nodes == 1);
  absl::StatusOr<NcclTestsFit> none = fit_nccl_tests(*single, *a100, "");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("spans nodes") != std::string::npos);
  // A TPU has no NICs to fit.
  absl::StatusOr<DeviceSpec> tpu = device("tpu_v5e");
  REQUIRE_OK(tpu);
  CHECK_FALSE(fit_nccl_tests(*runs, *tpu, "").ok());
}

}  // namespace
}  // namespace hloroof
