// The models of one op's time (docs/prediction-model.md, "One op", "Expected time",
// "Collectives"): each built from the device it models (its config, the slice for the network)
// and only what else it reads, and answering one call, estimate(), with an estimate that holds
// its figures, the data it used and what it assumed. None of them records anything: the
// combined model (combined_model.h) picks the models for an op, records what the estimates used
// and renders their explanations afterwards, asking the device model that made an estimate to
// explain its figures.
//
// Two axes. The models of what an op is (its roofline, XLA's estimate of a kernel, a measured
// op family, a collective's network, a host transfer) meet a C++20 concept, OpModel or
// CollectiveOpModel, checked by static_assert here: the combined model holds each by value and
// calls it directly, and each estimate() takes only the input it reads. The models of what a
// device measured (its GEMM tables, its TPU fits, a file's calibration) are DeviceModels: one
// is picked for the prediction by the device, from a list.
//
// A new model of an op: a class meeting its concept, its work in a file of its own, and one
// line in CombinedModel::estimate or estimate_collective. A new device model: a class deriving
// from DeviceModel in a file of its own, and one line in device_models() (device_models.cc).
#ifndef HLOROOF_LIB_PREDICT_OP_MODEL_H_
#define HLOROOF_LIB_PREDICT_OP_MODEL_H_

#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "hloroof/backend_config.h"
#include "hloroof/collective.h"
#include "hloroof/cost.h"
#include "hloroof/device.h"
#include "hloroof/instruction.h"
#include "hloroof/predict.h"
#include "hloroof/roofline.h"
#include "hloroof/topology.h"
#include "predict/expected_time.h"
#include "predict/gpu_families.h"

namespace hloroof::predict {

class DeviceModel;

// What an estimate assumed and which device figures it rests on, in the order met: the
// prediction's assumptions and its list of unverified figures are made from these.
struct EstimateNotes {
  std::vector<std::string> assumptions;
  // Device figure paths (static strings or views of the device's) and matrix classes of
  // matrix_flops_per_s.
  absl::InlinedVector<std::string_view, 6> figures;
  absl::InlinedVector<std::string_view, 2> matrix_classes;

  void assume(std::string line) { assumptions.push_back(std::move(line)); }
  void use_figure(std::string_view path) { figures.push_back(path); }
  void use_matrix_class(std::string_view matrix_class) { matrix_classes.push_back(matrix_class); }
};

// What the models read of an op that is neither a collective nor an async start: its work and
// what its expected time reads of its instruction. Two ops with the same view (all but the
// instruction) have the same estimate.
struct OpView {
  const Instruction* instruction = nullptr;
  OpWork work;
  // XLA's estimate of the kernel's own time (GPUs only; KernelEstimateModel::find).
  std::optional<KernelTimeEstimate> kernel;
  bool include_overhead = true;
  bool several_types = false;  // matrix FLOPs of several element types
  // Read only for the expected time (empty on the roofline walk and for a kernel's own
  // estimate).
  std::vector<GemmCall> gemms;       // the GEMMs it runs (gemms_of), for matrix FLOPs
  IssueTime issue;                   // elementwise_issue_time
  bool layout_sensitive = false;     // on GPUs: an FFT or a transpose
  KernelClass kernel_class = KernelClass::kNone;  // on GPUs: for the small-kernel floor
  double unaligned_share = 0;  // on GPUs: of its bytes, those not in 16-byte vectors
  StridedReads strided;        // on GPUs: a loop fusion's reads across rows (strided_loop_reads)
  // On GPUs: the bytes of an element of the result a kernel of XLA's own stores (its first
  // array's); 0: not such a kernel.
  int store_element_bytes = 0;
  std::optional<FamilyTime> family;  // a measured op-family model (gpu_families.h)
  // The host's launch before it, kernel by kernel (loop_host_gap_s, program_launch_s).
  double host_launch_s = 0;
  bool launched_in_loop = false;  // host_launch_s is a small loop body's (loop_host_gap_s)
  // On GPUs: the share of its measured rate the op's matrix work keeps (the device's
  // sharded_compute_share in a program sharded over several GPUs, else 1).
  double matrix_share = 1;
};

// One op's estimate: its roofline, its expected time and the model and data behind it.
struct OpEstimate {
  RooflineEstimate roofline;  // the speed of light; its floor_s is the op's roofline time
  double time_s = 0;          // expected (the roofline walk: the floor)
  std::string model = "roofline";  // the model behind time_s (OpPrediction::model)
  Bound resource = Bound::kOverhead;
  BoundBy bound = BoundBy::kOverhead;
  // The data the expected time came from, whichever model gave it.
  std::optional<KernelTimeEstimate> kernel;  // the kernel's own estimate
  // The device's model (DeviceModel), where it set the time: it explains it from `basis`.
  const DeviceModel* device_model = nullptr;
  std::variant<std::monostate, GpuOpBasis, TpuOpBasis> basis;
  const FamilyTime* family = nullptr;        // the family model's, when it set the time
  double model_s = 0;                        // the time the model set, before any host gap
  bool layout_sensitive = false;             // the device model's time of an FFT or transpose
  double host_launch_s = 0;                  // the host's launch added
  bool launched_in_loop = false;             // in a small loop's body (OpView)
  std::optional<TimeRange> range;            // time_s's (the family's range, made alike)
  EstimateNotes notes;
};

// The category of a roofline term's resource.
BoundBy bound_by(Bound bound);

// A model of an op's expected time: it refines `prior`, the estimate made before it (the
// roofline's, or for a family, the device model's), into its own.
template <typename M>
concept OpModel = requires(const M& model, const OpView& op, OpEstimate prior) {
  { model.estimate(op, std::move(prior)) } -> std::same_as<OpEstimate>;
};

// A model of a collective's time: `Op` is what it reads of the collective.
template <typename M, typename Op, typename Estimate>
concept CollectiveOpModel = requires(const M& model, const Op& op) {
  { model.estimate(op) } -> std::same_as<Estimate>;
};

// The speed of light of every op: its work at the device's peak rates (calibration left to the
// expected time). The prior every OpModel refines.
class RooflineModel {
 public:
  // `cite_matrix`: the matrix term names its figure (for explanations).
  RooflineModel(const DeviceSpec& device, bool cite_matrix)
      : device_(device), cite_matrix_(cite_matrix) {}
  OpEstimate estimate(const OpView& op) const;

