// Compiler-pass experiments: passes run one after another on a module, the module checked after
// each, and the step predicted before the first and after each pass that changed it.
//
//   absl::StatusOr<bool> remove_copies(hloroof::Module& m);   // true: it changed the module
//   absl::StatusOr<hloroof::PassRun> run = hloroof::run_passes(
//       *module, {{"remove_copies", remove_copies}}, {.device = "h100", .verify_each = true});
//   run->before.step_time_s - run->after.step_time_s;   // what the passes saved (s)
//   run->passes[0].after->hbm_bytes;                    // the step's HBM bytes after the first
//
// A pass edits the module in place with the edits of hloroof/edit.h; run_passes does the rest:
// verify (edit.h) after each pass, stopping with an error that names the pass whose module does
// not verify, print and read back where asked, and predict (predict_step_time).
#ifndef HLOROOF_PASSES_H_
#define HLOROOF_PASSES_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"

namespace hloroof {

// A pass: edits the module in place and returns whether it changed it (one that changed it and
// says not is not predicted again). An error stops the run, the module as the pass left it.
struct Pass {
  std::string name;  // what the report and the errors call it
  std::function<absl::StatusOr<bool>(Module&)> run;
};

struct PassOptions {
  // The device and its slice, resolved once as the command's --device is (resolve_device:
  // "h100", "tpu_v5e:2x2", a JSON file); empty: the default device of the module's platform.
  std::string device;
  // Verify the module after every pass and predict the step after every pass that changed it
  // (PassResult::after); a module that fails verify stops the run with an error naming the
  // pass that left it. False: verify and predict once, after the last pass (each
  // PassResult::after unset; an error then names no single pass).
  bool verify_each = true;
  // Where the module is verified, also print it and read the text back: it must parse to a
  // structurally equal module (structurally_equal), else the run stops with the difference.
  bool reparse = false;
  // The predictions' options. Those of each pass (PassResult) are made without explanations or
  // a timeline, which change no figure; PassRun::before and PassRun::after with these as given.
  PredictOptions predict;
};

// The figures of one predicted step, on one device.
struct StepFigures {
  double step_time_s = 0;           // expected
  double roofline_step_time_s = 0;  // every op at its roofline time
  double flops = 0;                 // per step
  double hbm_bytes = 0;             // per step
  double collective_exposed_s = 0;  // collective time the schedule waits for
  double collective_hidden_s = 0;   // collective time overlapped with other work
};
StepFigures step_figures(const Prediction& prediction);

// What one pass did.
struct PassResult {
  std::string name;
  bool changed = false;   // what the pass returned
  bool verified = false;  // the module it left passed verify (always, with verify_each)
  StepFigures before;     // the step before the pass
  // The step after it: predicted again when it changed the module, else `before`. Unset
  // without verify_each.
  std::optional<StepFigures> after;
};

struct PassRun {
  // The module as given. Its records carry no instruction pointers when a pass changed the
  // module (an instruction they pointed to may be gone); `after`'s point into the module.
  Prediction before;
  Prediction after;  // the module as the passes left it
  std::vector<PassResult> passes;  // in the order they ran
  bool changed() const;            // some pass changed the module
};

// Runs `passes` on `module` in order. The module must verify as given. Errors, each naming
// the pass and its place ("after pass fuse (2 of 3): ..."): a pass's own error, a module that
// does not verify after it (verify's message: computation, instruction and rule), a printed
// module that reads back otherwise (`reparse`), a prediction's error; and the device's.
absl::StatusOr<PassRun> run_passes(Module& module, absl::Span<const Pass> passes,
                                   const PassOptions& options = {});

}  // namespace hloroof

#endif  // HLOROOF_PASSES_H_
