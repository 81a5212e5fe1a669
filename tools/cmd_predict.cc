// `hloroof predict FILE [--device D] [--topology T] [--json] [--top N] [--by B] [--filter RE]
// [--trace OUT] [--roofline OUT] [--xspace DIR]`: the predicted step time of an HLO module on a
// device, and what it is made of, as XProf would show a profile of it.
#include <algorithm>
#include <chrono>
#include <functional>
#include <future>
#include <iostream>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/advise.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/output_file.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "hloroof/topology.h"
#include "hloroof/xspace.h"
#include "input.h"
#include "re2/re2.h"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage =
    "hloroof predict FILE [--device D] [--topology T] [--json | --csv] [--top N]\n"
    "       [--by op|category|scope] [--depth N] [--filter RE] [--trace OUT.json]\n"
    "       [--roofline OUT.svg] [--formula F]\n"
    "       [--trip-count N] [--module M] [--model-flops F | --params N --tokens D]\n"
    "       [--entry NAME] [--xspace LOG_DIR [--steps N]]";

absl::StatusOr<CollectiveFormula> parse_formula(std::string_view name) {
  for (CollectiveFormula f : {CollectiveFormula::kNetwork, CollectiveFormula::kXlaGpuNccl,
                              CollectiveFormula::kXlaGpuSol}) {
    if (collective_formula_name(f) == name) return f;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--formula: unknown formula '", std::string(name),
                   "'; expected network, xla-gpu-nccl or xla-gpu-sol"));
}

absl::StatusOr<OpGrouping> parse_grouping(std::string_view name) {
  for (OpGrouping by : {OpGrouping::kOp, OpGrouping::kCategory, OpGrouping::kScope}) {
    if (op_grouping_name(by) == name) return by;
  }
  return absl::InvalidArgumentError(absl::StrCat("--by: unknown grouping '", std::string(name),
                                                 "'; expected op, category or scope"));
}