 private:
  const DeviceSpec& device_;
  bool cite_matrix_;
};

// XLA's estimate of a GPU kernel's own run time, carried in its backend_config
// (docs/prediction-model.md, "Kernel estimates"): that estimate, never below the roofline.
class KernelEstimateModel {
 public:
  explicit KernelEstimateModel(const DeviceSpec& device) : device_(device) {}
  // The estimate `i` carries; nullopt when it carries none or the device is not a GPU.
  std::optional<KernelTimeEstimate> find(const Instruction& i) const;
  // `op.kernel`, which find() gave, is the estimate.
  OpEstimate estimate(const OpView& op, OpEstimate roofline) const;

 private:
  const DeviceSpec& device_;
};

// A device's model of an op's expected time: the measured GPU tables, the TPU fits, a file's
// calibrated efficiencies. One is picked for the prediction by its device (pick_device_model)
// and asked for every op that no kernel estimate of its own times. Unlike the models above, it
// is an interface: the device picks it once, each op's estimate is made once for the ops alike
// (CombinedModel::time_op), and a test or a new device adds one as a class and a line of
// device_models().
class DeviceModel {
 public:
  virtual ~DeviceModel() = default;
  // Refines `roofline`, RooflineModel's estimate of `op`: sets time_s (never below the
  // roofline), model, model_s and, where it explains figures, basis and device_model.
  virtual OpEstimate estimate(const OpView& op, OpEstimate roofline) const = 0;
  // How `e`, an estimate it made, was made, with the numbers: a text of `memo` (made once for
  // each set of figures it prints); empty where it has nothing to say.
  virtual std::string_view explain(const OpEstimate& e, TextMemo& memo) const = 0;
};

// One line of the list pick_device_model reads: a model and the devices it takes.
struct DeviceModelChoice {
  std::string_view name;  // what it rests on, e.g. "GPU tables"
  bool (*takes)(const DeviceSpec& device);
  // `gemm_times` keeps the GEMM estimates of one prediction; both outlive the model.
  std::unique_ptr<DeviceModel> (*make)(const DeviceSpec& device, GemmTimeCache& gemm_times);
};

// The built-in device models, in the order they are tried: the TPU fits (a TPU whose file sets
// no calibration), the GPU tables (GPUs, with a file's calibrated efficiencies where it sets
// them), the calibrated efficiencies (any other device whose file sets them), the roofline
// (every device).
absl::Span<const DeviceModelChoice> device_models();

// The first model of `models` that takes `device`; null when none does.
std::unique_ptr<DeviceModel> pick_device_model(
    const DeviceSpec& device, GemmTimeCache& gemm_times,
    absl::Span<const DeviceModelChoice> models = device_models());

// The built-in models, each in a file of its own (device_models() lists them).
bool takes_gpu_tables(const DeviceSpec& device);
std::unique_ptr<DeviceModel> make_gpu_table_model(const DeviceSpec& device,
                                                  GemmTimeCache& gemm_times);
bool takes_tpu_fits(const DeviceSpec& device);
std::unique_ptr<DeviceModel> make_tpu_fit_model(const DeviceSpec& device,
                                                GemmTimeCache& gemm_times);
bool takes_calibrated(const DeviceSpec& device);
std::unique_ptr<DeviceModel> make_calibrated_model(const DeviceSpec& device,
                                                   GemmTimeCache& gemm_times);
std::unique_ptr<DeviceModel> make_roofline_model(const DeviceSpec& device,
                                                 GemmTimeCache& gemm_times);

// The measured op families of NVIDIA GPUs (gpu_families.h): sorts, top-k, FFTs, scatters,
// gathers, depthwise convolutions, library calls' host gaps.
class FamilyModel {
 public:
  explicit FamilyModel(const DeviceSpec& device) : device_(device) {}
  // Whether the family model times `op` (a family read that gives a time).
  static bool applies(const OpView& op) {
    return op.family && (op.family->device_s > 0 || op.family->host_gap_s > 0);
  }
  // `general`: the device model's estimate of `op`, whose time stands where the family leaves
  // the kernels to it, and whose assumptions are kept.
  OpEstimate estimate(const OpView& op, OpEstimate general) const;

