// Test helpers: predict a module written in the test, find an op's record, and check the
// invariants every prediction keeps.
#ifndef HLOROOF_TESTS_PREDICT_PREDICT_TEST_UTIL_H_
#define HLOROOF_TESTS_PREDICT_PREDICT_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof::testing {

// What every prediction must satisfy: the breakdown adds up to the step, and so do the ops'
// total times (each op of the step is listed once; loops, branches and calls only through
// their callees' ops).
inline void check_invariants(const Prediction& p) {
  const Prediction::Breakdown& b = p.breakdown;
  CHECK(b.compute_s + b.memory_s + b.collective_exposed_s + b.overhead_s ==
        Approx(p.step_time_s).epsilon(1e-9).margin(1e-15));
  double ops = 0;
  for (const OpPrediction& op : p.ops) {
    ops += op.total_time_s();
  }
  CHECK(ops == Approx(p.step_time_s).epsilon(1e-9).margin(1e-15));
  // The expected time is the roofline raised, never lowered.
  CHECK(p.roofline_step_time_s <= p.step_time_s);
  for (const OpPrediction& op : p.ops) {
    CHECK(op.roofline_time_s <= op.time_s);
    CHECK(op.efficiency > 0);
    CHECK(op.efficiency <= 1);
    if (op.time_s > 0) CHECK(!op.model().empty());
  }
  for (size_t k = 1; k < p.ops.size(); ++k) {
    CHECK(p.ops[k - 1].total_time_s() >= p.ops[k].total_time_s());
  }
}

struct Predicted {
  Module module;  // the records point into it
  Prediction prediction;

  const Prediction* operator->() const { return &prediction; }
  // The record of the op named `name`.
  const OpPrediction& op(std::string_view name) const {
    for (const OpPrediction& o : prediction.ops) {
      if (o.name() == name) return o;
    }
    FAIL("no op named " << std::string(name));
    return prediction.ops.front();
  }
  bool has_op(std::string_view name) const {
    for (const OpPrediction& o : prediction.ops) {
      if (o.name() == name) return true;
    }
    return false;
  }
  bool assumes(std::string_view text) const {
    for (const std::string& a : prediction.diagnostics.notes) {
      if (a.find(text) != std::string::npos) return true;
    }
    return false;
  }
};

// `device`: a name (as predict_step_time takes it) or a DeviceSpec.
template <typename Device>
Predicted predict(std::string_view text, const Device& device,
                  const PredictOptions& options = {}) {
  absl::StatusOr<Module> module = parse_module(text);
  INFO(module.status().ToString());
  REQUIRE_OK(module);
  absl::StatusOr<Prediction> p = testing::predict_on(*module, device, options);
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  check_invariants(*p);
  return Predicted{*std::move(module), *std::move(p)};
}

// `spec` on the slice `topology`: any shape the model can time, a line of chips no real slice is
// (tpu_v5e 4x1) included.
inline DeviceTarget on(const DeviceSpec& spec, std::string_view topology) {
  absl::StatusOr<DeviceTarget> target = spec_on(spec, topology);
  INFO(target.status().ToString());
  REQUIRE_OK(target);
  return *std::move(target);
}

// Pure roofline, as the worked examples compute it.
inline PredictOptions no_overhead() {
  PredictOptions o;
  o.include_overhead = false;
  o.roofline_only = true;
  return o;
}

// The roofline with the per-op overhead (docs/prediction-model.md, "One op"), no measured model.
inline PredictOptions roofline_only() {
  PredictOptions o;
  o.roofline_only = true;
  return o;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_PREDICT_PREDICT_TEST_UTIL_H_
