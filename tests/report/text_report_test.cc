// The text report: a summary and aligned op-stats tables that fit a 100-column terminal
// (figures derived in sample_prediction.h).
#include <algorithm>
#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hloroof/report.h"
#include "sample_prediction.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::sample_prediction;

std::vector<std::string> lines_of(const std::string& text) { return absl::StrSplit(text, '\n'); }

void check_fits(const std::string& text, size_t width = 100) {
  for (const std::string& line : lines_of(text)) {
    INFO(line);
    CHECK(line.size() <= width);
    CHECK((line.empty() || line.back() != ' '));
  }
}

// The line after `header_start` (and its rule) that contains `cell`.
std::string row_with(const std::string& text, const std::string& cell) {
  for (const std::string& line : lines_of(text)) {
    if (line.find(cell) != std::string::npos) return line;
  }
  return "";
}

// Columns are right-aligned: a value ends where its header ends.
void check_aligned(const std::string& text, const std::string& header_line_part,
                   const std::string& header, const std::string& row_part,
                   const std::string& value) {
  const std::string head = row_with(text, header_line_part), row = row_with(text, row_part);
  REQUIRE(head.find(header) != std::string::npos);
  REQUIRE(row.find(value) != std::string::npos);
  CHECK(head.find(header) + header.size() == row.find(value) + value.size());
}

TEST_CASE("overview gives the step, its breakdown, MFU and bandwidth used") {
  std::string s = render_overview(sample_prediction(), *device("tpu_v5e"));
  CHECK_THAT(s, Catch::Contains("Google TPU v5e (tpu_v5e:2x2)"));
  CHECK_THAT(row_with(s, "step time"), Catch::Contains("12 ms") && Catch::Contains("lower bound"));
  CHECK_THAT(row_with(s, "compute"), Catch::Contains("4 ms") && Catch::Contains("33.3%"));
  CHECK_THAT(row_with(s, "memory"), Catch::Contains("7.5 ms") && Catch::Contains("62.5%"));
  CHECK_THAT(row_with(s, "exposed"), Catch::Contains("500 us") && Catch::Contains("4.2%"));
  CHECK_THAT(row_with(s, "hidden"), Catch::Contains("1.5 ms"));
  // MFU 7.9004e11 FLOP / (12.002 ms x 1.97e14 FLOP/s) = 33.4%; 7.9004e11 / 12.002 ms =
  // 65.8 TFLOP/s.
  CHECK_THAT(row_with(s, "HFU"), Catch::Contains("33.4%") && Catch::Contains("65.8 TFLOP/s") &&
                                     Catch::Contains("197 TFLOP/s bf16"));
  // 6.962319e9 B / 12.002 ms = 580 GB/s = 70.8% of 819 GB/s.
  CHECK_THAT(row_with(s, "HBM bandwidth used"), Catch::Contains("70.8%") &&
                                                    Catch::Contains("580 GB/s") &&
                                                    Catch::Contains("819 GB/s"));
  CHECK_THAT(s, Catch::Contains("Unknown work (1 ops not costed") &&
                    Catch::Contains("custom-call.9"));
  CHECK_THAT(s, Catch::Contains("  - topology 2x2 inferred"));
}

TEST_CASE("op stats print aligned time and roofline tables") {
  auto report = render_text_report(sample_prediction(), *device("tpu_v5e"));
  REQUIRE_OK(report);
  const std::string& r = *report;
  check_fits(r);
  CHECK_THAT(r, Catch::Contains("HLO op stats by op: 7 ops"));
  const std::string add = row_with(r, "loop fusion");
  CHECK_THAT(add, Catch::Contains("fusion.add") && Catch::Contains("5 ms") &&
                      Catch::Contains("1.25 ms") && Catch::Contains("41.7%"));
  check_aligned(r, "cum %", "% step", "loop fusion", "41.7%");
  check_aligned(r, "cum %", "total", "loop fusion", "5 ms");
  // Roofline row: 4e8 FLOP / 5 ms = 80 GFLOP/s; 3.276e9 B / 5 ms = 655 GB/s; 0.122 FLOP/B;
  // 1 ms of roofline time per 1.25 ms.
  const std::string rates = row_with(r, "GFLOP/s");
  CHECK_THAT(rates, Catch::Contains("fusion.add") && Catch::Contains("80 GFLOP/s") &&
                        Catch::Contains("655 GB/s") && Catch::Contains("0.122") &&
                        Catch::Contains("memory") && Catch::Contains("80.0%"));
  check_aligned(r, "roofline eff.", "roofline eff.", "80 GFLOP/s", "80.0%");
  // The start runs 1.5 ms hidden, none of it in the step; its done waits 0.5 ms: 4.2%.
  CHECK_THAT(row_with(r, "all-gather-start.1"),
             Catch::Contains("1.5 ms") && Catch::Contains("0.0%"));
  CHECK_THAT(row_with(r, "all-gather-done.1"),
             Catch::Contains("500 us") && Catch::Contains("4.2%"));
  // The roofline the efficiencies are measured against, word-wrapped.
  std::string flat = r;
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  CHECK_THAT(flat, Catch::Contains("max(matrix FLOPs / 197 TFLOP/s bf16, other FLOPs / 6 "
                                   "TFLOP/s vector, HBM bytes / 819 GB/s)"));
}

