// The per-opcode rules of instruction_rules.h. The parser calls them for each instruction it
// reads; verify() for each instruction of a module.
#include "ir/instruction_rules.h"

#include <algorithm>
#include <array>
#include <vector>

#include "hloroof/computation.h"
#include "ir/module_state.h"
#include "ir/shape_util.h"
#include "hloroof/absl_compat.h"

namespace hloroof::detail {
namespace {

// Attributes every instruction of an opcode must carry.
const std::vector<AttrId>& required_attributes(Opcode op) {
  static const auto* const kTable = [] {
    auto* table = new std::array<std::vector<AttrId>, kOpcodeCount>();
    auto require = [&](std::initializer_list<Opcode> ops, std::initializer_list<AttrId> ids) {
      for (Opcode o : ops) (*table)[static_cast<size_t>(o)] = ids;
    };
    using A = AttrId;
    using O = Opcode;
    require({O::kReduce, O::kSort, O::kReduceScatter}, {A::kDimensions, A::kToApply});
    require({O::kReduceWindow, O::kMap, O::kCall, O::kAllReduce, O::kAllReduceStart},
            {A::kToApply});
    require({O::kSelectAndScatter}, {A::kSelectComputation, A::kScatterComputation});
    require({O::kScatter}, {A::kUpdateWindowDims, A::kInsertedWindowDims,
                            A::kScatterDimsToOperandDims, A::kIndexVectorDim, A::kToApply});
    require({O::kGather}, {A::kOffsetDims, A::kCollapsedSliceDims, A::kStartIndexMap,
                           A::kIndexVectorDim, A::kSliceSizes});
    require({O::kTranspose, O::kReverse, O::kConcatenate, O::kGetDimensionSize,
             O::kSetDimensionSize, O::kAllGather, O::kAllGatherStart},
            {A::kDimensions});
    require({O::kSlice}, {A::kSlice});
    require({O::kDynamicSlice}, {A::kDynamicSliceSizes});
    require({O::kPad}, {A::kPadding});
    require({O::kIota}, {A::kIotaDimension});
    require({O::kGetTupleElement}, {A::kIndex});
    require({O::kConvolution}, {A::kDimLabels});
    require({O::kFusion}, {A::kFusionKind, A::kCalls});
    require({O::kWhile}, {A::kCondition, A::kBody});
    require({O::kCustomCall}, {A::kCustomCallTarget});
    require({O::kCollectivePermute, O::kCollectivePermuteStart}, {A::kSourceTargetPairs});
    require({O::kCompare}, {A::kDirection});
    require({O::kRng}, {A::kDistribution});
    require({O::kRngBitGenerator}, {A::kAlgorithm});
    require({O::kFft}, {A::kFftType, A::kFftLength});
    require({O::kReducePrecision}, {A::kExponentBits, A::kMantissaBits});
    require({O::kBatchNormTraining, O::kBatchNormInference, O::kBatchNormGrad},
            {A::kEpsilon, A::kFeatureIndex});
    require({O::kDomain}, {A::kDomain});
    require({O::kTopK}, {A::kK});
    return table;
  }();
  return (*kTable)[static_cast<size_t>(op)];
}

bool is_pred_or_s32_scalar(const Shape& s, PrimitiveType type) {
  return s.is_array() && s.dims.empty() && s.element_type == type;
}


}  // namespace

namespace rules {

const std::array<AttrSet, kOpcodeCount> kRequiredAttributeSets = [] {
  std::array<AttrSet, kOpcodeCount> table;
  for (size_t o = 0; o < static_cast<size_t>(kOpcodeCount); ++o) {
    for (AttrId id : required_attributes(static_cast<Opcode>(o))) table[o].add(id);
  }
  return table;
}();

// Interned shapes that are the same shape trivially keep the count.
bool reshape_keeps_count(const Instruction& i) {
  const Shape& from = i.operand(0)->shape();
  const Shape& shape = i.shape();
  if (&from == &shape || !from.is_array() || !shape.is_array()) return true;
  const int64_t from_count = element_count(from);
  const int64_t count_after = element_count(shape);
  return from_count == count_after || from_count < 0 || count_after < 0;
}

}  // namespace rules

using rules::AttrSet;
using rules::CountRule;
using rules::kOwnChecks;
using rules::OwnChecks;
using rules::required_attribute_set;
using rules::reshape_keeps_count;
using rules::ShapeRule;

bool check_operand_and_attribute_rules(const Instruction& instruction, std::string* message) {
  const Instruction* i = &instruction;
  auto fail = [&](std::string text) {
    *message = std::move(text);
    return false;
  };
  const Opcode op = i->opcode();
  const std::string_view name = opcode_name(op);
  const size_t count = i->operand_count();

  // Operand counts fixed by the grammar (section 6). Sugared async ops take the wrapped op's
  // operands.
  int arity = opcode_arity(op);
  if (i->uses_async_sugar() && op == Opcode::kAsyncStart) arity = -1;
  if (arity >= 0 && count != static_cast<size_t>(arity)) {
    return fail(str_cat(i->uses_async_sugar() ? i->name() : name, " takes ", arity,
                             arity == 1 ? " operand" : " operands", ", got ", count));
  }
  auto at_least = [&](size_t n) {
    if (count >= n) return true;
    return fail(str_cat(name, " takes at least ", n, n == 1 ? " operand" : " operands",
                             ", got ", count));
  };
  const OwnChecks own = kOwnChecks[static_cast<size_t>(op)];
  switch (own.count) {
    case CountRule::kInputsAndInits:
      if (!at_least(2)) return false;
      if (count % 2 != 0) {
        return fail(
            str_cat(name, " takes as many init values as inputs, got ", count, " operands"));
      }
      break;
    case CountRule::kAtLeastOne:
      if (!at_least(1)) return false;
      break;
    case CountRule::kNone:
      break;
  }

  // Attributes every instance of the opcode needs (the sugared form checks the wrapped op's).
  // One pass over the attributes answers every "has" below.
  const AttrSet present(i->attributes());
  Opcode rules =
      i->uses_async_sugar() && op == Opcode::kAsyncStart ? *i->async_wrapped_opcode() : op;
  if ((!i->uses_async_sugar() || op == Opcode::kAsyncStart) &&
      !present.contains_all(required_attribute_set(rules))) {
    for (AttrId id : required_attributes(rules)) {  // the first missing one, in table order
      if (!present.has(id)) {
        return fail(str_cat("attribute '", attribute_name(id), "' is required for ",
                                 opcode_name(rules)));
      }
    }
  }
  if (op == Opcode::kAsyncStart && !i->uses_async_sugar() && !present.has(AttrId::kCalls)) {
    return fail("attribute 'calls' is required for async-start");
  }
  if (present.has(AttrId::kResultAccuracy) &&
      opcode_category(rules) != OpCategory::kTranscendental) {
    return fail(str_cat("result_accuracy is only allowed on transcendental ops, not ",
                             opcode_name(rules)));
  }
  if (present.has(AttrId::kToApply) && present.has(AttrId::kCalledComputations)) {
    return fail("a custom-call takes to_apply or called_computations, not both");
  }
  return true;
}

bool check_shape_rules(const Instruction& instruction, std::string* message) {
  const Instruction* i = &instruction;
  auto fail = [&](std::string text) {
    *message = std::move(text);
    return false;
  };
  const Opcode op = i->opcode();
  const std::string_view name = opcode_name(op);
  const size_t count = i->operand_count();
  const OwnChecks own = kOwnChecks[static_cast<size_t>(op)];
  const Shape& shape = i->shape();

  switch (own.shape) {
    case ShapeRule::kTupleElement: {
      const Shape& tuple = i->operand(0)->shape();
      int64_t index = *i->int_attribute(AttrId::kIndex);
      if (!tuple.is_tuple()) {
        return fail(str_cat("get-tuple-element needs a tuple operand, but ",
                                 i->operand(0)->name(), " has shape ", to_string(tuple)));
      }
      if (index < 0 || index >= static_cast<int64_t>(tuple.elements.size())) {
        return fail(str_cat("tuple index ", index, " is out of range: ", i->operand(0)->name(),
                                 " has ", tuple.elements.size(), " elements"));
      }
      if (!same_ignoring_layout(tuple.elements[static_cast<size_t>(index)], shape)) {
        return fail(str_cat("get-tuple-element index ", index, " of ", i->operand(0)->name(),
                             " has shape ", to_string(tuple.elements[static_cast<size_t>(index)]),
                             ", not ", to_string(shape)));
      }
      break;
    }
    case ShapeRule::kConditional: {
      const Shape& index = i->operand(0)->shape();
      bool has_branches = i->has_attribute(AttrId::kBranchComputations);
      if (is_pred_or_s32_scalar(index, PrimitiveType::kPred)) {
        if (!i->has_attribute(AttrId::kTrueComputation) ||
            !i->has_attribute(AttrId::kFalseComputation)) {
          return fail("a conditional on a pred needs true_computation and "
                       "false_computation");
        }
        if (count != 3) {
          return fail(str_cat("a conditional on a pred takes 3 operands, got ", count));
        }
      } else if (is_pred_or_s32_scalar(index, PrimitiveType::kS32)) {
        if (!has_branches) return fail("a conditional on an s32 needs branch_computations");
        size_t branches = i->attribute(AttrId::kBranchComputations)->get<ComputationList>()->size();
        if (count != branches + 1) {
          return fail(str_cat("a conditional with ", branches,
                                   " branches takes the index and one operand per branch (",
                                   branches + 1, " operands), got ", count));
        }
      } else {
        return fail(str_cat("the branch index of a conditional must be pred[] or s32[], "
                                 "got ",
                                 to_string(index)));
      }
      break;
    }
    case ShapeRule::kOneDimension:
      if (i->dimensions().size() != 1) {
        return fail(str_cat(name, " takes exactly one dimension in dimensions={...}, got ",
                                 i->dimensions().size()));
      }
      if (op == Opcode::kReduceScatter && i->use_global_device_ids() && !i->channel_id() &&
          !i->has_attribute(AttrId::kMode)) {
        return fail("use_global_device_ids=true needs a channel_id");
      }
      break;
    case ShapeRule::kTupleResult:
      if (!shape.is_tuple()) {
        return fail(str_cat(name, " returns a tuple (data, ...), not ", to_string(shape)));
      }
      break;
    case ShapeRule::kElementCount:
      if (!reshape_keeps_count(*i)) {
        return fail(str_cat("reshape from ", to_string(i->operand(0)->shape()), " to ",
                                 to_string(shape), " changes the element count"));
      }
      break;
    case ShapeRule::kDynamicReshape: {
      if (shape.is_array() && count != static_cast<size_t>(shape.rank()) + 1) {
        return fail(str_cat("dynamic-reshape to rank ", shape.rank(), " takes ", shape.rank() + 1,
                             " operands (the input and one size per "
                             "dimension), got ",
                             count));
      }
      // Bounded dims count at their bound on both sides.
      const Shape& from = i->operand(0)->shape();
      if (from.is_array() && shape.is_array() &&
          element_count(from) != element_count(shape)) {
        return fail(str_cat("dynamic-reshape from ", to_string(from), " to ", to_string(shape),
                                 " changes the (bounded) element count"));
      }
      break;
    }
    case ShapeRule::kAsyncStart:
      // ((operand shapes...), result, context...): syntax 5.20. Upstream checks the form only.
      if (!shape.is_tuple() || shape.elements.size() < 2 || !shape.elements[0].is_tuple()) {
        return fail(str_cat(i->uses_async_sugar() ? i->name() : name,
                        " returns ((operand shapes), result shape, ...), not ", to_string(shape)));
      }
      break;
    case ShapeRule::kAsyncUpdateOrDone: {
      // The operand is usually the start (or an update); when it is, both must describe the
      // same asynchronous operation. (A tuple or parameter of the right shape is accepted.)
      Instruction* previous = i->operand(0);
      if (previous->opcode() == Opcode::kAsyncDone) {
        return fail(str_cat(name, " cannot take the async-done ", previous->name(),
                                 "; it takes the async-start or an async-update"));
      }
      if (previous->opcode() != Opcode::kAsyncStart && previous->opcode() != Opcode::kAsyncUpdate) {
        break;
      }
      if (op == Opcode::kAsyncUpdate &&
          (!shape.is_tuple() || shape.elements.size() < 2 || !shape.elements[0].is_tuple())) {
        return fail(str_cat(name, " returns ((operand shapes), result shape, ...), not ",
                                 to_string(shape)));
      }
      Instruction* start = previous;
      while (start->opcode() == Opcode::kAsyncUpdate && start->operand_count() > 0) {
        start = start->operand(0);
      }
      if (i->uses_async_sugar() && start->uses_async_sugar() &&
          i->async_wrapped_opcode() != start->async_wrapped_opcode()) {
        return fail(str_cat(i->name(), " wraps ", opcode_name(*i->async_wrapped_opcode()),
                                 " but its start ", start->name(), " wraps ",
                                 opcode_name(*start->async_wrapped_opcode())));
      }
      Computation* calls = i->computation_attribute(AttrId::kCalls);
      Computation* start_calls = start->computation_attribute(AttrId::kCalls);
      if (calls != nullptr && start_calls != nullptr && calls != start_calls) {
        return fail(str_cat(name, " calls ", calls->name(), " but its start calls ",
                                 start_calls->name()));
      }
      std::string_view thread = i->string_attribute(AttrId::kAsyncExecutionThread);
      std::string_view start_thread = start->string_attribute(AttrId::kAsyncExecutionThread);
      if (start_thread.empty()) start_thread = "main";
      if (!thread.empty() && thread != start_thread) {
        return fail(str_cat(name, " runs on thread ", thread, " but its start on ", start_thread));
      }
      break;
    }
    case ShapeRule::kNone:
      break;
  }
  return true;
}

bool takes_replica_groups(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
      return true;
    default:
      return false;
  }
}

