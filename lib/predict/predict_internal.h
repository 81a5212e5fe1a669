// Pieces predict_step_time's files share: the target (its inputs, memo and recorder), how each
// scheduled instruction runs, and the timing of every computation that runs as a schedule.
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
#include "hloroof/predict.h"
#include "hloroof/topology.h"
#include "predict/expected_time.h"

namespace hloroof::predict {

// An op's explanation as it is made: the texts it is joined from, in order, each a static string
// or a text of the memo's pool (TargetMemo::save, the memos' texts), which stay where they are
// while the Target lives; so that the whole is found by where its pieces lie (TargetMemo::join)
// rather than written and hashed anew for each op.
class Explanation {
 public:
  // Replaces what was written with `text`.
  void assign(std::string_view text) {
    pieces_.clear();
    append(text);
  }
  void append(std::string_view text) {
    if (!text.empty()) pieces_.push_back(text);
  }
  void prepend(std::string_view text) {
    if (!text.empty()) pieces_.insert(pieces_.begin(), text);
  }
  bool empty() const { return pieces_.empty(); }
  absl::Span<const std::string_view> pieces() const { return pieces_; }

 private:
  absl::InlinedVector<std::string_view, 6> pieces_;
};

// What one prediction is for, fixed while it runs; every reference outlives the prediction.
struct TargetInputs {
  const Module& module;
  const DeviceSpec& device;
  // The devices the module runs on (choose_topology: --topology, or the smallest slice of the
  // device that holds the module's replicas and partitions).
  const Topology& slice;
  const PredictOptions& options;
  const ModuleCost& cost;  // analyze_cost(module) with the options' cost settings

  // Whether op explanations are written (PredictOptions::explain).
  bool explain() const { return options.explain; }
  // Every op is timed at its roofline (PredictOptions::roofline_only), not at its expected
  // time.
  bool roofline_walk() const { return options.roofline_only; }
};

// What the estimates of one prediction record on the way (assumptions made, device figures and
// matrix classes used), taken once at the end.
class Recorder {
 public:
  // What the estimates recorded.
  struct Outputs {
    // Lines the prediction reports as assumptions: each once, in the order first met.
    std::vector<std::string> assumptions;
    // Device figures the estimates used (DeviceFigure::path, or the matrix classes of
    // matrix_flops_per_s), to list the unverified ones. Views of static strings or of the
    // device.
    absl::flat_hash_set<std::string_view> figures_used;
    absl::flat_hash_set<std::string_view> matrix_classes_used;
  };

  // Records an assumption (once: a line already recorded is not repeated).
  void assume(std::string line);
  // assume() for each line; empties `lines`.
  void assume_all(std::vector<std::string>& lines);
  // Records that an estimate used the device figure at `path` (a static string or a view of
  // the device's).
  void use_figure(std::string_view path) {
    if (!figures_seen_.seen_before(path)) out_.figures_used.insert(path);
  }
  // Records that matrix FLOPs ran at matrix_flops_per_s.`matrix_class`.
  void use_matrix_class(std::string_view matrix_class) {
    if (!classes_seen_.seen_before(matrix_class)) out_.matrix_classes_used.insert(matrix_class);
  }
  // What was recorded; the recorder records nothing more afterwards.
  Outputs take_outputs() { return std::move(out_); }

 private:
  // The first texts recorded (static strings or views of the device's), told by where they
  // lie: every op records the same few, and this spares hashing them each time. A text not
  // told so is recorded (again) in its set, which keeps one of each.
  class SeenTexts {
   public:
    bool seen_before(std::string_view text) {
      for (size_t k = 0; k < count_; ++k) {
        if (texts_[k].data() == text.data() && texts_[k].size() == text.size()) return true;
      }
      if (count_ < texts_.size()) texts_[count_++] = text;
      return false;
    }

   private:
    std::array<std::string_view, 8> texts_;
    size_t count_ = 0;
  };

  Outputs out_;
  SeenTexts figures_seen_, classes_seen_;
  absl::flat_hash_set<std::string> seen_;  // assumptions already recorded
};

// What one prediction makes once and looks up again, for its fixed inputs: the text pool its
// records share, the texts made from estimates, the measured GEMM times, the collectives' and
// the ops' times (the first kMaxOpTimes keys), and where the next cost record is likely found.
class TargetMemo {
 public:
  // `in` outlives the memo.
  explicit TargetMemo(const TargetInputs& in) : in_(in) {}
  TargetMemo(const TargetMemo&) = delete;
  TargetMemo& operator=(const TargetMemo&) = delete;

