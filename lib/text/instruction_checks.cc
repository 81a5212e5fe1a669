// Per-opcode rules the text must follow (operand counts, required attributes, a few shape
// rules upstream's parser enforces) and shape inference for the instructions whose shape the
// text omits (hand-written tests do; upstream infers it).
#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_join.h"
#include "hloroof/shape_text.h"
#include "ir/shape_util.h"
#include "ir/strings.h"
#include "text/module_parser.h"
#include "text/shape_inference.h"

namespace hloroof::text {
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

constexpr size_t kAttrIdCount = 0
#define HLOROOF_ATTRIBUTE(e, text, kind, group) +1
#include "hloroof/attributes.def"
#undef HLOROOF_ATTRIBUTE
    ;

// The attributes an instruction carries, one bit per AttrId.
class AttrSet {
 public:
  AttrSet() = default;
  explicit AttrSet(absl::Span<const Attribute> attributes) {
    for (const Attribute& a : attributes) add(a.id);
  }
  void add(AttrId id) {
    const auto k = static_cast<size_t>(id);
    words_[k / 64] |= uint64_t{1} << (k % 64);
  }
  bool has(AttrId id) const {
    const auto k = static_cast<size_t>(id);
    return (words_[k / 64] >> (k % 64)) & 1;
  }
  bool contains_all(const AttrSet& other) const {
    for (size_t w = 0; w < kWords; ++w) {
      if ((other.words_[w] & ~words_[w]) != 0) return false;
    }
    return true;
  }

 private:
  static constexpr size_t kWords = (kAttrIdCount + 63) / 64;
  uint64_t words_[kWords] = {};
};

// required_attributes(op) as a set, to check them all at once; built when the program starts,
// so that a look-up is one load (no first-use guard).
const std::array<AttrSet, kOpcodeCount> kRequiredAttributeSets = [] {
  std::array<AttrSet, kOpcodeCount> table;
  for (size_t o = 0; o < static_cast<size_t>(kOpcodeCount); ++o) {
    for (AttrId id : required_attributes(static_cast<Opcode>(o))) table[o].add(id);
  }
  return table;
}();

const AttrSet& required_attribute_set(Opcode op) {
  return kRequiredAttributeSets[static_cast<size_t>(op)];
}

bool is_pred_or_s32_scalar(const Shape& s, PrimitiveType type) {
  return s.is_array() && s.dims.empty() && s.element_type == type;
}

// Dot result: batch dims, then lhs free dims, then rhs free dims.
Shape dot_shape(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& d) {
  Shape out;
  out.element_type = lhs.element_type;
  auto contains = [](IntList list, int64_t v) {
    return std::find(list.begin(), list.end(), v) != list.end();
  };
  for (int64_t b : d.lhs_batch) out.dims.push_back(lhs.dims[static_cast<size_t>(b)]);
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!contains(d.lhs_batch, i) && !contains(d.lhs_contracting, i)) {
      out.dims.push_back(lhs.dims[static_cast<size_t>(i)]);
    }
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!contains(d.rhs_batch, i) && !contains(d.rhs_contracting, i)) {
      out.dims.push_back(rhs.dims[static_cast<size_t>(i)]);
    }
  }
  return out;
}

bool dims_in_range(IntList dims, int64_t rank) {
  return std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d >= 0 && d < rank; });
}

// Limits on a shape built from operands rather than read (docs/limits.md): the depth of a shape
// the text may write, and a million shapes in its tree (a 7 MB tuple shape in text).
constexpr int kMaxInferredShapeDepth = 64;
constexpr int64_t kMaxInferredShapeTreeSize = int64_t{1} << 20;

}  // namespace