Opcode collective_opcode(const Instruction& i) {
  if (i.opcode() == Opcode::kAsyncStart && i.uses_async_sugar()) {
    if (std::optional<Opcode> wrapped = i.async_wrapped_opcode()) return *wrapped;
  }
  return i.opcode();
}

bool check_collective_groups(const Instruction& i, int64_t replica_count, int64_t num_partitions,
                             std::string* message) {
  const Opcode op = collective_opcode(i);
  if (!takes_replica_groups(op)) return true;
  auto fail = [&](std::string text) {
    *message = std::move(text);
    return false;
  };
  // XLA's group modes (collective_ops_utils.cc, GetCollectiveOpGroupMode): all-to-all takes no
  // use_global_device_ids, so with a channel_id its ids are partitions.
  const bool channel = i.channel_id().has_value();
  const bool all_to_all = op == Opcode::kAllToAll || op == Opcode::kRaggedAllToAll;
  const bool global = i.use_global_device_ids();
  if (global && !channel) return fail("use_global_device_ids needs a channel_id");
  int64_t expected = replica_count;
  std::string_view what = "replicas (replica_count)";
  if (channel && all_to_all) {
    expected = num_partitions;
    what = "partitions (num_partitions)";
  } else if (global) {
    expected = replica_count * num_partitions;
    what = "devices (replica_count x num_partitions)";
  }
  const ReplicaGroups* groups = i.replica_groups();
  if (groups == nullptr || groups->all_participants()) {
    if (global) return fail("use_global_device_ids needs its replica groups written");
    return true;
  }
  int64_t n = 0;
  int64_t size = -1;
  bool uniform = true;
  if (groups->form == ReplicaGroups::Form::kIota) {
    n = groups->num_groups * groups->group_size;  // a permutation of 0..n-1 (the parser's)
    size = groups->group_size;
  } else if (groups->form == ReplicaGroups::Form::kList) {
    for (const std::vector<int64_t>& g : groups->groups) n += static_cast<int64_t>(g.size());
    std::vector<bool> seen(static_cast<size_t>(n), false);
    for (const std::vector<int64_t>& g : groups->groups) {
      if (g.empty()) return fail("a replica group is empty");
      if (size < 0) size = static_cast<int64_t>(g.size());
      uniform = uniform && static_cast<int64_t>(g.size()) == size;
      for (int64_t id : g) {
        if (id < 0 || id >= n) {
          return fail(str_cat("replica groups name ", n, " ids, so each is in 0..", n - 1,
                              "; ", id, " is not"));
        }
        if (seen[static_cast<size_t>(id)]) {
          return fail(str_cat("id ", id, " is in the replica groups more than once"));
        }
        seen[static_cast<size_t>(id)] = true;
      }
    }
  } else {
    return true;  // mesh groups: laid out from the mesh, checked by their parser
  }
  if (expected > 1 && n != expected) {
    return fail(str_cat("the replica groups hold ", n, " ids, but the module has ", expected, " ",
                        what, ": each must be in exactly one group"));
  }
  const bool any_size = op == Opcode::kAllReduce || op == Opcode::kAllReduceStart;
  if (!uniform && !any_size) {
    return fail(str_cat("the replica groups of ", opcode_name(op),
                        " must all have one size (the first has ", size, ")"));
  }
  if (op == Opcode::kAllToAll && size > 0 && i.operand_count() == 1) {  // its -start's too
    const IntList dims = i.dimensions();
    const Shape& in = i.operand(0)->shape();
    if (dims.size() == 1 && in.is_array() && dims[0] >= 0 && dims[0] < in.rank() &&
        in.dims[static_cast<size_t>(dims[0])].size % size != 0) {
      return fail(str_cat("all-to-all splits dimension ", dims[0], " (size ",
                          in.dims[static_cast<size_t>(dims[0])].size, ") into groups of ", size,
                          ", which do not divide it"));
    }
  }
  return true;
}

}  // namespace hloroof::detail
