// Pieces predict_step_time's files share: how each scheduled instruction runs, and the timing
// of every computation that runs as a schedule, its ops estimated by the combined model
// (combined_model.h).
#ifndef HLOROOF_LIB_PREDICT_PREDICT_INTERNAL_H_
#define HLOROOF_LIB_PREDICT_PREDICT_INTERNAL_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/container/node_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "hloroof/collective.h"
#include "hloroof/cost.h"
#include "hloroof/device_target.h"
#include "hloroof/predict.h"
#include "hloroof/topology.h"
#include "predict/combined_model.h"
#include "predict/expected_time.h"

namespace hloroof::predict {

// Ops that only name buffers (parameter, constant, tuple, get-tuple-element, bitcast, ordering
// tokens, domain, opt-barrier): no code runs for them.
bool is_pointer_only(Opcode op);

// How a scheduled instruction takes part in its computation's schedule.
enum class Role : uint8_t {
  kFree,         // moves pointers only: parameter, tuple, bitcast, ...; or does no work at all
  kOp,           // runs on the device for its roofline time
  kCollective,   // a synchronous collective: its network time
  kAsyncStart,   // launches work on a stream; takes no time of its own
  kAsyncDone,    // waits for its start's work
  kWhile,        // body and condition, trip count times
  kConditional,  // the slowest branch
  kCall,         // the callee
};

// What an async start or done, or a control-flow instruction, has besides an op's timing:
// held apart (InstructionTiming::flow), as most instructions are none of these.
struct FlowTiming {
  // Async starts: the work launched, and where it runs. Dones: the start they wait for.
  double latency_s = 0;
  std::string_view stream;
  int64_t partner = -1;  // index of the other op of the pair in its computation; -1 unpaired
  double hidden_s = 0;
  double exposed_s = 0;
  // The roofline of latency_s (an async start), kept by the expected walk for
  // roofline_schedule; an async start that runs a computation names it (its roofline latency
  // is that computation's roofline total).
  double roofline_latency_s = 0;
  const Computation* async_computation = nullptr;
  // Control flow: the computations run (a while's body and condition; the slowest branch; a
  // call's callee) and the loop's trip count.
  const Computation* body = nullptr;
  const Computation* condition = nullptr;
  int64_t trip_count = 1;
};

struct InstructionTiming {
  const Instruction* instruction = nullptr;
  const InstructionCost* cost = nullptr;
  // One execution's own time on the compute track (a loop: every iteration; a done: its wait,
  // set by the schedule).
  double time_s = 0;
  // The roofline of time_s (an op, a collective), kept by the expected walk for
  // roofline_schedule.
  double roofline_time_s = 0;
  // The host's launch time included in time_s (an op in the body of a GPU loop too small for a
  // command buffer: loop_host_gap_s); the body's total weighs it against its kernels.
  double loop_host_s = 0;
  // Texts of the combined model's pool (CombinedModel::save) or static ones.
  std::string_view explanation;
  std::string_view model;        // the model behind time_s or latency_s (OpPrediction::model)
  std::string_view matrix_unit;  // the matrix class its matrix FLOPs ran on ("bf16", "tf32")
  // A collective's prediction; held apart, as few ops are collectives.
  HeapOptional<CollectivePrediction> collective;
  // The range time_s spans where the data decide it (OpPrediction::time_range); few ops
  // have one.
  HeapOptional<TimeRange> time_range;
  Role role = Role::kFree;
  BoundBy bound = BoundBy::kOverhead;
  Bound resource = Bound::kOverhead;

  // The async and control-flow fields: those of none (no partner, trip count 1) where there
  // are none.
  const FlowTiming& flow() const { return flow_ ? *flow_.get() : kNoFlow; }
  // The same to set: made on first use.
  FlowTiming& mutable_flow() { return flow_ ? *flow_.get() : flow_.emplace(); }
  int64_t partner() const { return flow_ ? flow_.get()->partner : -1; }

 private:
  static inline const FlowTiming kNoFlow{};
  HeapOptional<FlowTiming> flow_;
};

// One computation run as a schedule (docs/prediction-model.md, "Async pairs and the schedule"): its
// instructions in order, where each starts on the clock, and the total.
struct ComputationTiming {
  const Computation* computation = nullptr;
  double total_s = 0;
  std::vector<InstructionTiming> instructions;
  std::vector<double> begin_s;  // clock when instruction i begins (its own time, then any wait)
};

using TimingMap = absl::flat_hash_map<const Computation*, ComputationTiming>;

// One computation scheduled again with every op at its roofline: per instruction, in the order
// of its ComputationTiming, the time on the compute track (a done: its exposed wait) and the
// latency of an async start; and the total.
struct RooflineTiming {
  double total_s = 0;
  std::vector<double> time_s;
  std::vector<double> latency_s;
};

using RooflineMap = absl::flat_hash_map<const Computation*, RooflineTiming>;

// How `instruction` runs when it is not control flow and not the done of a pair: the estimates
// of `model` composed (op_timing.cc). Async starts get their latency and stream; `timings` holds
// the computations already timed (an async-start's wrapped computation).
absl::StatusOr<InstructionTiming> time_instruction(const Instruction& instruction,
                                                   const TimingMap& timings,
                                                   CombinedModel& model);

// The peers of a send or recv, from its `_xla_send_recv_source_target_pairs` frontend
// attribute (source, target); empty when it has none (op_timing.cc).
std::vector<std::pair<int64_t, int64_t>> send_recv_pairs(const Instruction& instruction);

// Times every computation that runs as a schedule, callees first (step_walk.cc).
absl::StatusOr<TimingMap> time_computations(CombinedModel& model);

// The same computations scheduled again with every op at its roofline (roofline_time_s,
// roofline_latency_s), without costing anything anew: the async overlaps of the roofline are
// its own (step_walk.cc).
absl::StatusOr<RooflineMap> roofline_schedule(const Module& module, const TimingMap& expected);

// Executions per step of each timed computation under the model: loops repeat their body and
// condition, a conditional runs its slowest branch, a call its callee (step_walk.cc).
absl::flat_hash_map<const Computation*, double> executions_per_step(const Module& module,
                                                                    const TimingMap& timings);

// What walk_step hands its caller: the device the walk used (the target's, or the TPU's
// GEMM-alone spec), the slice, and every scheduled computation's expected timing.
using WalkedStep = void(const DeviceSpec& device, const Topology& slice, const TimingMap& timings);

// predict_step_time's checks and expected walk, without its records or roofline schedule:
// calls `use` with the timings, which live only for the call (predict.cc; VariantTable).
absl::Status walk_step(const Module& module, const DeviceTarget& target,
                       const PredictOptions& options, absl::FunctionRef<WalkedStep> use);

// The roofline of one op's work on `device` at the speed of light (no efficiency), from its
// cost record, its matrix FLOPs on the class the precision rules give (op_timing.cc).
RooflineEstimate op_roofline(const Instruction& instruction, const InstructionCost& cost,
                             const DeviceSpec& device, bool include_overhead);

// The trace timeline of one step (timeline.cc).
std::vector<TimelineEvent> build_timeline(const TimingMap& timings, CombinedModel& model);

// XProf-like category of an op: "convolution fusion", "loop fusion", "all-gather", ...; a view
// of a static text, of the timing's stream (held by the model's texts) or, for a collective,
// of its collective's kind. `matrix_flops`: the op's matrix FLOPs (a fusion doing some is a
// convolution fusion).
std::string_view op_category(const InstructionTiming& timing, double matrix_flops);

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_PREDICT_INTERNAL_H_
