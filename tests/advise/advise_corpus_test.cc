// advise over every module of the corpus's real programs that parses and predicts, on a TPU and
// a GPU: no error, every finding with evidence, ranked, and no time counted twice. The corpus
// is read from ../shared/corpus (HLOROOF_CORPUS overrides).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

#include "advise_test_util.h"
#include "predict_on.h"
#include "require_ok.h"

namespace hloroof {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  const char* env = std::getenv("HLOROOF_CORPUS");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(HLOROOF_DEFAULT_CORPUS);
}

// What is wrong with one advice, or "".
std::string problem(const Advice& a) {
  double sum = 0;
  for (const AdviceFinding& f : a.findings) {
    if (f.evidence.empty()) return f.id + ": no evidence";
    for (const AdviceEvidence& e : f.evidence) {
      if (e.op.empty() || e.detail.empty()) return f.id + ": evidence without op or detail";
    }
    if (f.fix.empty() || f.what.empty() || f.title.empty()) return f.id + ": no text";
    if (!std::isfinite(f.time_at_stake_s) || f.time_at_stake_s < 0) return f.id + ": time";
    if (f.time_at_stake_s > 0 && f.arithmetic.empty()) return f.id + ": no arithmetic";
    sum += f.time_at_stake_s;
  }
  if (sum > a.step_time_s * (1 + 1e-9) + 1e-15) return "findings exceed the step";
  return "";
}

TEST_CASE("advise over the corpus: no errors, no finding without evidence") {
  const fs::path dir = corpus_dir() / "real";
  if (!fs::is_directory(dir)) {
    WARN("corpus not found at " << dir.string() << "; set HLOROOF_CORPUS");
    return;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  int advised = 0, findings = 0;
  std::map<std::string, int> by_id;
  std::vector<std::string> failures;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<Module> module = parse_module(text.str());
    if (!module.ok()) continue;
    // A dump cut off before its ENTRY: its last computation, named as the step (--entry).
    if (!module->entry_marked()) REQUIRE(module->set_entry(module->entry()->name()).ok());
    for (const char* name : {"tpu_v5e", "h100"}) {
      absl::StatusOr<DeviceSpec> spec = device(name);
      REQUIRE_OK(spec);
      absl::StatusOr<Prediction> p = testing::predict_on(*module, *spec);
      if (!p.ok()) continue;  // refusals are predict's to test
      absl::StatusOr<MemoryReport> m = analyze_memory(*module, *spec);
      if (!m.ok()) continue;
      absl::StatusOr<Advice> a = advise(*module, *p, *m, *spec);
      if (!a.ok()) {
        failures.push_back(file.string() + " on " + name + ": " +
                           std::string(a.status().message()));
        continue;
      }
      ++advised;
      findings += static_cast<int>(a->findings.size());
      for (const AdviceFinding& f : a->findings) ++by_id[f.id];
      if (std::string bad = problem(*a); !bad.empty()) {
        failures.push_back(file.string() + " on " + name + ": " + bad);
      }
      // The text renders within 100 columns.
      std::istringstream lines(render_advice_text(*a));
      for (std::string line; std::getline(lines, line);) {
        if (line.size() > 100) {
          failures.push_back(file.string() + ": line over 100 columns: " + line);
          break;
        }
      }
    }
  }
  std::cout << "advise corpus: " << files.size() << " modules, " << advised << " advised, "
            << findings << " findings:";
  for (const auto& [id, n] : by_id) std::cout << " " << id << " " << n;
  std::cout << "\n";
  CHECK(advised > 0);
  INFO((failures.empty() ? std::string() : failures.front()));
  CHECK(failures.empty());
}

}  // namespace
}  // namespace hloroof
