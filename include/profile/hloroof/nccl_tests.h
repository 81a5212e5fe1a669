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

// How one collective of a test is predicted before and after the fit.
struct NcclTestsPoint {
  std::string test;  // NcclTestsRun::origin
  double size_bytes = 0;
  double measured_s = 0, before_s = 0, after_s = 0;
};

struct NcclTestsFit {
  double before = 0;  // the device's nic_efficiency (its own, else the published default)
  double after = 0;   // the fitted one
  std::vector<NcclTestsPoint> points;  // the rows across nodes, every test
  DeviceSpec device;                   // the device with the fitted figure
  std::string json;                    // the same as a device JSON file
};

// Fits `base`'s interconnect.nic_efficiency to the rows of `runs` whose ranks span nodes: each
// row predicted as one collective of its size on `base` with the run's nodes and ranks per node
// (topology NODESxRANKS_PER_NODE), the figure the one minimising the sum of squared
// log(expected / measured) (a golden-section search on its log). Errors: a GPU device is
// needed, no run spans nodes, ranks per node beyond the device's NVLink domain.
absl::StatusOr<NcclTestsFit> fit_nccl_tests(absl::Span<const NcclTestsRun> runs,
                                            const DeviceSpec& base, std::string_view name);

// The fit as text: per test, the median |expected / measured - 1| before and after, and the
// figure.
std::string render_nccl_tests_fit(const NcclTestsFit& fit);

}  // namespace hloroof

#endif  // HLOROOF_NCCL_TESTS_H_
