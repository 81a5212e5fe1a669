// Test helpers: advise a module written in the test, and find a finding by id.
#ifndef HLOROOF_TESTS_ADVISE_ADVISE_TEST_UTIL_H_
#define HLOROOF_TESTS_ADVISE_ADVISE_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "hloroof/advise.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/topology.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof::testing {

struct Advised {
  Module module;
  DeviceSpec device;
  Prediction prediction;
  MemoryReport memory;
  Advice advice;

  const AdviceFinding* find(std::string_view id) const {
    for (const AdviceFinding& f : advice.findings) {
      if (f.id == id) return &f;
    }
    return nullptr;
  }
  const OpPrediction& op(std::string_view name) const {
    for (const OpPrediction& o : prediction.ops) {
      if (o.name() == name) return o;
    }
    FAIL("no op named " << std::string(name));
    return prediction.ops.front();
  }
};

// What every advice keeps: findings ranked, no time counted twice, evidence for every finding.
inline void check_advice(const Advised& a) {
  double sum = 0;
  for (size_t k = 0; k < a.advice.findings.size(); ++k) {
    const AdviceFinding& f = a.advice.findings[k];
    INFO(f.id);
    CHECK(!f.evidence.empty());
    CHECK(!f.fix.empty());
    CHECK(!f.what.empty());
    CHECK(f.time_at_stake_s >= 0);
    sum += f.time_at_stake_s;
  }
  CHECK(sum == Approx(a.advice.time_at_stake_s));
  CHECK(sum <= a.prediction.step_time_s * (1 + 1e-9) + 1e-15);
}

inline Advised advise_text(std::string_view text, std::string_view device_name,
                           const PredictOptions& options = {}) {
  absl::StatusOr<Module> module = parse_module(text);
  INFO(module.status().ToString());
  REQUIRE_OK(module);
  const TopologyText named = split_topology_text(device_name);
  absl::StatusOr<DeviceSpec> spec = device(named.device);
  REQUIRE_OK(spec);
  absl::StatusOr<DeviceTarget> target = testing::spec_on(*spec, named.shape);
  REQUIRE_OK(target);
  absl::StatusOr<Prediction> p = testing::predict_on(*module, *target, options);
  INFO(p.status().ToString());
  REQUIRE_OK(p);
  absl::StatusOr<MemoryReport> m = analyze_memory(*module, *spec);
  REQUIRE_OK(m);
  Advised a{*std::move(module), *std::move(spec), *std::move(p), *std::move(m), {}};
  absl::StatusOr<Advice> advice = advise(a.module, a.prediction, a.memory, a.device);
  INFO(advice.status().ToString());
  REQUIRE_OK(advice);
  a.advice = *std::move(advice);
  check_advice(a);
  return a;
}

// The hand arithmetic of these tests is the roofline's: no measured model, no per-op overhead.
inline PredictOptions roofline_without_overhead() {
  PredictOptions o;
  o.include_overhead = false;
  o.roofline_only = true;
  return o;
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_ADVISE_ADVISE_TEST_UTIL_H_
