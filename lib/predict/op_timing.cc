// How long one scheduled instruction takes on the target: its roofline (docs/prediction-model.md,
// "One op"), a collective's network time ("Collectives" there), or the latency an async start
// launches.
#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/backend_config.h"
#include "hloroof/collective.h"
#include "hloroof/roofline.h"
#include "predict/expected_time.h"
#include "predict/gpu_families.h"
#include "predict/predict_internal.h"
#include "predict/roofline_internal.h"
#include "re2/re2.h"
#include "util/absl_compat.h"
#include "util/number_text.h"

namespace hloroof::predict {

bool is_pointer_only(Opcode op) {
  switch (op) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
    case Opcode::kOptimizationBarrier:
      return true;
    default:
      return false;
  }
}

namespace {

OpWork work_of(const OpCost& c) {
  OpWork w;
  w.matrix_flops = c.matrix_flops();
  if (c.matrix_type() != PrimitiveType::kInvalid) w.matrix_type = c.matrix_type();
  w.vector_flops = std::max(0.0, c.vector_flops());
  w.transcendentals = c.transcendentals;
  w.hbm_bytes = c.hbm_bytes();
  w.hbm_read_bytes = c.padded_read.device;
  w.on_chip_bytes = c.on_chip_bytes();
  w.host_bytes = c.host_bytes();
  return w;
}

bool has_work(const OpWork& w) {
  return w.matrix_flops > 0 || w.vector_flops > 0 || w.transcendentals > 0 || w.hbm_bytes > 0 ||
         w.on_chip_bytes > 0 || w.host_bytes > 0;
}

BoundBy bound_by(Bound b) {
  switch (b) {
    case Bound::kMatrix:
    case Bound::kVector:
    case Bound::kTranscendental:
      return BoundBy::kCompute;
    case Bound::kHbm:
    case Bound::kOnChip:
    case Bound::kHost:
      return BoundBy::kMemory;
    case Bound::kOverhead:
      return BoundBy::kOverhead;
  }
  return BoundBy::kOverhead;
}

// Notes the device figure behind a roofline term as used.
void use_figure(Bound b, const OpWork& w, Recorder& recorder) {
  switch (b) {
    case Bound::kMatrix:
      recorder.use_matrix_class(w.matrix_class.empty() ? matrix_class(w.matrix_type)
                                                       : w.matrix_class);
      return;
    case Bound::kVector:
      recorder.use_figure("vector_flops_per_s");
      return;
    case Bound::kTranscendental:
      recorder.use_figure("transcendentals_per_s");
      return;
    case Bound::kHbm:
      recorder.use_figure("hbm.bandwidth");
      return;
    case Bound::kOnChip:
      recorder.use_figure("on_chip_memory.bandwidth");
      return;
    case Bound::kHost:
      recorder.use_figure("host_link.bandwidth");
      return;
    case Bound::kOverhead:
      recorder.use_figure("per_op_overhead");
      return;
  }
}

// The speed of light: calibration knobs are left to the expected time.
RooflineEstimate roofline(const OpWork& work, bool include_overhead, const TargetInputs& inputs,
                          Recorder& recorder) {
  // The figures are cited once for the prediction (TargetMemo::rate_source), when an explanation
  // is made (TargetMemo::roofline_text); a matrix term's by roofline_time, which picks the class
  // that runs.
  RooflineEstimate e = roofline_time(inputs.device, work,
                                     {.include_overhead = include_overhead,
                                      .apply_efficiency = false,
                                      .cite_sources = inputs.explain() && work.matrix_flops > 0});
  use_figure(e.bound, work, recorder);
  if (e.overhead_s > 0) recorder.use_figure("per_op_overhead");
  if (e.overhead_s > 0 && inputs.device.launch_floor_s) recorder.use_figure("launch_floor");
  if (e.l2_read_bytes > 0) recorder.use_figure("on_chip_memory.bandwidth");
  for (std::string& note : e.notes) recorder.assume(std::move(note));
  e.notes.clear();
  return e;
}

void set_roofline(InstructionTiming& t, Explanation& explanation, const RooflineEstimate& e,
                  const TargetInputs& inputs, TargetMemo& memo) {
  // The roofline walk times the floor; the expected time starts from the terms plus overhead.
  t.time_s = inputs.roofline_walk() ? e.floor_s : e.time_s;
  t.resource = e.bound;
  t.bound = bound_by(e.bound);
  if (inputs.explain()) explanation.assign(memo.roofline_text(e));
  t.model = "roofline";
}

// XLA's estimate of the op's own run time, which a GPU kernel may carry in its
// backend_config; none on another device.
std::optional<KernelTimeEstimate> kernel_estimate(const Instruction& i,
                                                  const TargetInputs& inputs) {
  if (inputs.device.kind != DeviceKind::kGpu) return std::nullopt;
  return i.backend_config().kernel_time_estimate();
}

// A GPU kernel that carries XLA's estimate of its own run time (docs/prediction-model.md,
// "Kernel estimates"): that estimate is its expected time, never below its roofline. False
// when the op carries none, or the target is not a GPU.
bool set_kernel_estimate(InstructionTiming& t, Explanation& explanation, const Instruction& i,
                         Target& target) {
  const std::optional<KernelTimeEstimate> k = kernel_estimate(i, target.in());
  if (!k) return false;
  target.recorder().assume(
      "kernels with a run-time estimate in their backend_config (reification_cost) are "
      "expected to take it: XLA's own cost model, for the GPU the module was compiled for");
  t.model =
      target.memo().save(absl::StrCat("kernel's own estimate (XLA cost model",
                                      k->model.empty() ? "" : absl::StrCat(" ", k->model), ")"));
  if (target.in().explain()) {
    std::string parts;
    if (k->compute_time_s > 0 || k->memory_access_time_s > 0) {
      parts = absl::StrFormat(" (compute %.4g s, memory %.4g s)", k->compute_time_s,
                              k->memory_access_time_s);
    }
    explanation.append(target.memo().save(
        absl::StrFormat("\nexpected = the kernel's own estimate in its backend_config "
                        "(%s, exec_time_us): %.4g s%s",
                        k->key, k->exec_time_s, parts)));
    if (k->exec_time_s <= t.time_s) explanation.append("; below the roofline, which is kept");
  }
  if (k->exec_time_s > t.time_s) t.time_s = k->exec_time_s;
  return true;
}

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

// What an op's expected time reads of its instruction beside its work (set_expected).
struct ExpectedInputs {
  std::vector<GemmCall> gemms;    // the GEMMs it runs (gemms_of), for matrix FLOPs
  IssueTime issue;                // elementwise_issue_time
  bool layout_sensitive = false;  // on GPUs: an FFT or a transpose
  std::optional<FamilyTime> family;  // a measured op-family model (gpu_families.h)
  double loop_host_gap_s = 0;        // the host's time before it in a small GPU loop body
};

ExpectedInputs expected_inputs(const Instruction& i, const OpWork& work,
                               const TargetInputs& inputs) {
  ExpectedInputs in;
  if (work.matrix_flops > 0) in.gemms = gemms_of(i, inputs.device);
  in.issue = elementwise_issue_time(i, inputs.device, inputs.cost);
  in.family = gpu_family_time(i, work, inputs.device);
  in.loop_host_gap_s = loop_host_gap_s(i, inputs.device);
  // A measured family model (cuFFT's passes) already times the layout it moves along.
  in.layout_sensitive = inputs.device.kind == DeviceKind::kGpu && !in.family && layout_sensitive(i);
  return in;
}

// The op's expected time in place of its roofline time, from what it reads of its instruction.
void apply_expected(InstructionTiming& t, Explanation& explanation, const OpWork& work,
                    const RooflineEstimate& e, bool include_overhead, const ExpectedInputs& in,
                    Target& target) {
  std::vector<std::string> notes;
  ExpectedTime x = expected_op_time(
      in.gemms, work, e, target.in().device, include_overhead, notes, &target.memo().gemm_times(),
      in.issue, target.in().explain() ? &target.memo().expected_texts() : nullptr);
  target.recorder().assume_all(notes);
  if (target.in().device.kind == DeviceKind::kTpu && target.in().device.gemm_plateau &&
      work.matrix_flops > 0) {
    target.recorder().use_figure("gemm_plateau");
  }
  t.model = target.memo().save(x.model);
  if (in.family) {
    // The family's kernels (or, where it leaves them to the general model, that model's time),
    // never below the roofline, then the host's gap before them.
    const FamilyTime& f = *in.family;
    const double overhead = include_overhead ? target.in().device.per_op_overhead_s : 0.0;
    const double device = f.device_s > 0 ? f.device_s + overhead : x.time_s;
    const double time = std::max(e.time_s, device) + f.host_gap_s;
    if (f.device_s > 0 || f.host_gap_s > 0) {
      t.model = target.memo().save(absl::StrCat(sv(f.family), " (measured family model)"));
      t.time_s = time;
      if (target.in().explain()) {
        explanation.append(target.memo().save(
            absl::StrFormat("\nexpected = %s = %.4g s (%s)",
                            f.device_s > 0 ? "max(roofline, family model + overhead) + host gap"
                                           : "the general expected time + host gap",
                            time, f.basis)));
      }
      return;
    }
  }
  if (x.time_s > t.time_s) {
    t.time_s = x.time_s;
    if (target.in().explain()) {
      explanation.append("\n");
      explanation.append(x.explanation);
    }
  }
  if (in.layout_sensitive) {
    if (target.in().explain()) {
      explanation.append(
          "\n  note: an FFT or transpose: its time depends on layout and stride, "
          "so this expected time may be up to 2.5x short (assumptions)");
    }
    target.recorder().assume(
        "FFTs and transposes on GPUs: modelled as memory traffic only; the axis they stride "
        "along is not, and programs of such kernels took 1.0-2.5x their expected time on one "
        "A100 node (jaxdecomp 3D FFTs: expected/measured 0.4-1.0, inverse transforms the "
        "lowest): read their times as uncertain by up to 2.5x");
  }
}

// The op's expected time in place of its roofline time (unless this is the roofline walk),
// from `in` where the caller has read it already (expected_inputs).
void set_expected(InstructionTiming& t, Explanation& explanation, const Instruction& i,
                  const OpWork& work, const RooflineEstimate& e, bool include_overhead,
                  Target& target, const ExpectedInputs* in = nullptr) {
  if (target.in().roofline_walk()) return;
  if (set_kernel_estimate(t, explanation, i, target)) return;
  const ExpectedInputs inputs = in != nullptr ? *in : expected_inputs(i, work, target.in());
  apply_expected(t, explanation, work, e, include_overhead, inputs, target);
  if (inputs.loop_host_gap_s > 0) {
    t.time_s += inputs.loop_host_gap_s;
    if (target.in().explain()) {
      explanation.append(target.memo().save(absl::StrFormat(
          "\n  + host %.3g us: a loop body of fewer than %d kernels is launched by the host "
          "every trip, one kernel at a time, after it reads the predicate (measured family "
          "model)",
          inputs.loop_host_gap_s * 1e6, kCommandBufferMinKernels)));
    }
  }
}

// One op's timing, in order: its roofline, then its expected time in place of it (unless this
// is the roofline walk), each writing its part of the explanation. `in`: what the expected
// time reads of the instruction, where the caller has read it already. Returns the roofline
// estimate, whose floor is the op's roofline time.
RooflineEstimate time_work(InstructionTiming& t, Explanation& explanation, const Instruction& i,
                           const OpWork& work, bool include_overhead, Target& target,
                           const ExpectedInputs* in = nullptr) {
  const RooflineEstimate e = roofline(work, include_overhead, target.in(), target.recorder());
  set_roofline(t, explanation, e, target.in(), target.memo());
  set_expected(t, explanation, i, work, e, include_overhead, target, in);
  return e;
}

// The note of an op whose matrix FLOPs are of several element types.
std::string_view several_types_note(const OpWork& work, TargetMemo& memo) {
  return memo.save(absl::StrCat(
      "\n  note: matrix FLOPs of several element types, all charged at the ",
      work.matrix_class.empty() ? sv(primitive_type_name(work.matrix_type)) : sv(work.matrix_class),
      " peak"));
}

// An op that is neither a collective nor an async start: its roofline and expected time
// (time_work), with its explanation. Ops alike in everything these read (their work, and what
// the expected time reads of the instruction) are timed once (TargetMemo::op_times); an op with
// a kernel estimate of its own, alone.
void time_plain_op(InstructionTiming& t, Explanation& explanation, const Instruction& i,
                   const OpWork& work, bool several_types, Target& target) {
  const bool include_overhead = target.in().options.include_overhead;
  const bool own_estimate = kernel_estimate(i, target.in()).has_value();
  // What the expected time reads (none for the roofline walk or an op's own estimate).
  const ExpectedInputs in = !target.in().roofline_walk() && !own_estimate
                                ? expected_inputs(i, work, target.in())
                                : ExpectedInputs();
  const auto make = [&] {
    // Past the memo's keys, the explanation's pieces are not kept: only the whole is.
    const bool transient = target.in().explain() && target.memo().op_times_full();
    if (transient) target.memo().set_transient_texts(true);
    InstructionTiming x;
    Explanation pieces;
    const RooflineEstimate e = time_work(x, pieces, i, work, include_overhead, target, &in);
    if (several_types && target.in().explain()) {
      pieces.append(several_types_note(work, target.memo()));
    }
    const TargetMemo::OpTimes made{x.time_s, e.floor_s, x.resource, x.bound, x.model,
                                   target.memo().join(pieces)};
    if (transient) target.memo().set_transient_texts(false);
    return made;
  };
  TargetMemo::OpTimes times;
  if (own_estimate) {
    times = make();
  } else {
    FigureKey& key = target.memo().new_op_key();
    const double figures[] = {work.matrix_flops,    work.vector_flops,    work.transcendentals,
                              work.hbm_bytes,       work.hbm_read_bytes,  work.on_chip_bytes,
                              work.host_bytes,      in.issue.time_s,      in.issue.element_ops,
                              in.issue.slots};
    key.add_all(figures);
    key.add(work.matrix_type);
    const bool flags[] = {include_overhead, several_types, in.layout_sensitive,
                          in.family.has_value()};
    key.add_all(flags);
    key.add(in.loop_host_gap_s);
    if (in.family) {
      key.add(in.family->device_s);
      key.add(in.family->host_gap_s);
      key.add_text(in.family->basis);
    }
    key.add_text(work.matrix_class);
    key.add_text(in.issue.profile);
    key.add(in.gemms.size());
    for (const GemmCall& g : in.gemms) {
      const double shape[] = {g.shape.b, g.shape.m, g.shape.n, g.shape.k};
      key.add_all(shape);
      key.add(g.lhs);
      key.add(g.rhs);
      key.add_text(g.unit);
      key.add(g.factor);
    }
    times = target.memo().op_times(key.bytes(), make);
  }
  t.time_s = times.time_s;
  t.roofline_time_s = times.roofline_s;
  t.resource = times.resource;
  t.bound = times.bound;
  t.model = times.model;
  explanation.assign(times.explanation);
}

// The class the op's matrix FLOPs run on, under the precision rules.
void set_matrix_unit(OpWork& work, const Instruction& i, const TargetInputs& inputs) {
  if (work.matrix_flops <= 0) return;
  work.matrix_class = op_matrix_unit(i, inputs.device, work.matrix_type);
}

// The collective an instruction performs: its own, or for `async-start(...), calls=%c` the one
// at the root of %c.
const CollectiveCost* collective_of(const Instruction& i, const ModuleCost& cost) {
  if (const InstructionCost* r = cost.find(&i); r != nullptr && r->collective) {
    return &*r->collective;
  }
  if (i.opcode() == Opcode::kAsyncStart && !i.uses_async_sugar()) {
    const Computation* wrapped = i.computation_attribute(AttrId::kCalls);
    if (wrapped != nullptr && wrapped->root() != nullptr) {
      if (const InstructionCost* r = cost.find(wrapped->root()); r != nullptr && r->collective) {
        return &*r->collective;
      }
    }
  }
  return nullptr;
}

// What a collective is timed by: its kind, bytes and groups or pairs as its cost record holds
// them; where the record lists none, those it is assumed to have, held in `assumed` (the
// caller's, to outlive the result).
absl::StatusOr<TargetMemo::CollectiveRef> collective_input(const Instruction& i,
                                                           const CollectiveCost& c,
                                                           const TargetInputs& inputs,
                                                           Recorder& recorder,
                                                           CollectiveInput& assumed) {
  // The lists a collective does not read are `assumed`'s, empty.
  TargetMemo::CollectiveRef in{c.kind, c.payload_bytes, &assumed.groups, &assumed.pairs};
  if (is_point_to_point(c.kind)) {
    if (c.kind == CollectiveKind::kCollectivePermute) {
      in.pairs = &c.pairs;
    } else {
      assumed.pairs = send_recv_pairs(i);
      in.pairs = &assumed.pairs;
    }
    if (in.pairs->empty()) {
      const int64_t peer = inputs.slice.num_devices() > 1 ? 1 : 0;
      assumed.pairs = {{0, peer}};
      in.pairs = &assumed.pairs;
      recorder.assume(absl::StrCat(sv(i.name()),
                                   ": the HLO does not list its peers; timed as a transfer "
                                   "from device 0 to device ",
                                   peer));
    }
    return in;
  }
  in.groups = &c.groups;
  if (c.groups.empty()) {
    if (c.group_size > inputs.slice.num_devices()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: its replica groups hold %d devices, more than the topology %s has (%d)",
          sv(i.name()), c.group_size, inputs.slice.to_string(), inputs.slice.num_devices()));
    }
    std::vector<int64_t>& everyone = assumed.groups.emplace_back();
    for (int64_t d = 0; d < std::max<int64_t>(1, c.group_size); ++d) everyone.push_back(d);
    in.groups = &assumed.groups;
    recorder.assume(absl::StrCat(sv(i.name()),
                                 ": too many devices to list its groups; timed as one group "
                                 "of devices 0..",
                                 everyone.size() - 1));
  }
  return in;
}

