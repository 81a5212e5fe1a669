// An Analysis gives what its parts give one after the other: the prediction of
// predict_step_time, the memory report of analyze_memory, the advice of advise() and the XSpace
// of write_xspace, whatever the threads and whether the XSpace's wide memory analysis serves the
// report too.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "examples.h"
#include "hloroof/advise.h"
#include "hloroof/analysis.h"
#include "hloroof/analysis_json.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "hloroof/xspace.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;
using testing::read_example;
using testing::read_file;

TEST_CASE("an analysis gives what its parts give one after the other") {
  absl::StatusOr<Module> module = parse_module(read_example("tpu_v5e_train_step.hlo"));
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("tpu_v5e:2x2", &*module);
  REQUIRE_OK(target);
  PredictOptions predict;
  predict.timeline = true;
  const MemoryOptions memory_options = {.live_curves = false, .allocations = false};
  const AdviseOptions advise_options = {.top = 5, .evidence_rows = 3};

  absl::StatusOr<Prediction> expected_prediction =
      predict_step_time(*module, *target, predict);
  REQUIRE_OK(expected_prediction);
  absl::StatusOr<MemoryReport> expected_memory =
      analyze_memory(*module, target->spec, memory_options);
  REQUIRE_OK(expected_memory);
  absl::StatusOr<Advice> expected_advice =
      advise(*module, *expected_prediction, *expected_memory, target->spec, advise_options);
  REQUIRE_OK(expected_advice);
  const fs::path dir = fs::temp_directory_path() / "hloroof_analysis_test";
  fs::remove_all(dir);
  XSpaceOptions xspace_options;
  xspace_options.start_time_ns = 1;
  absl::StatusOr<XSpaceFile> expected_xspace = write_xspace(
      *module, *expected_prediction, target->spec, (dir / "alone").string(), xspace_options);
  REQUIRE_OK(expected_xspace);
  const std::string expected_bytes = read_file(expected_xspace->path);

  for (int threads : {1, 2}) {
    for (bool with_xspace : {false, true}) {
      CAPTURE(threads, with_xspace);
      int called = 0;
      AnalysisOptions options{.predict = predict,
                              .memory = memory_options,
                              .advise = advise_options,
                              .threads = threads,
                              .predicted = [&](Prediction&) { ++called; }};
      if (with_xspace) {
        options.xspace_dir = (dir / ("threads" + std::to_string(threads))).string();
        options.xspace = xspace_options;
      }
      Analysis analysis(*module, *target, options);
      REQUIRE_OK(analysis.run());
      CHECK(called == 1);
      REQUIRE_OK(analysis.prediction());
      CHECK(analysis.prediction()->step_time_s == expected_prediction->step_time_s);
      if (!with_xspace) {
        CHECK(prediction_to_json(*analysis.prediction()) ==
              prediction_to_json(*expected_prediction));
      }
      REQUIRE_OK(analysis.memory());
      CHECK(memory_to_json(*analysis.memory()) == memory_to_json(*expected_memory));
      absl::StatusOr<Advice> advice = analysis.advice();
      REQUIRE_OK(advice);
      CHECK(advice_to_json(*advice) == advice_to_json(*expected_advice));
      if (with_xspace) {
        REQUIRE_OK(analysis.write_xspace());
        CHECK(read_file(analysis.write_xspace()->path) == expected_bytes);
        // Read by the XSpace, the timeline was freed.
        CHECK(analysis.prediction()->timeline.empty());
      } else {
        CHECK_FALSE(analysis.write_xspace().ok());
      }
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("an analysis that asks for no memory analysis has none, and no advice") {
  absl::StatusOr<Module> module = parse_module(read_example("h100_gemm_step.hlo"));
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("h100", &*module);
  REQUIRE_OK(target);
  Analysis analysis(*module, *target);
  REQUIRE_OK(analysis.prediction());
  CHECK(analysis.prediction()->step_time_s > 0);
  CHECK_FALSE(analysis.memory().ok());
  CHECK_FALSE(analysis.advice().ok());
}

TEST_CASE("an analysis says the prediction's error") {
  // No computation marked ENTRY: no step to predict.
  absl::StatusOr<Module> module = parse_module(
      "HloModule m\n\nf {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n");
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("h100", &*module);
  REQUIRE_OK(target);
  Analysis analysis(*module, *target, {.memory = MemoryOptions{}});
  CHECK_FALSE(analysis.run().ok());
  CHECK_FALSE(analysis.prediction().ok());
}

TEST_CASE("add_input_diagnostics: the input's, then the device choice's, in one order") {
  LoadedModule loaded;
  loaded.banner = "banner";
  loaded.diagnostics.warnings = {"input warning"};
  DeviceTarget choice;
  choice.diagnostics.notes = {"device note"};
  choice.diagnostics.warnings = {"device warning"};
  Prediction prediction;
  prediction.diagnostics.notes = {"own assumption"};
  prediction.diagnostics.warnings = {"own warning"};
  add_input_diagnostics(loaded, choice, prediction);
  CHECK(prediction.diagnostics.notes ==
        std::vector<std::string>{"input warning", "device note", "own assumption"});
  CHECK(prediction.diagnostics.warnings ==
        std::vector<std::string>{"banner", "own warning", "device warning"});
}

}  // namespace
}  // namespace hloroof