TEST_CASE("collectives list group size, payload, and what the step waits for") {
  auto r = render_collectives(sample_prediction());
  REQUIRE_OK(r);
  check_fits(*r);
  // 3.2e7 B = 30.5 MiB over 4 devices; 2 ms, of which 0.5 exposed and 1.5 hidden.
  CHECK_THAT(row_with(*r, "all-gather-start.1"),
             Catch::Contains("all-gather") && Catch::Contains(" 4 ") &&
                 Catch::Contains("30.5 MiB") && Catch::Contains("2 ms") &&
                 Catch::Contains("500 us") && Catch::Contains("1.5 ms"));
  CHECK(row_with(*r, "all-gather-done.1").empty());  // the pair is one collective
  auto report = render_text_report(sample_prediction(), *device("tpu_v5e"));
  CHECK_THAT(*report, Catch::Contains("Collectives: 1, ranked"));
  CHECK(render_collectives(sample_prediction(), {.filter = "fusion"})->empty());
}

TEST_CASE("grouped tables name their groups") {
  const DeviceSpec v5e = *device("tpu_v5e");
  auto by_category = render_text_report(sample_prediction(), v5e, {.by = OpGrouping::kCategory});
  REQUIRE_OK(by_category);
  check_fits(*by_category);
  CHECK_THAT(*by_category, Catch::Contains("HLO op stats by category: 5 categories"));
  const std::string roofline = by_category->substr(by_category->find("Roofline"));
  CHECK_THAT(row_with(roofline, "data formatting"), Catch::Contains("overhead"));

  auto by_scope =
      render_text_report(sample_prediction(), v5e, {.by = OpGrouping::kScope, .top = 1});
  REQUIRE_OK(by_scope);
  check_fits(*by_scope);
  CHECK_THAT(*by_scope, Catch::Contains("top 1 of 4 scopes"));
  CHECK_THAT(*by_scope, Catch::Contains("jit(train_step)/layer_0/mlp"));

  auto filtered = render_text_report(sample_prediction(), v5e, {.filter = "tanh"});
  CHECK_THAT(*filtered, Catch::Contains("by op: 1 op, ranked") &&
                            Catch::Contains("of the ops matching 'tanh' (7 ops in all)"));
  CHECK_FALSE(render_text_report(sample_prediction(), v5e, {.filter = "["}).ok());
}

TEST_CASE("long names are cut so that every line fits 100 columns") {
  Prediction p = sample_prediction();
  const auto texts = std::make_shared<TextPool>();
  for (OpPrediction& op : p.ops) {
    OpTexts t = op.all_texts();
    const std::string name =
        absl::StrCat("loop_multiply_add_subtract_convert_broadcast_fusion.", std::string(t.name));
    const std::string op_name = absl::StrCat(
        "jit(train_step)/jit(main)/transpose(jvp(transformer))/while/body/"
        "checkpoint/remat/layer/attention/",
        std::string(t.op_name));
    t.name = name;
    t.category = "a category name far longer than any XProf uses";
    t.op_name = op_name;
    op.set_texts(texts, t);
  }
  p.unknown_ops.assign(40, "custom-call.123456");
  p.peak_flop_rate_type = "bf16 with a name long enough to push the MFU line past 100";
  p.diagnostics.notes.push_back(std::string(30, 'x') + " " + std::string(150, 'y') + " and more " +
                          "words that run past the end of one line of a terminal and wrap");
  const DeviceSpec v5e = *device("tpu_v5e");
  for (OpGrouping by : {OpGrouping::kOp, OpGrouping::kCategory, OpGrouping::kScope}) {
    auto r = render_text_report(p, v5e, {.by = by});
    REQUIRE_OK(r);
    INFO(*r);
    for (const std::string& line : lines_of(*r)) {
      // One unbreakable 150-character word is the only thing allowed past the width.
      if (line.find("yyyy") == std::string::npos) CHECK(line.size() <= 100);
    }
  }
  auto scopes = render_text_report(p, v5e, {.by = OpGrouping::kScope});
  CHECK_THAT(*scopes, Catch::Contains("~"));             // cut at the start
  CHECK_THAT(*scopes, Catch::Contains("/layer_0/mlp"));  // the tail stays
  CHECK_THAT(*scopes, Catch::Contains("and 30 more"));   // 40 unknown ops, 10 named
}

}  // namespace
}  // namespace hloroof
