// The analyses of one module only read it: the memory analysis and the predictions on several
// devices, run on threads at the same time (`hloroof compare` predicts its devices so), give
// what they give one after the other. Built with -fsanitize=thread, this test also shows that
// they share no state they write.
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <latch>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "examples.h"
#include "hloroof/advise.h"
#include "hloroof/analysis_json.h"
#include "hloroof/cost.h"
#include "hloroof/device_target.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "require_ok.h"

namespace hloroof {
namespace {

using testing::read_example;

// What one device's analyses print: the memory report's JSON, the prediction's JSON made from
// the module, and the one made from the module's cost analysed beforehand (compare's way).
struct Outputs {
  std::string memory;
  std::string prediction;
  std::string prediction_from_cost;
  friend bool operator==(const Outputs&, const Outputs&) = default;
};

TEST_CASE("memory analysis and predictions on three devices at once: as one after the other") {
  // A while loop of 4 layers whose weights are all-gathered (10 all-gather-start) and passed
  // round the ring with collective-permute (examples/README.md).
  absl::StatusOr<Module> module = parse_module(read_example("tpu_v5e_train_step.hlo"));
  REQUIRE_OK(module);
  int loops = 0, collectives = 0;
  for (const Computation* c : module->computations()) {
    for (const Instruction* i : c->instructions()) {
      loops += i->opcode() == Opcode::kWhile;
      collectives += opcode_category(i->opcode()) == OpCategory::kCollective;
    }
  }
  REQUIRE(loops > 0);
  REQUIRE(collectives > 0);

  const std::vector<std::string> devices = {"tpu_v5e:2x2", "tpu_v5p:2x2x1", "h100:1x4"};
  std::vector<DeviceTarget> targets;
  for (const std::string& d : devices) {
    absl::StatusOr<DeviceTarget> t = resolve_device(d, &*module);
    REQUIRE_OK(t);
    targets.push_back(*std::move(t));
  }
  auto options = [](size_t) {
    PredictOptions o;
    o.explain = true;
    o.timeline = true;
    return o;
  };
  const absl::StatusOr<ModuleCost> cost = analyze_cost(*module, cost_options(options(0)));
  REQUIRE_OK(cost);
  auto memory_json = [&](size_t k) {
    absl::StatusOr<MemoryReport> r = analyze_memory(*module, targets[k].spec);
    return r.ok() ? memory_to_json(*r) : std::string(r.status().message());
  };
  auto prediction_json = [&](size_t k, bool from_cost) {
    absl::StatusOr<Prediction> p =
        from_cost ? predict_step_time(*module, targets[k], options(k), *cost)
                  : predict_step_time(*module, targets[k], options(k));
    return p.ok() ? prediction_to_json(*p) : std::string(p.status().message());
  };

  std::vector<Outputs> sequential(devices.size());
  for (size_t k = 0; k < devices.size(); ++k) {
    sequential[k] = {memory_json(k), prediction_json(k, false), prediction_json(k, true)};
    // The JSON of a report, not of an error.
    CHECK(sequential[k].memory.starts_with("{"));
    CHECK(sequential[k].prediction.starts_with("{"));
    CHECK(sequential[k].prediction_from_cost == sequential[k].prediction);
  }

  // Every analysis of every device on a thread of its own, all let go at the same moment;
  // a few rounds, since threads that happen to run one after the other prove nothing.
  for (int round = 0; round < 3; ++round) {
    std::vector<Outputs> concurrent(devices.size());
    std::vector<std::function<void()>> work;
    for (size_t k = 0; k < devices.size(); ++k) {
      work.push_back([&, k] { concurrent[k].memory = memory_json(k); });
      work.push_back([&, k] { concurrent[k].prediction = prediction_json(k, false); });
      work.push_back([&, k] { concurrent[k].prediction_from_cost = prediction_json(k, true); });
    }
    std::latch start(static_cast<std::ptrdiff_t>(work.size()));
    std::vector<std::thread> threads;
    for (const std::function<void()>& w : work) {
      threads.emplace_back([&] {
        start.arrive_and_wait();
        w();
      });
    }
    for (std::thread& t : threads) t.join();
    for (size_t k = 0; k < devices.size(); ++k) {
      INFO(devices[k] << ", round " << round);
      CHECK(concurrent[k] == sequential[k]);
    }
  }
}

TEST_CASE("trace, text report and advice of one prediction at once: as one after the other") {
  // `hloroof predict --trace` writes the trace while it makes the text report and its advice,
  // all three reading the one prediction and memory report.
  absl::StatusOr<Module> module = parse_module(read_example("tpu_v5e_train_step.hlo"));
  REQUIRE_OK(module);
  absl::StatusOr<DeviceTarget> target = resolve_device("tpu_v5e:2x2", &*module);
  REQUIRE_OK(target);
  PredictOptions options;
  absl::StatusOr<Prediction> prediction = predict_step_time(*module, *target, options);
  REQUIRE_OK(prediction);
  absl::StatusOr<MemoryReport> memory = analyze_memory(*module, target->spec);
  REQUIRE_OK(memory);
  // On two threads of its own, as the command writes it (a trace of about 500 KB: two pieces).
  auto trace = [&](int threads) {
    std::ostringstream out;
    write_prediction_trace_json(out, *prediction, &*memory, threads);
    return out.str();
  };
  auto report = [&] {
    absl::StatusOr<std::string> r = render_text_report(*prediction, target->spec, {});
    return r.ok() ? *r : std::string(r.status().message());
  };
  auto advice = [&] {
    absl::StatusOr<Advice> a = advise(*module, *prediction, *memory, target->spec, {.top = 5});
    return a.ok() ? render_advice_text(*a) : std::string(a.status().message());
  };
  const std::vector<std::string> sequential = {trace(2), report(), advice()};
  CHECK(sequential[0].starts_with("{"));
  CHECK(sequential[0].size() > 256 << 10);
  CHECK(sequential[0] == trace(1));
  CHECK(sequential[1].find("step time") != std::string::npos);
  CHECK(!sequential[2].empty());
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> concurrent(3);
    std::latch start(3);
    std::vector<std::thread> threads;
    const std::vector<std::function<std::string()>> work = {[&] { return trace(2); }, report,
                                                            advice};
    for (size_t k = 0; k < work.size(); ++k) {
      threads.emplace_back([&, k] {
        start.arrive_and_wait();
        concurrent[k] = work[k]();
      });
    }
    for (std::thread& t : threads) t.join();
    INFO("round " << round);
    CHECK(concurrent == sequential);
  }
}

}  // namespace
}  // namespace hloroof