 private:
  const DeviceSpec& device_;
};

// A collective's estimate: its prediction (formula, time, group), its roofline and the expected
// model behind it.
struct CollectiveOpEstimate {
  CollectivePrediction prediction;
  double roofline_s = 0;
  std::string_view model;  // a static text or a text of the memo
  // The network estimate and expected time the memo made (CollectiveModel); null for a host
  // transfer.
  const CollectiveEstimate* network = nullptr;
  const CollectiveExpectedTime* expected = nullptr;  // null on the roofline walk
  std::string_view network_text;           // network->explain(), with explanations
  std::string_view expected_text;          // explain_collective(*expected), with them
  bool host_transfer = false;              // HostTransferModel's
  bool megascale = false;                  // a host transfer across slices over DCN
  int64_t slices = 1;                      // its target's slices
  double host_rate = 0;                    // a host transfer: the host link, B/s
  double dcn_rate = 0;                     // a megascale transfer: a device's DCN share, B/s
  EstimateNotes notes;
};

// An estimate whose prediction names the collective's kind, payload, group and whether it runs
// asynchronously; its time is the model's to fill.
CollectiveOpEstimate collective_op_estimate(const CollectiveCost& c, bool is_async);

// What a host transfer's model reads: the collective's cost and whether it runs asynchronously.
struct HostTransferOp {
  const CollectiveCost& cost;
  bool is_async = false;
  // A collective across slices as libtpu compiles a multi-slice program: a send and a recv
  // host transfer of its megascale runtime over DCN, whose frontend attribute
  // _xla_megascale_transfer_type names the collective ("ALL_REDUCE", ...); empty otherwise.
  std::string_view megascale_type;
  int64_t slices = 1;  // the target's slices (its "slice" axis)
};

// Transfers to and from the host (send/recv with is_host_transfer): the payload over the host
// link (PCIe); a megascale transfer over DCN instead.
class HostTransferModel {
 public:
  explicit HostTransferModel(const DeviceSpec& device) : device_(device) {}
  CollectiveOpEstimate estimate(const HostTransferOp& op) const;

 private:
  const DeviceSpec& device_;
};

// What a collective's network model reads: the collective and how it is timed.
struct NetworkOp {
  const CollectiveInput& input;
  const CollectiveOptions& options;
};

// A collective's network time on the slice (collective_time: the torus, NVLink and the network
// across nodes) and its expected time (expected_collective_time: measured fits, NCCL's model).
class CollectiveModel {
 public:
  // `expected`: the expected time is made too (not on the roofline walk).
  CollectiveModel(const DeviceSpec& device, const Topology& slice, bool expected)
      : device_(device), slice_(slice), expected_(expected) {}
  struct Times {
    absl::StatusOr<CollectiveEstimate> estimate;
    std::optional<CollectiveExpectedTime> expected;
    std::vector<std::string> notes;  // the expected time's assumptions
  };
  Times estimate(const NetworkOp& op) const;
  const Topology& slice() const { return slice_; }

 private:
  const DeviceSpec& device_;
  const Topology& slice_;
  bool expected_;
};

static_assert(OpModel<KernelEstimateModel>);
static_assert(OpModel<FamilyModel>);
static_assert(CollectiveOpModel<HostTransferModel, HostTransferOp, CollectiveOpEstimate>);
static_assert(CollectiveOpModel<CollectiveModel, NetworkOp, CollectiveModel::Times>);

}  // namespace hloroof::predict

#endif  // HLOROOF_LIB_PREDICT_OP_MODEL_H_