  // in.cost.find(&i), for instructions asked for in schedule order: ModuleCost lists each
  // computation's instructions in that order, so the record after the last one found is
  // tried first, and the index only when it is not `i`'s (a lookup that misses the cache
  // for each instruction, where the next record is most often in it already).
  const InstructionCost* cost_of(const Instruction& i) {
    const std::vector<InstructionCost>& records = in_.cost.instructions;
    if (next_cost_ < records.size() && records[next_cost_].instruction == &i) {
      return &records[next_cost_++];
    }
    const InstructionCost* found = in_.cost.find(&i);
    if (found != nullptr) next_cost_ = static_cast<size_t>(found - records.data()) + 1;
    return found;
  }

  // The measured GEMM estimates of this prediction, kept so that a GEMM size is looked up once.
  GemmTimeCache& gemm_times() { return gemm_times_; }

  // e.explain(), made once for each estimate with the same figures: a module's ops repeat a
  // few hundred estimates thousands of times (gemma3 4b: 161 explanations for 15,895 ops). A
  // text of the pool. A term with no rate_source cites its figure there (rate_source()).
  std::string_view roofline_text(const RooflineEstimate& e);
  // Explanations of expected times (expected_op_time), by the figures they print.
  TextMemo& expected_texts() { return expected_texts_; }
  // The rate_source of a roofline term of `bound` (not kMatrix): the device's figure cited
  // (cite_figure, of rate_figure), made once.
  const std::string& rate_source(Bound bound);
  // The explanation joined from its pieces, a text of the pool: made once for each sequence of
  // pieces (by where they lie).
  std::string_view join(const Explanation& explanation);

  // A collective's network estimate (collective_time), its explanation and its expected time
  // (expected_collective_time, with the assumptions it makes; none on the roofline walk), made
  // once for each input: a sharded module repeats a few dozen collectives (kind, bytes and
  // groups) through its layers, and placing a group on the slice is most of the work.
  struct CollectiveTimes {
    absl::StatusOr<CollectiveEstimate> estimate;
    std::string_view explanation;  // estimate->explain(), a text of the pool (with explain())
    std::optional<ExpectedTime> expected;
    std::vector<std::string> notes;
  };
  // What collective_times reads of a collective: a CollectiveInput's fields, the replica groups
  // and pairs where they are already held (the op's cost record), so that a collective met
  // again copies nothing.
  struct CollectiveRef {
    CollectiveKind kind = CollectiveKind::kAllReduce;
    double bytes = 0;
    const std::vector<std::vector<int64_t>>* groups = nullptr;
    const std::vector<std::pair<int64_t, int64_t>>* pairs = nullptr;
    const CollectiveOptions* options = nullptr;
    // The scalars by value (a key's ref() is a temporary), the lists by reference.
    auto fields() const {
      return std::tuple<CollectiveKind, double, const std::vector<std::vector<int64_t>>&,
                        const std::vector<std::pair<int64_t, int64_t>>&, CollectiveFormula, bool,
                        bool, bool>(kind, bytes, *groups, *pairs, options->formula,
                                    options->large_n, options->async_start,
                                    options->nvlink_links_known);
    }
  };
  const CollectiveTimes& collective_times(const CollectiveRef& collective);

  // An op's times and explanation (not a collective's, not an async start's): its roofline,
  // expected time and explanation made once for each key, which holds everything they read
  // (the op's work and what the expected time reads of its instruction, as op_timing.cc's
  // time_plain_op writes it): a module's ops repeat a few hundred alike thousands of times.
  // The first kMaxOpTimes keys are kept; past them each op's are made anew.
  struct OpTimes {
    double time_s = 0;
    double roofline_s = 0;
    Bound resource = Bound::kOverhead;
    BoundBy bound = BoundBy::kOverhead;
    std::string_view model;        // a text of the pool or a static one
    std::string_view explanation;  // joined (join()); empty without explain()
  };
  OpTimes op_times(std::string_view key, absl::FunctionRef<OpTimes()> make);
  // Whether op_times keeps no more keys: then each op's explanation is made whole and its
  // pieces are not kept (set_transient_texts).
  bool op_times_full() const { return op_times_.size() >= kMaxOpTimes; }
  // While on, roofline_text() and the expected texts give texts held only until the next of
  // their kind (TextMemo::set_transient) and join() saves what it joins: for an op whose
  // explanation alone is kept (a module of thousands of distinct ops would otherwise keep
  // every op's pieces beside its whole text).
  void set_transient_texts(bool on) {
    transient_texts_ = on;
    roofline_texts_.set_transient(on);
    expected_texts_.set_transient(on);
  }
  // The key of op_times to fill, empty (the memo's own, reused).
  FigureKey& new_op_key() {
    op_key_.clear();
    return op_key_;
  }

  // The texts of the prediction's records (models, explanations, names, ...): each saved once,
  // in a pool the records share (OpPrediction::texts).
  std::string_view save(std::string_view text) { return texts_->save(text); }
  TextPool& texts() { return *texts_; }
  const std::shared_ptr<TextPool>& shared_texts() const { return texts_; }

