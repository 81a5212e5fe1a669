// `hloroof compare FILE --devices D1,D2,...`: one module's predicted step on several devices,
// side by side, with the ratio to the first.
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "input.h"
#include "util/threads.h"

namespace hloroof::cli {
namespace {

// One module predicted on several devices, and what the outputs need of it.
struct Comparison {
  Comparison(const Args& a, const SharedOptions& o, const LoadedModule& l,
             const std::vector<std::string>& d)
      : args(a), shared(o), loaded(l), module(&l.module), devices(d), count(d.size()) {}

  void resolve();
  void analyse_shared_parts();
  void make(size_t k);
  bool emit(size_t k, int threads);
  bool failed(size_t k, const absl::Status& status);
  void write_text();

  const Args& args;
  const SharedOptions& shared;
  const LoadedModule& loaded;
  const Module* module;
  const std::vector<std::string>& devices;
  const size_t count;
  PredictOptions options;
  bool every_op = false;  // --json or --csv: every op of every device
  std::vector<absl::StatusOr<DeviceTarget>> choices;
  bool resolved = true;   // every device
  bool streamed = false;  // each device's output written as soon as it is made
  std::optional<absl::StatusOr<ModuleCost>> cost;
  std::vector<std::optional<absl::StatusOr<Prediction>>> predicted;
  std::vector<Prediction> predictions;  // what the text shows
  // The text's memory row: whether the module fits each device (JSON and CSV readers ask
  // `memory` for it). The analysis depends on no device: made once, beside the first device's
  // prediction, and each device's capacity checked against it.
  std::optional<absl::StatusOr<MemoryReport>> memory;
  // Streamed, the devices' steps are timed at once, but a prediction makes its op records
  // (most of what it holds) only once at most one device before it is still to be written:
  // two devices' records are held at a time, not one per thread (gemma3 on three threads: 39.9
  // -> 37.0 MB, no slower). The third waits while the first is written, then makes its
  // records while the second is.
  detail::EmitWindow records{2};
  std::vector<std::thread> releases;  // the written predictions being freed
  int exit_code = kExitOk;
};

// Every device resolved first (that is quick).
void Comparison::resolve() {
  choices.reserve(count);
  for (const std::string& d : devices) {
    choices.push_back(resolve_device(d, module, {.settings = args.all("--set")}));
    resolved = resolved && choices.back().ok();
  }
  streamed = every_op && resolved;
  predicted.resize(count);
}

// The cost of the module's instructions depends on no device: analysed once for them all,
// while the devices' measured tables are read. Should it fail (or the module have no step),
// the first prediction says why, as before.
void Comparison::analyse_shared_parts() {
  detail::for_each_on_threads(2, cores(), [&](size_t part) {
    if (part == 0 && module->entry_marked()) cost = analyze_cost(*module, cost_options(options));
    if (part == 1) {
      for (const absl::StatusOr<DeviceTarget>& choice : choices) {
        if (choice.ok()) load_measured_models(choice->spec);
      }
    }
  });
}

void Comparison::make(size_t k) {
  if (!choices[k].ok()) return;
  const size_t top = shared.top;
  PredictOptions each = options;
  if (streamed) each.before_records = [this, k] { records.wait(k); };
  // The text shows the top ops of every device but the first: only those get records.
  if (!every_op && k > 0 && top > 0) each.max_ops = top;
  const DeviceTarget& target = *choices[k];
  absl::StatusOr<Prediction> p = cost && cost->ok()
                                     ? predict_step_time(*module, target, each, **cost)
                                     : predict_step_time(*module, target, each);
  // The text shows the first device's ops (each op's time there is what the others' are
  // compared to) and the top ones of the others.
  if (p.ok() && !every_op && k > 0 && p->ops.size() > top) {
    p->ops.erase(p->ops.begin() + static_cast<std::ptrdiff_t>(top), p->ops.end());
    p->ops.shrink_to_fit();
  }
  predicted[k] = std::move(p);
  if (!every_op && k == 0) memory = analyze_memory(*module, {.top_buffers = 0});
}

// The first device (in the order given) whose device or prediction fails says why, as one
// after the other would; no make waits after it.
bool Comparison::failed(size_t k, const absl::Status& status) {
  exit_code =
      fail(absl::Status(status.code(), absl::StrCat(devices[k], ": ", status.message())));
  records.release_all();
  return false;
}

bool Comparison::emit(size_t k, int threads) {
  if (!choices[k].ok()) return failed(k, choices[k].status());
  absl::StatusOr<Prediction>& p = *predicted[k];
  if (!p.ok()) return failed(k, p.status());
  add_input_diagnostics(loaded, *choices[k], *p);
  if (!shared.model_flops.note.empty()) p->diagnostics.notes.push_back(shared.model_flops.note);
  if (!streamed) {
    predictions.push_back(*std::move(p));
  } else if (shared.csv) {
    write_ops_csv(std::cout, *p, true, k == 0, std::min(threads, writer_threads()));
  } else {
    // Each device's document written as it is made, as `predict --json` writes one.
    std::cout << (k == 0 ? "[" : ",\n");
    write_prediction_json(*p, std::cout, std::min(threads, writer_threads()));
  }
  // Written, a device's prediction is let go: the last one at exit (the kernel frees its
  // memory then); the others on a thread of their own, once the next device may make its
  // records, so that neither the next output nor those records wait while a million ops'
  // records are freed (0.07-0.10 s each on a 16-core host). The text's were moved out.
  if (!streamed) {
    predicted[k].reset();
  } else if (k + 1 < count) {
    auto written = std::make_unique<absl::StatusOr<Prediction>>(*std::move(predicted[k]));
    predicted[k].reset();
    try {
      releases.emplace_back([written = std::move(written)]() mutable { written.reset(); });
    } catch (const std::system_error&) {
      // No thread to be had: the prediction was freed here, as the thread's work unwound.
    }
  }
  records.emitted(k);
  return true;
}

void Comparison::write_text() {
  std::vector<std::optional<CapacityCheck>> fits(count);
  for (size_t k = 0; k < count; ++k) {
    // As analyze_memory with the device checks it: the footprint of XLA's buffer assignment.
    if (memory && memory->ok() && choices[k].ok()) {
      fits[k] = check_capacity((*memory)->footprint_bytes, choices[k]->spec,
                               CapacityBasis::kFootprint);
    }
  }
  std::cout << banner_text(loaded) << render_comparison(predictions, shared.top, fits);
  // Each device's JSON says it in its assumptions; the table shows none.
  if (const std::string set = settings_note(args); !set.empty()) {
    std::cout << "\n" << message_text("note: ", set + ", on every device");
  }
}

// Each device's prediction at the same time as the others'; --json and --csv write each
// device's as soon as it and those before it are made, then let it go. Nothing is written when
// a device cannot be resolved, and what the devices before it wrote stays when a prediction
// fails.
int compare(const Args& args, const SharedOptions& shared,
            const std::vector<std::string>& devices) {
  absl::StatusOr<LoadedModule> loaded =
      load_input(args.positional[0], args.get("--module"), args.get("--entry"));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  auto c = std::make_unique<Comparison>(args, shared, *loaded, devices);
  c->options.default_trip_count = shared.trip_count;
  c->options.model_flops = shared.model_flops.flops;
  c->every_op = shared.json || shared.csv;
  c->options.explain = c->every_op;  // the text table shows no op's explanation
  c->options.timeline = false;       // no output shows the timeline
  c->resolve();
  c->analyse_shared_parts();
  detail::make_then_emit_in_order(
      c->count, cores(), [&](size_t k) { c->make(k); },
      [&](size_t k, int threads) { return c->emit(k, threads); });
  for (std::thread& release : c->releases) release.join();
  if (c->exit_code != kExitOk) return c->exit_code;
  // (Every device was resolved where --json or --csv gets here: all has been written.)
  if (shared.json) {
    std::cout << "]\n";
  } else if (!shared.csv) {
    c->write_text();
  }
  keep_until_exit(std::move(loaded), std::move(c));
  return kExitOk;
}

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(
      words,
      with_shared_options({.options = {"--devices", "--module", "--entry"}}, kModelFlopsOptions),
      kCompareCommand, exit_code);
  if (!args) return exit_code;
  const std::string_view usage = kCompareCommand.usage;
  if (args->positional.size() != 1) return usage_error("expected one HLO file", usage);
  if (!args->has("--devices")) return usage_error("--devices is required", usage);
  absl::StatusOr<std::vector<std::string>> devices = split_device_list(args->get("--devices"));
  if (!devices.ok()) return usage_error(devices.status().message(), usage);
  absl::StatusOr<SharedOptions> shared = parse_shared_options(*args, 5);
  if (!shared.ok()) return usage_error(shared.status().message(), usage);
  return compare(*args, *shared, *devices);
}

}  // namespace

