// The combined model of one prediction: it times each scheduled instruction, picking the models
// that time it (op_model.h: the op's own, the device's one), keeps what the prediction makes
// once and looks up again (the text pool, the memos of times and texts, the measured GEMM
// times), records what the estimates used and assumed, and renders each estimate's explanation
// from it once it is made.
#ifndef HLOROOF_LIB_PREDICT_COMBINED_MODEL_H_
#define HLOROOF_LIB_PREDICT_COMBINED_MODEL_H_

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
#include "predict/instruction_timing.h"
#include "predict/op_model.h"

namespace hloroof::predict {

// An op's explanation as it is made: the texts it is joined from, in order, each a static string
// or a text of the pool (CombinedModel::save, the memos' texts), which stay where they are while
// the model lives; so that the whole is found by where its pieces lie (CombinedModel::join)
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

// The models the combined model asks for an estimate (ModelObserver).
enum class ModelKind : uint8_t {
  kRoofline,
  kKernelEstimate,
  kDevice,
  kFamily,
  kHostTransfer,
  kCollective,
};
inline constexpr size_t kModelKinds = 6;

// Told of each model's estimate as the combined model asks for it, with the instruction it is
// for: a test's view of the models one op's time visits (set_model_observer).
class ModelObserver {
 public:
  virtual ~ModelObserver() = default;
  virtual void visited(ModelKind model, const Instruction* instruction) = 0;
};

// The observer told of the estimates of the combined models built on this thread from now on;
// null (the default) for none. For tests.
void set_model_observer(ModelObserver* observer);

// What one prediction is for, fixed while it runs; every reference outlives the prediction.
struct PredictionInputs {
  const Module& module;
  const DeviceSpec& device;
  // The devices the module runs on (choose_topology: --topology, or the smallest slice of the
  // device that holds the module's replicas and partitions).
  const Topology& slice;
  const PredictOptions& options;
  const ModuleCost& cost;  // analyze_cost(module) with the options' cost settings
};

// What the estimates of one prediction used and assumed, taken once at the end.
struct RecordedNotes {
  // Lines the prediction reports as assumptions: each once, in the order first met.
  std::vector<std::string> assumptions;
  // Device figures the estimates used (DeviceFigure::path, or the matrix classes of
  // matrix_flops_per_s), to list the unverified ones. Views of static strings or of the
  // device.
  absl::flat_hash_set<std::string_view> figures_used;
  absl::flat_hash_set<std::string_view> matrix_classes_used;
};

class CombinedModel {
 public:
  // `in` outlives the model. The device's model is the first of `models` that takes the
  // device (pick_device_model).
  explicit CombinedModel(const PredictionInputs& in,
                         absl::Span<const DeviceModelChoice> models = device_models());
  CombinedModel(const CombinedModel&) = delete;
  CombinedModel& operator=(const CombinedModel&) = delete;

  const PredictionInputs& in() const { return in_; }

  // How `i` runs when it is not control flow and not the done of a pair: the one place that
  // picks the models timing an instruction. Nothing for an op that only names buffers or does
  // no work. An async start: what it launches (a collective, a copy, a wrapped computation as
  // `timings` already holds it, an op) and the stream it runs on. A collective: its network and
  // expected models (estimate_collective). Any other op: its roofline, then a kernel's own
  // estimate or the device's model and a measured family (estimate), made once for the first
  // kMaxOpTimes ops alike (past them each op's anew); a fusion's collectives beside it. The
  // explanation is joined from its pieces (with explain()).
  absl::StatusOr<InstructionTiming> time_instruction(const Instruction& i,
                                                     const TimingMap& timings);
  const DeviceSpec& device() const { return in_.device; }
  // Whether explanations are written (PredictOptions::explain).
  bool explain() const { return in_.options.explain; }
  // Every op is timed at its roofline (PredictOptions::roofline_only), not at its expected
  // time.
  bool roofline_walk() const { return in_.options.roofline_only; }

