// Fuzzes the whole pipeline on every module that parses: cost, memory, predict on a TPU and a
// GPU, and every report (text, JSON, trace, roofline SVG, XSpace, comparison). No input may
// crash, trip a sanitizer or hang (libFuzzer's -timeout); JSON outputs must be valid UTF-8 JSON,
// and an XSpace written must have bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "hloroof/hloroof.h"
#include "hloroof/roofline_chart.h"
#include "nlohmann/json.hpp"

namespace {

void require_json(const std::string& text) {
  if (!nlohmann::json::accept(text)) std::abort();
}

void report(const hloroof::Prediction& p, const hloroof::DeviceSpec& spec,
            const hloroof::MemoryReport* memory) {
  require_json(hloroof::prediction_to_json(p));
  require_json(hloroof::prediction_to_trace_json(p, memory));
  (void)hloroof::prediction_summary(p);
  (void)hloroof::render_text_report(p, spec);
  (void)hloroof::render_text_report(p, spec, {.by = hloroof::OpGrouping::kCategory, .top = 0});
  (void)hloroof::render_text_report(p, spec, {.by = hloroof::OpGrouping::kScope, .top = 5});
  (void)hloroof::render_roofline_svg(hloroof::roofline_chart(p, spec));
  (void)hloroof::render_roofline_svg(hloroof::roofline_chart(p, spec, {.by_category = true}));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<hloroof::Module> module = hloroof::parse_module(text);
  if (!module.ok()) return 0;
  (void)hloroof::analyze_cost(*module);
  (void)hloroof::analyze_cost(*module, {.use_padded_sizes = false});
  absl::StatusOr<hloroof::MemoryReport> memory = hloroof::analyze_memory(*module);
  std::vector<hloroof::Prediction> predictions;
  for (const char* name : {"tpu_v5e", "h100"}) {
    absl::StatusOr<hloroof::DeviceSpec> spec = hloroof::device(name);
    if (!spec.ok()) std::abort();  // built-in
    absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(*module, {.spec = *spec});
    if (!p.ok()) continue;
    report(*p, *spec, memory.ok() ? &*memory : nullptr);
    // The XSpace, its buffer assignment from its own memory analysis (every buffer placed).
    absl::StatusOr<hloroof::XSpaceFile> xspace =
        hloroof::prediction_to_xspace(*module, *p, *spec, {.steps = 2});
    if (xspace.ok() && xspace->bytes.empty()) std::abort();
    predictions.push_back(*std::move(p));
  }
  if (!predictions.empty()) (void)hloroof::render_comparison(predictions);
  return 0;
}