const Command kCompareCommand = {
    "compare",
    "one module's predicted step on several devices, side by side",
    "Predicts one step of an HLO module (FILE, or - for standard input) on each device and\n"
    "shows them side by side: step time and its breakdown with the ratio to the first device,\n"
    "HFU and the peak it is measured against, then each device's costliest ops, what bounds\n"
    "them and how their time compares with the first device's.\n\n"
    "options:\n"
    "  --devices D1,...  devices as `hloroof predict --device` takes them, each with its own\n"
    "                    topology if needed (tpu_v5e:2x2,tpu_v5p:2x2x1,h100:1x4); spaces\n"
    "                    after the commas are fine\n"
    "  --top N           ops listed per device (default 5)\n"
    "  --trip-count N    trip count assumed for loops whose count cannot be told (default 1)\n"
    "  --model-flops F   the model's FLOPs of one step over all devices: adds MFU (as predict)\n"
    "  --params N --tokens D  the same as --model-flops 6ND\n"
    "  --module NAME     FILE is an XLA dump directory: read its module NAME (default: the\n"
    "                    largest jit_* module after optimizations)\n"
    "  --entry NAME      take computation NAME as the step (a module that marks none ENTRY\n"
    "                    has no step time without it)\n"
    "  --json            a JSON array with one `hloroof predict --json` object per device\n"
    "  --csv             every op of every device, one CSV row each: a column `device`\n"
    "                    (h100:1x8), then `hloroof predict --csv`'s columns\n"
    "                    (--json and --csv are written device by device as the predictions\n"
    "                    are made: a device whose prediction fails ends the output there,\n"
    "                    with exit status 1 and why, after the devices before it)\n\n"
    "example:\n"
    "  hloroof compare train_step.hlo --devices tpu_v5e:2x2,tpu_v5p:2x2x1,tpu_v6e:2x2\n",
    run,
    "hloroof compare FILE --devices D1,D2,... [--top N] [--trip-count N] [--module M]\n"
    "       [--json | --csv] [--entry NAME] [--model-flops F | --params N --tokens D]",
};

}  // namespace hloroof::cli
