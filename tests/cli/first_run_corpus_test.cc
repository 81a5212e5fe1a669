// What a first run-through tripped over, on real modules written by others (the shared corpus,
// ../shared/corpus or $HLOROOF_CORPUS; SKIPPED when absent): a module whose only GPU marker is
// a TransformerEngine custom call is read as a GPU module, and advise does not call copies
// that keep their layout "layout copies" in a module before layout assignment.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_runner.h"
#include "corpus.h"
#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using hloroof::testing::run_cli;

bool any_contains(const nlohmann::json& list, const std::string& part) {
  for (const auto& s : list) {
    if (s.get<std::string>().find(part) != std::string::npos) return true;
  }
  return false;
}

// XLA's tools/multihost_hlo_runner/data/transformer_engine_softmax.hlo: one bf16[4,1,16,32]
// parameter into a custom call "te_scaled_softmax_forward_ffi", TransformerEngine's; nothing
// else in it names a platform.
constexpr const char* kTeSoftmax =
    "xla/xla.tools.multihost_hlo_runner.data.transformer_engine_softmax.hlo__0001.hlo";

// XLA's spmd_partitioner_test.cc (the module of its 466th literal): before SPMD partitioning
// and layout assignment, `p.copy = bf16[16,256,256,384]{3,2,1,0} copy(p)` with p of the same
// layout, and `p2.copy` likewise, are the operands of a convolution.
constexpr const char* kSameLayoutCopies = "xla/xla.service.spmd.spmd_partitioner_test.cc__0466.hlo";

TEST_CASE("a real TransformerEngine module is read as a GPU module") {
  const std::string file = (hloroof::testing::corpus_or_skip(kTeSoftmax) / kTeSoftmax).string();
  auto predict = run_cli("predict " + file + " --json");
  INFO(predict.err);
  REQUIRE(predict.exit_code == 0);
  const nlohmann::json p = nlohmann::json::parse(predict.out);
  CHECK(p["device"] == "h100");
  CHECK(any_contains(p["assumptions"],
                     "compiled for GPU (custom call \"te_scaled_softmax_forward_ffi\""));
  CHECK(p["warnings"].empty());
  auto memory = run_cli("memory " + file + " --json");
  REQUIRE(memory.exit_code == 0);
  CHECK(nlohmann::json::parse(memory.out)["device"] == "h100");
}

TEST_CASE("advise on a real module before layout assignment: no layout copies") {
  const std::string file =
      (hloroof::testing::corpus_or_skip(kSameLayoutCopies) / kSameLayoutCopies).string();
  auto predict = run_cli("predict " + file + " --device tpu_v5e --json");
  INFO(predict.err);
  REQUIRE(predict.exit_code == 0);
  // The copies are there and take time: what a layout-copy finding would have cited. p.copy
  // reads and writes 16 x 256 x 256 x 384 x 2 B = 805,306,368 B each way: 1.61e9 B at
  // tpu_v5e's 8.19e11 B/s is 1.97 ms at the roofline.
  double copy_s = 0;
  const nlohmann::json p = nlohmann::json::parse(predict.out);
  for (const auto& op : p["ops"]) {
    if (op["name"] == "p.copy" || op["name"] == "p2.copy") copy_s += op["time_s"].get<double>();
  }
  CHECK(copy_s > 1e-3);
  auto advise = run_cli("advise " + file + " --device tpu_v5e --json");
  INFO(advise.err);
  REQUIRE(advise.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(advise.out);
  for (const auto& f : a["findings"]) {
    CHECK(f["id"] != "layout-copy");
  }
  auto text = run_cli("advise " + file + " --device tpu_v5e");
  CHECK_THAT(text.out, !Catch::Contains("re-lay out"));
}

}  // namespace