// Figures of the interconnect a collective estimate rests on.
void use_interconnect_figures(const CollectiveEstimate& e, const TargetInputs& inputs,
                              Recorder& recorder) {
  for (const DeviceFigure& f : inputs.device.figures) {
    if (f.path.rfind("interconnect.", 0) != 0) continue;
    const bool dcn = f.path.find("dcn") != std::string::npos;
    const bool sol = f.path.find("xla_sol") != std::string::npos;
    if (dcn && e.placement.domains <= 1) continue;
    // The link between a chip's devices, only where a chip has several (a megacore chip as
    // one device has none).
    const bool core = f.path == "interconnect.core_link_bandwidth";
    if (core && (!inputs.device.torus || inputs.device.torus->devices_per_chip <= 1)) continue;
    if (sol != (inputs.options.collective_formula == CollectiveFormula::kXlaGpuSol)) continue;
    recorder.use_figure(f.path);
  }
}

absl::StatusOr<CollectivePrediction> time_collective(const Instruction& i, const CollectiveCost& c,
                                                     Target& target, Explanation& explanation,
                                                     std::string_view& model,
                                                     double& roofline_s) {
  CollectivePrediction p;
  p.kind = std::string(collective_kind_name(c.kind));
  p.payload_bytes = c.payload_bytes;
  p.group_size = c.group_size;
  p.is_async = c.is_async || is_async_start(i.opcode());
  if (c.is_host_transfer) {
    // A host transfer crosses the host link (PCIe), not the network.
    const double rate = target.in().device.host_bandwidth.value_or(0);
    p.formula = "host transfer: V / W_host";
    p.time_s = rate > 0 ? c.payload_bytes / rate : 0;
    if (rate > 0) {
      target.recorder().use_figure("host_link.bandwidth");
    } else {
      target.recorder().assume(absl::StrCat(target.in().device.name,
                                            " has no host link bandwidth; host "
                                            "transfers take no time"));
    }
    if (target.in().explain()) {
      explanation.assign(target.memo().save(absl::StrCat(
          p.formula, "\n  V = ", util::general_text(c.payload_bytes, 6), " B, W_host = ",
          util::general_text(rate, 4), " B/s -> ", util::general_text(p.time_s, 4), " s")));
    }
    model = "roofline (no measured model)";
    roofline_s = p.time_s;
    return p;
  }
  CollectiveInput assumed;
  absl::StatusOr<TargetMemo::CollectiveRef> input =
      collective_input(i, c, target.in(), target.recorder(), assumed);
  if (!input.ok()) return input.status();
  CollectiveOptions options;
  options.formula = target.in().options.collective_formula;
  options.large_n = target.in().options.collective_large_n;
  options.async_start = i.opcode() == Opcode::kAllReduceStart;
  input->options = &options;
  const TargetMemo::CollectiveTimes& times = target.memo().collective_times(*input);
  if (!times.estimate.ok()) {
    const absl::Status& s = times.estimate.status();
    return absl::Status(s.code(), absl::StrCat(sv(i.name()), ": ", s.message()));
  }
  const CollectiveEstimate* e = &*times.estimate;
  p.formula = e->formula;
  p.time_s = e->time_s;
  roofline_s = e->time_s;
  if (target.in().explain()) explanation.assign(times.explanation);
  model = "roofline";
  if (times.expected) {
    for (const std::string& note : times.notes) target.recorder().assume(note);
    const ExpectedTime& x = *times.expected;
    model = target.memo().save(x.model);
    if (x.time_s > p.time_s) {
      p.time_s = x.time_s;
      if (target.in().explain()) {
        explanation.append("\n");
        explanation.append(x.explanation);
      }
    }
  }
  p.group_size = e->group_size;
  p.approximate = e->approximate;
  if (e->approximate) {
    // The same words for every such op, so that they group (group_op_notes); the op's
    // explanation names its group.
    target.recorder().assume(
        absl::StrCat(sv(i.name()),
                     ": its group does not fill whole axes of the slice; its time is a "
                     "conservative bound"));
  }
  for (const std::string& note : e->notes) {
    target.recorder().assume(absl::StrCat(sv(i.name()), ": ", note));
  }
  use_interconnect_figures(*e, target.in(), target.recorder());
  p.estimate = *e;
  return p;
}

