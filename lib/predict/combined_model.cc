// The combined model (combined_model.h): which models time an instruction, what the prediction
// keeps, and the explanations rendered from the estimates.
#include "predict/combined_model.h"

#include <algorithm>
#include <array>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "predict/predict_internal.h"
#include "predict/roofline_internal.h"
#include "util/number_text.h"

namespace hloroof::predict {
namespace {

// Whether `i` is, or fuses, an FFT or a transpose: kernels whose speed on GPUs depends on the
// layout and stride of the axis they move along, which the HBM and issue terms do not see.
bool layout_sensitive(const Instruction& i, int depth = 0) {
  if (i.opcode() == Opcode::kFft || i.opcode() == Opcode::kTranspose) return true;
  if (i.opcode() != Opcode::kFusion || depth > 4) return false;
  const Computation* fused = i.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return false;
  for (const Instruction* inner : fused->instructions()) {
    if (layout_sensitive(*inner, depth + 1)) return true;
  }
  return false;
}

// Figures of the interconnect a collective estimate rests on.
void use_interconnect_figures(const CollectiveEstimate& e, const DeviceSpec& device,
                              CollectiveFormula formula, EstimateNotes& notes) {
  for (const DeviceFigure& f : device.figures) {
    if (f.path.rfind("interconnect.", 0) != 0) continue;
    const bool dcn = f.path.find("dcn") != std::string::npos;
    const bool sol = f.path.find("xla_sol") != std::string::npos;
    if (dcn && e.placement.domains <= 1) continue;
    // The link between a chip's devices, only where a chip has several (a megacore chip as
    // one device has none).
    const bool core = f.path == "interconnect.core_link_bandwidth";
    if (core && (!device.torus || device.torus->devices_per_chip <= 1)) continue;
    if (sol != (formula == CollectiveFormula::kXlaGpuSol)) continue;
    notes.use_figure(f.path);
  }
}

thread_local ModelObserver* model_observer = nullptr;

}  // namespace

void set_model_observer(ModelObserver* observer) { model_observer = observer; }

CombinedModel::CombinedModel(const PredictionInputs& in,
                             absl::Span<const DeviceModelChoice> models)
    : in_(in),
      observer_(model_observer),
      roofline_(in.device, in.options.explain),
      kernel_(in.device),
      device_model_(pick_device_model(in.device, gemm_times_, models)),
      family_(in.device),
      host_transfer_(in.device),
      collective_(in.device, in.slice, !in.options.roofline_only) {
  const ModuleAttributes& a = in.module.attributes();
  if (in.device.kind == DeviceKind::kGpu && in.device.sharded_compute_share &&
      (a.num_partitions > 1 || a.replica_count > 1)) {
    matrix_share_ = *in.device.sharded_compute_share;
  }
}

namespace {

// How long the work `e` estimates occupies the device memory: its bytes at the rate its
// expected time moves them (the device model's HBM term; the roofline's where no device model
// gave one), at most its time.
double hbm_occupancy(const OpEstimate& e) {
  double hbm = 0;
  for (const RooflineTerm& term : e.roofline.terms) {
    if (term.bound == Bound::kHbm) hbm = std::max(hbm, term.time_s);
  }
  const auto expected_term = [&hbm](const auto& basis) {
    using Term = typename std::decay_t<decltype(basis)>::Term;
    for (const auto& [term, s] : basis.terms) {
      if (term == Term::kHbm) hbm = std::max(hbm, s);
    }
  };
  if (const auto* gpu = std::get_if<GpuOpBasis>(&e.basis)) expected_term(*gpu);
  if (const auto* tpu = std::get_if<TpuOpBasis>(&e.basis)) expected_term(*tpu);
  return std::min(hbm, e.time_s);
}

// What bounds an async computation: the bound of the ops that take most of its time (a
// host-offload dynamic-slice waits on the host link, a SparseCore gather on HBM), and the
// resource of the longest of them; compute where none takes time.
void set_bound_of(const ComputationTiming& c, InstructionTiming& t) {
  // One sum per BoundBy enumerator; kOverhead is the last.
  std::array<double, static_cast<size_t>(BoundBy::kOverhead) + 1> by_bound{};
  for (const InstructionTiming& i : c.instructions) {
    by_bound[static_cast<size_t>(i.bound)] += i.time_s;
  }
  const auto most = std::max_element(by_bound.begin(), by_bound.end());
  if (*most <= 0) {
    t.bound = BoundBy::kCompute;
    return;
  }
  t.bound = static_cast<BoundBy>(most - by_bound.begin());
  double longest = 0;
  for (const InstructionTiming& i : c.instructions) {
    if (i.bound == t.bound && i.time_s > longest) {
      longest = i.time_s;
      t.resource = i.resource;
    }
  }
}

// The direction of the host link bytes take: kHostToDevice when more host memory is read than
// written, else kDeviceToHost.
uint8_t link_direction(const SpaceBytes& read, const SpaceBytes& written) {
  return read.host >= written.host ? kHostToDevice : kDeviceToHost;
}

}  // namespace

uint8_t CombinedModel::host_direction(const Computation& c) {
  auto [it, inserted] = host_directions_.try_emplace(&c, kHostToDevice);
  if (!inserted) return it->second;
  SpaceBytes read, written;
  for (const Instruction* i : c.instructions()) {
    if (const InstructionCost* r = in_.cost.find(i)) {
      read.host += r->cost.padded_read.host;
      written.host += r->cost.padded_written.host;
    }
  }
  it->second = link_direction(read, written);
  return it->second;
}

absl::StatusOr<InstructionTiming> CombinedModel::time_instruction(const Instruction& i,
                                                                  const TimingMap& timings) {
  InstructionTiming t;
  Explanation explanation;
  absl::Status s = time(i, timings, t, explanation);
  if (!s.ok()) return s;
  t.explanation = join(explanation);
  return t;
}

absl::Status CombinedModel::time(const Instruction& i, const TimingMap& timings,
                                 InstructionTiming& t, Explanation& explanation) {
  t.instruction = &i;
  t.cost = cost_of(i);
  if (t.cost == nullptr || is_pointer_only(i.opcode())) return absl::OkStatus();  // kFree
  const InstructionCost& record = *t.cost;
  if (is_async_start(i.opcode())) {
    return time_async_start(i, record, timings, t, explanation);
  }
  if (record.collective) {
    t.role = Role::kCollective;
    absl::StatusOr<CollectiveOpEstimate> e = estimate_collective(i, *record.collective);
    if (!e.ok()) return e.status();
    render(*e, explanation);
    t.model = e->model;
    t.roofline_time_s = e->roofline_s;
    t.time_s = e->prediction.time_s;
    t.bound = BoundBy::kCollective;
    t.collective = std::move(e->prediction);
    return absl::OkStatus();
  }
  OpWork work = work_of(record.cost);
  // E.g. a transpose that only relabels its operand's bytes.
  if (!has_work(work)) return absl::OkStatus();
  t.role = Role::kOp;
  set_matrix_unit(work, i, device());
  t.matrix_unit = work.matrix_class;
  time_op(view_of(i, work, in_.options.include_overhead, record.cost.matrix.size() > 1), t,
          explanation);
  if (i.opcode() == Opcode::kFusion) {
    double collective_roofline_s = 0;
    absl::StatusOr<double> collective_s =
        time_fused_collectives(i, t, explanation, collective_roofline_s);
    if (!collective_s.ok()) return collective_s.status();
    // The fused collective moves the data the fusion's bytes describe: the slower one bounds.
    t.roofline_time_s = std::max(t.roofline_time_s, collective_roofline_s);
    if (*collective_s > t.time_s) {
      t.time_s = *collective_s;
      t.time_range = std::nullopt;  // the collective's time, which has no range
      t.bound = BoundBy::kCollective;
      t.role = Role::kCollective;
    }
  }
  return absl::OkStatus();
}

absl::Status CombinedModel::time_async_start(const Instruction& i, const InstructionCost& record,
                                             const TimingMap& timings, InstructionTiming& t,
                                             Explanation& explanation) {
  t.role = Role::kAsyncStart;
  FlowTiming& flow = t.mutable_flow();
  const CollectiveCost* c = collective_of(i, in_.cost);
  flow.stream = save(stream_of(i, c));
  if (c != nullptr) {
    absl::StatusOr<CollectiveOpEstimate> e = estimate_collective(i, *c);
    if (!e.ok()) return e.status();
    render(*e, explanation);
    t.model = e->model;
    flow.roofline_latency_s = e->roofline_s;
    e->prediction.is_async = true;
    flow.latency_s = e->prediction.time_s;
    t.bound = BoundBy::kCollective;
    t.collective = std::move(e->prediction);
    return absl::OkStatus();
  }
  if (i.opcode() == Opcode::kCopyStart) {
    // A DMA between memories: its bytes over the slower memory's bandwidth, no launch overhead.
    const OpWork work = work_of(record.cost);
    flow.roofline_latency_s =
        time_work(i, work, /*include_overhead=*/false, t, explanation);
    flow.latency_s = t.time_s;
    t.time_s = 0;
    t.bound = BoundBy::kMemory;
    // A host-offload copy takes its direction of the host link, one copy at a time (the
    // schedule queues it behind the copies started before it): a TPU v6e profile's three
    // concurrent copies each way ran one after another (docs/prediction-model.md).
    if (t.resource == Bound::kHost) {
      flow.queue = link_direction(record.cost.padded_read, record.cost.padded_written);
    }
    if (explain()) explanation.prepend("asynchronous copy: ");
    return absl::OkStatus();
  }
  // A wrapped computation: its own predicted time; a sugared op (custom-call-start): its
  // roofline.
  const Computation* wrapped =
      i.uses_async_sugar() ? nullptr : i.computation_attribute(AttrId::kCalls);
  if (auto it = wrapped ? timings.find(wrapped) : timings.end(); it != timings.end()) {
    flow.latency_s = it->second.total_s;
    t.hbm_s = it->second.hbm_s;
    flow.async_computation = wrapped;
    set_bound_of(it->second, t);
    // An async computation that moves data over the host link (libtpu's async dynamic-slice
    // from host memory, dynamic-update-slice into it) queues on the link's direction as a
    // host-offload copy does.
    if (t.resource == Bound::kHost) flow.queue = host_direction(*wrapped);
    t.model = roofline_walk() ? "roofline" : "the wrapped computation's ops";
    if (explain()) {
      explanation.assign(save(
          absl::StrCat("runs ", sv(wrapped->name()),
                       " asynchronously: ", util::general_text(flow.latency_s, 4), " s")));
    }
    return absl::OkStatus();
  }
  OpWork work = work_of(record.cost);
  set_matrix_unit(work, i, device());
  t.matrix_unit = work.matrix_class;
  flow.roofline_latency_s =
      time_work(i, work, in_.options.include_overhead, t, explanation);
  flow.latency_s = t.time_s;
  t.time_s = 0;
  if (explain()) explanation.prepend("asynchronous ");
  return absl::OkStatus();
}

absl::StatusOr<double> CombinedModel::time_fused_collectives(const Instruction& fusion,
                                                             InstructionTiming& t,
                                                             Explanation& explanation,
                                                             double& roofline_total) {
  const Computation* fused = fusion.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return 0.0;
  double total = 0;
  for (const Instruction* inner : fused->instructions()) {
    const InstructionCost* r = in_.cost.find(inner);
    if (r == nullptr || !r->collective) continue;
    Explanation inner_explanation;
    CollectiveCost c = *r->collective;
    const bool scatter = runs_as_reduce_scatter(*inner, c);
    if (scatter) c.kind = CollectiveKind::kReduceScatter;
    absl::StatusOr<CollectiveOpEstimate> e = estimate_collective(*inner, c);
    if (!e.ok()) return e.status();
    render(*e, inner_explanation);
    total += e->prediction.time_s;
    roofline_total += e->roofline_s;
    if (explain()) {
      explanation.append(save(absl::StrCat(
          "\nfused ", sv(inner->name()),
          scatter ? " (each device slices its own 1/N of the sum: run as a reduce-scatter)" : "",
          ": ")));
      for (const std::string_view piece : inner_explanation.pieces()) explanation.append(piece);
    }
    if (!t.collective) t.collective = std::move(e->prediction);
  }
  return total;
}

void CombinedModel::time_op(const OpView& op, InstructionTiming& t, Explanation& explanation) {
  // An op with a kernel estimate of its own is made alone; others once for the ops alike in
  // everything the models read (op_key).
  std::string_view key;
  if (!op.kernel) {
    key = op_key(op);
    if (auto it = op_times_.find(key); it != op_times_.end()) {
      const Instruction* const instruction = t.instruction;
      const InstructionCost* const cost = t.cost;
      t = it->second;
      t.instruction = instruction;
      t.cost = cost;
      explanation.assign(t.explanation);
      return;
    }
  }
  // Past the memo's keys, the explanation's pieces are not kept: only the whole is.
  const bool transient = explain() && op_times_full();
  if (transient) set_transient_texts(true);
  const OpEstimate e = estimate(op);
  Explanation pieces;
  render(op, e, pieces);
  t.time_s = e.time_s;
  t.roofline_time_s = e.roofline.floor_s;
  t.hbm_s = hbm_occupancy(e);
  t.resource = e.resource;
  t.bound = e.bound;
  t.model = e.model == "roofline" ? std::string_view("roofline") : save(e.model);
  if (e.range) t.time_range = *e.range;
  t.host_launch_s = e.host_launch_s;
  t.explanation = join(pieces);
  if (transient) set_transient_texts(false);
  // Neither estimate nor render makes an op key: `key` still views op_key_.
  if (!op.kernel && op_times_.size() < kMaxOpTimes) op_times_.emplace(std::string(key), t);
  explanation.assign(t.explanation);
}

double CombinedModel::time_work(const Instruction& i, const OpWork& work, bool include_overhead,
                                InstructionTiming& t, Explanation& explanation) {
  const OpView view = view_of(i, work, include_overhead, /*several_types=*/false);
  const OpEstimate e = estimate(view);
  render(view, e, explanation);
  t.time_s = e.time_s;
  t.hbm_s = hbm_occupancy(e);
  t.resource = e.resource;
  t.bound = e.bound;
  t.model = e.model == "roofline" ? std::string_view("roofline") : save(e.model);
  return e.roofline.floor_s;
}

const Instruction* CombinedModel::program_first(const Instruction& i) const {
  const Computation* c = i.parent();
  if (c == nullptr || !c->is_entry()) return nullptr;
  auto [it, inserted] = program_firsts_.try_emplace(c, nullptr);
  if (inserted) it->second = host_launched_program(*c);
  return it->second;
}

OpView CombinedModel::view_of(const Instruction& i, const OpWork& work, bool include_overhead,
                              bool several_types) const {
  OpView v;
  v.instruction = &i;
  v.work = work;
  v.include_overhead = include_overhead;
  v.several_types = several_types;
  v.kernel = kernel_.find(i);
  if (roofline_walk() || v.kernel) return v;
  const DeviceSpec& device = in_.device;
  if (work.matrix_flops > 0) {
    v.gemms = gemms_of(i, device);
    if (v.gemms.empty()) v.gemms = splash_gemms(i, work.matrix_flops, device);
    if (v.gemms.empty()) v.gemms = megablox_gemms(i, work.matrix_flops, device);
  }
  v.issue = elementwise_issue_time(i, device, in_.cost);
  v.matrix_share = matrix_share_;
  v.family = gpu_family_time(i, work, device, matrix_share_);
  const double loop_launch_s = loop_host_gap_s(i, device);
  v.launched_in_loop = loop_launch_s > 0;
  v.host_launch_s = v.launched_in_loop ? loop_launch_s
                                       : program_launch_s(i, device, program_first(i));
  // A measured family model (cuFFT's passes) already times the layout it moves along.
  v.layout_sensitive = device.kind == DeviceKind::kGpu && !v.family && layout_sensitive(i);
  if (device.kind == DeviceKind::kGpu) {
    v.kernel_class = kernel_class(i);
    if (device.hbm_unaligned_bandwidth) v.unaligned_share = unaligned_share(i, v.kernel_class);
    v.strided = strided_loop_reads(i);
    if (device.stores_per_s) v.store_element_bytes = store_element_bytes(i, v.kernel_class);
  }
  return v;
}

OpEstimate CombinedModel::estimate(const OpView& op) {
  // The roofline, then the models of the expected time, each refining the estimate before it.
  visited(ModelKind::kRoofline, op.instruction);
  OpEstimate e = roofline_.estimate(op);
  if (roofline_walk()) {
    e.time_s = e.roofline.floor_s;  // the roofline walk times the floor
  } else if (op.kernel) {
    visited(ModelKind::kKernelEstimate, op.instruction);
    e = kernel_.estimate(op, std::move(e));
  } else {
    if (device_model_ != nullptr) {
      visited(ModelKind::kDevice, op.instruction);
      e = device_model_->estimate(op, std::move(e));
    }
    if (FamilyModel::applies(op)) {
      visited(ModelKind::kFamily, op.instruction);
      e = family_.estimate(op, std::move(e));
    }
    e.host_launch_s = op.host_launch_s;
    e.launched_in_loop = op.launched_in_loop;
    if (op.host_launch_s > 0) e.time_s += op.host_launch_s;
    if (op.host_launch_s > 0 && e.range) {
      e.range->low_s += op.host_launch_s;
      e.range->high_s += op.host_launch_s;
    }
  }
  record(e.notes);
  return e;
}

void CombinedModel::render(const OpView& op, const OpEstimate& e, Explanation& explanation) {
  if (!explain()) return;
  explanation.assign(roofline_text(e.roofline));
  if (e.kernel) {
    const KernelTimeEstimate& k = *e.kernel;
    std::string parts;
    if (k.compute_time_s > 0 || k.memory_access_time_s > 0) {
      parts = absl::StrFormat(" (compute %.4g s, memory %.4g s)", k.compute_time_s,
                              k.memory_access_time_s);
    }
    explanation.append(save(absl::StrFormat("\nexpected = the kernel's own estimate in its "
                                            "backend_config (%s, exec_time_us): %.4g s%s",
                                            k.key, k.exec_time_s, parts)));
    if (k.exec_time_s <= e.roofline.time_s) {
      explanation.append("; below the roofline, which is kept");
    }
  } else if (e.family != nullptr) {
    const FamilyTime& f = *e.family;
    explanation.append(save(absl::StrFormat(
        "\nexpected = %s = %.4g s (%s)",
        f.device_s > 0 ? "max(roofline, family model + overhead) + host gap"
                       : "the general expected time + host gap",
        e.model_s, f.basis)));
  } else if (e.device_model != nullptr) {
    if (e.model_s > e.roofline.time_s) {
      explanation.append("\n");
      explanation.append(e.device_model->explain(e, expected_texts_));
    }
    if (e.layout_sensitive) {
      explanation.append(
          "\n  note: an FFT or transpose: its time depends on layout and stride, "
          "so this expected time may be up to 1.7x short (assumptions)");
    }
  }
  if (e.host_launch_s > 0 && e.launched_in_loop) {
    explanation.append(save(absl::StrFormat(
        "\n  + host %.3g us: a loop body of fewer than %d kernels is launched by the host "
        "every trip, one kernel at a time; a trip takes the longer of the body's launches and "
        "its kernels (measured family model)",
        e.host_launch_s * 1e6, kCommandBufferMinKernels)));
  } else if (e.host_launch_s > 0) {
    explanation.append(save(absl::StrFormat(
        "\n  + host %.3g us: a program of fewer than %d kernels runs without a command buffer, "
        "the host launching each kernel after the one before; the program takes the longer of "
        "its launches after the first kernel and its kernels (measured family model: the "
        "loops' launch time)",
        e.host_launch_s * 1e6, kCommandBufferMinKernels)));
  }
  if (op.several_types) {
    const OpWork& work = op.work;
    explanation.append(save(absl::StrCat(
        "\n  note: matrix FLOPs of several element types, all charged at the ",
        work.matrix_class.empty() ? sv(primitive_type_name(work.matrix_type))
                                  : sv(work.matrix_class),
        " peak")));
  }
}

std::string_view CombinedModel::op_key(const OpView& op) {
  FigureKey& key = op_key_;
  key.clear();
  // All of the view but its instruction, which the models read only through the rest.
  util::for_each_field(op, [&key](const auto& field) {
    if constexpr (!std::is_same_v<std::decay_t<decltype(field)>, const Instruction*>) {
      key.add_fields(field);
    }
  });
  return key.bytes();
}

absl::StatusOr<CombinedModel::CollectiveRef> CombinedModel::collective_input(
    const Instruction& i, const CollectiveCost& c, CollectiveInput& assumed,
    EstimateNotes& notes) {
  // The lists a collective does not read are `assumed`'s, empty.
  CollectiveRef in{c.kind, c.payload_bytes, &assumed.groups, &assumed.pairs};
  const Topology& slice = in_.slice;
  if (is_point_to_point(c.kind)) {
    if (c.kind == CollectiveKind::kCollectivePermute) {
      in.pairs = &c.pairs;
    } else {
      assumed.pairs = send_recv_pairs(i);
      in.pairs = &assumed.pairs;
    }
    if (in.pairs->empty()) {
      const int64_t peer = slice.num_devices() > 1 ? 1 : 0;
      assumed.pairs = {{0, peer}};
      in.pairs = &assumed.pairs;
      notes.assume(absl::StrCat(sv(i.name()),
                                ": the HLO does not list its peers; timed as a transfer "
                                "from device 0 to device ",
                                peer));
    }
    return in;
  }
  in.groups = &c.groups;
  if (c.groups.empty()) {
    if (c.group_size > slice.num_devices()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: its replica groups hold %d devices, more than the topology %s has (%d)",
          sv(i.name()), c.group_size, slice.to_string(), slice.num_devices()));
    }
    std::vector<int64_t>& everyone = assumed.groups.emplace_back();
    for (int64_t d = 0; d < std::max<int64_t>(1, c.group_size); ++d) everyone.push_back(d);
    in.groups = &assumed.groups;
    notes.assume(absl::StrCat(sv(i.name()),
                              ": too many devices to list its groups; timed as one group "
                              "of devices 0..",
                              everyone.size() - 1));
  }
  return in;
}

