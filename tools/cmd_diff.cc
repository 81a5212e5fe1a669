// `hloroof diff BEFORE AFTER [--device D]`: two versions of a program on one device, what
// changed per op and per step.
#include <array>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/analysis.h"
#include "hloroof/diff.h"
#include "hloroof/memory.h"
#include "hloroof/output_file.h"
#include "hloroof/predict.h"
#include "input.h"
#include "hloroof/threads.h"

namespace hloroof::cli {
namespace {

struct Side {
  LoadedModule loaded;
  Prediction prediction;
  int64_t peak_bytes = 0;
};

// Both sides: the modules read side by side (one after the other when one is standard input),
// then each predicted and its memory analysed, the four at once. Messages and errors come in
// the order of the sides; `device` empty: the one the first module implies.
absl::StatusOr<std::array<Side, 2>> predict_sides(const std::array<std::string, 2>& paths,
                                                  std::string device,
                                                  const PredictOptions& options,
                                                  const std::vector<std::string>& settings) {
  std::array<std::optional<absl::StatusOr<LoadedModule>>, 2> loaded;
  auto load = [&](size_t k) { loaded[k] = load_input(paths[k], ""); };
  if (paths[0] == "-" || paths[1] == "-") {
    load(0);  // the second read once the first is predicted, as one side after the other
  } else {
    detail::for_each_on_threads(2, cores(), load);
  }
  // The first side's device is the second's when none is given.
  std::array<std::optional<absl::StatusOr<DeviceTarget>>, 2> choice;
  auto resolve = [&](size_t k) {
    absl::StatusOr<DeviceChoice> chosen =
        choose_device(**loaded[k], device, {.settings = settings});
    if (chosen.ok() && !chosen->profile_note.empty()) {
      print_message("note: ", chosen->profile_note);
    }
    choice[k] = chosen.ok() ? absl::StatusOr<DeviceTarget>(std::move(chosen->target))
                            : absl::StatusOr<DeviceTarget>(chosen.status());
  };
  if (!loaded[0]->ok()) return loaded[0]->status();
  print_input_messages(**loaded[0]);
  resolve(0);
  if (!choice[0]->ok()) return choice[0]->status();
  if (device.empty()) device = (*choice[0])->spec.name;
  if (loaded[1] && loaded[1]->ok()) resolve(1);
  // Each side ready is predicted and analysed; what the second side says comes once the
  // first is done, as one side after the other.
  const size_t ready = choice[1] && choice[1]->ok() ? 2 : 1;
  std::array<std::optional<absl::StatusOr<Prediction>>, 2> predicted;
  std::array<std::optional<absl::StatusOr<MemoryReport>>, 2> memory;
  // Task 2k predicts side k, task 2k + 1 analyses its memory.
  auto analyse = [&](size_t task) {
    const size_t k = task / 2;
    const Module& module = (*loaded[k])->module;
    if (task % 2 == 0) {
      predicted[k] = predict_step_time(module, **choice[k], options);
    } else {
      // Only the peak is shown: liveness, no buffer assignment.
      memory[k] = analyze_memory(module, {.top_buffers = 1,
                                          .live_curves = false,
                                          .allocations = false,
                                          .buffer_assignment = false});
    }
  };
  detail::for_each_on_threads(2 * ready, cores(), analyse);
  std::array<Side, 2> sides;
  for (size_t k = 0; k < 2; ++k) {
    if (k == 1) {
      if (!loaded[1]) {
        load(1);
        if (loaded[1]->ok()) resolve(1);
      }
      if (!loaded[1]->ok()) return loaded[1]->status();
      print_input_messages(**loaded[1]);
      if (!choice[1]->ok()) return choice[1]->status();
      if (!predicted[1])
        detail::for_each_on_threads(2, cores(), [&](size_t task) { analyse(2 + task); });
    }
    if (!predicted[k]->ok()) return predicted[k]->status();
    if (!memory[k]->ok()) return memory[k]->status();
    add_input_diagnostics(input_diagnostics(**loaded[k], **choice[k], /*loaded_notes_shown=*/true),
                          **predicted[k]);
    sides[k] = {*std::move(*loaded[k]), *std::move(*predicted[k]), (*memory[k])->peak_bytes};
  }
  return sides;
}

// Every op's change, one row each, the JSON's op keys as columns (the step figures are the
// text's and the JSON's).
void print_csv(const PredictionDiff& diff) {
  std::cout << csv_line({"name", "before_name", "computation", "opcode", "change",
                         "before_time_s", "after_time_s", "delta_time_s", "before_flops",
                         "after_flops", "before_hbm_bytes", "after_hbm_bytes"});
  for (const OpDelta& op : diff.ops) {
    std::cout << csv_line({op.name, op.before_name.empty() ? op.name : op.before_name,
                           op.computation, op.opcode, std::string(op_change_name(op.change)),
                           csv_number(op.before_time_s), csv_number(op.after_time_s),
                           csv_number(op.delta_time_s()), csv_number(op.before_flops),
                           csv_number(op.after_flops), csv_number(op.before_hbm_bytes),
                           csv_number(op.after_hbm_bytes)});
  }
}

constexpr Flag kDevice{.name = "--device",
                       .type = FlagType::kText,
                       .value_name = "D",
                       .help = "the device of both sides, as `hloroof predict --device` takes it",
                       .default_help = "the one BEFORE implies, as `predict` infers it"};
constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "ops listed; 0: all",
                    .default_value = "10"};
constexpr Flag kJson{.name = "--json",
                     .help = "every op's change as JSON (docs/reports.md, \"diff\")"};
constexpr Flag kCsv{.name = "--csv",
                    .help = "every op's change instead, one CSV row each, the JSON's op keys as "
                            "columns"};
constexpr Flag kTrace{.name = "--trace",
                      .type = FlagType::kText,
                      .value_name = "OUT.json",
                      .help = "both predicted timelines in one Perfetto trace, each from 0 "
                              "(tracks \"before: ...\" and \"after: ...\"; each op's change in "
                              "its args)"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kDevice, &kSetFlag, &kTop,  &kTripCountFlag,
                                  &kJson,   &kCsv,     &kTrace};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kDiffCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() != 2) {
    return usage_error("expected two HLO files", kDiffCommand.usage);
  }
  if (args->positional[0] == "-" && args->positional[1] == "-") {
    return usage_error("standard input ('-') can be read once: give one module as '-' at most",
                       kDiffCommand.usage);
  }
  absl::StatusOr<SharedOptions> shared = parse_shared_options(*args);
  if (!shared.ok()) return usage_error(shared.status().message(), kDiffCommand.usage);
  const size_t top = shared->top;
  PredictOptions options;
  options.explain = false;                  // no output shows an op's explanation
  options.timeline = args->has(kTrace);  // only the trace shows the timelines
  options.default_trip_count = shared->trip_count;
  // Both sides on the same device; without --device, the one the first module implies.
  absl::StatusOr<std::array<Side, 2>> sides =
      predict_sides({args->positional[0], args->positional[1]}, args->text(kDevice), options,
                    args->all(kSetFlag));
  if (!sides.ok()) return fail(sides.status());
  Side* const before = &(*sides)[0];
  Side* const after = &(*sides)[1];
  const std::string device = args->text(kDevice);

  const PredictionDiff diff = diff_predictions(before->prediction, after->prediction,
                                               before->peak_bytes, after->peak_bytes);
  if (args->has(kTrace)) {
    // Neither module read (nor a device file) may be overwritten.
    const std::vector<std::string> inputs = {args->positional[0], before->loaded.file,
                                             args->positional[1], after->loaded.file, device};
    absl::Status s =
        write_output_file(args->text(kTrace),
                          diff_to_trace_json(diff, before->prediction, after->prediction),
                          "the trace", inputs);
    if (!s.ok()) return fail(s);
  }
  if (shared->csv) {
    print_csv(diff);
    return kExitOk;
  }
  if (shared->json) {
    write_diff_json(diff, std::cout);
  } else {
    std::cout << render_diff(diff, top);
  }
  if (args->has(kTrace) && !shared->json) {
    std::cout << "\ntrace written to " << args->text(kTrace) << "\n";
  }
  return kExitOk;
}

}  // namespace

const Command kDiffCommand = {
    "diff",
    "two versions of a program on one device: what changed per op and per step",
    "Predicts one step of each module (HLO files, dump directories or - for standard input)\n"
    "on the same device and shows what changed: step time (expected and at the roofline),\n"
    "FLOPs, HBM bytes and the memory peak per step, then the ops whose time per step changed\n"
    "most. Ops are matched by computation and name, then (a pass renames them) by opcode and\n"
    "the op_name of their metadata; the rest were added or removed. Use it on a module before\n"
    "and after a pass, two compiler flag settings, or two dumps of one job. What the two\n"
    "predictions warn of comes under the first lines, their assumptions at the end, each once\n"
    "(after \"before: \" or \"after: \" where one side alone says it).\n",
    run,
    "hloroof diff BEFORE AFTER [--device D[:TOPOLOGY]] [--top N] [--trip-count N]\n"
    "       [--json | --csv] [--trace OUT.json]",
    kFlags,
    {},
    "example:\n"
    "  hloroof diff before_pass.hlo after_pass.hlo --device h100:1x8\n",
};

}  // namespace hloroof::cli