bool ModuleParser::infer_shape(Instruction* i, const Token& at, Shape* out) {
  const Opcode op = i->opcode();
  auto operand_shape = [&](size_t k) -> const Shape& { return i->operand(k)->shape(); };
  auto fail = [&]() {
    return error(at, str_cat("cannot infer the shape of ", opcode_name(op),
                             "; write the shape before the opcode"));
  };
  auto tuple_of_operands = [&]() {
    TupleBuilder elements;
    for (Instruction* operand : i->operands()) elements.add(operand->shape());
    return Shape::Tuple(elements.build());
  };
  if (op == Opcode::kTuple) {
    *out = tuple_of_operands();
    return true;
  }
  if (op == Opcode::kAfterAll) {
    *out = Shape::Token();
    return true;
  }
  if (op == Opcode::kCall || op == Opcode::kConditional) {
    if (i->called_computations().empty()) return fail();
    *out = i->called_computations()[0]->root()->shape();
    return true;
  }
  if (std::optional<bool> inferred = infer_shape_from_operands(*i, out)) {
    return *inferred || fail();
  }
  if (i->operand_count() == 0) return fail();
  const Shape& first = operand_shape(0);
  switch (op) {
    case Opcode::kGetTupleElement: {
      std::optional<int64_t> index = i->int_attribute(AttrId::kIndex);
      if (!first.is_tuple() || !index || *index < 0 ||
          *index >= static_cast<int64_t>(first.elements.size())) {
        return fail();
      }
      *out = first.elements[static_cast<size_t>(*index)];
      return true;
    }
    case Opcode::kWhile:
    case Opcode::kCopy:
    case Opcode::kOptimizationBarrier:
      *out = first;
      return true;
    case Opcode::kCompare:
      *out = first;
      out->element_type = PrimitiveType::kPred;
      out->layout.reset();
      return true;
    case Opcode::kSelect:
    case Opcode::kClamp:
      if (i->operand_count() < 2) return fail();
      *out = operand_shape(1);
      return true;
    case Opcode::kSort:
      if (i->operand_count() == 1) {
        *out = first;
      } else {
        *out = tuple_of_operands();
      }
      return true;
    case Opcode::kPad: {
      const Padding* padding = i->padding();
      if (padding == nullptr || !first.is_array() || padding->dims.size() != first.dims.size()) {
        return fail();
      }
      *out = first;
      out->layout.reset();
      for (size_t d = 0; d < out->dims.size(); ++d) {
        const PaddingDim& p = padding->dims[d];
        int64_t n = out->dims[d].size;
        // low + high + n + (n - 1) * interior, refusing what does not fit.
        int64_t size;
        if (__builtin_mul_overflow(std::max<int64_t>(n - 1, 0), p.interior, &size) ||
            __builtin_add_overflow(size, n, &size) || __builtin_add_overflow(size, p.low, &size) ||
            __builtin_add_overflow(size, p.high, &size) || size < 0) {
          return fail();
        }
        out->dims[d].size = size;
      }
      return true;
    }
    case Opcode::kDot: {
      if (i->operand_count() != 2) return fail();
      DotDimensionNumbers d = i->dot_dimensions();
      const Shape& rhs = operand_shape(1);
      if (!dims_in_range(d.lhs_batch, first.rank()) ||
          !dims_in_range(d.lhs_contracting, first.rank()) ||
          !dims_in_range(d.rhs_batch, rhs.rank()) ||
          !dims_in_range(d.rhs_contracting, rhs.rank())) {
        return fail();
      }
      *out = dot_shape(first, rhs, d);
      return true;
    }
    case Opcode::kConvolution: {
      const ConvDimLabels* labels = i->conv_dim_labels();
      if (labels == nullptr || i->operand_count() != 2 || i->batch_group_count() < 1) return fail();
      const Shape& kernel = operand_shape(1);
      const Window* window = i->window();
      const size_t spatial = labels->input_spatial.size();
      const auto rank = static_cast<int64_t>(spatial + 2);
      if (first.rank() != rank || kernel.rank() != rank ||
          (window != nullptr && window->dims.size() != spatial)) {
        return fail();
      }
      // Labels may carry '?' positions; every index used must be a dimension.
      auto in_range = [&](int64_t k) { return k >= 0 && k < rank; };
      for (int64_t k : {labels->input_batch, labels->input_feature, labels->kernel_output_feature,
                        labels->output_batch, labels->output_feature}) {
        if (!in_range(k)) return fail();
      }
      for (size_t s = 0; s < spatial; ++s) {
        if (!in_range(labels->input_spatial[s]) || !in_range(labels->kernel_spatial[s]) ||
            !in_range(labels->output_spatial[s])) {
          return fail();
        }
      }
      out->element_type = first.element_type;
      out->dims.resize(spatial + 2);
      auto dim = [](const Shape& s, int64_t k) { return s.dims[static_cast<size_t>(k)].size; };
      out->dims[static_cast<size_t>(labels->output_batch)].size =
          dim(first, labels->input_batch) / i->batch_group_count();
      out->dims[static_cast<size_t>(labels->output_feature)].size =
          dim(kernel, labels->kernel_output_feature);
      for (size_t s = 0; s < spatial; ++s) {
        WindowDim w = window ? window->dims[s] : WindowDim{dim(kernel, labels->kernel_spatial[s])};
        int64_t in = dim(first, labels->input_spatial[s]);
        if (w.size < 1) return fail();
        // padded = (in - 1) * lhs_dilation + 1 + pads; window = (size - 1) * rhs_dilation + 1.
        int64_t padded = 0, window_size = 0;
        if ((in > 0 && (__builtin_mul_overflow(in - 1, w.lhs_dilation, &padded) ||
                        __builtin_add_overflow(padded, 1, &padded))) ||
            __builtin_add_overflow(padded, w.pad_low, &padded) ||
            __builtin_add_overflow(padded, w.pad_high, &padded) ||
            __builtin_mul_overflow(w.size - 1, w.rhs_dilation, &window_size) ||
            __builtin_add_overflow(window_size, 1, &window_size)) {
          return fail();
        }
        int64_t size =
            padded >= window_size && w.stride > 0 ? (padded - window_size) / w.stride + 1 : 0;
        out->dims[static_cast<size_t>(labels->output_spatial[s])].size = size;
      }
      return true;
    }
    default:
      break;
  }
  if (is_elementwise(op) && op != Opcode::kConvert && op != Opcode::kBitcastConvert &&
      op != Opcode::kStochasticConvert && op != Opcode::kReal && op != Opcode::kImag &&
      op != Opcode::kComplex && op != Opcode::kIsFinite) {
    // Elementwise: the shape of the operands (a scalar operand may broadcast).
    *out = first;
    for (Instruction* operand : i->operands()) {
      if (operand->shape().rank() > out->rank()) *out = operand->shape();
    }
    return true;
  }
  return fail();
}

