// predict_step_time: how long one step of an HLO module takes on a device, and why.
//
//   absl::StatusOr<hloroof::Prediction> p = hloroof::predict_step_time(hlo_text, "tpu_v5e");
//   p->step_time_s;               // the expected step
//   p->roofline_step_time_s;      // the same at the roofline (speed of light)
//   p->breakdown.compute_s;       // what the step is made of
//   p->ops.front().explanation(); // the most expensive op's formula, with the device numbers
//
// The device is a name as the command's --device takes it, the slice inferred from the module
// or given ("tpu_v5e:2x2", "h100:2x8"). A module already parsed takes the same name
// (predict_step_time(module, "h100")); one device and slice checked once for several modules,
// or a spec made by hand, is a DeviceTarget (resolve_device, spec_target):
//
//   absl::StatusOr<hloroof::DeviceTarget> target = hloroof::resolve_device("tpu_v5e:2x2", &module);
//   absl::StatusOr<hloroof::Prediction> q = hloroof::predict_step_time(module, *target);
//
// The model (docs/prediction-model.md): each op's roofline time on the device, each
// collective's time on the slice's topology, composed along the module's schedule with async
// start/done pairs overlapping the work between them; while loops run their body trip-count
// times, a conditional its slowest branch, a call its callee. The expected time raises each
// op to what measurements say the device reaches (docs/prediction-model.md); the schedule is
// composed twice, once with expected and once with roofline times.
#ifndef HLOROOF_PREDICT_H_
#define HLOROOF_PREDICT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hloroof/collective.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/device_target.h"
#include "hloroof/diagnostics.h"
#include "hloroof/heap_optional.h"
#include "hloroof/module.h"
#include "hloroof/roofline.h"
#include "hloroof/text_pool.h"

