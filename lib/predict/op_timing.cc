// What a scheduled instruction is, as the combined model reads it to time it
// (CombinedModel::time_instruction): its work, its matrix class, the collective it performs
// or launches, its stream, its peers, and its category in the op stats.
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

void set_matrix_unit(OpWork& work, const Instruction& i, const DeviceSpec& device) {
  if (work.matrix_flops <= 0) return;
  work.matrix_class = op_matrix_unit(i, device, work.matrix_type);
}

RooflineEstimate op_roofline(const Instruction& instruction, const InstructionCost& cost,
                             const DeviceSpec& device, bool include_overhead) {
  OpWork work = work_of(cost.cost);
  set_matrix_unit(work, instruction, device);
  return roofline_time(device, work,
                       {.include_overhead = include_overhead, .apply_efficiency = false,
                        .cite_sources = false});
}

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

std::string stream_of(const Instruction& i, const CollectiveCost* c) {
  if (c != nullptr) return absl::StrCat("async ", sv(collective_kind_name(c->kind)));
  if (i.opcode() == Opcode::kCopyStart) return "async copy";
  std::optional<Opcode> wrapped = i.async_wrapped_opcode();
  return absl::StrCat("async ", wrapped ? sv(opcode_name(*wrapped)) : "computation");
}

namespace {

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

}  // namespace

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