namespace {

// Operand counts by opcode, inline (opcode_arity() is a call).
constexpr std::array<int, kOpcodeCount> kArity = {
#define HLOROOF_OPCODE(e, text, category, arity) arity,
#include "hloroof/opcodes.def"
#undef HLOROOF_OPCODE
};

// The checks of check_instruction_in_full beyond the operand count, the required attributes
// and the two attribute conflicts: a rule on the operand count before the attributes are
// checked, and a rule on the shape after it is known. This table is the one list of opcodes
// with checks of their own; check_instruction_in_full and the shortcut both read it.
enum class CountRule {
  kNone,
  kInputsAndInits,  // at least 2, as many init values as inputs
  kAtLeastOne,
};
enum class ShapeRule {
  kNone,
  kTupleElement,       // get-tuple-element: the index and the element's shape
  kConditional,        // the branch index and the operands per branch
  kOneDimension,       // dimensions={d}; reduce-scatter's use_global_device_ids
  kTupleResult,        // infeed, recv
  kElementCount,       // reshape, which the shortcut repeats
  kDynamicReshape,     // one size operand per dimension, the (bounded) element count
  kAsyncStart,         // ((operand shapes), result, context...)
  kAsyncUpdateOrDone,  // the same asynchronous operation as its start
};
struct OwnChecks {
  CountRule count = CountRule::kNone;
  ShapeRule shape = ShapeRule::kNone;
};

constexpr OwnChecks own_checks(Opcode op) {
  using C = CountRule;
  using S = ShapeRule;
  switch (op) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
      return {C::kInputsAndInits, S::kNone};
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
    case Opcode::kSort:
      return {C::kAtLeastOne, S::kNone};
    case Opcode::kConditional:
      return {C::kAtLeastOne, S::kConditional};
    case Opcode::kDynamicReshape:
      return {C::kAtLeastOne, S::kDynamicReshape};
    case Opcode::kAsyncUpdate:
      return {C::kAtLeastOne, S::kAsyncUpdateOrDone};
    case Opcode::kAsyncDone:
      return {C::kNone, S::kAsyncUpdateOrDone};
    case Opcode::kAsyncStart:
      return {C::kNone, S::kAsyncStart};
    case Opcode::kGetTupleElement:
      return {C::kNone, S::kTupleElement};
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
      return {C::kNone, S::kOneDimension};
    case Opcode::kInfeed:
    case Opcode::kRecv:
      return {C::kNone, S::kTupleResult};
    case Opcode::kReshape:
      return {C::kNone, S::kElementCount};
    default:
      return {};
  }
}