namespace hloroof {

namespace detail {
struct OpRecordAccess;
}  // namespace detail

// How to predict; the device and its slice are the DeviceTarget's (resolve_device, with a
// topology given apart from the device in DeviceTargetOptions::topology).
struct PredictOptions {
  // Explicit coordinates of device i (overrides the default row-major mapping).
  std::vector<std::vector<int64_t>> device_coordinates;
  CollectiveFormula collective_formula = CollectiveFormula::kNetwork;
  // The scaling book's large-N collective forms (V / W_bi rather than V (N-1) / (N W_bi)), as
  // its worked examples write them (CollectiveOptions::large_n).
  bool collective_large_n = false;
  // Trip count for while loops whose count is neither recorded nor derivable.
  int64_t default_trip_count = 1;
  // Bytes padded by the layout's tiles (TPU); GPU layouts have none.
  bool use_padded_sizes = true;
  // Add the device's fixed per-op overhead to every op that does work.
  bool include_overhead = true;
  // The pure roofline: the expected time of every op is its roofline time (no measured
  // model, no calibration), so step_time_s == roofline_step_time_s.
  bool roofline_only = false;
  // Trace timeline: iterations of a while loop laid out one by one up to this many; the rest
  // are one slice.
  int64_t max_expanded_iterations = 4;
  // The model's FLOPs of one step over all the devices the module runs on, as the training
  // literature counts them (6 x parameters x tokens for a dense transformer's training step):
  // gives Prediction::mfu. 0: not given.
  double model_flops = 0;
  // Write each op's explanation (OpPrediction::explanation, the formula with the device
  // numbers). Off, every explanation is left empty and nothing else changes: for a caller that
  // shows none (the text report, advice), which then skips formatting numbers for every op.
  bool explain = true;
  // Lay out the trace timeline (Prediction::timeline). Off, it is left empty and nothing else
  // changes (a timeline that would be cut is still said in the assumptions): for a caller that
  // writes no trace (the text and JSON reports, advice, comparisons).
  bool timeline = true;
  // Keep the records of this many ops only, those with the most step time (the first of
  // Prediction::ops); the step's times, breakdown and totals still count every op. 0: all.
  // For a caller that shows the top ops only (`hloroof compare`'s other devices).
  size_t max_ops = 0;
  // Called on the predicting thread once the step is timed, before the op records are made
  // (most of what a prediction holds). A caller that makes several predictions at once and
  // lets each go once it is written may wait here until enough of the others are gone
  // (`hloroof compare --json`). Empty: nothing is called.
  std::function<void()> before_records;
};

// What bounds an op, in XProf's terms.
enum class BoundBy : uint8_t { kCompute, kMemory, kCollective, kOverhead };
std::string_view bound_by_name(BoundBy bound);  // "compute", "memory", "collective", "overhead"

struct CollectivePrediction {
  std::string kind;          // "all-gather", ...
  double payload_bytes = 0;  // V (docs/cost-conventions.md, "Collectives")
  int64_t group_size = 0;
  std::string formula;   // e.g. "ring: V (N-1) / (N W_bi)"
  double time_s = 0;     // the collective's own duration
  double exposed_s = 0;  // per execution: the part the schedule waits for
  double hidden_s = 0;   // per execution: the part overlapped with other work
  bool is_async = false;
  bool approximate = false;  // a conservative bound (partial or strided groups, ...)
  // The collective model's estimate that time_s starts from (its placement: the slices or
  // NVLink domains the slowest group spans); none for a host transfer.
  std::optional<CollectiveEstimate> estimate;
};

// An asynchronous pair (docs/prediction-model.md, "Async pairs and the schedule"): the start
// launches work on a stream of its own, the done waits for whatever of it is still running. Both
// ops of the pair carry it.
struct AsyncPrediction {
  std::string stream;  // the timeline track: "async all-gather", "async copy", ...
  std::string start;   // the start's and the done's names
  std::string done;
  double latency_s = 0;  // per execution: how long the async work runs
  // Per execution: how long the work waited for its engine before it began (a host-offload
  // copy behind the copies started before it on its direction of the host link); else 0.
  double queued_s = 0;
  // Per execution: the pair's span overlapped with the ops between start and done, and the
  // done's wait for the rest (queued_s + latency_s = hidden_s + exposed_s).
  double hidden_s = 0;
  double exposed_s = 0;
  // Per execution: the wait the work's memory traffic needs, at most exposed_s: the memory it
  // occupies less what the ops between start and done leave free (docs/prediction-model.md,
  // "Async pairs and the schedule"); 0 when they leave enough, where only the latency waits.
  double contended_s = 0;
  // Per execution: the async work's roofline (its floor); a wrapped computation's expected time.
  double roofline_latency_s = 0;
};

// The range an op's expected time spans where the data decide it and the program does not
// show them (a scatter's repeated indices: how many updates land on one row;
// docs/prediction-model.md): one execution's time at each end, and what each end assumes. The
// expected time lies in [low_s, high_s]. The step's range (Prediction::step_time_range) is the
// same for the step.
struct TimeRange {
  double low_s = 0;
  double high_s = 0;
  std::string low;   // what the low end assumes
  std::string high;  // what the high end assumes
};

// An op record's texts, as set_texts takes them.
struct OpTexts {
  std::string_view name;
  std::string_view opcode;
  std::string_view computation;
  std::string_view category;
  std::string_view op_name;
  std::string_view model;
  std::string_view explanation;
  // The range of the op's time (OpPrediction::time_range), kept in the pool with the texts.
  std::optional<TimeRange> time_range;
};

// Its texts (name(), ..., explanation()) are held by the pool `texts()`, which the record
// holds: a copy of the record keeps them too. A record refers to each text by a 4-byte
// reference into that pool (TextPool::Ref), which keeps a record within 168 bytes.
class OpPrediction {
 public:
  const Instruction* instruction = nullptr;  // valid while the module lives
  std::string_view name() const { return text(name_); }
  std::string_view opcode() const { return text(opcode_); }
  std::string_view computation() const { return text(computation_); }
  // XProf-like: "convolution fusion", "loop fusion", "all-gather", ...
  std::string_view category() const { return text(category_); }
  // metadata op_name, e.g. "jit(train_step)/layer_3/attention/dot"
  std::string_view op_name() const { return text(op_name_); }
  // The model behind time_s, e.g. "gemm table h100 (measured, interpolated)",
  // "collective fit h100 (measured, fitted)", "roofline (no measured model)".
  std::string_view model() const { return text(model_); }
  std::string_view explanation() const { return explanation_; }  // the formula, with numbers
  // The range time_s spans where the data decide it (TimeRange); none for most ops. Set with
  // the texts (set_texts).
  std::optional<TimeRange> time_range() const;
  double multiplier = 1;  // executions per step
  // One execution, on the step's critical path, as expected (docs/prediction-model.md): the
  // op's time from the measured models (its roofline time raised to what the device is
  // measured to reach, per-op overhead included), a synchronous collective's time, an async
  // done's wait. An async start takes no time of its own: its work runs on a stream (see
  // `async`). Every op of the step is listed once, so the ops' total times add up to the step
  // time.
  double time_s = 0;
  // The same at the roofline (speed of light: every unit at its peak, the per-op overhead
  // added; the model of docs/prediction-model.md, "One op"). Never above time_s: a done's wait at
  // the roofline is capped at its expected wait (the ops between it and its start grow too).
  double roofline_time_s = 0;
  // roofline_time_s / time_s, in (0, 1]; 1 when both are 0. For an async done (whose wait
  // depends on the schedule), that of the pair's work: roofline latency / expected latency.
  double efficiency = 1;
  double total_time_s() const { return time_s * multiplier; }
  double total_roofline_time_s() const { return roofline_time_s * multiplier; }
  BoundBy bound = BoundBy::kOverhead;
  Bound resource = Bound::kOverhead;  // the roofline term behind `bound`
  bool in_entry = false;              // the computation is the module's entry

