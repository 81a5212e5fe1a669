// Fuzzes the profile readers and the join: any bytes read as an XSpace and as trace-event
// JSON, and every profile that reads joined with a real module and its prediction (the H100
// mlp_fwd capture of tests/data/h100: a while loop whose body ran as CUDA graphs), measured
// and calibrated. No input may crash, trip a sanitizer or hang (libFuzzer's -timeout); JSON
// outputs must be valid JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "hloroof/hloroof.h"
#include "hloroof/profile.h"
#include "nlohmann/json.hpp"

namespace {

const hloroof::Module* module = nullptr;
const hloroof::Prediction* prediction = nullptr;

void require_json(const std::string& text) {
  if (!nlohmann::json::accept(text)) std::abort();
}

void join(const hloroof::Profile& profile) {
  (void)hloroof::measure_module(profile, *module);
  (void)hloroof::measure_module(profile, "jit_mlp_loss");
  absl::StatusOr<hloroof::ProfileComparison> c =
      hloroof::compare_with_profile(*module, *prediction, profile);
  if (!c.ok()) return;
  require_json(hloroof::profile_comparison_to_json(*c));
  require_json(hloroof::profile_comparison_to_trace_json(*c, *prediction));
  (void)hloroof::render_profile_comparison(*c);
  const hloroof::CalibrationRun run{module, &profile, "fuzz"};
  absl::StatusOr<hloroof::CalibrationResult> fit = hloroof::calibrate({&run, 1}, "h100");
  if (fit.ok()) {
    // A fit that predicts the step worse is not kept and writes no device.
    if (fit->accepted) {
      require_json(fit->json);
    } else if (!fit->json.empty()) {
      std::abort();
    }
    (void)hloroof::render_calibration(*fit);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::ifstream in(HLOROOF_FUZZ_MODULE);
  std::ostringstream text;
  text << in.rdbuf();
  static absl::StatusOr<hloroof::Module> parsed = hloroof::parse_module(text.str());
  if (!parsed.ok()) std::abort();  // the committed capture must parse
  static absl::StatusOr<hloroof::DeviceTarget> h100 = hloroof::resolve_device("h100", &*parsed);
  if (!h100.ok()) std::abort();  // built-in
  static absl::StatusOr<hloroof::Prediction> predicted = hloroof::predict_step_time(*parsed, *h100);
  if (!predicted.ok()) std::abort();
  module = &*parsed;
  prediction = &*predicted;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (absl::StatusOr<hloroof::Profile> p = hloroof::parse_xspace(bytes, "fuzz"); p.ok()) join(*p);
  if (absl::StatusOr<hloroof::Profile> p = hloroof::parse_trace_json(bytes, "fuzz"); p.ok()) {
    join(*p);
  }
  return 0;
}
