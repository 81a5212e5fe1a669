// What a first run-through tripped over, on real modules written by others (the shared corpus,
// ../shared/corpus or $HLOROOF_CORPUS; SKIPPED when absent): a module whose only GPU marker is
// a TransformerEngine custom call is read as a GPU module, and advise does not call copies
// that keep their layout "layout copies" in a module before layout assignment.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "corpus.h"
#include "examples.h"
#include "nlohmann/json.hpp"

namespace {

using hloroof::testing::read_file;

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

// The corpus's largest module, gemma3 4b (3.8 MB): its trace is over a hundred pieces of 256 KiB
// and its op JSON and CSV tens of pieces, each made by whichever writer thread takes it.
constexpr const char* kGemma3 =
    "xla/xla.backends.cpu.benchmarks.huge_hlo.gemma3_4b_text_keras_jax_batch1_in8_out100.hlo__0001"
    ".hlo";

TEST_CASE("outputs made in pieces are the same bytes whatever the number of threads") {
  const std::string file = (hloroof::testing::corpus_or_skip(kGemma3) / kGemma3).string();
  const std::string trace = (fs::temp_directory_path() / "hloroof_threads_trace.json").string();
  std::string first_json, first_csv, first_trace, first_compare;
  for (const char* threads : {"1", "2", "16"}) {
    INFO("HLOROOF_THREADS=" << threads);
    ::setenv("HLOROOF_THREADS", threads, 1);  // read by the command each run
    auto json = run_cli("predict " + file + " --json --trace " + trace);
    auto csv = run_cli("predict " + file + " --csv");
    // Four devices: on more than two threads, the third and fourth wait to make their records.
    auto compare = run_cli("compare " + file + " --devices tpu_v5e,h100,b200,tpu_v4 --json");
    ::unsetenv("HLOROOF_THREADS");
    REQUIRE(json.exit_code == 0);
    REQUIRE(csv.exit_code == 0);
    REQUIRE(compare.exit_code == 0);
    const std::string written = read_file(trace);
    CHECK(written.size() > (4u << 20));  // many pieces
    if (first_json.empty()) {
      first_json = json.out;
      first_csv = csv.out;
      first_trace = written;
      first_compare = compare.out;
      continue;
    }
    CHECK(json.out == first_json);
    CHECK(csv.out == first_csv);
    CHECK(written == first_trace);
    CHECK(compare.out == first_compare);
  }
  fs::remove(trace);
}

}  // namespace