 private:
  // time_range()'s figures and texts, a record of the pool (in the padding after the flags).
  TextPool::Ref time_range_ = 0;

 public:
  double flops = 0;                   // one execution
  double matrix_flops = 0;
  double transcendentals = 0;
  double hbm_bytes = 0;
  double on_chip_bytes = 0;
  double host_bytes = 0;
  // Few ops have these: each is held on the heap (an op without them carries two pointers).
  HeapOptional<CollectivePrediction> collective;  // collectives (on the start of a pair)
  HeapOptional<AsyncPrediction> async;            // both ops of an async pair

  // Sets the texts, saved in `texts` (each held once there: the same explanation of every
  // layer's op, the few models and categories), which the record holds from then on: a record
  // made by hand takes its texts so. The records of one prediction share one pool.
  void set_texts(const std::shared_ptr<TextPool>& texts, const OpTexts& t);
  // The texts, as set_texts takes them (views of texts()).
  OpTexts all_texts() const {
    return {name(),    opcode(), computation(), category(), op_name(),
            model(),   explanation(), time_range()};
  }
  // The pool the texts are in; null for a record without texts.
  const std::shared_ptr<const TextPool>& texts() const { return texts_; }

 private:
  friend struct detail::OpRecordAccess;  // how a prediction sets them, from its pool's Refs
  std::string_view text(TextPool::Ref ref) const {
    return ref == 0 ? std::string_view() : texts_->text(ref);
  }

