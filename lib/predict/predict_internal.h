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
#include "predict/instruction_timing.h"

namespace hloroof::predict {

// Ops that only name buffers (parameter, constant, tuple, get-tuple-element, bitcast, ordering
// tokens, domain, opt-barrier): no code runs for them.
bool is_pointer_only(Opcode op);

// One computation scheduled again with every op at its roofline: per instruction, in the order
// of its ComputationTiming, the time on the compute track (a done: its exposed wait) and the
// latency of an async start; and the total.
struct RooflineTiming {
  double total_s = 0;
  std::vector<double> time_s;
  std::vector<double> latency_s;
};

using RooflineMap = absl::flat_hash_map<const Computation*, RooflineTiming>;

// What an instruction is, for its timing (op_timing.cc).

// Its work as the models read it, from its cost record (its matrix class not yet set).
OpWork work_of(const OpCost& cost);
bool has_work(const OpWork& work);
// Sets the class the op's matrix FLOPs run on, under the precision rules.
void set_matrix_unit(OpWork& work, const Instruction& instruction, const DeviceSpec& device);
// The collective an instruction performs: its own, or for `async-start(...), calls=%c` the one
// at the root of %c; null for none.
const CollectiveCost* collective_of(const Instruction& instruction, const ModuleCost& cost);
// The stream an async start launches its work on: "async all-gather", "async copy", ...
std::string stream_of(const Instruction& instruction, const CollectiveCost* collective);
// Whether a fused all-reduce runs as a reduce-scatter: each device keeps only its own 1/N of
// the sum (N: the group's size; of each array of a tuple all-reduce), as in the TPU's
// `all-reduce-scatter` fusions (their emitter, AllReduceScatterFusion, shards the result over
// the group). The reduce-scatter half of the all-reduce delivers those parts; the all-gather
// half would move bytes no one reads.
bool runs_as_reduce_scatter(const Instruction& all_reduce, const CollectiveCost& collective);

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
