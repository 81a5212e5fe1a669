// Op stats rank, group and filter a prediction's ops with XProf's figures (sample_prediction.h
// has the numbers every expectation below is derived from).
#include <catch2/catch.hpp>

#include "hloroof/report.h"
#include "sample_prediction.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::sample_prediction;
using testing::set_text;

DeviceSpec v5e() { return *device("tpu_v5e"); }

const OpStatsRow& row_named(const OpStats& stats, const std::string& name) {
  for (const OpStatsRow& r : stats.rows) {
    if (r.name == name) return r;
  }
  FAIL("no row " << name);
  return stats.rows.front();
}

TEST_CASE("ops are ranked by their part of the step") {
  auto stats = op_stats(sample_prediction(), v5e());
  REQUIRE_OK(stats);
  std::vector<std::string> names;
  for (const OpStatsRow& r : stats->rows) names.push_back(r.name);
  // fusion.add 5 ms, convolution.1 4 ms, fusion.embed 1.5 ms, fusion.tanh 1 ms, the done's
  // 0.5 ms wait, copy.3 2 us; the start's stream work keeps the step waiting for nothing.
  CHECK(names == std::vector<std::string>{"fusion.add", "convolution.1", "fusion.embed",
                                          "fusion.tanh", "all-gather-done.1", "copy.3",
                                          "all-gather-start.1"});
  for (size_t i = 0; i < stats->rows.size(); ++i) CHECK(stats->rows[i].rank == int(i) + 1);
  // Every op's part adds up to the step: (5 + 4 + 1.5 + 1 + 0.5 + 0.002) / 12.002.
  CHECK(stats->rows.back().cumulative_share == Approx(1.0));
  CHECK(stats->matched == 7);
  CHECK(stats->total_ops == 7);
}

TEST_CASE("an op row has XProf's time and roofline figures") {
  auto stats = op_stats(sample_prediction(), v5e());
  REQUIRE_OK(stats);
  const OpStatsRow& add = row_named(*stats, "fusion.add");
  CHECK(add.category == "loop fusion");
  CHECK(add.op_name == "jit(train_step)/layer_0/mlp/add");
  CHECK(add.ops == 1);
  CHECK(add.occurrences == 4);
  CHECK(add.total_time_s == Approx(5e-3));  // 4 x 1.25 ms
  CHECK(add.avg_time_s == Approx(1.25e-3));
  CHECK(add.step_share == Approx(5 / 12.002));
  CHECK(add.cumulative_share == Approx(5 / 12.002));
  CHECK(add.flops == Approx(4e8));               // 4 x 1e8
  CHECK(add.flop_rate == Approx(8e10));          // 4e8 / 5 ms
  CHECK(add.hbm_bandwidth == Approx(6.552e11));  // 4 x 8.19e8 / 5 ms
  CHECK(add.intensity == Approx(1e8 / 8.19e8));  // 0.122 FLOP/B
  CHECK(add.bound == "memory");
  // Roofline time 8.19e8 B / 8.19e11 B/s = 1 ms of its 1.25 ms.
  REQUIRE(add.roofline_efficiency);
  CHECK(*add.roofline_efficiency == Approx(0.8));

  const OpStatsRow& conv = row_named(*stats, "convolution.1");
  CHECK(conv.bound == "compute");
  CHECK(conv.cumulative_share == Approx(9 / 12.002));
  CHECK(conv.intensity == Approx(1.97e11 / 4.095e8));  // 481 FLOP/B, past v5e's ridge of 240
  CHECK(*conv.roofline_efficiency == Approx(1.0));     // 1.97e11 / 1.97e14 = its 1 ms

  const OpStatsRow& embed = row_named(*stats, "fusion.embed");
  CHECK(*embed.roofline_efficiency == Approx(1.0));  // 1.2285e9 B / 8.19e11 B/s = 1.5 ms
  CHECK(embed.flop_rate == 0);
  CHECK(embed.intensity == 0);

  // The start's 2 ms run on a stream: 1.5 ms behind fusion.embed, 0.5 ms in its done's wait.
  const OpStatsRow& start = row_named(*stats, "all-gather-start.1");
  CHECK(start.total_time_s == Approx(1.5e-3));
  CHECK(start.step_time_s == 0);
  CHECK(start.bound == "collective");
  CHECK_FALSE(start.roofline_efficiency);
  const OpStatsRow& done = row_named(*stats, "all-gather-done.1");
  CHECK(done.total_time_s == Approx(0.5e-3));
  CHECK(done.step_time_s == Approx(0.5e-3));
  CHECK(done.bound == "collective");
  CHECK_FALSE(done.roofline_efficiency);

  const OpStatsRow& copy = row_named(*stats, "copy.3");
  CHECK(copy.bound == "overhead");
  CHECK(*copy.roofline_efficiency == Approx(0.5));  // 1 us of HBM time in 2 us
}

TEST_CASE("top keeps the leading rows and counts the rest") {
  auto stats = op_stats(sample_prediction(), v5e(), {.top = 2});
  REQUIRE_OK(stats);
  REQUIRE(stats->rows.size() == 2);
  CHECK(stats->rows[1].name == "convolution.1");
  CHECK(stats->matched == 7);
  auto all = op_stats(sample_prediction(), v5e(), {.top = 0});
  CHECK(all->rows.size() == 7);
}