std::string stream_of(const Instruction& i, const CollectiveCost* c) {
  if (c != nullptr) return absl::StrCat("async ", sv(collective_kind_name(c->kind)));
  if (i.opcode() == Opcode::kCopyStart) return "async copy";
  std::optional<Opcode> wrapped = i.async_wrapped_opcode();
  return absl::StrCat("async ", wrapped ? sv(opcode_name(*wrapped)) : "computation");
}

// An async start: what it launches and how long that runs.
absl::Status time_async_start(const Instruction& i, const InstructionCost& record,
                              const TimingMap& timings, Target& target, InstructionTiming& t,
                              Explanation& explanation) {
  t.role = Role::kAsyncStart;
  FlowTiming& flow = t.mutable_flow();
  const CollectiveCost* c = collective_of(i, target.in().cost);
  flow.stream = target.memo().save(stream_of(i, c));
  if (c != nullptr) {
    absl::StatusOr<CollectivePrediction> p =
        time_collective(i, *c, target, explanation, t.model, flow.roofline_latency_s);
    if (!p.ok()) return p.status();
    p->is_async = true;
    flow.latency_s = p->time_s;
    t.bound = BoundBy::kCollective;
    t.collective = *std::move(p);
    return absl::OkStatus();
  }
  if (i.opcode() == Opcode::kCopyStart) {
    // A DMA between memories: its bytes over the slower memory's bandwidth, no launch overhead.
    const OpWork work = work_of(record.cost);
    const RooflineEstimate e =
        time_work(t, explanation, i, work, /*include_overhead=*/false, target);
    flow.roofline_latency_s = e.floor_s;
    flow.latency_s = t.time_s;
    t.time_s = 0;
    t.bound = BoundBy::kMemory;
    if (target.in().explain()) explanation.prepend("asynchronous copy: ");
    return absl::OkStatus();
  }
  // A wrapped computation: its own predicted time; a sugared op (custom-call-start): its
  // roofline.
  const Computation* wrapped =
      i.uses_async_sugar() ? nullptr : i.computation_attribute(AttrId::kCalls);
  if (auto it = wrapped ? timings.find(wrapped) : timings.end(); it != timings.end()) {
    flow.latency_s = it->second.total_s;
    flow.async_computation = wrapped;
    t.bound = BoundBy::kCompute;
    t.model = target.in().roofline_walk() ? "roofline" : "the wrapped computation's ops";
    if (target.in().explain()) {
      explanation.assign(target.memo().save(
          absl::StrCat("runs ", sv(wrapped->name()),
                       " asynchronously: ", util::general_text(flow.latency_s, 4), " s")));
    }
    return absl::OkStatus();
  }
  OpWork work = work_of(record.cost);
  set_matrix_unit(work, i, target.in());
  t.matrix_unit = work.matrix_class;
  const RooflineEstimate e =
      time_work(t, explanation, i, work, target.in().options.include_overhead, target);
  flow.roofline_latency_s = e.floor_s;
  flow.latency_s = t.time_s;
  t.time_s = 0;
  if (target.in().explain()) explanation.prepend("asynchronous ");
  return absl::OkStatus();
}