  std::shared_ptr<const TextPool> texts_;
  std::string_view explanation_;  // in texts_
  TextPool::Ref name_ = 0;
  TextPool::Ref opcode_ = 0;
  TextPool::Ref computation_ = 0;
  TextPool::Ref category_ = 0;
  TextPool::Ref op_name_ = 0;
  TextPool::Ref model_ = 0;
};

// A slice of the predicted timeline (the trace view draws these).
struct TimelineEvent {
  std::string name;
  std::string track;  // "compute", or the async stream, e.g. "async all-gather"
  double start_s = 0;
  double duration_s = 0;
  int depth = 0;  // nesting: 0 top level, 1 inside a while iteration slice, ...
  const Instruction* instruction = nullptr;  // null for iteration and summary slices
  // An iteration slice: the iterations it stands for (1, or the rest of the loop in one summary
  // slice, whose ops are not laid out); 0 for any other slice.
  int64_t iterations = 0;
};

struct Prediction {
  std::string device;    // the spec's name, e.g. "tpu_v5e"
  std::string topology;  // e.g. "2x2"
  double step_time_s = 0;           // expected (docs/prediction-model.md)
  double roofline_step_time_s = 0;  // the step with every op at its roofline time
  // The range the step time spans where ops have one (OpPrediction::time_range): the step
  // with every such op at its low end, and at its high end (docs/reports.md, "Time ranges");
  // none when no op has one.
  std::optional<TimeRange> step_time_range;
  struct Breakdown {
    double compute_s = 0;             // ops bound by FLOPs
    double memory_s = 0;              // ops bound by memory bandwidth
    double collective_exposed_s = 0;  // collective time the schedule waits for
    double collective_hidden_s = 0;   // collective time overlapped with other work
    double overhead_s = 0;            // ops bound by the fixed per-op overhead
    // Other async work (copy-start/done, async computations) overlapped with other work; its
    // waits count as memory (copies) or compute.
    double async_hidden_s = 0;
  } breakdown;       // compute + memory + collective_exposed + overhead = step_time
  double flops = 0;  // per step, on one device
  double matrix_flops = 0;
  double hbm_bytes = 0;
  // The matrix peak HFU and MFU are measured against (FLOP/s): that of the class most matrix
  // FLOPs ran on (an f32 dot on TF32 tensor cores counts against the tf32 peak); the vector
  // rate ("vector") when no FLOP ran on matrix units.
  double peak_flop_rate = 0;
  std::string peak_flop_rate_type;  // its class, e.g. "bf16", "tf32", "vector"
  // Hardware FLOP utilization: every FLOP the step runs, rematerialized ones included, over
  // the peak: flops / (step_time_s x peak_flop_rate).
  double hfu = 0;
  // Model FLOP utilization, as MaxText and the scaling book count it: the model's FLOPs per
  // step (PredictOptions::model_flops) over what the devices could do in the step:
  // model_flops / (devices x step_time_s x peak_flop_rate). 0 when no model FLOPs are given.
  double model_flops = 0;
  int64_t devices = 1;  // the devices the module runs on: replica_count x num_partitions
  double mfu = 0;
  // Every op of the step once (loops, conditionals and calls through their callees' ops; the
  // ops of branches not taken are left out), sorted by total_time_s, largest first.
  std::vector<OpPrediction> ops;
  std::vector<TimelineEvent> timeline;   // in start order
  std::vector<std::string> unknown_ops;  // instructions whose cost could not be told
  // What the figures rest on, one sentence each. The notes are what the reports call the
  // assumptions: inferred topology, assumed trip counts, ... The warnings are what to know
  // before reading any figure (reports show them first): the device is a guess because nothing
  // in the module tells its platform. Callers add what they said before predicting (loading the
  // module, choosing the device) with add_diagnostics.
  Diagnostics diagnostics;
  // An assumed trip count or an op of unknown cost: the step time is a floor.
  bool is_lower_bound = false;
  // The module the prediction parsed itself (predict_step_time on HLO text), which the ops'
  // and the timeline's instruction pointers point into; null when the caller holds the module.
  std::shared_ptr<const Module> module;
};

// What bounds an op, in the one vocabulary of text, JSON, trace and the Python bindings:
// bound_by_name(op.bound) ("compute", "memory", "overhead"), or "collective" for any op that
// carries a collective.
std::string_view op_bound_name(const OpPrediction& op);
// The roofline term behind it: bound_name(op.resource) ("matrix", "vector", "HBM",
// "on-chip memory", ...), or "network" for an op that carries a collective.
std::string_view resource_name(const OpPrediction& op);

// Merges what was said before predicting (loading the module, choosing the device) into
// `prediction`, the one place every report's order is made: its notes lead the prediction's
// notes (the assumptions), its warnings follow the prediction's own.
void add_diagnostics(const Diagnostics& said, Prediction& prediction);

// Predicts one step of the module in `hlo_text` (HLO text, as parse_module reads it) on
// `device`: a built-in name, alias, JAX device kind, Cloud TPU accelerator type or device JSON
// file, optionally with a topology ("tpu_v5e", "tpu_v5e:2x2", "v5litepod-16", "h100:2x8"), as
// resolve_device reads the command's --device. Without a topology the smallest slice that holds
// the module is inferred. What choosing the device said leads the prediction's assumptions
// (add_diagnostics). The prediction holds the module it parsed (Prediction::module), so its
// ops' instruction pointers stay valid while it lives.
// Errors: text that does not parse (with its line and column), a device resolve_device does
// not know (naming those it does), and those of the overload on a DeviceTarget below.
absl::StatusOr<Prediction> predict_step_time(std::string_view hlo_text, std::string_view device,
                                             const PredictOptions& options = {});
// The same for a module already parsed (or edited): its instruction pointers are the module's.
absl::StatusOr<Prediction> predict_step_time(const Module& module, std::string_view device,
                                             const PredictOptions& options = {});

// Predicts one step of `module` on a device and slice: resolve_device's (the command's --device
// and Python's device=: a built-in name, alias, JAX device kind or Cloud TPU accelerator type,
// optionally with a topology, or a device JSON file), or made by hand (make_topology's). The
// slice is the target's, not parsed again; none, the smallest that holds the module is inferred
// (an assumption the result records). What resolving the device said (target.diagnostics) is the
// caller's to add (add_diagnostics, add_input_diagnostics): a caller that adds more says it all
// at once.
// Errors: a module with no entry marked, a topology that holds fewer devices than the module
// runs on, a collective whose groups do not fit the topology, XLA's GPU collective formulas on
// a TPU, options out of range.
absl::StatusOr<Prediction> predict_step_time(const Module& module, const DeviceTarget& target,
                                             const PredictOptions& options = {});
// The same with the module's cost already analysed: `cost` must be analyze_cost(module,
// cost_options(options)). The cost depends on no device (bytes padded by the layout's tiles are
// the layout's: a GPU layout has none), so predictions of one module on several devices can
// share it (`hloroof compare`).
absl::StatusOr<Prediction> predict_step_time(const Module& module, const DeviceTarget& target,
                                             const PredictOptions& options,
                                             const ModuleCost& cost);
// The cost settings a prediction with `options` analyses the module with.
CostOptions cost_options(const PredictOptions& options);

// Reads the built-in measured tables that predictions on `device` use (GEMMs and collectives
// measured on a GPU: read once per process, about 2 ms for the H100's). A prediction reads them
// when it first needs them; a caller predicting on several devices can have them read
// beforehand, beside other work (`hloroof compare` does, beside the cost analysis).
void load_measured_models(const DeviceSpec& device);

}  // namespace hloroof

#endif  // HLOROOF_PREDICT_H_