const CombinedModel::CollectiveTimes& CombinedModel::collective_times(
    const CollectiveRef& collective, const Instruction& i) {
  if (auto it = collective_times_.find(collective); it != collective_times_.end()) {
    return it->second;
  }
  const auto it = collective_times_
                      .try_emplace(CollectiveKey{{collective.kind, collective.bytes,
                                                  *collective.groups, *collective.pairs},
                                                 *collective.options})
                      .first;
  CollectiveTimes& times = it->second;
  visited(ModelKind::kCollective, &i);
  times.times = collective_.estimate({.input = it->first.input, .options = it->first.options});
  if (times.times.estimate.ok() && explain()) {
    if (times.times.expected && times.times.expected->basis) {
      times.expected_text = save(explain_collective(*times.times.expected, device()));
    }
    times.explanation = save(times.times.estimate->explain());
  }
  return times;
}

absl::StatusOr<CollectiveOpEstimate> CombinedModel::estimate_collective(const Instruction& i,
                                                                        const CollectiveCost& c) {
  const bool is_async = c.is_async || is_async_start(i.opcode());
  if (c.is_host_transfer) {
    visited(ModelKind::kHostTransfer, &i);
    HostTransferOp op{.cost = c, .is_async = is_async};
    if (const FrontendAttributes* f = i.frontend_attributes(); f != nullptr) {
      op.megascale_type = f->find("_xla_megascale_transfer_type").value_or("");
    }
    for (const TopologyAxis& axis : collective_.slice().axes) {
      if (axis.link == LinkKind::kDcn) op.slices = axis.size;
    }
    CollectiveOpEstimate out = host_transfer_.estimate(op);
    out.host_transfer = true;
    out.megascale = !op.megascale_type.empty();
    out.slices = op.slices;
    record(out.notes);
    return out;
  }
  CollectiveOpEstimate out = collective_op_estimate(c, is_async);
  CollectivePrediction& p = out.prediction;
  CollectiveInput assumed;
  absl::StatusOr<CollectiveRef> input = collective_input(i, c, assumed, out.notes);
  if (!input.ok()) return input.status();
  CollectiveOptions options;
  options.formula = in_.options.collective_formula;
  options.large_n = in_.options.collective_large_n;
  options.async_start = i.opcode() == Opcode::kAllReduceStart;
  input->options = &options;
  const CollectiveTimes& times = collective_times(*input, i);
  if (!times.times.estimate.ok()) {
    const absl::Status& s = times.times.estimate.status();
    return absl::Status(s.code(), absl::StrCat(sv(i.name()), ": ", s.message()));
  }
  const CollectiveEstimate* e = &*times.times.estimate;
  out.network = e;
  out.network_text = times.explanation;
  out.expected_text = times.expected_text;
  p.formula = e->formula;
  p.time_s = e->time_s;
  out.roofline_s = e->time_s;
  out.model = "roofline";
  if (times.times.expected) {
    for (const std::string& note : times.times.notes) out.notes.assume(note);
    const CollectiveExpectedTime& x = *times.times.expected;
    out.expected = &x;
    out.model = save(x.model);
    if (x.time_s > p.time_s) p.time_s = x.time_s;
  }
  p.group_size = e->group_size;
  p.approximate = e->approximate;
  if (e->approximate) {
    // The same words for every such op, so that they group (group_op_notes); the op's
    // explanation names its group.
    out.notes.assume(
        absl::StrCat(sv(i.name()),
                     ": its group does not fill whole axes of the slice; its time is a "
                     "conservative bound"));
  }
  for (const std::string& note : e->notes) {
    out.notes.assume(absl::StrCat(sv(i.name()), ": ", note));
  }
  use_interconnect_figures(*e, in_.device, in_.options.collective_formula, out.notes);
  p.estimate = *e;
  record(out.notes);
  return out;
}