// Collectives inside a fusion (TPU fuses some, e.g. `kind=kCustom` all-reduce-scatter fusions)
// run as part of it.
absl::StatusOr<double> fused_collective_time(const Instruction& fusion, Target& target,
                                             InstructionTiming& t, Explanation& explanation,
                                             double& roofline_total) {
  const Computation* fused = fusion.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return 0.0;
  double total = 0;
  for (const Instruction* inner : fused->instructions()) {
    const InstructionCost* r = target.in().cost.find(inner);
    if (r == nullptr || !r->collective) continue;
    Explanation inner_explanation;
    std::string_view model;
    double roofline_s = 0;
    absl::StatusOr<CollectivePrediction> p =
        time_collective(*inner, *r->collective, target, inner_explanation, model, roofline_s);
    if (!p.ok()) return p.status();
    total += p->time_s;
    roofline_total += roofline_s;
    if (target.in().explain()) {
      explanation.append(target.memo().save(absl::StrCat("\nfused ", sv(inner->name()), ": ")));
      for (const std::string_view piece : inner_explanation.pieces()) explanation.append(piece);
    }
    if (!t.collective) t.collective = *std::move(p);
  }
  return total;
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> send_recv_pairs(const Instruction& i) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const FrontendAttributes* attributes = i.frontend_attributes();
  if (attributes == nullptr) return pairs;
  std::optional<std::string_view> value = attributes->find("_xla_send_recv_source_target_pairs");
  if (!value) return pairs;
  static const LazyRE2 kPair = {R"(\{\s*(\d+)\s*,\s*(\d+)\s*\})"};
  re2::StringPiece rest(value->data(), value->size());
  int64_t source = 0, target = 0;
  while (RE2::FindAndConsume(&rest, *kPair, &source, &target)) pairs.emplace_back(source, target);
  return pairs;
}