constexpr std::array<OwnChecks, kOpcodeCount> kOwnChecks = [] {
  std::array<OwnChecks, kOpcodeCount> table{};
  for (int op = 0; op < kOpcodeCount; ++op) table[static_cast<size_t>(op)] = own_checks(Opcode(op));
  return table;
}();

// Whether the shortcut of check_instruction must leave `op` to check_instruction_in_full: any
// rule of its own but the element count, which the shortcut repeats.
constexpr std::array<bool, kOpcodeCount> kHasOwnChecks = [] {
  std::array<bool, kOpcodeCount> table{};
  for (size_t op = 0; op < table.size(); ++op) {
    table[op] = kOwnChecks[op].count != CountRule::kNone ||
                (kOwnChecks[op].shape != ShapeRule::kNone &&
                 kOwnChecks[op].shape != ShapeRule::kElementCount);
  }
  return table;
}();

// The reshape rule of check_instruction_in_full: the element count is kept (bounded dims at
// their bound), which interned shapes that are the same shape trivially do.
bool reshape_keeps_count(const Instruction& i) {
  const Shape& from = i.operand(0)->shape();
  const Shape& shape = i.shape();
  if (&from == &shape || !from.is_array() || !shape.is_array()) return true;
  const int64_t from_count = detail::element_count(from);
  const int64_t count_after = detail::element_count(shape);
  return from_count == count_after || from_count < 0 || count_after < 0;
}

}  // namespace

// Most instructions pass every check: an opcode with no checks of its own, written without the
// async sugar, with its shape, the right operand count, its required attributes and neither
// attribute conflict. Anything else goes through check_instruction_in_full, which reports.
bool ModuleParser::check_instruction(Instruction* i, const Token& at) {
  const Opcode op = i->opcode();
  const int arity = kArity[static_cast<size_t>(op)];
  if (!kHasOwnChecks[static_cast<size_t>(op)] && !i->uses_async_sugar() &&
      detail::IrAccess::has_shape(i) &&
      (arity < 0 || i->operand_count() == static_cast<size_t>(arity))) {
    const AttrSet present(i->attributes());
    if (present.contains_all(required_attribute_set(op)) && !present.has(AttrId::kResultAccuracy) &&
        !(present.has(AttrId::kToApply) && present.has(AttrId::kCalledComputations)) &&
        (kOwnChecks[static_cast<size_t>(op)].shape != ShapeRule::kElementCount ||
         reshape_keeps_count(*i))) {
      return true;
    }
  }
  return check_instruction_in_full(i, at);
}