void CombinedModel::render(const CollectiveOpEstimate& e, Explanation& explanation) {
  if (!explain()) return;
  const CollectivePrediction& p = e.prediction;
  if (e.host_transfer && e.megascale) {
    explanation.assign(save(
        e.dcn_rate <= 0
            ? p.formula
            : absl::StrCat(p.formula, "\n  B = ", util::general_text(p.payload_bytes, 6),
                           " B, S = ", std::max<int64_t>(e.slices, 2), ", W_dcn = ",
                           util::general_text(e.dcn_rate, 4), " B/s -> ",
                           util::general_text(p.time_s, 4), " s")));
  } else if (e.host_transfer) {
    explanation.assign(save(absl::StrCat(
        p.formula, "\n  V = ", util::general_text(p.payload_bytes, 6), " B, W_host = ",
        util::general_text(e.host_rate, 4), " B/s -> ", util::general_text(p.time_s, 4),
        " s")));
  } else {
    explanation.assign(e.network_text);
    if (e.expected != nullptr && e.expected->time_s > e.roofline_s) {
      explanation.append("\n");
      explanation.append(e.expected_text);
    }
  }
}

std::string_view CombinedModel::roofline_text(const RooflineEstimate& e) {
  const auto make = [&e, this] {
    // A term not cited by roofline_time (all but a matrix term's) cites its figure here.
    const bool cited = std::none_of(e.terms.begin(), e.terms.end(), [](const RooflineTerm& t) {
      return t.rate_source.empty();
    });
    if (cited) return e.explain();
    RooflineEstimate with_sources = e;
    for (RooflineTerm& t : with_sources.terms) {
      if (t.rate_source.empty()) t.rate_source = rate_source(t.bound);
    }
    return with_sources.explain();
  };
  if (transient_texts_) return roofline_texts_.text({}, make);
  // Everything explain() reads: two estimates with the same key explain alike.
  FigureKey& key = key_;
  key.clear();
  key.add_fields(e);
  return roofline_texts_.text(key.bytes(), make);
}