const TargetMemo::CollectiveTimes& TargetMemo::collective_times(const CollectiveRef& collective) {
  if (auto it = collective_times_.find(collective); it != collective_times_.end()) {
    return it->second;
  }
  const auto it = collective_times_
                      .try_emplace(CollectiveKey{{collective.kind, collective.bytes,
                                                  *collective.groups, *collective.pairs},
                                                 *collective.options})
                      .first;
  const CollectiveInput& input = it->first.input;
  CollectiveTimes& times = it->second;
  times.estimate = collective_time(in_.device, in_.slice, input, it->first.options);
  if (!times.estimate.ok()) return times;
  if (in_.explain()) times.explanation = save(times.estimate->explain());
  if (!in_.roofline_walk()) {
    times.expected = expected_collective_time(input.kind, *times.estimate, in_.device, times.notes,
                                              in_.explain() ? &expected_texts_ : nullptr);
  }
  return times;
}

TargetMemo::OpTimes TargetMemo::op_times(std::string_view key, absl::FunctionRef<OpTimes()> make) {
  if (auto it = op_times_.find(key); it != op_times_.end()) return it->second;
  const OpTimes times = make();
  if (op_times_.size() < kMaxOpTimes) op_times_.emplace(std::string(key), times);
  return times;
}

std::string_view TargetMemo::roofline_text(const RooflineEstimate& e) {
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
  key.add(e.time_s);
  key.add(e.roofline_s);
  key.add(e.overhead_s);
  key.add(e.floor_s);
  key.add(e.l2_read_bytes);
  key.add(e.bound);
  for (const RooflineTerm& t : e.terms) {
    key.add(t.bound);
    key.add(t.amount);
    key.add(t.rate);
    key.add(t.time_s);
    key.add_text(t.rate_source);
  }
  key.add(e.notes.size());
  for (const std::string& note : e.notes) key.add_text(note);
  return roofline_texts_.text(key.bytes(), make);
}

