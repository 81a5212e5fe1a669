// `hloroof advise FILE [--device D] [--json] [--top N]`: what to fix before running the step,
// each finding with the predicted time it puts at stake.
#include <iostream>
#include <optional>
#include <utility>

#include "cli.h"
#include "commands.h"
#include "hloroof/advise.h"
#include "hloroof/analysis.h"
#include "hloroof/hlo_text.h"
#include "hloroof/memory.h"
#include "hloroof/predict.h"
#include "hloroof/topology.h"
#include "input.h"

namespace hloroof::cli {
namespace {

constexpr Flag kDevice{.name = "--device",
                       .type = FlagType::kText,
                       .value_name = "D",
                       .help = kDeviceFlag.help,
                       .default_help = "h100 for a GPU module, tpu_v5e otherwise (said in the "
                                       "assumptions)"};
constexpr Flag kTopology{.name = "--topology",
                         .type = FlagType::kText,
                         .value_name = "T",
                         .help = "the slice (as for predict)",
                         .default_help = "the smallest that holds the module"};
constexpr Flag kEntry{.name = "--entry",
                      .type = FlagType::kText,
                      .value_name = "NAME",
                      .help = "take computation NAME as the step (a module that marks none ENTRY "
                              "has no step to advise on without it)"};
constexpr Flag kJson{.name = "--json",
                     .help = "one JSON object instead (keys in docs/advise.md)"};
constexpr Flag kTop{.name = "--top",
                    .type = FlagType::kCount,
                    .value_name = "N",
                    .help = "findings kept, best ranked first; 0: all",
                    .default_value = "0"};
constexpr Flag kEvidence{.name = "--evidence",
                         .type = FlagType::kCount,
                         .value_name = "N",
                         .help = "evidence rows per finding; 0: all",
                         .default_value = "5"};

// The flags and options the command takes, in the order its help lists them.
constexpr const Flag* kFlags[] = {&kDevice, &kTopology, &kSetFlag, &kModuleFlag,
                                  &kEntry,  &kJson,     &kTop,     &kEvidence};

int run(const std::vector<std::string>& words) {
  int exit_code = kExitOk;
  std::optional<Args> args = parse_command_args(words, kAdviseCommand, exit_code);
  if (!args) return exit_code;
  if (args->positional.size() != 1) {
    return usage_error("expected one HLO file", kAdviseCommand.usage);
  }
  AdviseOptions options;
  options.top = static_cast<size_t>(args->count(kTop));
  options.evidence_rows = static_cast<size_t>(args->count(kEvidence));

  absl::StatusOr<AnalysisInput> in =
      prepare_input(args->positional[0], args->text(kModuleFlag), args->text(kEntry),
                    args->text(kDevice),
                    {.topology = args->text(kTopology), .settings = args->all(kSetFlag)});
  if (!in.ok()) return fail(in.status());
  // The memory analysis beside the prediction: neither reads the other's results. The advice
  // reads no allocation itself (a wide tuple has one per leaf), nor the live bytes. The
  // findings of the prediction alone are made on its thread while the analysis runs.
  AnalysisOptions analysis_options;
  analysis_options.predict.explain = false;   // advice shows no op's explanation
  analysis_options.predict.timeline = false;  // nor the timeline
  analysis_options.memory = MemoryOptions{.live_curves = false, .allocations = false};
  analysis_options.advise = options;
  analysis_options.threads = cores();
  analysis_options.predicted = [&](Prediction& prediction) {
    add_input_diagnostics(in->said(/*loaded_notes_shown=*/true), prediction);
  };
  Analysis analysis(in->loaded.module, in->target, std::move(analysis_options));
  if (absl::Status s = analysis.run(); !s.ok()) return fail(s);
  absl::StatusOr<Advice> advice = analysis.advice();
  if (!advice.ok()) return fail(advice.status());
  if (const std::string set = settings_note(*args); !set.empty()) {
    advice->notes.insert(advice->notes.begin(), set);
  }
  if (args->flag(kJson)) {
    std::cout << advice_to_json(*advice) << "\n";
  } else {
    std::cout << render_advice_text(*advice);
  }
  keep_until_exit(std::move(in), std::move(analysis), std::move(advice));
  return kExitOk;
}

}  // namespace

const Command kAdviseCommand = {
    "advise",
    "what to fix before running: findings ranked by the step time at stake",
    "Reads an HLO module (FILE, or - for standard input), predicts its step on a device and\n"
    "its memory peak, and reports what a profile would show is worth fixing: collectives the\n"
    "step waits for, whole weights all-gathered before a matmul, layout copies in front of\n"
    "matmuls, tile padding, tiny ops, f32 matmuls in a bf16 model, unfused elementwise chains,\n"
    "host transfers, memory headroom, ops of unknown cost, loops that serialize on a\n"
    "collective. Each finding has a stable id, the evidence (ops, shapes, bytes, times,\n"
    "scopes), the fix in JAX terms, and the predicted seconds per step it puts at stake with\n"
    "the arithmetic; no op's time is counted under two findings. docs/advise.md lists the\n"
    "rules and their thresholds.\n",
    run,
    "hloroof advise FILE [--device D] [--topology T] [--module M] [--entry NAME] [--json]\n"
    "       [--top N] [--evidence N]",
    kFlags,
    {},
    "examples:\n"
    "  hloroof advise examples/tpu_v5e_train_step.hlo --device tpu_v5e:2x2\n"
    "  hloroof advise step.hlo --device h100:1x8 --json --top 3\n",
};

}  // namespace hloroof::cli
