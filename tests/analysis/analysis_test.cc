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
#include "hloroof/load.h"
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
  InputDiagnostics said;
  said.banner = "banner";
  said.loaded = {.notes = {"read note"}, .warnings = {"input warning"}};
  said.caller_notes = {"caller note"};
  said.device = {.notes = {"device note"}, .warnings = {"device warning"}};
  Prediction prediction;
  prediction.diagnostics.notes = {"own assumption"};
  prediction.diagnostics.warnings = {"own warning"};
  add_input_diagnostics(said, prediction);
  CHECK(prediction.diagnostics.notes ==
        std::vector<std::string>{"read note", "input warning", "caller note", "device note",
                                 "own assumption"});
  CHECK(prediction.diagnostics.warnings ==
        std::vector<std::string>{"banner", "own warning", "device warning"});
  // A memory report, as `memory --json` gives it; the command showed loading's notes apart.
  said.loaded_notes_shown = true;
  MemoryReport report;
  report.notes = {"own note"};
  add_input_diagnostics(said, report);
  CHECK(report.notes == std::vector<std::string>{"warning: banner", "warning: input warning",
                                                 "own note", "caller note", "device note"});
  CHECK(report.warnings == std::vector<std::string>{"device warning"});
  Advice advice;
  advice.notes = {"own finding note"};
  add_input_diagnostics(said, advice);
  CHECK(advice.notes == std::vector<std::string>{"input warning", "caller note", "device note",
                                                 "own finding note"});
}

TEST_CASE("choose_device: the device given, else the profile's, else the platform's") {
  const std::string text =
      "HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n";
  absl::StatusOr<LoadedModule> loaded = load_module(ModuleBytes{.bytes = text, .name = "m.hlo"});
  REQUIRE_OK(loaded);
  // Nothing tells the platform: the default guess, said as a warning.
  absl::StatusOr<DeviceChoice> none = choose_device(*loaded, "");
  REQUIRE_OK(none);
  CHECK(none->profile_note.empty());
  // The profile it came from ran on a TPU v6e: that device, and a note naming the option.
  loaded->profile_device_kind = "TPU v6 Lite";
  absl::StatusOr<DeviceChoice> profiled = choose_device(*loaded, "", {.device_option = "-d"});
  REQUIRE_OK(profiled);
  CHECK(profiled->target.spec.name == "tpu_v6e");
  CHECK(profiled->profile_note ==
        "device tpu_v6e from the profile, which ran on 'TPU v6 Lite' (the profile's device "
        "plane); -d overrides it");
  // A device given wins over the profile's.
  absl::StatusOr<DeviceChoice> given = choose_device(*loaded, "h100");
  REQUIRE_OK(given);
  CHECK(given->target.spec.name == "h100");
  CHECK(given->profile_note.empty());
  // XLA's dump file name of a GPU compilation tells the platform the text does not: a TPU
  // named for it is warned of.
  loaded->profile_device_kind.clear();
  CHECK(choose_device(*loaded, "tpu_v5e")->target.diagnostics.warnings.empty());
  loaded->file = "module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt";
  absl::StatusOr<DeviceChoice> dumped = choose_device(*loaded, "tpu_v5e");
  REQUIRE_OK(dumped);
  REQUIRE(dumped->target.diagnostics.warnings.size() == 1);
  CHECK_THAT(dumped->target.diagnostics.warnings[0], Catch::Contains("gpu_after_optimizations"));
}

}  // namespace
}  // namespace hloroof