std::string_view TargetMemo::join(const Explanation& explanation) {
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

const std::string& TargetMemo::rate_source(Bound bound) {
  std::optional<std::string>& text = rate_sources_[static_cast<size_t>(bound)];
  if (!text) text = cite_figure(in_.device, rate_figure(bound));
  return *text;
}

void Recorder::assume(std::string line) {
  if (seen_.insert(line).second) out_.assumptions.push_back(std::move(line));
}

void Recorder::assume_all(std::vector<std::string>& lines) {
  for (std::string& line : lines) assume(std::move(line));
  lines.clear();
}

namespace {

// time_instruction's work, with the explanation written in `explanation`.
absl::Status time_op(const Instruction& i, const TimingMap& timings, Target& target,
                     InstructionTiming& t, Explanation& explanation) {
  t.instruction = &i;
  t.cost = target.memo().cost_of(i);
  if (t.cost == nullptr || is_pointer_only(i.opcode())) return absl::OkStatus();  // kFree
  const InstructionCost& record = *t.cost;
  if (is_async_start(i.opcode())) {
    return time_async_start(i, record, timings, target, t, explanation);
  }
  if (record.collective) {
    t.role = Role::kCollective;
    absl::StatusOr<CollectivePrediction> p = time_collective(i, *record.collective, target,
                                                             explanation, t.model,
                                                             t.roofline_time_s);
    if (!p.ok()) return p.status();
    t.time_s = p->time_s;
    t.bound = BoundBy::kCollective;
    t.collective = *std::move(p);
    return absl::OkStatus();
  }
  OpWork work = work_of(record.cost);
  // E.g. a transpose that only relabels its operand's bytes.
  if (!has_work(work)) return absl::OkStatus();
  t.role = Role::kOp;
  set_matrix_unit(work, i, target.in());
  t.matrix_unit = work.matrix_class;
  time_plain_op(t, explanation, i, work, record.cost.matrix.size() > 1, target);
  if (i.opcode() == Opcode::kFusion) {
    double collective_roofline_s = 0;
    absl::StatusOr<double> collective_s =
        fused_collective_time(i, target, t, explanation, collective_roofline_s);
    if (!collective_s.ok()) return collective_s.status();
    // The fused collective moves the data the fusion's bytes describe: the slower one bounds.
    t.roofline_time_s = std::max(t.roofline_time_s, collective_roofline_s);
    if (*collective_s > t.time_s) {
      t.time_s = *collective_s;
      t.bound = BoundBy::kCollective;
      t.role = Role::kCollective;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<InstructionTiming> time_instruction(const Instruction& i, const TimingMap& timings,
                                                   Target& target) {
  InstructionTiming t;
  Explanation explanation;
  absl::Status s = time_op(i, timings, target, t, explanation);
  if (!s.ok()) return s;
  t.explanation = target.memo().join(explanation);
  return t;
}

std::string_view op_category(const InstructionTiming& t, double matrix_flops) {
  const Instruction& i = *t.instruction;
  if (t.collective) return t.collective->kind;
  if (const std::string_view stream = t.flow().stream; !stream.empty()) {
    return stream.substr(stream.find(' ') + 1);
  }
  switch (i.opcode()) {
    case Opcode::kFusion: {
      if (matrix_flops > 0) return "convolution fusion";
      const std::string_view kind = i.fusion_kind();
      if (kind == "kLoop") return "loop fusion";
      if (kind == "kInput") return "input fusion";
      if (kind == "kOutput") return "output fusion";
      if (kind == "kCustom") return "custom fusion";
      return "fusion";
    }
    case Opcode::kCustomCall:
      return "custom-call";
    // The device's own id, read without any communication: not a collective.
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return opcode_name(i.opcode());
    default:
      break;
  }
  switch (opcode_category(i.opcode())) {
    case OpCategory::kElementwise:
    case OpCategory::kTranscendental:
      return "non-fusion elementwise";
    case OpCategory::kDataMovement:
      return "data formatting";
    case OpCategory::kContraction:
      return opcode_name(i.opcode());
    default:
      return category_name(opcode_category(i.opcode()));
  }
}

}  // namespace hloroof::predict
