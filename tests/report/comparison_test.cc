// One module on several devices, side by side with ratios to the first.
#include <catch2/catch.hpp>
#include <optional>

#include "absl/strings/str_split.h"
#include "hloroof/report.h"
#include "sample_prediction.h"

namespace hloroof {
namespace {

using testing::sample_prediction;

// The sample on a device twice as fast at everything but the all-gather.
Prediction twice_as_fast() {
  Prediction p = sample_prediction();
  p.device = "tpu_v5p";
  p.topology = "2x2x1";
  p.step_time_s /= 2;
  p.breakdown.compute_s /= 2;
  p.breakdown.memory_s /= 2;
  p.breakdown.collective_exposed_s /= 2;
  p.breakdown.overhead_s /= 2;
  for (OpPrediction& op : p.ops) {
    if (op.collective) continue;
    op.time_s /= 2;
  }
  p.peak_flop_rate = 4.59e14;
  p.hfu = p.flops / (p.step_time_s * p.peak_flop_rate);
  return p;
}

std::vector<std::string> lines(const std::string& text) { return absl::StrSplit(text, '\n'); }

std::string line_with(const std::string& text, const std::string& part) {
  for (const std::string& line : lines(text)) {
    if (line.find(part) != std::string::npos) return line;
  }
  return "";
}

TEST_CASE("comparison puts devices side by side with ratios to the first") {
  std::vector<Prediction> ps = {sample_prediction(), twice_as_fast()};
  std::string out = render_comparison(ps);
  // Both samples are lower bounds (unknown ops): each step is marked, and the mark explained.
  CHECK_THAT(line_with(out, "step time"),
             Catch::Contains("12 ms*") && Catch::Contains("6 ms* (0.50x)"));
  CHECK_THAT(out, Catch::Contains("* a lower bound on tpu_v5e:2x2:"));
  CHECK_THAT(out, Catch::Contains("tpu_v5e:2x2") && Catch::Contains("tpu_v5p:2x2x1"));
  CHECK_THAT(line_with(out, "  compute"), Catch::Contains("2 ms (0.50x)"));
  // MFU 7.9004e11 / (6.001 ms x 4.59e14) = 28.7%; the v5e's 33.4%.
  CHECK_THAT(line_with(out, "HFU"), Catch::Contains("33.4%") && Catch::Contains("28.7%"));
  CHECK_THAT(line_with(out, "peak FLOP/s"), Catch::Contains("459 TFLOP/s bf16"));
}

TEST_CASE("comparison shows whether each fits, and what each device's figures rest on") {
  std::vector<Prediction> ps = {sample_prediction(), twice_as_fast()};
  ps[1].diagnostics.warnings = {"no --device given: a guess"};
  // 10 GiB of 16 GiB fits; 20 GiB of 16 GiB does not.
  CapacityCheck fits{.device = "tpu_v5e", .capacity_bytes = int64_t{16} << 30,
                     .checked_bytes = int64_t{10} << 30, .fits = true};
  CapacityCheck short_of{.device = "tpu_v5p", .capacity_bytes = int64_t{16} << 30,
                         .checked_bytes = int64_t{20} << 30, .fits = false};
  const std::vector<std::optional<CapacityCheck>> memory = {fits, short_of};
  std::string out = render_comparison(ps, 3, memory);
  // 10 / 16 = 62.5%, 20 / 16 = 125%.
  CHECK_THAT(line_with(out, "memory, share of HBM"),
             Catch::Contains("fits, 62.5%") && Catch::Contains("NO FIT, 125.0%"));
  CHECK_THAT(out, Catch::Contains("What the figures rest on, per device:"));
  CHECK_THAT(out, Catch::Contains("  - topology 2x2 inferred from num_partitions=4"));
  CHECK_THAT(out, Catch::Contains("  warning: no --device given: a guess"));
  // Without checks, no memory row.
  CHECK(line_with(render_comparison(ps, 3), "memory, share of HBM").empty());
}

TEST_CASE("each device lists its top ops, what bounds them, and the ratio to the first") {
  std::vector<Prediction> ps = {sample_prediction(), twice_as_fast()};
  std::string out = render_comparison(ps, 3);
  CHECK_THAT(out, Catch::Contains("Top 3 ops on tpu_v5e:2x2"));
  CHECK_THAT(out, Catch::Contains("Top 3 ops on tpu_v5p:2x2x1"));
  const std::string v5p = out.substr(out.find("Top 3 ops on tpu_v5p"));
  CHECK_THAT(v5p, Catch::Contains("vs tpu_v5e:2x2"));
  // fusion.add: 2.5 ms of a 6.001 ms step = 41.7%, half its 5 ms on the v5e.
  CHECK_THAT(line_with(v5p, "fusion.add"),
             Catch::Contains("41.7%") && Catch::Contains("2.5 ms") && Catch::Contains("memory") &&
                 Catch::Contains("0.50x"));
  CHECK_THAT(line_with(v5p, "convolution.1"), Catch::Contains("compute"));
  CHECK_THAT(v5p, !Catch::Contains("copy.3"));  // not in the top 3
  const std::string v5e = out.substr(0, out.find("Top 3 ops on tpu_v5p"));
  CHECK_THAT(line_with(v5e, "# "), !Catch::Contains("vs "));
}

TEST_CASE("three devices fit 100 columns") {
  Prediction h100 = twice_as_fast();
  h100.device = "h100";
  h100.topology = "1x4";
  std::vector<Prediction> ps = {sample_prediction(), twice_as_fast(), h100};
  for (const std::string& line : lines(render_comparison(ps))) {
    INFO(line);
    CHECK(line.size() <= 100);
  }
  CHECK(render_comparison({}) == "(no devices)\n");
}

}  // namespace
}  // namespace hloroof
