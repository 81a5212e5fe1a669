// `hloroof predict FILE [--device D] [--topology T] [--json] [--top N] [--trace OUT]`: the
// predicted step time of an HLO module on a device, and what it is made of.
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cli.h"
#include "commands.h"
#include "hloroof/hlo_text.h"
#include "hloroof/predict.h"
#include "hloroof/report.h"

namespace hloroof::cli {
namespace {

constexpr std::string_view kUsage =
    "hloroof predict FILE [--device D] [--topology T] [--json] [--top N] [--trace OUT.json] "
    "[--formula F] [--trip-count N]";
constexpr std::string_view kDefaultDevice = "tpu_v5e";

absl::StatusOr<CollectiveFormula> parse_formula(std::string_view name) {
  for (CollectiveFormula f : {CollectiveFormula::kNetwork, CollectiveFormula::kXlaGpuNccl,
                              CollectiveFormula::kXlaGpuSol}) {
    if (collective_formula_name(f) == name) return f;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--formula: unknown formula '", std::string(name),
                   "'; expected network, xla-gpu-nccl or xla-gpu-sol"));
}

int run(const std::vector<std::string>& words) {
  absl::StatusOr<Args> args = parse_args(
      words,
      {.flags = {"--json"},
       .options = {"--device", "--topology", "--top", "--trace", "--formula", "--trip-count"}});
  if (!args.ok()) return usage_error(args.status().message(), kUsage);
  if (args->flag("--help")) {
    std::cout << kPredictCommand.help;
    return kExitOk;
  }
  if (args->positional.size() != 1) return usage_error("expected one HLO file", kUsage);

  PredictOptions options;
  options.topology = args->get("--topology");
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
  int64_t top = 10;
  if (args->has("--top")) {
    absl::StatusOr<int64_t> n = parse_count("--top", args->get("--top"));
    if (!n.ok()) return usage_error(n.status().message(), kUsage);
    top = *n;
  }

  const std::string& path = args->positional[0];
  absl::StatusOr<std::string> text = read_input(path);
  if (!text.ok()) return fail(text.status());
  absl::StatusOr<Module> module =
      parse_module(*std::move(text), ParseOptions{.file_name = path == "-" ? "" : path});
  if (!module.ok()) return fail(module.status());
  absl::StatusOr<Prediction> prediction =
      predict_step_time(*module, args->get("--device", kDefaultDevice), options);
  if (!prediction.ok()) return fail(prediction.status());

  if (args->has("--trace")) {
    const std::string out = args->get("--trace");
    std::ofstream file(out, std::ios::binary);
    if (!(file << prediction_to_trace_json(*prediction))) {
      return fail(absl::InvalidArgumentError(absl::StrCat("cannot write the trace to ", out)));
    }
  }
  if (args->flag("--json")) {
    std::cout << prediction_to_json(*prediction) << "\n";
  } else {
    std::cout << prediction_summary(*prediction, {.top_ops = static_cast<size_t>(top)});
  }
  return kExitOk;
}

}  // namespace

const Command kPredictCommand = {
    "predict",
    "predicted step time on a device, its breakdown, MFU and the costliest ops",
    "usage: hloroof predict FILE [--device D] [--topology T] [--json] [--top N]\n"
    "                       [--trace OUT.json] [--formula F] [--trip-count N]\n\n"
    "Predicts how long one step of an HLO module (FILE, or - for standard input) takes on a\n"
    "device, without running it: every op's roofline time, every collective's time on the\n"
    "slice's network, composed along the module's schedule with async collectives overlapping\n"
    "the work between their start and done; loops run trip-count times. Prints the step time,\n"
    "its breakdown (compute, memory, exposed collectives, overhead), MFU, the collectives, the\n"
    "costliest ops and every assumption made.\n\n"
    "options:\n"
    "  --device D       a built-in device (`hloroof devices` lists them), optionally with its\n"
    "                   topology (tpu_v5e:4x4, h100:2x8), or a device JSON file; default\n"
    "                   tpu_v5e\n"
    "  --topology T     the slice: chips per torus axis (4x4, 4x4x4) or GPU nodes x GPUs per\n"
    "                   node (2x8); default: the smallest that holds the module's devices\n"
    "  --json           one JSON object: step, breakdown, MFU, assumptions and every op\n"
    "  --top N          rows of the op table (default 10)\n"
    "  --trace OUT.json also write the predicted timeline as a Chrome / Perfetto trace\n"
    "  --formula F      collective model: network (default), xla-gpu-nccl, xla-gpu-sol\n"
    "  --trip-count N   trip count assumed for loops whose count cannot be told (default 1)\n\n"
    "example:\n"
    "  hloroof predict train_step.hlo --device tpu_v5e:2x2 --top 20\n",
    run,
};

}  // namespace hloroof::cli