 private:
  const TargetInputs& in_;
  GemmTimeCache gemm_times_;
  std::shared_ptr<TextPool> texts_ = std::make_shared<TextPool>();
  // Texts made once, saved in texts_ (declared after it: destroyed before it).
  TextMemo roofline_texts_{*texts_};
  TextMemo expected_texts_{*texts_};
  TextMemo joined_texts_{*texts_};
  FigureKey key_;  // the last key made, reused
  // collective_times' results, by everything the estimate reads besides the device and slice
  // (fields(): hashed and compared alike). A node map: the results stay where they are. Looked
  // up by a CollectiveRef, so that a key is copied (its replica groups with it) only for a new
  // result.
  struct CollectiveKey {
    CollectiveInput input;
    CollectiveOptions options;
    CollectiveRef ref() const {
      return {input.kind, input.bytes, &input.groups, &input.pairs, &options};
    }
    auto fields() const { return ref().fields(); }
  };
  struct CollectiveKeyHash {
    using is_transparent = void;
    template <typename K>
    size_t operator()(const K& k) const {
      return absl::HashOf(k.fields());
    }
  };
  struct CollectiveKeyEq {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return a.fields() == b.fields();
    }
  };
  absl::node_hash_map<CollectiveKey, CollectiveTimes, CollectiveKeyHash, CollectiveKeyEq>
      collective_times_;
  static constexpr size_t kMaxOpTimes = 4096;
  // Keys of 100 bytes and more: hashed 16 bytes a step (util/string_view_hash.h).
  absl::flat_hash_map<std::string, OpTimes, detail::StringViewHash, detail::StringViewEq> op_times_;
  FigureKey op_key_;
  size_t next_cost_ = 0;  // cost_of's guess: the record after the last one found
  bool transient_texts_ = false;
  // rate_source's texts, by Bound.
  std::array<std::optional<std::string>, static_cast<size_t>(Bound::kOverhead) + 1> rate_sources_;
};

// The context of one prediction, built once by predict_step_time and handed to the steps that
// need more than one of its parts (step_walk.cc, op_timing.cc, timeline.cc): its inputs, the
// memo made for them, and the recorder of what the estimates record.
class Target {
 public:
  explicit Target(const TargetInputs& inputs) : in_(inputs), memo_(in_) {}
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;

  const TargetInputs& in() const { return in_; }
  TargetMemo& memo() { return memo_; }
  Recorder& recorder() { return recorder_; }

 private:
  const TargetInputs in_;
  TargetMemo memo_;  // declared after in_, which it reads
  Recorder recorder_;
};

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
  // Texts of the target's pool (TargetMemo::save) or static ones.
  std::string_view explanation;
  std::string_view model;        // the model behind time_s or latency_s (OpPrediction::model)
  std::string_view matrix_unit;  // the matrix class its matrix FLOPs ran on ("bf16", "tf32")
  // A collective's prediction; held apart, as few ops are collectives.
  HeapOptional<CollectivePrediction> collective;
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

// How `instruction` runs on the target when it is not control flow and not the done of a pair
// (op_timing.cc). Async starts get their latency and stream; `timings` holds the computations
// already timed (an async-start's wrapped computation).
absl::StatusOr<InstructionTiming> time_instruction(const Instruction& instruction,
                                                   const TimingMap& timings, Target& target);

// The peers of a send or recv, from its `_xla_send_recv_source_target_pairs` frontend
// attribute (source, target); empty when it has none (op_timing.cc).
std::vector<std::pair<int64_t, int64_t>> send_recv_pairs(const Instruction& instruction);

// Times every computation that runs as a schedule, callees first (step_walk.cc).
absl::StatusOr<TimingMap> time_computations(Target& target);

// The same computations scheduled again with every op at its roofline (roofline_time_s,
// roofline_latency_s), without costing anything anew: the async overlaps of the roofline are
// its own (step_walk.cc).
absl::StatusOr<RooflineMap> roofline_schedule(const Module& module, const TimingMap& expected);

// Executions per step of each timed computation under the model: loops repeat their body and
// condition, a conditional runs its slowest branch, a call its callee (step_walk.cc).
absl::flat_hash_map<const Computation*, double> executions_per_step(const Module& module,
                                                                    const TimingMap& timings);

// The trace timeline of one step (timeline.cc).
std::vector<TimelineEvent> build_timeline(const TimingMap& timings, const TargetInputs& inputs,
                                          Recorder& recorder);

// XProf-like category of an op: "convolution fusion", "loop fusion", "all-gather", ...; a view
// of a static text, of the timing's stream (held by the target's texts) or, for a collective,
// of its collective's kind. `matrix_flops`: the op's matrix FLOPs (a fusion doing some is a
// convolution fusion).
std::string_view op_category(const InstructionTiming& timing, double matrix_flops);

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_PREDICT_INTERNAL_H_