TEST_CASE("filter matches op name, opcode or op_name") {
  auto by_op_name = op_stats(sample_prediction(), v5e(), {.filter = "mlp/"});
  REQUIRE_OK(by_op_name);
  REQUIRE(by_op_name->rows.size() == 2);
  CHECK(by_op_name->rows[0].name == "fusion.add");
  CHECK(by_op_name->rows[1].name == "fusion.tanh");
  CHECK(by_op_name->total_ops == 7);
  // Shares stay shares of the whole step.
  CHECK(by_op_name->rows[1].cumulative_share == Approx(6 / 12.002));

  auto by_opcode = op_stats(sample_prediction(), v5e(), {.filter = "^copy$"});
  REQUIRE(by_opcode->rows.size() == 1);  // "copy.3" itself does not match ^copy$
  CHECK(by_opcode->rows[0].name == "copy.3");

  auto by_name = op_stats(sample_prediction(), v5e(), {.filter = "start\\.1"});
  REQUIRE(by_name->rows.size() == 1);
  CHECK(by_name->rows[0].name == "all-gather-start.1");

  auto none = op_stats(sample_prediction(), v5e(), {.filter = "no-such-op"});
  REQUIRE_OK(none);
  CHECK(none->rows.empty());

  auto bad = op_stats(sample_prediction(), v5e(), {.filter = "fusion("});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("fusion("));
}

TEST_CASE("by category sums the ops of each category") {
  auto stats = op_stats(sample_prediction(), v5e(), {.by = OpGrouping::kCategory});
  REQUIRE_OK(stats);
  std::vector<std::string> names;
  for (const OpStatsRow& r : stats->rows) names.push_back(r.name);
  CHECK(names == std::vector<std::string>{"loop fusion", "convolution fusion", "input fusion",
                                          "all-gather", "data formatting"});
  const OpStatsRow& loop = stats->rows[0];
  CHECK(loop.ops == 2);
  CHECK(loop.occurrences == 8);
  CHECK(loop.total_time_s == Approx(6e-3));  // 5 + 1 ms
  CHECK(loop.avg_time_s == Approx(0.75e-3));
  // FLOPs 4 x (1e8 + 4.1e8); HBM bytes 4 x (8.19e8 + 2.0475e8).
  CHECK(loop.intensity == Approx(2.04e9 / 4.095e9));
  // Roofline times 4 x 1 ms + 4 x 0.25 ms over 6 ms.
  CHECK(*loop.roofline_efficiency == Approx(5.0 / 6));
  // The pair: 2 ms of network time, 0.5 ms of it in the step.
  const OpStatsRow& gather = stats->rows[3];
  CHECK(gather.ops == 2);
  CHECK(gather.total_time_s == Approx(2e-3));
  CHECK(gather.step_time_s == Approx(0.5e-3));
  CHECK(gather.bound == "collective");
}

TEST_CASE("by scope groups by the op_name hierarchy") {
  auto stats = op_stats(sample_prediction(), v5e(), {.by = OpGrouping::kScope});
  REQUIRE_OK(stats);
  REQUIRE(stats->rows.size() == 4);
  CHECK(stats->rows[0].name == "jit(train_step)/layer_0/mlp");  // 6 ms
  CHECK(stats->rows[0].ops == 2);
  // convolution 4 ms and the all-gather's 0.5 ms wait; of the 6 ms its ops run, 4 are bound
  // by the matrix unit.
  CHECK(stats->rows[1].name == "jit(train_step)/layer_0/attention");
  CHECK(stats->rows[1].step_time_s == Approx(4.5e-3));
  CHECK(stats->rows[1].total_time_s == Approx(6e-3));
  CHECK(stats->rows[1].bound == "compute");
  CHECK(stats->rows[1].category == "convolution fusion");
  CHECK(stats->rows[2].name == "jit(train_step)/embed");
  CHECK(stats->rows[3].name == "(no op_name)");

  auto shallow = op_stats(sample_prediction(), v5e(), {.by = OpGrouping::kScope, .scope_depth = 1});
  REQUIRE(shallow->rows.size() == 2);
  CHECK(shallow->rows[0].name == "jit(train_step)");
  CHECK(shallow->rows[0].ops == 6);
  CHECK(shallow->rows[0].step_time_s == Approx(12e-3));

  // A depth past the hierarchy still leaves the primitive out.
  auto deep = op_stats(sample_prediction(), v5e(), {.by = OpGrouping::kScope, .scope_depth = 9});
  CHECK(deep->rows[0].name == "jit(train_step)/layer_0/mlp");
}

TEST_CASE("scopes split at slashes outside parentheses") {
  Prediction p = sample_prediction();
  p.ops.resize(1);
  set_text(p.ops[0], &OpTexts::op_name, "jit(f/g)/transpose(jvp(h))/dot");
  auto stats = op_stats(p, v5e(), {.by = OpGrouping::kScope});
  REQUIRE(stats->rows.size() == 1);
  CHECK(stats->rows[0].name == "jit(f/g)/transpose(jvp(h))");
  set_text(p.ops[0], &OpTexts::op_name, "dot");  // no scope at all: the op_name itself
  CHECK(op_stats(p, v5e(), {.by = OpGrouping::kScope})->rows[0].name == "dot");
}

TEST_CASE("an empty prediction gives an empty table") {
  auto stats = op_stats(Prediction{}, v5e());
  REQUIRE_OK(stats);
  CHECK(stats->rows.empty());
  CHECK_THAT(render_op_stats(*stats), Catch::Contains("(no ops)"));
}

}  // namespace
}  // namespace hloroof
