// The rules of `advise` and what they share: the inputs read in one place each, the op index,
// and candidate findings with the op time each would claim in the ranking.
#ifndef HLOROOF_LIB_ADVISE_ADVISE_INTERNAL_H_
#define HLOROOF_LIB_ADVISE_ADVISE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hloroof/advise.h"
#include "hloroof/device.h"
#include "hloroof/memory.h"
#include "hloroof/module.h"
#include "hloroof/predict.h"
#include "predict/op_index.h"

namespace hloroof::advise_internal {

// ---- The inputs' figures. Every rule reads them through these, so that a change of what the
// prediction or the memory report calls a time or a peak is made here alone.

// One execution of the op on the step's critical path, seconds.
inline double op_time_s(const OpPrediction& op) { return op.time_s; }
// The op's part of the step, seconds (one execution x executions per step).
inline double op_step_time_s(const OpPrediction& op) { return op_time_s(op) * op.multiplier; }
// The device-memory high-water mark of buffer liveness, bytes.
inline int64_t memory_peak_bytes(const MemoryReport& memory) { return memory.peak_bytes; }
// What a step holds, the figure the capacity is checked against: XLA's footprint (every
// allocation made up front), or the liveness peak when no footprint was computed.
inline int64_t memory_held_bytes(const MemoryReport& memory) {
  return memory.footprint_bytes > 0 ? memory.footprint_bytes : memory.peak_bytes;
}

// A candidate's claim on an op's time: what the fix would save of it, per step.
struct Claim {
  const Instruction* op = nullptr;
  double saving_s = 0;
};

// A finding before the ranking: its texts and evidence, and the time it would save op by op.
struct Candidate {
  AdviceFinding finding;  // time_at_stake_s and step_share are set by the ranking
  std::vector<Claim> claims;
  // How the claims add up, e.g. "exposed 1.2 ms x 4 trips + 0.3 ms = 5.1 ms".
  std::string arithmetic;
  bool blocks_step = false;  // the step cannot run as is (does not fit in memory)
  bool untimed = false;      // about bytes, not time: kept whatever its time
};

// Padded and logical bytes of a shape's device array leaves (result_bytes).
struct Bytes {
  double logical = 0;
  double padded = 0;
};

struct IndexedOp {
  const OpPrediction* record = nullptr;
  const Instruction* instruction = nullptr;
};

class Context {
 public:
  Context(const Module& m, const Prediction& p, const DeviceSpec& d, const AdviseThresholds& l)
      : module(m), prediction(p), device(d), limits(l) {}

  const Module& module;
  const Prediction& prediction;
  const MemoryReport* memory_report = nullptr;  // set before the memory rules run
  const DeviceSpec& device;
  const AdviseThresholds& limits;
  size_t evidence_rows = 0;    // AdviseOptions::evidence_rows: rows kept per finding, 0 all
  std::vector<IndexedOp> ops;  // the prediction's ops with their instructions
  predict::OpIndex by_instruction;

  const MemoryReport& memory() const { return *memory_report; }
  double step_s() const { return prediction.step_time_s; }
  // The smallest time worth a finding: limits.min_step_share of the step.
  double min_time_s() const { return limits.min_step_share * step_s(); }
  const OpPrediction* record(const Instruction* i) const { return by_instruction.find(i); }
  // The evidence fields every rule fills the same way: name, computation, scope, shape,
  // multiplier.
  AdviceEvidence evidence(const IndexedOp& op) const;
  // result_bytes(shape), worked out once for each shape (a module's instructions share their
  // shapes: gemma3's 20,000 instructions have a few thousand).
  Bytes bytes_of(const Shape& shape) const;

