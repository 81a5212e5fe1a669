// nccl-tests logs (NVIDIA/nccl-tests: all_reduce_perf, all_gather_perf, reduce_scatter_perf,
// alltoall_perf) read, and a device's network across nodes fitted to them: the share of its
// NICs' line rate NCCL reaches, interconnect.nic_efficiency (docs/prediction-model.md,
// "Across nodes").
#ifndef HLOROOF_NCCL_TESTS_H_
#define HLOROOF_NCCL_TESTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/collective_kind.h"
#include "hloroof/device.h"

namespace hloroof {

// One size of a test: its out-of-place columns.
struct NcclTestsRow {
  double size_bytes = 0;       // the `size` column: all-reduce its buffer, all-gather its
                               // output, reduce-scatter its input, all-to-all one rank's buffer
  double time_s = 0;           // one collective
  double bus_bytes_per_s = 0;  // the `busbw` column (nccl-tests' doc/PERFORMANCE.md)
};

// One test of a log.
struct NcclTestsRun {
  std::string origin;  // the file, and the test's name in it ("all_reduce_perf")
  CollectiveKind kind = CollectiveKind::kAllReduce;
  int64_t ranks = 0;  // GPUs: the log's "Rank" lines
  int64_t nodes = 0;  // the hosts they ran on
  std::vector<NcclTestsRow> rows;
};

// The largest size (the `size` column, bytes) read from a log: 2^50 B = 1 PiB, far past any
// collective a cluster runs, and within what an HLO shape and the models count exactly.
inline constexpr int64_t kMaxNcclTestsBytes = int64_t{1} << 50;

// Whether `text` looks like an nccl-tests log: the column header of its results, anywhere in it.
bool looks_like_nccl_tests(std::string_view text);

// The tests of one log. Each begins at its "# Collective test starting: NAME" line (nccl-tests
// 2.17 on); a log without one holds one test, named by `origin`'s file name (all_reduce_perf.log,
// alltoall.txt). Ranks and hosts come from its "#  Rank N ... on HOST device ..." lines.
// Errors: no result rows, a test that is not one of the four, no rank lines (how many nodes the
// run spanned cannot be told), hosts of unequal rank counts, a column header without `time`, a
// size past kMaxNcclTestsBytes, a row whose busbw contradicts its size and time (nccl-tests'
// busbw = size / time x 2(n-1)/n for all-reduce, (n-1)/n for the others, n ranks; each column
// read to the precision it is printed with, and 1% besides).
absl::StatusOr<std::vector<NcclTestsRun>> parse_nccl_tests(std::string_view text,
                                                           std::string_view origin);

// The GPU a log's ranks ran on, as its "#  Rank N ... device D [BUS] NAME" lines name it
// ("NVIDIA A100-SXM4-80GB"); empty when no rank line names one, "mixed" joined names
// ("NVIDIA A100-SXM4-80GB, NVIDIA H100 80GB HBM3") when the ranks name several.
std::string nccl_tests_gpu(std::string_view text);

// Which figure a size of a test was fitted to: the sizes whose predicted time moves with
// nic_efficiency nearly in full (95% or more of it) fit it, those that hardly move (5% or
// less) the latency; the others fit neither.
enum class NcclTestsRole { kNone, kLatency, kBandwidth };

// How one collective of a test is predicted before and after the fit.
struct NcclTestsPoint {
  std::string test;  // NcclTestsRun::origin
  double size_bytes = 0;
  double measured_s = 0, before_s = 0, after_s = 0;
  NcclTestsRole role = NcclTestsRole::kNone;
};

struct NcclTestsFit {
  double before = 0;  // the device's nic_efficiency (its own, else the published default)
  double after = 0;   // the fitted one (the device's own when no size is bandwidth-bound)
  // interconnect.scale_out_latency, s: the device's own (else 0) and the fitted one.
  double latency_before_s = 0, latency_after_s = 0;
  bool efficiency_fitted = false, latency_fitted = false;
  // The median over every size of |expected / measured - 1|, given device and fit.
  double error_before = 0, error_after = 0;
  // Whether the fit predicts the logs better than the given device (its median error lower by
  // 0.1 of a percentage point or more): only then is it worth writing.
  bool accepted = false;
  std::vector<std::string> warnings;   // a figure at its bound, nothing to fit it to
  std::vector<NcclTestsPoint> points;  // the rows across nodes, every test
  DeviceSpec device;                   // the device with the fitted figures
  std::string json;                    // the same as a device JSON file
};

// Fits `base`'s network across nodes to the rows of `runs` whose ranks span nodes: each row
// predicted as one collective of its size on `base` with the run's nodes and ranks per node
// (topology NODESxRANKS_PER_NODE). Two figures, each from the sizes it bounds:
// interconnect.nic_efficiency from the bandwidth-bound sizes (the one minimising their sum of
// squared log(expected / measured), golden sections on its log from 0.01 to 1), and
// interconnect.scale_out_latency, the latency added to NCCL's own latency model, from the
// latency-bound ones (the median of measured - expected, at least 0); twice, as each size's role
// follows the figures. Errors: a GPU device is needed, no run spans nodes, ranks per node beyond
// the device's NVLink domain.
absl::StatusOr<NcclTestsFit> fit_nccl_tests(absl::Span<const NcclTestsRun> runs,
                                            const DeviceSpec& base, std::string_view name);

// The fit as text: per test, each size measured and expected before and after, and the figure
// it fitted; the median |expected / measured - 1| per test before and after; the figures; and
// whether the fit is kept.
std::string render_nccl_tests_fit(const NcclTestsFit& fit);

}  // namespace hloroof

#endif  // HLOROOF_NCCL_TESTS_H_