// Now, ns since the Unix epoch: the predicted profile's start time.
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args = parse_args(
      words, {.flags = {"--json", "--csv"},
              .options = {"--device", "--topology", "--top", "--by", "--depth", "--filter",
                          "--trace", "--roofline", "--formula", "--trip-count", "--module",
                          "--entry", "--model-flops", "--params", "--tokens", "--xspace",
                          "--steps"}});
  if (!args.ok()) return usage_error(args.status().message(), kUsage);
  if (args->flag("--help")) {
    std::cout << kPredictCommand.help;
    return kExitOk;
  }
  if (args->positional.size() != 1) return usage_error("expected one HLO file", kUsage);
  if (args->flag("--json") && args->flag("--csv")) {
    return usage_error("--json and --csv: one or the other", kUsage);
  }

  PredictOptions options;
  if (args->has("--formula")) {
    absl::StatusOr<CollectiveFormula> f = parse_formula(args->get("--formula"));
    if (!f.ok()) return usage_error(f.status().message(), kUsage);
    options.collective_formula = *f;
  }
  if (args->has("--trip-count")) {
    absl::StatusOr<int64_t> n = parse_count("--trip-count", args->get("--trip-count"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    options.default_trip_count = *n;
  }
  absl::StatusOr<ModelFlops> model_flops = model_flops_option(*args);
  if (!model_flops.ok()) return usage_error(model_flops.status().message(), kUsage);
  options.model_flops = model_flops->flops;
  // Only the JSON, the CSV and the trace show each op's explanation.
  options.explain = args->flag("--json") || args->flag("--csv") || args->has("--trace");
  // Only the trace and the XSpace show the timeline.
  options.timeline = args->has("--trace") || args->has("--xspace");
  OpStatsOptions stats;
  stats.filter = args->get("--filter");
  if (const RE2 filter(stats.filter, RE2::Quiet); !filter.ok()) {
    return usage_error(absl::StrCat("--filter: bad pattern '", stats.filter, "': ", filter.error()),
                       kUsage);
  }
  if (args->has("--top")) {
    absl::StatusOr<int64_t> n = parse_count("--top", args->get("--top"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    stats.top = static_cast<size_t>(*n);
  }
  if (args->has("--by")) {
    absl::StatusOr<OpGrouping> by = parse_grouping(args->get("--by"));
    if (!by.ok()) return usage_error(by.status().message(), kUsage);
    stats.by = *by;
  }
  if (args->has("--depth")) {
    absl::StatusOr<int64_t> n = parse_count("--depth", args->get("--depth"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    if (stats.by != OpGrouping::kScope) return usage_error("--depth needs --by scope", kUsage);
    stats.scope_depth = static_cast<int>(std::min<int64_t>(*n, 1 << 20));
  }

  XSpaceOptions xspace;
  if (args->has("--steps")) {
    if (!args->has("--xspace")) return usage_error("--steps needs --xspace", kUsage);
    absl::StatusOr<int64_t> n = parse_count("--steps", args->get("--steps"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    if (*n < 1 || *n > kMaxXSpaceSteps) {
      return usage_error(absl::StrCat("--steps: ", *n, " is not in [1, ", kMaxXSpaceSteps, "]"),
                         kUsage);
    }
    xspace.steps = *n;
  }

  absl::StatusOr<LoadedModule> loaded = load_input(args->positional[0], args->get("--module"),
                                                    args->get("--entry"));
  if (!loaded.ok()) return fail(loaded.status());
  print_input_messages(*loaded);
  const Module* module = &loaded->module;
  // The device spec is needed for the report's roofs as well as for the prediction.
  absl::StatusOr<DeviceTarget> choice =
      resolve_device(device_or_profile(args->get("--device"), *loaded), module,
                     {.topology = args->get("--topology"), .settings = args->all("--set")});
  if (!choice.ok()) return fail(choice.status());
  const DeviceSpec* spec = &choice->spec;
  options.topology = choice->topology;
  // The text ends with advice, which reads the memory analysis, and the trace shows its live
  // bytes: then the analysis runs beside the prediction (neither reads the other's results).
  // Neither shows the allocations themselves (a wide tuple has one per leaf).
  const bool text = !args->flag("--json") && !args->flag("--csv");
  const bool report_memory = text || args->has("--trace");
  const MemoryOptions report_options = {.live_curves = args->has("--trace"),
                                        .entry_curve = false,
                                        .allocations = false};
  // The XSpace's buffer assignment needs every buffer and allocation: where the report's
  // analysis is made too, one analysis lists them and the report is that one narrowed.
  std::optional<absl::StatusOr<MemoryReport>> analyzed, xspace_memory;
  std::optional<absl::StatusOr<Prediction>> predicted;
  // The text's advice: the findings of the prediction alone made on its thread, while the
  // memory analysis runs; those of the memory report once it is made.
  std::optional<AdviceMaker> advice_maker;
  std::optional<absl::StatusOr<std::string>> report;
  // The XSpace is written once the prediction is made, while the memory analysis its buffer
  // assignment needs may still run: its device's planes are laid out meanwhile.
  std::promise<const MemoryReport*> xspace_memory_made;
  std::optional<absl::StatusOr<XSpaceFile>> xspace_file;
  // The report's analysis from the XSpace's, narrowed, and every other buffer it describes
  // freed: as soon as the XSpace has read it, else once both have run.
  const auto narrow_xspace_memory = [&] {
    if (report_memory) {
      analyzed = !xspace_memory->ok() ? absl::StatusOr<MemoryReport>(xspace_memory->status())
                                      : narrow_memory_report(**xspace_memory, report_options);
    }
    xspace_memory.reset();
  };
  const auto predict = [&] {
    predicted = predict_step_time(*module, *spec, options);
    if (!predicted->ok()) return;
    if (text) {
      advice_maker.emplace(*module, **predicted, *spec,
                           AdviseOptions{.top = 5, .evidence_rows = 3});
    }
    add_input_diagnostics(*loaded, *choice, **predicted);
    if (!model_flops->note.empty()) (*predicted)->assumptions.push_back(model_flops->note);
    // The report (its one error, a filter RE2 cannot compile, is caught with the arguments).
    if (text) report = render_text_report(**predicted, *spec, stats);
    if (args->has("--xspace")) {
      xspace.start_time_ns = now_ns();
      xspace.threads = cores();  // the writer makes two parts at a time at most
      xspace.memory_future = xspace_memory_made.get_future().share();
      xspace.memory_read = narrow_xspace_memory;
      // Only the trace reads the timeline after the XSpace.
      if (!args->has("--trace")) {
        xspace.timeline_read = [&] { std::vector<TimelineEvent>().swap((*predicted)->timeline); };
      }
      xspace.inputs = {args->positional[0], loaded->file, args->get("--device")};
      xspace_file = write_xspace(*module, **predicted, *spec, args->get("--xspace"), xspace);
    }
  };
  std::vector<std::function<void()>> analyses;
  if (args->has("--xspace")) {
    MemoryOptions wide = xspace_memory_options(xspace);
    if (report_memory) {
      const size_t every = wide.placements;
      wide = report_options;
      wide.placements = every;
      wide.allocations = true;
    }
    // First: where the two run one after the other, the XSpace finds it made (a failed one is
    // made again, and its failure said, by the XSpace writer).
    analyses.push_back([&, wide] {
      xspace_memory = analyze_memory(*module, *spec, wide);
      xspace_memory_made.set_value(xspace_memory->ok() ? &**xspace_memory : nullptr);
    });
  } else if (report_memory) {
    analyses.push_back([&] { analyzed = analyze_memory(*module, *spec, report_options); });
  }
  analyses.push_back(predict);
  for_each_concurrently(analyses.size(), [&](size_t k) { analyses[k](); });
  if (xspace_memory) narrow_xspace_memory();  // not read by the XSpace (failed, or none)
  absl::StatusOr<Prediction>& prediction = *predicted;
  if (!prediction.ok()) return fail(prediction.status());
  if (xspace_file && !xspace_file->ok()) return fail(xspace_file->status());

  // What an output must not overwrite: the module read, and a device spec file.
  const std::vector<std::string> inputs = {args->positional[0], loaded->file,
                                           args->get("--device")};
  // The trace is written while the text's advice and the roofline chart are made, each a task
  // of its own (each only reads the prediction and the memory report), the longest first;
  // nothing is written after a failed trace (the XSpace was, with the prediction).
  absl::Status trace_written;
  std::string roofline_svg;
  std::optional<absl::StatusOr<Advice>> advice;
  std::vector<std::function<void()>> tasks;
  if (args->has("--trace")) {
    tasks.push_back([&] {
      // The trace's live-HBM counter comes from the memory analysis of the same module.
      const absl::StatusOr<MemoryReport>& memory = *analyzed;
      trace_written =
          !memory.ok() ? memory.status()
                       : write_output_file(
                             args->get("--trace"),
                             [&](std::ostream& out) {
                               write_prediction_trace_json(out, *prediction, &*memory,
                                                           writer_threads());
                             },
                             "the trace", inputs);
    });
  }
  if (text) {
    // The report ends with what to fix (`hloroof advise` gives every finding).
    tasks.push_back([&] {
      const absl::StatusOr<MemoryReport>& memory = *analyzed;
      advice = !memory.ok() ? absl::StatusOr<Advice>(memory.status())
                            : advice_maker->finish(*memory);
    });
  }
  if (args->has("--roofline")) {
    tasks.push_back([&] {
      roofline_svg = render_roofline_svg(roofline_chart(
          *prediction, *spec, {.by_category = stats.by == OpGrouping::kCategory}));
    });
  }
  for_each_concurrently(tasks.size(), [&](size_t k) { tasks[k](); });
  if (!trace_written.ok()) return fail(trace_written);
  if (args->has("--roofline")) {
    absl::Status s = write_output_file(args->get("--roofline"), roofline_svg, "the roofline",
                                       inputs);
    if (!s.ok()) return fail(s);
  }
  const std::string xspace_summary =
      xspace_file ? render_xspace_summary(**xspace_file, args->get("--xspace")) : "";
  if (args->flag("--csv")) {
    write_ops_csv(std::cout, *prediction, false, true, writer_threads());
    std::cerr << xspace_summary;
  } else if (args->flag("--json")) {
    write_prediction_json(*prediction, std::cout, writer_threads());
    std::cout << "\n";
    std::cerr << xspace_summary;
  } else {
    if (!report->ok()) return fail(report->status());
    if (!advice->ok()) return fail(advice->status());
    (*advice)->warnings.clear();  // the overview said them
    std::cout << **report << "\n" << render_advice_text(**advice);
    if (!xspace_summary.empty()) std::cout << "\n" << xspace_summary;
  }
  keep_until_exit(std::move(loaded), std::move(choice), std::move(prediction),
                  std::move(analyzed), std::move(xspace_memory));
  return kExitOk;
}

}  // namespace

const Command kPredictCommand = {
    "predict",
    "predicted step time on a device: breakdown, HFU, op stats, trace and roofline",
    "usage: hloroof predict FILE [--device D] [--topology T] [--json | --csv] [--top N]\n"
    "                       [--by op|category|scope] [--depth N] [--filter RE]\n"
    "                       [--trace OUT.json] [--roofline OUT.svg] [--formula F]\n"
    "                       [--trip-count N] [--module M] [--entry NAME]\n"
    "                       [--model-flops F | --params N --tokens D]\n"
    "                       [--xspace LOG_DIR [--steps N]]\n\n"
    "Predicts how long one step of an HLO module (FILE, or - for standard input) takes on a\n"
    "device, without running it: every op's roofline time, every collective's time on the\n"
    "slice's network, composed along the module's schedule with async collectives overlapping\n"
    "the work between their start and done; loops run trip-count times. The step time is the\n"
    "expected one: each op raised from its roofline to what measured tables say the device\n"
    "reaches (GEMMs, collectives, HBM; TPUs borrow TPU7x's, and say so). Prints what XProf\n"
    "shows of a profiled step: an overview (step time, its breakdown into compute, memory,\n"
    "exposed collectives and overhead, HFU (hardware FLOP utilization: every FLOP that runs,\n"
    "rematerialized ones included, over the peak of the type that runs most), MFU when the\n"
    "model's FLOPs are given, HBM bandwidth used, unknown work, assumptions), the\n"
    "HLO op stats (time, share of the step, FLOP rate, HBM bandwidth, arithmetic intensity,\n"
    "bound by, roofline efficiency), the collectives, and the five findings of `hloroof\n"
    "advise` with the most step time at stake.\n\n"
    "options:\n"
    "  --device D         a built-in device (`hloroof devices` lists them), optionally with\n"
    "                     its topology (tpu_v5e:4x4, h100:2x8), or a device JSON file;\n"
    "                     default: h100 for a GPU module (cuBLAS/cuDNN/Triton custom calls,\n"
    "                     GPU backend configs), else tpu_v5e (said in the assumptions)\n"
    "  --topology T       the slice: chips per torus axis (4x4, 4x4x4) or GPU nodes x GPUs\n"
    "                     per node (2x8), as after --device's ':'; the two must agree;\n"
    "                     default: the smallest that holds the module's devices\n"
    "  --json             one JSON object instead: step, breakdown, hfu, mfu, assumptions,\n"
    "                     unknown_work, every op (bound: compute, memory, collective or\n"
    "                     overhead; resource: the roofline term)\n"
    "  --csv              every op as one CSV row instead, the JSON's op keys as columns\n"
    "                     (nested ones as collective.kind, async.stream, ...)\n"
    "  --top N            rows of the op stats and collectives (default 20; 0: all)\n"
    "  --by B             one row per op (default), per category (\"loop fusion\", ...) or\n"
    "                     per scope (the framework op_name without its last part)\n"
    "  --depth N          with --by scope: keep the first N parts of op_name\n"
    "  --filter RE        keep ops whose name, opcode or op_name matches the RE2 pattern\n"
    "                     (--top, --by, --depth and --filter shape the text tables only;\n"
    "                     --json and --trace hold every op, --roofline draws every op but\n"
    "                     collectives, or one point per category with --by category)\n"
    "  --trace OUT.json   write the predicted timeline as a Chrome trace (Perfetto,\n"
    "                     chrome://tracing): ops with their costs, loops, counters of work\n"
    "                     done and of live HBM bytes (the memory analysis of the module)\n"
    "  --roofline OUT.svg write a roofline plot: one point per op (per category with\n"
    "                     --by category) under the device's roofs\n"
    "  --formula F        collective model: network (default), xla-gpu-nccl, xla-gpu-sol\n"
    "  --trip-count N     trip count assumed for loops whose count cannot be told (default 1)\n"
    "  --model-flops F    the model's FLOPs of one step over all devices: gives MFU (model FLOP\n"
    "                     utilization) = F / (devices x step time x peak), as MaxText counts it\n"
    "  --params N --tokens D\n"
    "                     the same as --model-flops 6ND (a dense model's training step: 6 FLOPs\n"
    "                     per parameter per token, attention not counted)\n"
    "  --module NAME      FILE is an XLA dump directory (--xla_dump_to): read its module NAME\n"
    "                     (default: the largest jit_* module after optimizations)\n"
    "  --entry NAME       take computation NAME as the step (a module that marks none ENTRY,\n"
    "                     e.g. a dump cut off, has no step time without it; the report says\n"
    "                     so at its top)\n"
    "  --xspace LOG_DIR   write the predicted step as the profile XProf and TensorBoard open:\n"
    "                     LOG_DIR/plugins/profile/predicted_DEVICE/hloroof-predicted.xplane.pb\n"
    "                     (`xprof --logdir LOG_DIR`; docs/xspace.md says what it holds)\n"
    "  --steps N          with --xspace: predicted steps laid end to end (default 1)\n\n"
    "examples:\n"
    "  hloroof predict train_step.hlo --device tpu_v5e:2x2 --top 10\n"
    "  hloroof predict train_step.hlo --by scope --depth 4 --filter attention\n"
    "  hloroof predict train_step.hlo --trace step.json --roofline roofline.svg\n"
    "  hloroof predict gemm.hlo --device h100:1x8 --formula xla-gpu-nccl --json\n"
    "  hloroof predict train_step.hlo --device tpu_v5e:2x2 --xspace /tmp/logdir\n",
    run,
};

}  // namespace hloroof::cli
