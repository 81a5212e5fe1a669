// `hloroof predict FILE [--device D] [--topology T] [--json] [--top N] [--by B] [--filter RE]
// [--trace OUT] [--roofline OUT] [--xspace DIR]`: the predicted step time of an HLO module on a
// device, and what it is made of, as XProf would show a profile of it.
#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/advise.h"
#include "hloroof/analysis.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/output_file.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"
#include "hloroof/topology.h"
#include "hloroof/xspace.h"
#include "input.h"
#include "re2/re2.h"
#include "hloroof/threads.h"

namespace hloroof::cli {
namespace {

constexpr Flag kDevice{
    .name = "--device",
    .type = FlagType::kText,
    .value_name = "D",
    .help = kDeviceFlag.help,
    .default_help = "h100 for a GPU module (cuBLAS/cuDNN/Triton custom calls, GPU backend "
                    "configs), else tpu_v5e (said in the assumptions)"};
constexpr Flag kTopology{
    .name = "--topology",
    .type = FlagType::kText,
    .value_name = "T",
    .help = "the slice: chips per torus axis (4x4, 4x4x4) or GPU nodes x GPUs per node (2x8), "
            "as after --device's ':'; the two must agree",
    .default_help = "the smallest that holds the module's devices"};
constexpr Flag kJson{
    .name = "--json",
    .help = "one JSON object instead: step, breakdown, hfu, mfu, assumptions, unknown_work, "
            "every op (bound: compute, memory, collective or overhead; resource: the roofline "
            "term)"};
constexpr Flag kCsv{.name = "--csv",
                    .help = "every op as one CSV row instead, the JSON's op keys as columns "
                            "(nested ones as collective.kind, async.stream, ...)"};
constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "rows of the op stats and collectives; 0: all",
                    .default_value = "20"};
constexpr Flag kBy{.name = "--by",
                   .type = FlagType::kChoice,
                   .help = "one row per op, per category (\"loop fusion\", ...) or per scope "
                           "(the framework op_name without its last part)",
                   .default_value = "op",
                   .choices = "op|category|scope"};
constexpr Flag kDepth{.name = "--depth",
                      .type = FlagType::kCount,
                      .value_name = "N",
                      .help = "with --by scope: keep the first N parts of op_name"};
constexpr Flag kFilter{
    .name = "--filter",
    .type = FlagType::kText,
    .value_name = "RE",
    .help = "keep ops whose name, opcode or op_name matches the RE2 pattern (--top, --by, "
            "--depth and --filter shape the text tables only; --json and --trace hold every op, "
            "--roofline draws every op but collectives, or one point per category with --by "
            "category)"};
constexpr Flag kTrace{
    .name = "--trace",
    .type = FlagType::kText,
    .value_name = "OUT.json",
    .help = "write the predicted timeline as a Chrome trace (Perfetto, chrome://tracing): ops "
            "with their costs, loops, counters of work done and of live HBM bytes (the memory "
            "analysis of the module)"};
constexpr Flag kRoofline{.name = "--roofline",
                         .type = FlagType::kText,
                         .value_name = "OUT.svg",
                         .help = "write a roofline plot: one point per op (per category with "
                                 "--by category) under the device's roofs"};
constexpr Flag kFormula{.name = "--formula",
                        .type = FlagType::kText,
                        .value_name = "F",
                        .help = "collective model: network, xla-gpu-nccl or xla-gpu-sol",
                        .default_value = "network"};
constexpr Flag kModule{.name = "--module",
                       .type = FlagType::kText,
                       .value_name = "NAME",
                       .help = "FILE is an XLA dump directory (--xla_dump_to): read its module "
                               "NAME",
                       .default_help = kModuleFlag.default_help};
constexpr Flag kEntry{
    .name = "--entry",
    .type = FlagType::kText,
    .value_name = "NAME",
    .help = "take computation NAME as the step (a module that marks none ENTRY, e.g. a dump cut "
            "off, has no step time without it; the report says so at its top)"};
constexpr Flag kXSpace{
    .name = "--xspace",
    .type = FlagType::kText,
    .value_name = "LOG_DIR",
    .help = "write the predicted step as the profile XProf and TensorBoard open: "
            "LOG_DIR/plugins/profile/predicted_DEVICE/hloroof-predicted.xplane.pb (`xprof "
            "--logdir LOG_DIR`; docs/xspace.md says what it holds)"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {
    &kDevice,        &kTopology,       &kSetFlag,    &kJson,       &kCsv,
    &kTop,           &kBy,             &kDepth,      &kFilter,     &kTrace,
    &kRoofline,      &kFormula,        &kTripCountFlag, &kModelFlopsFlag, &kParamsFlag,
    &kTokensFlag,    &kModule,         &kEntry,  &kXSpace,     &kStepsFlag};

absl::StatusOr<OpGrouping> parse_grouping(std::string_view name) {
  for (OpGrouping by : {OpGrouping::kOp, OpGrouping::kCategory, OpGrouping::kScope}) {
    if (op_grouping_name(by) == name) return by;
  }
  return absl::InvalidArgumentError(absl::StrCat("--by: unknown grouping '", std::string(name),
                                                 "'; expected op, category or scope"));
}

// What the words ask for.
struct Request {
  Args args;
  SharedOptions shared;
  PredictOptions predict;
  OpStatsOptions stats;
  bool text = false;  // the text report (neither --json nor --csv)
};

// The text tables' options (--filter, --top, --by, --depth). Errors are usage errors.
absl::Status parse_stats_options(const Request& request, OpStatsOptions& stats) {
  const Args& args = request.args;
  stats.filter = args.text(kFilter);
  if (const RE2 filter(stats.filter, RE2::Quiet); !filter.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--filter: bad pattern '", stats.filter, "': ", filter.error()));
  }
  stats.top = request.shared.top;
  absl::StatusOr<OpGrouping> by = parse_grouping(args.text(kBy));
  if (!by.ok()) return by.status();
  stats.by = *by;
  if (args.has(kDepth)) {
    if (stats.by != OpGrouping::kScope) {
      return absl::InvalidArgumentError("--depth needs --by scope");
    }
    stats.scope_depth = static_cast<int>(std::min<int64_t>(args.count(kDepth), 1 << 20));
  }
  return absl::OkStatus();
}

// The request of `args` (one positional argument, the module). Errors are usage errors.
absl::StatusOr<Request> parse_request(Args args) {
  if (args.positional.size() != 1) return absl::InvalidArgumentError("expected one HLO file");
  Request request;
  request.args = std::move(args);
  const Args& a = request.args;
  absl::StatusOr<SharedOptions> shared = parse_shared_options(a);
  if (!shared.ok()) return shared.status();
  request.shared = *std::move(shared);
  PredictOptions& options = request.predict;
  absl::StatusOr<CollectiveFormula> formula =
      collective_formula_from_name(a.text(kFormula), kFormula.name);
  if (!formula.ok()) return formula.status();
  options.collective_formula = *formula;
  options.default_trip_count = request.shared.trip_count;
  options.model_flops = request.shared.model_flops.flops;
  request.text = !request.shared.json && !request.shared.csv;
  // Only the JSON, the CSV and the trace show each op's explanation.
  options.explain = !request.text || a.has(kTrace);
  // Only the trace and the XSpace show the timeline.
  options.timeline = a.has(kTrace) || a.has(kXSpace);
  if (absl::Status s = parse_stats_options(request, request.stats); !s.ok()) return s;
  return request;
}

// The analysis the outputs need. The text ends with advice, which reads the memory analysis,
// and the trace shows its live bytes: then the analysis runs beside the prediction. Neither
// shows the allocations themselves (a wide tuple has one per leaf). The prediction, once made,
// gets what loading and the device choice said, and the text report is made of it while the
// memory analysis may still run.
AnalysisOptions analysis_options(const Request& request, const AnalysisInput& in,
                                 std::optional<absl::StatusOr<std::string>>& report) {
  const Args& args = request.args;
  AnalysisOptions options;
  options.predict = request.predict;
  if (request.text || args.has(kTrace)) {
    options.memory = MemoryOptions{
        .live_curves = args.has(kTrace), .entry_curve = false, .allocations = false};
  }
  if (request.text) options.advise = AdviseOptions{.top = 5, .evidence_rows = 3};
  options.threads = cores();
  if (args.has(kXSpace)) {
    options.xspace_dir = args.text(kXSpace);
    options.xspace.steps = request.shared.steps;
    options.xspace.threads = cores();  // the writer makes two parts at a time at most
    options.xspace.inputs = {args.positional[0], in.loaded.file, args.text(kDevice)};
    // Only the trace reads the timeline after the XSpace.
    options.keep_timeline = args.has(kTrace);
  }
  options.predicted = [&request, &in, &report](Prediction& prediction) {
    add_input_diagnostics(in.said(/*loaded_notes_shown=*/true), prediction);
    const std::string& note = request.shared.model_flops.note;
    if (!note.empty()) prediction.diagnostics.notes.push_back(note);
    // The report (its one error, a filter RE2 cannot compile, is caught with the arguments).
    if (request.text) report = render_text_report(prediction, in.target.spec, request.stats);
  };
  return options;
}

// The outputs once the analysis has run. The trace is written while the text's advice and the
// roofline chart are made, each a task of its own (each only reads the prediction and the
// memory report), the longest first; nothing is written after a failed trace (the XSpace was,
// with the prediction).
int write_outputs(const Request& request, const LoadedModule& loaded, Analysis& analysis,
                  std::optional<absl::StatusOr<std::string>>& report) {
  const Args& args = request.args;
  const Prediction& prediction = *analysis.prediction();
  // What an output must not overwrite: the module read, and a device spec file.
  const std::vector<std::string> inputs = {args.positional[0], loaded.file,
                                           args.text(kDevice)};
  absl::Status trace_written;
  std::string roofline_svg;
  std::optional<absl::StatusOr<Advice>> advice;
  std::vector<std::function<void()>> tasks;
  if (args.has(kTrace)) {
    tasks.push_back([&] {
      // The trace's live-HBM counter comes from the memory analysis of the same module.
      const absl::StatusOr<MemoryReport>& memory = analysis.memory();
      trace_written =
          !memory.ok() ? memory.status()
                       : write_output_file(
                             args.text(kTrace),
                             [&](std::ostream& out) {
                               write_prediction_trace_json(out, prediction, &*memory,
                                                           writer_threads());
                             },
                             "the trace", inputs);
    });
  }
  // The report ends with what to fix (`hloroof advise` gives every finding).
  if (request.text) tasks.push_back([&] { advice = analysis.advice(); });
  if (args.has(kRoofline)) {
    tasks.push_back([&] {
      roofline_svg = render_roofline_svg(roofline_chart(
          prediction, analysis.device(),
          {.by_category = request.stats.by == OpGrouping::kCategory}));
    });
  }
  detail::for_each_on_threads(tasks.size(), cores(), [&](size_t k) { tasks[k](); });
  if (!trace_written.ok()) return fail(trace_written);
  if (args.has(kRoofline)) {
    absl::Status s = write_output_file(args.text(kRoofline), roofline_svg, "the roofline",
                                       inputs);
    if (!s.ok()) return fail(s);
  }
  std::string xspace_summary;
  if (args.has(kXSpace)) {
    const absl::StatusOr<XSpaceFile>& xspace = analysis.write_xspace();
    if (!xspace.ok()) return fail(xspace.status());
    xspace_summary = render_xspace_summary(*xspace, args.text(kXSpace));
  }
  if (request.shared.csv) {
    write_ops_csv(std::cout, prediction, false, true, writer_threads());
    std::cerr << xspace_summary;
  } else if (request.shared.json) {
    write_prediction_json(prediction, std::cout, writer_threads());
    std::cout << "\n";
    std::cerr << xspace_summary;
  } else {
    if (!report->ok()) return fail(report->status());
    if (!advice->ok()) return fail(advice->status());
    (*advice)->warnings.clear();  // the overview said them
    std::cout << **report << "\n" << render_advice_text(**advice);
    if (!xspace_summary.empty()) std::cout << "\n" << xspace_summary;
  }
  return kExitOk;
}

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kPredictCommand, exit_code);
  if (!args) return exit_code;
  absl::StatusOr<Request> request = parse_request(*std::move(args));
  if (!request.ok()) return usage_error(request.status().message(), kPredictCommand.usage);
  const Args& a = request->args;
  // An empty log folder would be taken for none (AnalysisOptions::xspace_dir).
  if (a.has(kXSpace)) {
    if (absl::Status s = check_xspace_log_dir(a.text(kXSpace)); !s.ok()) return fail(s);
  }

