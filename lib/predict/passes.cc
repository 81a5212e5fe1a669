// run_passes: compiler passes run on a module, each checked and predicted.
#include "hloroof/passes.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hloroof/device_target.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_text.h"

namespace hloroof {
namespace {

// The same status with `context` before its message.
absl::Status with_context(const absl::Status& status, const std::string& context) {
  return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
}

// The module verifies and, with `reparse`, reads back from its text as the same module.
absl::Status check(const Module& module, bool reparse) {
  if (absl::Status s = verify(module); !s.ok()) {
    return with_context(s, "the module does not verify");
  }
  if (!reparse) return absl::OkStatus();
  absl::StatusOr<Module> again = parse_module(print(module));
  if (!again.ok()) return with_context(again.status(), "the printed module does not parse");
  std::string difference;
  if (!structurally_equal(module, *again, &difference)) {
    return absl::InternalError(
        absl::StrCat("the printed module reads back otherwise: ", difference));
  }
  return absl::OkStatus();
}

}  // namespace

StepFigures step_figures(const Prediction& prediction) {
  return {.step_time_s = prediction.step_time_s,
          .roofline_step_time_s = prediction.roofline_step_time_s,
          .flops = prediction.flops,
          .hbm_bytes = prediction.hbm_bytes,
          .collective_exposed_s = prediction.breakdown.collective_exposed_s,
          .collective_hidden_s = prediction.breakdown.collective_hidden_s};
}

bool PassRun::changed() const {
  for (const PassResult& p : passes) {
    if (p.changed) return true;
  }
  return false;
}

absl::StatusOr<PassRun> run_passes(Module& module, absl::Span<const Pass> passes,
                                   const PassOptions& options) {
  if (absl::Status s = check(module, options.reparse); !s.ok()) {
    return with_context(s, "before the passes");
  }
  // The device resolved once, as the command's --device is; what resolving it said goes with
  // the whole predictions.
  absl::StatusOr<DeviceTarget> target =
      resolve_device(options.device, &module, {.device_option = "device"});
  if (!target.ok()) return with_context(target.status(), "before the passes, predicting");
  PassRun run;
  {
    absl::StatusOr<Prediction> before = predict_step_time(module, *target, options.predict);
    if (!before.ok()) return with_context(before.status(), "before the passes, predicting");
    run.before = *std::move(before);
    add_diagnostics(target->diagnostics, run.before);
  }
  // Each pass's step needs the figures only: no explanation, no timeline.
  PredictOptions figures_only = options.predict;
  figures_only.explain = false;
  figures_only.timeline = false;

  StepFigures current = step_figures(run.before);
  for (size_t k = 0; k < passes.size(); ++k) {
    const Pass& pass = passes[k];
    const std::string where =
        absl::StrCat("after pass ", pass.name, " (", k + 1, " of ", passes.size(), ")");
    PassResult& result = run.passes.emplace_back();
    result.name = pass.name;
    result.before = current;
    if (!pass.run) return absl::InvalidArgumentError(absl::StrCat(where, ": the pass is empty"));
    absl::StatusOr<bool> changed = pass.run(module);
    if (!changed.ok()) return with_context(changed.status(), where);
    result.changed = *changed;
    if (!options.verify_each) continue;
    if (absl::Status s = check(module, options.reparse); !s.ok()) return with_context(s, where);
    result.verified = true;
    if (result.changed) {
      absl::StatusOr<Prediction> p = predict_step_time(module, *target, figures_only);
      if (!p.ok()) return with_context(p.status(), absl::StrCat(where, ", predicting"));
      current = step_figures(*p);
    }
    result.after = current;
  }

  if (!options.verify_each && !passes.empty()) {
    std::vector<std::string> names;
    for (const Pass& pass : passes) names.push_back(pass.name);
    const std::string where = absl::StrCat("after the passes ", absl::StrJoin(names, ", "),
                                           " (verify_each is off: checked after the last only)");
    if (absl::Status s = check(module, options.reparse); !s.ok()) return with_context(s, where);
    run.passes.back().verified = true;
  }
  if (!run.changed()) {
    run.after = run.before;
    return run;
  }
  // The module as given is gone: no record of `before` may point into it.
  for (OpPrediction& op : run.before.ops) op.instruction = nullptr;
  for (TimelineEvent& e : run.before.timeline) e.instruction = nullptr;
  absl::StatusOr<Prediction> after = predict_step_time(module, *target, options.predict);
  if (!after.ok()) return with_context(after.status(), "after the passes, predicting");
  run.after = *std::move(after);
  add_diagnostics(target->diagnostics, run.after);
  return run;
}

}  // namespace hloroof