  // --- Ops that are neither collectives nor async starts.

  // What the models read of `i`, whose work is `work` (the GEMMs, issue time and family read
  // only where an expected time is made with them: not on the roofline walk, not for a kernel
  // with its own estimate).
  OpView view_of(const Instruction& i, const OpWork& work, bool include_overhead,
                 bool several_types) const;
  // The first kernel of `i`'s computation where the host launches that computation's kernels
  // one at a time (host_launched_program, asked once per computation); nullptr otherwise.
  const Instruction* program_first(const Instruction& i) const;
  // The op's estimate: its roofline, then the expected time of the model it picks (a kernel's
  // own estimate, the device's model, then a measured family; none on the roofline walk); what
  // the estimate used and assumed is recorded.
  OpEstimate estimate(const OpView& op);
  // The explanation of `e`, an estimate of `op`.
  void render(const OpView& op, const OpEstimate& e, Explanation& explanation);

  // --- Collectives.

  // A collective's estimate (host transfers: HostTransferModel; others: CollectiveModel, made
  // once for each input); what it assumed is recorded.
  absl::StatusOr<CollectiveOpEstimate> estimate_collective(const Instruction& i,
                                                           const CollectiveCost& c);
  // The explanation of `e`, a collective's estimate (with explain()).
  void render(const CollectiveOpEstimate& e, Explanation& explanation);

  // --- What the prediction keeps.

  // The direction of the host link an async computation's host bytes take (link_direction
  // of their sums; each computation read once, however many starts call it).
  uint8_t host_direction(const Computation& c);
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
  // The texts of the prediction's records (models, explanations, names, ...): each saved once,
  // in a pool the records share (OpPrediction::texts).
  std::string_view save(std::string_view text) { return texts_->save(text); }
  TextPool& texts() { return *texts_; }
  const std::shared_ptr<TextPool>& shared_texts() const { return texts_; }
  // The explanation joined from its pieces, a text of the pool: made once for each sequence of
  // pieces (by where they lie).
  std::string_view join(const Explanation& explanation);

  // Records an assumption (once: a line already recorded is not repeated).
  void assume(std::string line);
  // Records what an estimate used and assumed; empties its assumptions.
  void record(EstimateNotes& notes);
  // What was recorded; nothing more is recorded afterwards.
  RecordedNotes take_notes() { return std::move(recorded_); }

 private:
  void use_figure(std::string_view path) {
    if (!figures_seen_.seen_before(path)) recorded_.figures_used.insert(path);
  }
  void use_matrix_class(std::string_view matrix_class) {
    if (!classes_seen_.seen_before(matrix_class)) {
      recorded_.matrix_classes_used.insert(matrix_class);
    }
  }
  // e.explain(), made once for each estimate with the same figures: a module's ops repeat a
  // few hundred estimates thousands of times (gemma3 4b: 161 explanations for 15,895 ops). A
  // text of the pool. A term with no rate_source cites its figure there (rate_source()).
  std::string_view roofline_text(const RooflineEstimate& e);
  // The rate_source of a roofline term of `bound` (not kMatrix): the device's figure cited
  // (cite_figure, of rate_figure), made once.
  const std::string& rate_source(Bound bound);
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
  // time_instruction's work, with the explanation written in `explanation`.
  absl::Status time(const Instruction& i, const TimingMap& timings, InstructionTiming& t,
                    Explanation& explanation);
  // An async start: what it launches and how long that runs.
  absl::Status time_async_start(const Instruction& i, const InstructionCost& record,
                                const TimingMap& timings, InstructionTiming& t,
                                Explanation& explanation);
  // Collectives inside a fusion (TPU fuses some, e.g. `kind=kCustom` all-reduce-scatter
  // fusions) run as part of it; an all-reduce whose sum each device only slices its own part
  // of runs as a reduce-scatter (runs_as_reduce_scatter). Their time; `roofline_total` their
  // roofline.
  absl::StatusOr<double> time_fused_collectives(const Instruction& fusion, InstructionTiming& t,
                                                Explanation& explanation,
                                                double& roofline_total);
  // An op's times and explanation into `t` and `explanation`, made once for the ops alike.
  void time_op(const OpView& op, InstructionTiming& t, Explanation& explanation);
  // An op's times, not memoized (an async start's), into `t` and `explanation`; its roofline
  // floor returned.
  double time_work(const Instruction& i, const OpWork& work, bool include_overhead,
                   InstructionTiming& t, Explanation& explanation);
  // The key of time_op's memo: every field of `op` but its instruction (FigureKey::add_fields).
  std::string_view op_key(const OpView& op);

