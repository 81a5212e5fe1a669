// `hloroof compare FILE --devices D1,D2,...`: one module's predicted step on several devices,
// side by side, with the ratio to the first.
#include <algorithm>
#include <cstddef>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/analysis.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "input.h"

namespace hloroof::cli {
namespace {

// "DEVICE: why" for the device `k` given, as one device after the other would say it.
int failed(const std::vector<std::string>& devices, size_t k, const absl::Status& status) {
  return fail(absl::Status(status.code(), absl::StrCat(devices[k], ": ", status.message())));
}

// What the text shows: every op of the first device (each op's time there is what the others'
// are compared to) and the top ones of the others, and whether the module fits each device.
void write_text(const Args& args, const SharedOptions& shared, const LoadedModule& loaded,
                absl::Span<const Prediction> predictions,
                absl::Span<const std::optional<CapacityCheck>> fits) {
  std::cout << banner_text(loaded) << render_comparison(predictions, shared.top, fits);
  // Each device's JSON says it in its assumptions; the table shows none.
  if (const std::string set = settings_note(args); !set.empty()) {
    std::cout << "\n" << message_text("note: ", set + ", on every device");
  }
}

// Each device's prediction at the same time as the others'; --json and --csv write each
// device's as soon as it and those before it are made, then let it go. Nothing is written when
// a device cannot be resolved, and what the devices before it wrote stays when a prediction
// fails: the first device (in the order given) whose device or prediction fails says why.
int compare(const Args& args, const SharedOptions& shared,
            const std::vector<std::string>& devices) {
  absl::StatusOr<LoadedModule> loaded =
      load_input(args.positional[0], args.text(kModuleFlag), args.text(kEntryFlag));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  // Every device resolved first (that is quick), up to the first that is not.
  std::vector<DeviceTarget> targets;
  absl::Status unresolved;
  for (const std::string& d : devices) {
    absl::StatusOr<DeviceChoice> choice =
        choose_device(*loaded, d, {.settings = args.all(kSetFlag)});
    if (!choice.ok()) {
      unresolved = choice.status();
      break;
    }
    targets.push_back(std::move(choice->target));
  }
  const bool every_op = shared.json || shared.csv;  // every op of every device
  DeviceComparisonOptions options;
  options.predict.default_trip_count = shared.trip_count;
  options.predict.model_flops = shared.model_flops.flops;
  options.predict.explain = every_op;  // the text table shows no op's explanation
  options.predict.timeline = false;    // no output shows the timeline
  options.threads = cores();
  if (!every_op) {
    options.later_ops = shared.top;
    options.check_capacity = true;  // the text's memory row
  }
  auto add_diagnostics = [&](size_t k, Prediction& p) {
    add_input_diagnostics(input_diagnostics(*loaded, targets[k], /*loaded_notes_shown=*/true),
                          p);
    if (!shared.model_flops.note.empty()) p.diagnostics.notes.push_back(shared.model_flops.note);
  };
  int exit_code = kExitOk;
  std::optional<absl::StatusOr<Prediction>> last;  // the last one written, freed at exit
  if (every_op && unresolved.ok()) {
    options.each = [&](size_t k, absl::StatusOr<Prediction>& p, int threads) {
      if (!p.ok()) {
        exit_code = failed(devices, k, p.status());
        return false;
      }
      add_diagnostics(k, *p);
      if (shared.csv) {
        write_ops_csv(std::cout, *p, true, k == 0, std::min(threads, writer_threads()));
      } else {
        // Each device's document written as it is made, as `predict --json` writes one.
        std::cout << (k == 0 ? "[" : ",\n");
        write_prediction_json(*p, std::cout, std::min(threads, writer_threads()));
      }
      if (k + 1 == devices.size()) last = std::move(p);
      return true;
    };
  }
  DeviceComparison c = compare_devices(loaded->module, targets, std::move(options));
  if (exit_code != kExitOk) return exit_code;
  std::vector<Prediction> predictions;  // what the text shows
  for (size_t k = 0; k < c.predictions.size(); ++k) {
    absl::StatusOr<Prediction>& p = c.predictions[k];
    if (!p.ok()) return failed(devices, k, p.status());
    add_diagnostics(k, *p);
    predictions.push_back(*std::move(p));
  }
  if (!unresolved.ok()) return failed(devices, targets.size(), unresolved);
  // (With --json or --csv, all has been written.)
  if (shared.json) {
    std::cout << "]\n";
  } else if (!shared.csv) {
    write_text(args, shared, *loaded, predictions, c.fits);
  }
  keep_until_exit(std::move(loaded), std::move(targets), std::move(c), std::move(predictions),
                  std::move(last));
  return kExitOk;
}

constexpr Flag kDevices{
    .name = "--devices",
    .type = FlagType::kText,
    .value_name = "D1,...",
    .help = "devices as `hloroof predict --device` takes them, each with its own topology if "
            "needed (tpu_v5e:2x2,tpu_v5p:2x2x1,h100:1x4); spaces after the commas are fine; "
            "required"};
constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "ops listed per device; 0: all",
                    .default_value = "5"};
constexpr Flag kJson{
    .name = "--json",
    .help = "a JSON array with one `hloroof predict --json` object per device"};
constexpr Flag kCsv{.name = "--csv",
                    .help = "every op of every device, one CSV row each: a column `device` "
                            "(h100:1x8), then `hloroof predict --csv`'s columns"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kDevices,    &kSetFlag,   &kTop,        &kTripCountFlag,
                                  &kModelFlopsFlag, &kParamsFlag, &kTokensFlag, &kModuleFlag,
                                  &kEntryFlag,  &kJson,      &kCsv};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kCompareCommand, exit_code);
  if (!args) return exit_code;
  const std::string_view usage = kCompareCommand.usage;
  if (args->positional.size() != 1) return usage_error("expected one HLO file", usage);
  if (!args->has(kDevices)) return usage_error("--devices is required", usage);
  absl::StatusOr<std::vector<std::string>> devices = split_device_list(args->text(kDevices));
  if (!devices.ok()) return usage_error(devices.status().message(), usage);
  absl::StatusOr<SharedOptions> shared = parse_shared_options(*args);
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
    "them and how their time compares with the first device's.\n",
    run,
    "hloroof compare FILE --devices D1,D2,... [--top N] [--trip-count N] [--module M]\n"
    "       [--json | --csv] [--entry NAME] [--model-flops F | --params N --tokens D]",
    kFlags,
    "--json and --csv are written device by device as the predictions are made: a device\n"
    "whose prediction fails ends the output there, with exit status 1 and why, after the\n"
    "devices before it.\n",
    "example:\n"
    "  hloroof compare train_step.hlo --devices tpu_v5e:2x2,tpu_v5p:2x2x1,tpu_v6e:2x2\n",
};

}  // namespace hloroof::cli
