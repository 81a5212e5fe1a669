// How long one scheduled instruction takes on the device: its roofline (docs/prediction-model.md,
// "One op"), a collective's network time ("Collectives" there), or the latency an async start
// launches.
#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "hloroof/backend_config.h"
#include "hloroof/collective.h"
#include "hloroof/roofline.h"
#include "ir/shape_util.h"
#include "predict/expected_time.h"
#include "predict/gpu_families.h"
#include "predict/predict_internal.h"
#include "predict/roofline_internal.h"
#include "re2/re2.h"
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

// The class the op's matrix FLOPs run on, under the precision rules.
void set_matrix_unit(OpWork& work, const Instruction& i, const DeviceSpec& device) {
  if (work.matrix_flops <= 0) return;
  work.matrix_class = op_matrix_unit(i, device, work.matrix_type);
}

}  // namespace

RooflineEstimate op_roofline(const Instruction& instruction, const InstructionCost& cost,
                             const DeviceSpec& device, bool include_overhead) {
  OpWork work = work_of(cost.cost);
  set_matrix_unit(work, instruction, device);
  return roofline_time(device, work,
                       {.include_overhead = include_overhead, .apply_efficiency = false,
                        .cite_sources = false});
}

namespace {

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

// One op's time through the combined model, unmemoized (an async start's): `t` takes its
// times, `explanation` its explanation. Returns the roofline time.
double time_work(InstructionTiming& t, Explanation& explanation, const Instruction& i,
                 const OpWork& work, bool include_overhead, CombinedModel& model) {
  const OpView view = model.view_of(i, work, include_overhead, /*several_types=*/false);
  const OpEstimate e = model.estimate(view);
  model.render(view, e, explanation);
  t.time_s = e.time_s;
  t.resource = e.resource;
  t.bound = e.bound;
  t.model = e.model == "roofline" ? std::string_view("roofline") : model.save(e.model);
  return e.roofline.floor_s;
}

std::string stream_of(const Instruction& i, const CollectiveCost* c) {
  if (c != nullptr) return absl::StrCat("async ", sv(collective_kind_name(c->kind)));
  if (i.opcode() == Opcode::kCopyStart) return "async copy";
  std::optional<Opcode> wrapped = i.async_wrapped_opcode();
  return absl::StrCat("async ", wrapped ? sv(opcode_name(*wrapped)) : "computation");
}

// An async start: what it launches and how long that runs.
absl::Status time_async_start(const Instruction& i, const InstructionCost& record,
                              const TimingMap& timings, CombinedModel& model,
                              InstructionTiming& t, Explanation& explanation) {
  t.role = Role::kAsyncStart;
  FlowTiming& flow = t.mutable_flow();
  const CollectiveCost* c = collective_of(i, model.in().cost);
  flow.stream = model.save(stream_of(i, c));
  if (c != nullptr) {
    absl::StatusOr<CollectiveOpEstimate> e = model.estimate_collective(i, *c, explanation);
    if (!e.ok()) return e.status();
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
        time_work(t, explanation, i, work, /*include_overhead=*/false, model);
    flow.latency_s = t.time_s;
    t.time_s = 0;
    t.bound = BoundBy::kMemory;
    if (model.explain()) explanation.prepend("asynchronous copy: ");
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
    t.model = model.roofline_walk() ? "roofline" : "the wrapped computation's ops";
    if (model.explain()) {
      explanation.assign(model.save(
          absl::StrCat("runs ", sv(wrapped->name()),
                       " asynchronously: ", util::general_text(flow.latency_s, 4), " s")));
    }
    return absl::OkStatus();
  }
  OpWork work = work_of(record.cost);
  set_matrix_unit(work, i, model.device());
  t.matrix_unit = work.matrix_class;
  flow.roofline_latency_s =
      time_work(t, explanation, i, work, model.in().options.include_overhead, model);
  flow.latency_s = t.time_s;
  t.time_s = 0;
  if (model.explain()) explanation.prepend("asynchronous ");
  return absl::OkStatus();
}

// Whether `x` depends on the device's own id (partition-id or replica-id), within a few steps
// of scalar arithmetic.
bool depends_on_device_id(const Instruction& x, int depth = 4) {
  if (x.opcode() == Opcode::kPartitionId || x.opcode() == Opcode::kReplicaId) return true;
  if (depth == 0) return false;
  for (const Instruction* o : x.operands()) {
    if (depends_on_device_id(*o, depth - 1)) return true;
  }
  return false;
}

// Whether each device keeps only its own 1/`n` of the array `value`: its one use, through
// bitcasts and reshapes, is a dynamic-slice of 1/n of it at an offset of the device's own id.
bool only_own_part_used(const Instruction& value, int64_t n) {
  const int64_t whole = detail::element_count(value.shape());
  const Instruction* v = &value;
  while (v->users().size() == 1) {
    const Instruction& user = *v->users()[0];
    if (user.opcode() == Opcode::kBitcast || user.opcode() == Opcode::kReshape) {
      v = &user;
      continue;
    }
    if (user.opcode() != Opcode::kDynamicSlice || user.operand(0) != v ||
        !user.shape().is_array()) {
      return false;
    }
    const int64_t kept = detail::element_count(user.shape());
    if (whole <= 0 || kept <= 0 || kept * n != whole) return false;
    for (size_t k = 1; k < user.operands().size(); ++k) {
      if (depends_on_device_id(*user.operand(k))) return true;
    }
    return false;
  }
  return false;
}

// Whether a fused all-reduce runs as a reduce-scatter: each device keeps only its own 1/N of
// the sum (N: the group's size; of each array of a tuple all-reduce), as in the TPU's
// `all-reduce-scatter` fusions (their emitter, AllReduceScatterFusion, shards the result over
// the group). The reduce-scatter half of the all-reduce delivers those parts; the all-gather
// half would move bytes no one reads.
bool runs_as_reduce_scatter(const Instruction& all_reduce, const CollectiveCost& c) {
  if (c.kind != CollectiveKind::kAllReduce || c.group_size <= 1) return false;
  if (all_reduce.shape().is_array()) return only_own_part_used(all_reduce, c.group_size);
  if (!all_reduce.shape().is_tuple() || all_reduce.users().empty()) return false;
  for (const Instruction* user : all_reduce.users()) {
    if (user->opcode() != Opcode::kGetTupleElement || !user->shape().is_array() ||
        !only_own_part_used(*user, c.group_size)) {
      return false;
    }
  }
  return true;
}

// Collectives inside a fusion (TPU fuses some, e.g. `kind=kCustom` all-reduce-scatter fusions)
// run as part of it; an all-reduce whose sum each device only slices its own part of runs as a
// reduce-scatter (runs_as_reduce_scatter).
absl::StatusOr<double> fused_collective_time(const Instruction& fusion, CombinedModel& model,
                                             InstructionTiming& t, Explanation& explanation,
                                             double& roofline_total) {
  const Computation* fused = fusion.computation_attribute(AttrId::kCalls);
  if (fused == nullptr) return 0.0;
  double total = 0;
  for (const Instruction* inner : fused->instructions()) {
    const InstructionCost* r = model.in().cost.find(inner);
    if (r == nullptr || !r->collective) continue;
    Explanation inner_explanation;
    CollectiveCost c = *r->collective;
    const bool scatter = runs_as_reduce_scatter(*inner, c);
    if (scatter) c.kind = CollectiveKind::kReduceScatter;
    absl::StatusOr<CollectiveOpEstimate> e =
        model.estimate_collective(*inner, c, inner_explanation);
    if (!e.ok()) return e.status();
    total += e->prediction.time_s;
    roofline_total += e->roofline_s;
    if (model.explain()) {
      explanation.append(model.save(absl::StrCat(
          "\nfused ", sv(inner->name()),
          scatter ? " (each device slices its own 1/N of the sum: run as a reduce-scatter)" : "",
          ": ")));
      for (const std::string_view piece : inner_explanation.pieces()) explanation.append(piece);
    }
    if (!t.collective) t.collective = std::move(e->prediction);
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

namespace {

// time_instruction's work, with the explanation written in `explanation`.
absl::Status time_op(const Instruction& i, const TimingMap& timings, CombinedModel& model,
                     InstructionTiming& t, Explanation& explanation) {
  t.instruction = &i;
  t.cost = model.cost_of(i);
  if (t.cost == nullptr || is_pointer_only(i.opcode())) return absl::OkStatus();  // kFree
  const InstructionCost& record = *t.cost;
  if (is_async_start(i.opcode())) {
    return time_async_start(i, record, timings, model, t, explanation);
  }
  if (record.collective) {
    t.role = Role::kCollective;
    absl::StatusOr<CollectiveOpEstimate> e =
        model.estimate_collective(i, *record.collective, explanation);
    if (!e.ok()) return e.status();
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
  set_matrix_unit(work, i, model.device());
  t.matrix_unit = work.matrix_class;
  // Ops alike in everything the models read are estimated once (CombinedModel::op_times).
  const CombinedModel::OpTimes times = model.op_times(
      model.view_of(i, work, model.in().options.include_overhead, record.cost.matrix.size() > 1));
  t.time_s = times.time_s;
  t.roofline_time_s = times.roofline_s;
  t.resource = times.resource;
  t.bound = times.bound;
  t.model = times.model;
  if (times.range) t.time_range = *times.range;
  t.loop_host_s = times.loop_host_s;
  explanation.assign(times.explanation);
  if (i.opcode() == Opcode::kFusion) {
    double collective_roofline_s = 0;
    absl::StatusOr<double> collective_s =
        fused_collective_time(i, model, t, explanation, collective_roofline_s);
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

}  // namespace

absl::StatusOr<InstructionTiming> time_instruction(const Instruction& i, const TimingMap& timings,
                                                   CombinedModel& model) {
  InstructionTiming t;
  Explanation explanation;
  absl::Status s = time_op(i, timings, model, t, explanation);
  if (!s.ok()) return s;
  t.explanation = model.join(explanation);
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
