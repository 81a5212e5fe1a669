// Every module of the corpus's real programs (its real/ folder: train steps, multi-GPU FFTs,
// BERT graphs) that parses is predicted on a TPU and a GPU: no crash, and where a prediction is
// made its invariants hold. A module may be refused only with a message (e.g. more devices than
// a slice can hold). The corpus is read from ../shared/corpus (HLOROOF_CORPUS overrides).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "predict_on.h"
#include "predict_test_util.h"
#include "corpus.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

bool sane(double x) { return std::isfinite(x) && x >= 0; }

// The invariants of check_invariants, as a verdict rather than assertions (thousands of
// modules).
std::string problem(const Prediction& p) {
  const Prediction::Breakdown& b = p.breakdown;
  if (!sane(p.step_time_s) || !sane(p.flops) || !sane(p.hbm_bytes) || !sane(p.hfu)) {
    return "totals";
  }
  const double sum = b.compute_s + b.memory_s + b.collective_exposed_s + b.overhead_s;
  if (std::fabs(sum - p.step_time_s) > 1e-9 * std::max(1e-12, p.step_time_s)) return "breakdown";
  // The expected time never beats the roofline: not for an op, not for the step.
  if (!sane(p.roofline_step_time_s) || p.roofline_step_time_s > p.step_time_s) {
    return "roofline step above the expected step";
  }
  double ops = 0;
  for (const OpPrediction& op : p.ops) {
    if (!sane(op.time_s) || !sane(op.multiplier)) return "op " + std::string(op.name());
    if (!sane(op.roofline_time_s) || op.roofline_time_s > op.time_s) {
      return "op " + std::string(op.name()) + ": expected below its roofline";
    }
    if (!(op.efficiency > 0 && op.efficiency <= 1)) {
      return "op " + std::string(op.name()) + ": efficiency";
    }
    if (op.time_s > 0 && op.model().empty()) return "op " + std::string(op.name()) + ": no model";
    ops += op.total_time_s();
  }
  if (std::fabs(ops - p.step_time_s) > 1e-9 * std::max(1e-12, p.step_time_s)) return "op sum";
  return "";
}

TEST_CASE("the corpus predicts without crashing, every prediction adds up, and no op's "
          "expected time is below its roofline") {
  const fs::path dir = testing::corpus_or_skip("real") / "real";
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());

  int parsed = 0, predicted = 0, refused = 0;
  std::vector<std::string> failures, refusals;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<Module> module = parse_module(text.str());
    if (!module.ok()) continue;
    ++parsed;
    if (!module->entry_marked()) {
      // Cut off before its ENTRY: no step time until one computation is named the step.
      absl::StatusOr<Prediction> p = testing::predict_on(*module, "tpu_v5e");
      if (p.ok() || p.status().message().find("no computation is marked ENTRY") ==
                        std::string_view::npos) {
        failures.push_back(file.string() + ": predicted a module that marks no ENTRY");
      }
      REQUIRE_OK(module->set_entry(module->entry()->name()));
    }
    for (const char* device : {"tpu_v5e", "h100"}) {
      absl::StatusOr<Prediction> p = testing::predict_on(*module, device);
      if (!p.ok()) {
        ++refused;
        if (p.status().message().empty()) failures.push_back(file.string() + ": empty error");
        if (refusals.size() < 5)
          refusals.push_back(file.filename().string() + " on " + device + ": " +
                             std::string(p.status().message()));
        continue;
      }
      ++predicted;
      if (std::string bad = problem(*p); !bad.empty()) {
        failures.push_back(file.string() + " on " + device + ": " + bad);
      }
    }
  }
  std::cout << "predict corpus: " << files.size() << " modules, " << parsed << " parsed, "
            << predicted << " predictions, " << refused << " refused\n";
  for (const std::string& r : refusals) std::cout << "  refused: " << r << "\n";
  CHECK(predicted > 0);
  // Refusals are for modules no slice of the device holds; they stay rare.
  CHECK(refused * 50 < predicted);
  INFO((failures.empty() ? std::string() : failures.front()));
  CHECK(failures.empty());
}

}  // namespace
}  // namespace hloroof