std::string_view CombinedModel::join(const Explanation& explanation) {
  const absl::Span<const std::string_view> pieces = explanation.pieces();
  if (pieces.empty()) return {};
  if (transient_texts_) {  // pieces held until the next of their kind: saved joined, by text
    std::string text;
    for (const std::string_view piece : pieces) text.append(piece);
    return save(text);
  }
  // One piece is a text of the pool or a static one already.
  if (pieces.size() == 1) return pieces.front();
  FigureKey& key = key_;
  key.clear();
  for (const std::string_view piece : pieces) key.add_place(piece);
  return joined_texts_.text(key.bytes(), [pieces] {
    std::string text;
    for (const std::string_view piece : pieces) text.append(piece);
    return text;
  });
}

const std::string& CombinedModel::rate_source(Bound bound) {
  std::optional<std::string>& text = rate_sources_[static_cast<size_t>(bound)];
  if (!text) text = cite_figure(in_.device, rate_figure(bound));
  return *text;
}

void CombinedModel::assume(std::string line) {
  if (assumed_.insert(line).second) recorded_.assumptions.push_back(std::move(line));
}

void CombinedModel::record(EstimateNotes& notes) {
  for (std::string& line : notes.assumptions) assume(std::move(line));
  notes.assumptions.clear();
  for (const std::string_view path : notes.figures) use_figure(path);
  for (const std::string_view cls : notes.matrix_classes) use_matrix_class(cls);
}

}  // namespace hloroof::predict