 private:
  mutable absl::flat_hash_map<const Shape*, Bytes> bytes_of_;
};

// ---- Facts about the IR the rules share (rules_common.cc).

// The metadata op_name without its last part: "jit(f)/layer_3/attention/dot" ->
// "jit(f)/layer_3/attention"; empty without metadata.
std::string scope_of(std::string_view op_name);
// Padded and logical device bytes of an instruction's result array leaves.
Bytes result_bytes(const Shape& shape);
// True when any array leaf lives in host memory (S(5), S(6)).
bool in_host_memory(const Shape& shape);
// A dot or convolution, or a fusion (or call) whose computation holds one.
bool does_matmul(const Instruction& i);
// The dots and convolutions an op runs: itself, or those of its fused computation.
std::vector<const Instruction*> matmuls_of(const Instruction& i);
// The first users that do work, looking through ops that only rename or retype a value
// (bitcast, reshape, get-tuple-element, an async done of this start, ...).
std::vector<const Instruction*> consumers(const Instruction& i);
// The async done that ends the pair `start` begins, or null.
const Instruction* done_of(const Instruction& start);
// Text for a time in seconds with a multiplier: "1.2 ms x 4".
std::string times_text(double time_s, double multiplier);

// An item of evidence before its texts are made: what it is ranked by, and the rule's index of
// it. A rule with an item per op makes the texts of the rows kept only (kept_items).
struct EvidenceRank {
  double time_at_stake_s = 0;
  double bytes = 0;
  double multiplier = 1;
  size_t item = 0;
};

// "a x 4 + b + c + 2 more = total": the evidence's times at stake, largest first (in any order
// given).
std::string sum_text(const std::vector<AdviceEvidence>& items, double total);
std::string sum_text(const std::vector<EvidenceRank>& items, double total);
// Largest time at stake first, then most bytes.
void sort_evidence(std::vector<AdviceEvidence>& items);
// The items a finding keeps as evidence (ctx.evidence_rows of them, all when 0), in the order
// sort_evidence gives: their `item` indices.
std::vector<size_t> kept_items(const Context& ctx, std::vector<EvidenceRank> ranks);

// What a rule says of its finding.
struct FindingText {
  std::string_view id;     // AdviceFinding::id
  std::string title;       // AdviceFinding::title
  std::string what;        // AdviceFinding::what
  std::string fix;         // AdviceFinding::fix
  std::string arithmetic;  // Candidate::arithmetic: how its claims add up
};

// An op a rule would speed up: its evidence (`detail`, its bytes and time per step, the
// saving) appended to `items`, and its claim on `saving` seconds per step to `c`.
void claim_op(const Context& ctx, const IndexedOp& op, double saving, std::string detail,
              Candidate& c, std::vector<AdviceEvidence>& items);

// The end of every rule: the candidate `c` (its claims and flags set) gets the texts, the bytes
// at stake and the evidence, sorted (sort_evidence); the finding's op count is `op_count`, or
// the evidence's size when it is negative. Appends the candidate to `out`.
void add_candidate(Candidate c, FindingText text, std::vector<AdviceEvidence> items,
                   double bytes_at_stake, std::vector<Candidate>& out, int64_t op_count = -1);

// ---- The rules (rules_*.cc). Each appends its candidates, or nothing.
void exposed_collectives(const Context& ctx, std::vector<Candidate>& out);  // and serial-loop
void loop_invariant_gather(const Context& ctx, std::vector<Candidate>& out);
void replicated_weight_gather(const Context& ctx, std::vector<Candidate>& out);
void layout_copy(const Context& ctx, std::vector<Candidate>& out);
void padding_waste(const Context& ctx, std::vector<Candidate>& out);
void small_ops(const Context& ctx, std::vector<Candidate>& out);
void host_launched_loops(const Context& ctx, std::vector<Candidate>& out);
void f32_matmul(const Context& ctx, std::vector<Candidate>& out);
void dense_ragged_dot(const Context& ctx, std::vector<Candidate>& out);
void unfused_attention(const Context& ctx, std::vector<Candidate>& out);
void unfused_elementwise(const Context& ctx, std::vector<Candidate>& out);
void host_transfer(const Context& ctx, std::vector<Candidate>& out);
void memory_headroom(const Context& ctx, std::vector<Candidate>& out);
void scatter_repeats(const Context& ctx, std::vector<Candidate>& out);
void unknown_cost(const Context& ctx, std::vector<Candidate>& out);

// The all-gathers replicated_weight_gather and loop_invariant_gather report (the collective
// rules leave them to them).
bool is_replicated_weight_gather(const Context& ctx, const Instruction& i);
bool is_loop_invariant_gather(const Context& ctx, const Instruction& i);

}  // namespace hloroof::advise_internal

#endif  // HLOROOF_LIB_ADVISE_ADVISE_INTERNAL_H_