  // What a collective is timed by: CollectiveInput's fields, the replica groups and pairs
  // where they are already held (the op's cost record), so that a collective met again copies
  // nothing.
  // The fields of CollectiveInput and CollectiveOptions, every one (checked below): a field
  // added to either is added here, or it would share another collective's times.
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
  // CollectiveModel's times and the network estimate's explanation (a text of the pool, with
  // explain()), made once for each input: a sharded module repeats a few dozen collectives
  // (kind, bytes and groups) through its layers, and placing a group on the slice is most of
  // the work.
  struct CollectiveTimes {
    CollectiveModel::Times times;
    std::string_view explanation;
    std::string_view expected_text;  // explain_collective(*times.expected), with explain()
  };
  // `i`: the instruction it is first made for (ModelObserver).
  const CollectiveTimes& collective_times(const CollectiveRef& collective, const Instruction& i);
  static_assert(util::kFieldCount<CollectiveInput> == 4 &&
                    util::kFieldCount<CollectiveOptions> == 4,
                "CollectiveRef::fields() names every field of CollectiveInput and "
                "CollectiveOptions");
  // Tells the observer, if any, that `model` was asked for an estimate of `i`.
  void visited(ModelKind model, const Instruction* i) {
    if (observer_ != nullptr) observer_->visited(model, i);
  }
  // What `i` is timed by: its kind, bytes and groups or pairs as its cost record holds them;
  // where the record lists none, those it is assumed to have, held in `assumed` (the caller's,
  // to outlive the result), and the assumption said in `notes`.
  absl::StatusOr<CollectiveRef> collective_input(const Instruction& i, const CollectiveCost& c,
                                                 CollectiveInput& assumed, EstimateNotes& notes);

  const PredictionInputs in_;
  ModelObserver* const observer_;
  // The models, each built from the device (and the slice).
  GemmTimeCache gemm_times_;
  RooflineModel roofline_;
  KernelEstimateModel kernel_;
  std::unique_ptr<DeviceModel> device_model_;
  FamilyModel family_;
  HostTransferModel host_transfer_;
  CollectiveModel collective_;
  // Matrix work's share of its measured rate (OpView::matrix_share) in this module.
  double matrix_share_ = 1;

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
  // time_op's times of an op, by its key (op_key): the instruction and cost record are those
  // of the first op met.
  absl::flat_hash_map<std::string, InstructionTiming, detail::StringViewHash,
                      detail::StringViewEq>
      op_times_;
  FigureKey op_key_;
  size_t next_cost_ = 0;  // cost_of's guess: the record after the last one found
  absl::flat_hash_map<const Computation*, uint8_t> host_directions_;  // host_direction's
  // program_first's answers, by computation.
  mutable absl::flat_hash_map<const Computation*, const Instruction*> program_firsts_;
  bool transient_texts_ = false;
  // rate_source's texts, by Bound.
  std::array<std::optional<std::string>, static_cast<size_t>(Bound::kOverhead) + 1> rate_sources_;

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
  RecordedNotes recorded_;
  SeenTexts figures_seen_, classes_seen_;
  absl::flat_hash_set<std::string> assumed_;  // assumptions already recorded
};

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_COMBINED_MODEL_H_
