// compare_devices gives, device by device and in their order, what predict_step_time gives on
// each alone, whatever the threads and whether the predictions are kept or handed over.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "examples.h"
#include "hloroof/analysis.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::read_example;

// The module, resolved on each device, and each device's prediction alone.
struct Devices {
  explicit Devices(const std::vector<std::string>& names) {
    absl::StatusOr<Module> m = parse_module(read_example("tpu_v5e_train_step.hlo"));
    REQUIRE_OK(m);
    module = *std::move(m);
    for (const std::string& name : names) {
      absl::StatusOr<DeviceTarget> target = resolve_device(name, &module);
      REQUIRE_OK(target);
      targets.push_back(*std::move(target));
      absl::StatusOr<Prediction> alone = predict_step_time(module, targets.back(), predict);
      REQUIRE_OK(alone);
      expected.push_back(prediction_to_json(*alone));
    }
  }

  Module module;
  std::vector<DeviceTarget> targets;
  PredictOptions predict{.timeline = false};
  std::vector<std::string> expected;  // each prediction alone, as JSON
};

TEST_CASE("compare_devices: each device's prediction alone, in the devices' order") {
  Devices d({"tpu_v5e:2x2", "h100:1x4", "tpu_v5p:2x2x1"});
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    DeviceComparison c =
        compare_devices(d.module, d.targets, {.predict = d.predict, .threads = threads});
    REQUIRE(c.predictions.size() == 3);
    for (size_t k = 0; k < 3; ++k) {
      CAPTURE(k);
      REQUIRE_OK(c.predictions[k]);
      CHECK(prediction_to_json(*c.predictions[k]) == d.expected[k]);
    }
    CHECK_FALSE(c.memory.has_value());
    CHECK(c.fits.size() == 3);
    for (const std::optional<CapacityCheck>& fit : c.fits) CHECK_FALSE(fit.has_value());
  }
}

TEST_CASE("compare_devices: handed over one by one, in order; false is the last call") {
  Devices d({"tpu_v5e:2x2", "h100:1x4", "tpu_v5p:2x2x1"});
  for (size_t last : {size_t{2}, size_t{0}}) {
    CAPTURE(last);
    std::vector<size_t> called;
    std::vector<std::string> handed;
    std::vector<absl::StatusOr<Prediction>> kept;
    DeviceComparisonOptions options{.predict = d.predict, .threads = 2};
    options.each = [&](size_t k, absl::StatusOr<Prediction>& p, int threads) {
      called.push_back(k);
      CHECK(threads >= 1);
      REQUIRE_OK(p);
      handed.push_back(prediction_to_json(*p));
      kept.push_back(std::move(p));  // what the call moves out stays its own
      return k < last;
    };
    DeviceComparison c = compare_devices(d.module, d.targets, options);
    CHECK(c.predictions.empty());
    REQUIRE(called.size() == last + 1);
    for (size_t k = 0; k <= last; ++k) {
      CHECK(called[k] == k);
      CHECK(handed[k] == d.expected[k]);
      REQUIRE_OK(kept[k]);
      CHECK(prediction_to_json(*kept[k]) == d.expected[k]);
    }
  }
}

TEST_CASE("compare_devices: the later devices' top ops; whether the module fits each") {
  Devices d({"tpu_v5e:2x2", "h100:1x4"});
  DeviceComparison c =
      compare_devices(d.module, d.targets,
                      {.predict = d.predict, .later_ops = 2, .check_capacity = true, .threads = 2});
  REQUIRE(c.predictions.size() == 2);
  REQUIRE_OK(c.predictions[0]);
  REQUIRE_OK(c.predictions[1]);
  CHECK(prediction_to_json(*c.predictions[0]) == d.expected[0]);  // every op of the first
  absl::StatusOr<Prediction> alone = predict_step_time(d.module, d.targets[1], d.predict);
  REQUIRE_OK(alone);
  REQUIRE(alone->ops.size() > 2);
  REQUIRE(c.predictions[1]->ops.size() == 2);
  CHECK(c.predictions[1]->step_time_s == alone->step_time_s);
  for (size_t k = 0; k < 2; ++k) {
    CHECK(c.predictions[1]->ops[k].name() == alone->ops[k].name());
  }

  absl::StatusOr<MemoryReport> memory = analyze_memory(d.module, {.top_buffers = 0});
  REQUIRE_OK(memory);
  REQUIRE(c.memory.has_value());
  REQUIRE(c.memory->ok());
  CHECK((*c.memory)->footprint_bytes == memory->footprint_bytes);
  REQUIRE(c.fits.size() == 2);
  for (size_t k = 0; k < 2; ++k) {
    REQUIRE(c.fits[k].has_value());
    const CapacityCheck fit =
        check_capacity(memory->footprint_bytes, d.targets[k].spec, CapacityBasis::kFootprint);
    CHECK(c.fits[k]->capacity_bytes == fit.capacity_bytes);
    CHECK(c.fits[k]->fits == fit.fits);
  }
}

TEST_CASE("compare_devices: a prediction's error is that device's") {
  // No computation marked ENTRY: no step to predict on any device.
  absl::StatusOr<Module> module = parse_module(
      "HloModule m\n\nf {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n");
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("h100", &*module);
  REQUIRE_OK(target);
  const std::vector<DeviceTarget> targets = {*target, *target};
  DeviceComparison c = compare_devices(*module, targets, {.threads = 2});
  REQUIRE(c.predictions.size() == 2);
  CHECK_FALSE(c.predictions[0].ok());
  CHECK_FALSE(c.predictions[1].ok());
}

}  // namespace
}  // namespace hloroof