  // The device spec is needed for the report's roofs as well as for the prediction.
  absl::StatusOr<AnalysisInput> in =
      prepare_input(a.positional[0], a.text(kModule), a.text(kEntry), a.text(kDevice),
                    {.topology = a.text(kTopology), .settings = a.all(kSetFlag)});
  if (!in.ok()) return fail(in.status());
  std::optional<absl::StatusOr<std::string>> report;
  Analysis analysis(in->loaded.module, in->target, analysis_options(*request, *in, report));
  if (absl::Status s = analysis.run(); !s.ok()) return fail(s);
  exit_code = write_outputs(*request, in->loaded, analysis, report);
  if (exit_code != kExitOk) return exit_code;
  keep_until_exit(std::move(in), std::move(analysis));
  return kExitOk;
}

}  // namespace

const Command kPredictCommand = {
    "predict",
    "predicted step time on a device: breakdown, HFU, op stats, trace and roofline",
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
    "advise` with the most step time at stake.\n",
    run,
    "hloroof predict FILE [--device D] [--topology T] [--json | --csv] [--top N]\n"
    "       [--by op|category|scope] [--depth N] [--filter RE] [--trace OUT.json]\n"
    "       [--roofline OUT.svg] [--formula F] [--trip-count N] [--module M] [--entry NAME]\n"
    "       [--model-flops F | --params N --tokens D] [--xspace LOG_DIR [--steps N]]",
    kFlags,
    {},
    "examples:\n"
    "  hloroof predict train_step.hlo --device tpu_v5e:2x2 --top 10\n"
    "  hloroof predict train_step.hlo --by scope --depth 4 --filter attention\n"
    "  hloroof predict train_step.hlo --trace step.json --roofline roofline.svg\n"
    "  hloroof predict gemm.hlo --device h100:1x8 --formula xla-gpu-nccl --json\n"
    "  hloroof predict train_step.hlo --device tpu_v5e:2x2 --xspace /tmp/logdir\n",
};

}  // namespace hloroof::cli
