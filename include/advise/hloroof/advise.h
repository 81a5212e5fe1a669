// advise: what to fix in a compiled step before running it, found in the HLO and its predicted
// timeline, each finding with the step time it puts at stake.
//
//   absl::StatusOr<Prediction> p = predict_step_time(module, "tpu_v5e");
//   absl::StatusOr<MemoryReport> m = analyze_memory(module, spec);
//   absl::StatusOr<Advice> a = advise(module, *p, *m, spec);
//   a->findings.front().id;             // "exposed-collective"
//   a->findings.front().time_at_stake_s;  // predicted seconds the fix could save
//   std::cout << render_advice_text(*a);
//
// Every rule, its thresholds and the arithmetic of its time at stake: docs/advise.md. Findings
// are ranked by time at stake; an op whose time a finding ranked higher already counts is not
// counted again, so the times at stake add up to at most the step time.
#ifndef HLOROOF_ADVISE_H_
#define HLOROOF_ADVISE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hloroof/device.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"

namespace hloroof {

// Every threshold of every rule, in one place (docs/advise.md explains each). Shares are of the
// predicted step time.
struct AdviseThresholds {
  // A time finding is reported when the time it puts at stake is at least this share of the
  // step (exposed-collective, serial-loop-collective, layout-copy, padding-waste's traffic,
  // f32-matmul, dense-ragged-dot, unfused-attention, unfused-elementwise, host-transfer,
  // replicated-weight-gather, loop-invariant-gather, host-launched-loop).
  double min_step_share = 0.01;
  // small-ops: at least this many op executions bound by the per-op overhead, and their
  // overhead at least `small_ops_min_step_share` of the step.
  int64_t small_ops_min_count = 20;
  double small_ops_min_step_share = 0.05;
  // padding-waste: a tensor counts when padded / logical bytes is at least this factor.
  double padding_min_factor = 1.25;
  // padding-waste: the padding live at the memory peak is reported from this share of the peak.
  double padding_min_peak_share = 0.10;
  // ... and is at least this share of the device's HBM capacity (a few KiB of padding in a
  // small program is nothing to fix).
  double padding_min_capacity_share = 0.01;
  // serial-loop-collective: a collective in a loop body counts when the body's work that
  // neither feeds it nor uses it is at least this share of its exposed time per iteration
  // (else it is an exposed-collective: there is little to overlap it with).
  double loop_min_independent_share = 0.10;
  // replicated-weight-gather and loop-invariant-gather: the gathered value is at least this
  // many bytes.
  int64_t weight_gather_min_bytes = int64_t{1} << 20;
  // memory-headroom: reported when the peak leaves less than this share of capacity free.
  double memory_min_headroom = 0.10;
  // scatter-repeats: reported when 16-bit scatters whose indices may repeat would add at least
  // this share of the step at the top of their range (text's token ids).
  double scatter_repeats_min_step_share = 0.10;
};

struct AdviseOptions {
  // Findings kept, best ranked first; 0 keeps all.
  size_t top = 0;
  // Evidence rows kept per finding (largest first); 0 keeps all.
  size_t evidence_rows = 5;
  AdviseThresholds thresholds;
};

// One piece of evidence: an op (or a buffer) and what the rule saw in it.
struct AdviceEvidence {
  std::string op;              // instruction or buffer name
  std::string computation;     // where it is
  std::string scope;           // the framework scope: metadata op_name without its last part
  std::string shape;           // result shape, as HLO text
  std::string detail;          // what the rule saw, with units: "all-gather 8 MiB over 4 devices"
  double bytes = 0;            // bytes the rule is about (payload, moved, wasted, ...)
  double time_s = 0;           // per step: the op's time the rule is about
  double multiplier = 1;       // executions per step
  double time_at_stake_s = 0;  // per step, before the ranking (may be counted elsewhere)
};

struct AdviceFinding {
  std::string id;     // stable: "exposed-collective", "layout-copy", ... (docs/advise.md)
  std::string title;  // in users' words: "The step waits for collectives"
  std::string what;   // one or two sentences: what was found, with figures and units
  std::string fix;    // what to change, in JAX terms
  // Predicted seconds per step that the fix could save, after the ranking: ops a finding
  // ranked higher already counts are left out. 0 for findings about memory only.
  double time_at_stake_s = 0;
  double step_share = 0;           // time_at_stake_s / step time
  double counted_elsewhere_s = 0;  // this rule's time that a finding ranked higher counts
  std::string arithmetic;          // how time_at_stake_s was computed, with units
  double bytes_at_stake = 0;       // bytes the finding is about (memory, traffic), 0 if none
  int64_t op_count = 0;            // ops the rule flagged (evidence keeps the largest)
  std::vector<AdviceEvidence> evidence;
};

struct Advice {
  std::string device;  // the spec's name
  std::string module_name;
  double step_time_s = 0;
  bool step_is_lower_bound = false;
  // Ranked: a finding that keeps the step from fitting in memory first, then by time at stake,
  // then findings about memory only (by bytes at stake).
  std::vector<AdviceFinding> findings;
  double time_at_stake_s = 0;      // sum over the findings (no time counted twice)
  std::vector<std::string> notes;  // what the figures rest on
  // The prediction's warnings (Prediction::warnings), shown before the findings.
  std::vector<std::string> warnings;
};

// Runs every rule over `module`, its prediction and its memory report (both of this module, on
// `device`: its rates, per-op overhead and HBM capacity). Errors: a prediction whose ops are not
// in the module.
absl::StatusOr<Advice> advise(const Module& module, const Prediction& prediction,
                              const MemoryReport& memory, const DeviceSpec& device,
                              const AdviseOptions& options = {});

// advise() in two steps, for a caller that has the prediction before the memory report (its
// memory analysis running beside): the findings of the prediction alone are made with the
// maker, those of the memory report and the ranking by finish(), which returns what advise()
// does with the same arguments. The module, the prediction's op records and the device must
// stay as they are until then (the prediction's warnings are read by finish()).
class AdviceMaker {
 public:
  AdviceMaker(const Module& module, const Prediction& prediction, const DeviceSpec& device,
              const AdviseOptions& options = {});
  AdviceMaker(const AdviceMaker&) = delete;
  AdviceMaker& operator=(const AdviceMaker&) = delete;
  ~AdviceMaker();
  absl::StatusOr<Advice> finish(const MemoryReport& memory);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// For people: one block per finding (id, time at stake, what, evidence, arithmetic, fix), at
// most 100 columns; a line saying nothing was found when there are no findings.
std::string render_advice_text(const Advice& advice);

// {"device", "module", "warnings", "step_time_s", "lower_bound", "time_at_stake_s", "notes",
//  "findings": [{"id", "title", "what", "fix", "time_at_stake_s", "step_share",
//                "counted_elsewhere_s", "arithmetic", "bytes_at_stake", "op_count",
//                "evidence": [{"op", "computation", "scope", "shape", "detail", "bytes",
//                              "time_s", "multiplier", "time_at_stake_s"}]}]}.
std::string advice_to_json(const Advice& advice);

// The ids of every rule, in the order docs/advise.md describes them.
std::vector<std::string> advice_rule_ids();

}  // namespace hloroof

#endif  // HLOROOF_ADVISE_H_