bool ModuleParser::check_instruction_in_full(Instruction* i, const Token& at) {
  const Opcode op = i->opcode();
  const std::string_view name = opcode_name(op);
  const size_t count = i->operand_count();

  // Operand counts fixed by the grammar (section 6). Sugared async ops take the wrapped op's
  // operands.
  int arity = opcode_arity(op);
  if (i->uses_async_sugar() && op == Opcode::kAsyncStart) arity = -1;
  if (arity >= 0 && count != static_cast<size_t>(arity)) {
    return error(at, str_cat(i->uses_async_sugar() ? i->name() : name, " takes ", arity,
                             arity == 1 ? " operand" : " operands", ", got ", count));
  }
  auto at_least = [&](size_t n) {
    if (count >= n) return true;
    return error(at, str_cat(name, " takes at least ", n, n == 1 ? " operand" : " operands",
                             ", got ", count));
  };
  const OwnChecks own = kOwnChecks[static_cast<size_t>(op)];
  switch (own.count) {
    case CountRule::kInputsAndInits:
      if (!at_least(2)) return false;
      if (count % 2 != 0) {
        return error(
            at, str_cat(name, " takes as many init values as inputs, got ", count, " operands"));
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
        return error(at, str_cat("attribute '", attribute_name(id), "' is required for ",
                                 opcode_name(rules)));
      }
    }
  }
  if (op == Opcode::kAsyncStart && !i->uses_async_sugar() && !present.has(AttrId::kCalls)) {
    return error(at, "attribute 'calls' is required for async-start");
  }
  if (present.has(AttrId::kResultAccuracy) &&
      opcode_category(rules) != OpCategory::kTranscendental) {
    return error(at, str_cat("result_accuracy is only allowed on transcendental ops, not ",
                             opcode_name(rules)));
  }
  if (present.has(AttrId::kToApply) && present.has(AttrId::kCalledComputations)) {
    return error(at, "a custom-call takes to_apply or called_computations, not both");
  }

  // The shape, inferred when the text left it out.
  if (!detail::IrAccess::has_shape(i)) {
    Shape inferred;
    if (!infer_shape(i, at, &inferred)) return false;
    // A shape written in text is bounded by the text; one built from operands is not: tuples of
    // tuples of ... double at each step without the text growing. Everything that walks shapes
    // (printing, costs, memory) walks them as trees, so bound the tree as the text would.
    if (inferred.depth() > kMaxInferredShapeDepth) {
      return error(at, str_cat("the inferred shape of ", opcode_name(op), " nests tuples ",
                               inferred.depth(), " levels deep, more than the limit of ",
                               kMaxInferredShapeDepth, "; write the shape before the opcode"));
    }
    if (inferred.tree_size() > kMaxInferredShapeTreeSize) {
      return error(at, str_cat("the inferred shape of ", opcode_name(op), " has more than ",
                               kMaxInferredShapeTreeSize, " shapes in it (tuples counted with ",
                               "their repeats); write the shape before the opcode"));
    }
    i->set_shape(inferred);
  }
  const Shape& shape = i->shape();

  switch (own.shape) {
    case ShapeRule::kTupleElement: {
      const Shape& tuple = i->operand(0)->shape();
      int64_t index = *i->int_attribute(AttrId::kIndex);
      if (!tuple.is_tuple()) {
        return error(at, str_cat("get-tuple-element needs a tuple operand, but ",
                                 i->operand(0)->name(), " has shape ", to_string(tuple)));
      }
      if (index < 0 || index >= static_cast<int64_t>(tuple.elements.size())) {
        return error(at, str_cat("tuple index ", index, " is out of range: ", i->operand(0)->name(),
                                 " has ", tuple.elements.size(), " elements"));
      }
      if (!detail::same_ignoring_layout(tuple.elements[static_cast<size_t>(index)], shape)) {
        return error(at,
                     str_cat("get-tuple-element index ", index, " of ", i->operand(0)->name(),
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
          return error(at,
                       "a conditional on a pred needs true_computation and "
                       "false_computation");
        }
        if (count != 3) {
          return error(at, str_cat("a conditional on a pred takes 3 operands, got ", count));
        }
      } else if (is_pred_or_s32_scalar(index, PrimitiveType::kS32)) {
        if (!has_branches) return error(at, "a conditional on an s32 needs branch_computations");
        size_t branches = i->attribute(AttrId::kBranchComputations)->get<ComputationList>()->size();
        if (count != branches + 1) {
          return error(at, str_cat("a conditional with ", branches,
                                   " branches takes the index and one operand per branch (",
                                   branches + 1, " operands), got ", count));
        }
      } else {
        return error(at, str_cat("the branch index of a conditional must be pred[] or s32[], "
                                 "got ",
                                 to_string(index)));
      }
      break;
    }
    case ShapeRule::kOneDimension:
      if (i->dimensions().size() != 1) {
        return error(at, str_cat(name, " takes exactly one dimension in dimensions={...}, got ",
                                 i->dimensions().size()));
      }
      if (op == Opcode::kReduceScatter && i->use_global_device_ids() && !i->channel_id() &&
          !i->has_attribute(AttrId::kMode)) {
        return error(at, "use_global_device_ids=true needs a channel_id");
      }
      break;
    case ShapeRule::kTupleResult:
      if (!shape.is_tuple()) {
        return error(at, str_cat(name, " returns a tuple (data, ...), not ", to_string(shape)));
      }
      break;
    case ShapeRule::kElementCount:
      if (!reshape_keeps_count(*i)) {
        return error(at, str_cat("reshape from ", to_string(i->operand(0)->shape()), " to ",
                                 to_string(shape), " changes the element count"));
      }
      break;
    case ShapeRule::kDynamicReshape: {
      if (shape.is_array() && count != static_cast<size_t>(shape.rank()) + 1) {
        return error(at,
                     str_cat("dynamic-reshape to rank ", shape.rank(), " takes ", shape.rank() + 1,
                             " operands (the input and one size per "
                             "dimension), got ",
                             count));
      }
      // Bounded dims count at their bound on both sides.
      const Shape& from = i->operand(0)->shape();
      if (from.is_array() && shape.is_array() &&
          detail::element_count(from) != detail::element_count(shape)) {
        return error(at, str_cat("dynamic-reshape from ", to_string(from), " to ", to_string(shape),
                                 " changes the (bounded) element count"));
      }
      break;
    }
    case ShapeRule::kAsyncStart:
      // ((operand shapes...), result, context...): syntax 5.20. Upstream checks the form only.
      if (!shape.is_tuple() || shape.elements.size() < 2 || !shape.elements[0].is_tuple()) {
        return error(
            at, str_cat(i->uses_async_sugar() ? i->name() : name,
                        " returns ((operand shapes), result shape, ...), not ", to_string(shape)));
      }
      break;
    case ShapeRule::kAsyncUpdateOrDone: {
      // The operand is usually the start (or an update); when it is, both must describe the
      // same asynchronous operation. (A tuple or parameter of the right shape is accepted.)
      Instruction* previous = i->operand(0);
      if (previous->opcode() == Opcode::kAsyncDone) {
        return error(at, str_cat(name, " cannot take the async-done ", previous->name(),
                                 "; it takes the async-start or an async-update"));
      }
      if (previous->opcode() != Opcode::kAsyncStart && previous->opcode() != Opcode::kAsyncUpdate) {
        break;
      }
      if (op == Opcode::kAsyncUpdate &&
          (!shape.is_tuple() || shape.elements.size() < 2 || !shape.elements[0].is_tuple())) {
        return error(at, str_cat(name, " returns ((operand shapes), result shape, ...), not ",
                                 to_string(shape)));
      }
      Instruction* start = previous;
      while (start->opcode() == Opcode::kAsyncUpdate && start->operand_count() > 0) {
        start = start->operand(0);
      }
      if (i->uses_async_sugar() && start->uses_async_sugar() &&
          i->async_wrapped_opcode() != start->async_wrapped_opcode()) {
        return error(at, str_cat(i->name(), " wraps ", opcode_name(*i->async_wrapped_opcode()),
                                 " but its start ", start->name(), " wraps ",
                                 opcode_name(*start->async_wrapped_opcode())));
      }
      Computation* calls = i->computation_attribute(AttrId::kCalls);
      Computation* start_calls = start->computation_attribute(AttrId::kCalls);
      if (calls != nullptr && start_calls != nullptr && calls != start_calls) {
        return error(at, str_cat(name, " calls ", calls->name(), " but its start calls ",
                                 start_calls->name()));
      }
      std::string_view thread = i->string_attribute(AttrId::kAsyncExecutionThread);
      std::string_view start_thread = start->string_attribute(AttrId::kAsyncExecutionThread);
      if (start_thread.empty()) start_thread = "main";
      if (!thread.empty() && thread != start_thread) {
        return error(at,
                     str_cat(name, " runs on thread ", thread, " but its start on ", start_thread));
      }
      break;
    }
    case ShapeRule::kNone:
      break;
  }
  return true;
}

}  // namespace hloroof::text
