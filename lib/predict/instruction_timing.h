// How each scheduled instruction runs (InstructionTiming), as the combined model times it
// (CombinedModel::time_instruction) and the step walk composes it (step_walk.cc), and every
// computation that runs as a schedule.
#ifndef HLOROOF_LIB_PREDICT_INSTRUCTION_TIMING_H_
#define HLOROOF_LIB_PREDICT_INSTRUCTION_TIMING_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "hloroof/collective.h"
#include "hloroof/computation.h"
#include "hloroof/cost.h"
#include "hloroof/heap_optional.h"
#include "hloroof/instruction.h"
#include "hloroof/predict.h"
#include "hloroof/roofline.h"

namespace hloroof::predict {

// The engines async work queues on (FlowTiming::queue): each direction of the host link.
inline constexpr uint8_t kHostToDevice = 1;
inline constexpr uint8_t kDeviceToHost = 2;

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
  // The engine the work queues on (ScheduledEvent::queue): 0 none; kHostToDevice or
  // kDeviceToHost for a host-offload copy or an async computation that moves host bytes, one
  // at a time on its direction of the host link.
  uint8_t queue = 0;
  double queued_s = 0;  // how long the work waited for its engine (AsyncPairTiming)
  double hidden_s = 0;
  double exposed_s = 0;
  double contended_s = 0;  // of exposed_s, what the memory traffic waits for (AsyncPairTiming)
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
  // The host's launch time included in time_s (an op the host launches kernel by kernel: in
  // the body of a GPU loop too small for a command buffer, or in a small entry computation;
  // gpu_families.h: loop_host_gap_s, program_launch_s); the computation's total weighs it
  // against its kernels.
  double host_launch_s = 0;
  // How long its traffic occupies the device memory (ScheduledEvent::hbm_s): an op's HBM bytes
  // at the rate its expected time moves them, at most its time; an async start's, the work it
  // launches; control flow, the computations it runs. Collectives: 0 (links bound them).
  double hbm_s = 0;
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
  double hbm_s = 0;  // its instructions' memory occupancy, async work's included
  // The host's launches of one run, its kernels' hiding them aside (InstructionTiming::
  // host_launch_s, before expose_host_launches): what a loop's caller weighs against the work
  // queued before the loop.
  double host_launch_s = 0;
  std::vector<InstructionTiming> instructions;
  std::vector<double> begin_s;  // clock when instruction i begins (its own time, then any wait)
};

using TimingMap = absl::flat_hash_map<const Computation*, ComputationTiming>;

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_INSTRUCTION_TIMING_H_
