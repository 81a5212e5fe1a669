// FLOPs and transcendentals of operations (docs/cost-conventions.md, "Where hloroof follows XLA",
// with the ragged-dot correction of its "Where hloroof departs from XLA, and why"). k = 2 FLOPs per
// fused multiply-add, as in XLA.
#include <algorithm>
#include <cmath>

#include "cost/cost_internal.h"
#include "util/checked_math.h"

namespace hloroof::cost {
namespace {

constexpr double kFmaFlops = 2;

// XLA's complete list of transcendental functions: its categories, plus power and atan2.
bool is_transcendental(Opcode op) {
  return opcode_category(op) == OpCategory::kTranscendental || op == Opcode::kPower ||
         op == Opcode::kAtan2;
}

void add_vector(OpCost& cost, double flops) {
  cost.flops += flops;
  cost.xla_flops += flops;
}

void add_transcendentals(OpCost& cost, double count) {
  cost.transcendentals += count;
  cost.xla_transcendentals += count;
}

void add_matrix(OpCost& cost, PrimitiveType type, double flops, double xla_flops) {
  if (flops > 0) cost.matrix.push_back({type, flops});
  cost.flops += flops;
  cost.xla_flops += xla_flops;
}

// `count` applications of a computation (a reducer, a mapped function, a comparator).
void add_applications(OpCost& cost, Context& context, const Computation* applied, double count) {
  if (applied == nullptr || count <= 0) return;
  const OpCost& per = context.cost_of(applied);
  cost.flops += per.flops * count;
  cost.transcendentals += per.transcendentals * count;
  for (const MatrixFlops& m : per.matrix) cost.matrix.push_back({m.type, m.flops * count});
  cost.xla_flops += per.xla_flops * count;
  cost.xla_transcendentals += per.xla_transcendentals * count;
}

// The first array of a result that may be a tuple (variadic reduce and reduce-window).
const Shape& first_array(const Shape& shape) {
  if (shape.is_tuple() && !shape.elements.empty()) return first_array(shape.elements[0]);
  return shape;
}

// Product of `lhs` dims at `dims` (contracting dims); dims outside the rank count 1.
double product_of_dims(const Shape& lhs, IntList dims) {
  double p = 1;
  for (int64_t d : dims) {
    if (d >= 0 && d < lhs.rank()) p *= static_cast<double>(lhs.dims[d].size);
  }
  return p;
}

double window_size(const Window* window) {
  double size = 1;
  if (window != nullptr) {
    for (const WindowDim& d : window->dims) size *= static_cast<double>(d.size);
  }
  return size;
}

// Binary logarithm rounded down (0 for 0 and 1), as XLA's Log2Floor.
double log2_floor(int64_t n) { return n <= 1 ? 0 : std::floor(std::log2(static_cast<double>(n))); }

void dot_flops(const OpView& op, size_t lhs_index, size_t rhs_index, OpCost& cost) {
  const Shape* lhs = op.operand_shape(lhs_index);
  const Shape* rhs = op.operand_shape(rhs_index);
  if (lhs == nullptr || rhs == nullptr) return;
  const double flops = kFmaFlops * elements(*op.result) *
                       product_of_dims(*lhs, op.instruction->dot_dimensions().lhs_contracting);
  add_matrix(cost, matrix_operand_type(lhs->element_type, rhs->element_type), flops, flops);
}

// ragged-dot: lhs [.., m, k], rhs [g, k, n] (or ragged along k or a batch dim), group sizes.
// Every lhs row meets one group's matrix, so the true count is 2*m*k*n; in the ragged-
// contracting mode the output holds one [m, n] per group and each covers 1/g of k. XLA drops
// the output's first (rhs group dim count) dims instead (docs/cost-conventions.md, "Where hloroof
// follows XLA").
void ragged_dot_flops(const OpView& op, OpCost& cost) {
  const Shape* lhs = op.operand_shape(0);
  const Shape* rhs = op.operand_shape(1);
  if (lhs == nullptr || rhs == nullptr) return;
  const DotDimensionNumbers dims = op.instruction->dot_dimensions();
  const double contracted = product_of_dims(*lhs, dims.lhs_contracting);
  const Shape& out = *op.result;
  const bool ragged_contracting =
      !dims.lhs_ragged.empty() &&
      std::find(dims.lhs_contracting.begin(), dims.lhs_contracting.end(), dims.lhs_ragged[0]) !=
          dims.lhs_contracting.end();
  double groups = 1;
  if (ragged_contracting && out.rank() > 0) groups = static_cast<double>(out.dims[0].size);
  const double ours = groups > 0 ? kFmaFlops * elements(out) * contracted / groups : 0;

  double xla_out = 1;
  for (int64_t d = static_cast<int64_t>(dims.rhs_group.size()); d < out.rank(); ++d) {
    xla_out *= static_cast<double>(out.dims[d].size);
  }
  add_matrix(cost, matrix_operand_type(lhs->element_type, rhs->element_type), ours,
             kFmaFlops * xla_out * contracted);
}

void convolution_op_flops(const OpView& op, OpCost& cost) {
  const Shape* lhs = op.operand_shape(0);
  const Shape* rhs = op.operand_shape(1);
  const ConvDimLabels* labels = op.instruction->conv_dim_labels();
  if (lhs == nullptr || rhs == nullptr || labels == nullptr) return;
  std::optional<double> flops =
      convolution_flops(*lhs, *rhs, *op.result, op.instruction->window(), *labels,
                        op.instruction->feature_group_count(), op.instruction->batch_group_count());
  if (flops)
    add_matrix(cost, matrix_operand_type(lhs->element_type, rhs->element_type), *flops, *flops);
}

// reduce-window: (window size - 1) applications per output element, except the reduce-and-
// broadcast-back form that XLA recognises and costs as one reduction plus n - 1 (table 1.2).
double reduce_window_applications(const OpView& op) {
  const Window* window = op.instruction->window();
  const Shape& out = first_array(*op.result);
  const double out_elements = elements(out);
  double applications = (window_size(window) - 1) * out_elements;
  if (window == nullptr || !op.result->is_array()) return applications;
  int reducing = 0, padded = 0;
  for (const WindowDim& d : window->dims) {
    reducing += d.size != 1;
    padded += d.pad_low != 0 || d.pad_high != 0;
  }
  if (reducing != 1 || padded != 1) return applications;
  for (size_t i = 0; i < window->dims.size() && static_cast<int64_t>(i) < out.rank(); ++i) {
    const WindowDim& d = window->dims[i];
    const std::optional<int64_t> twice_pad = checked_mul(2, d.pad_low);
    if (d.size != 1 && d.pad_low != 0 && d.pad_low == d.pad_high && twice_pad &&
        checked_add(*twice_pad, 1) == d.size) {
      const int64_t n = out.dims[i].size;
      if (n > 0 && d.pad_low == n - 1) {
        return out_elements / static_cast<double>(n) + static_cast<double>(n - 1);
      }
      break;
    }
  }
  return applications;
}

// An FFT (docs/cost-conventions.md, "FFTs"). hloroof counts the usual 5 L log2 L FLOPs of a
// complex transform of L points (L the product of the lengths; log2 L the sum of their log2), for
// each transform of the batch; a real transform (RFFT, IRFFT) half of that over its real points.
// XLA multiplies the log2 of the lengths instead of adding them, 8 E prod(floor(log2 len)), which
// is 27x the usual count for a 512^3 transform and put the roofline above measured cuFFT times;
// it is kept as the XLA-compatible figure.
void fft_flops(const OpView& op, OpCost& cost) {
  const Instruction& i = *op.instruction;
  const Shape* input = op.operand_shape(0);
  if (input == nullptr) return;
  double log_factors = 1;
  double log_sum = 0;
  for (int64_t length : i.fft_length()) {
    log_factors *= log2_floor(length);
    log_sum += length > 1 ? std::log2(static_cast<double>(length)) : 0;
  }
  const double input_elements = elements(first_array(*input));
  // Four FMAs per complex multiply.
  cost.xla_flops += kFmaFlops * 4 * log_factors * input_elements;
  const std::string_view type = i.string_attribute(AttrId::kFftType);
  double flops = 5 * input_elements * log_sum;
  if (type == "RFFT") {
    flops = 2.5 * input_elements * log_sum;  // real input points
  } else if (type == "IRFFT") {
    flops = 2.5 * elements(first_array(*op.result)) * log_sum;  // real output points
  }
  cost.flops += flops;
}

}  // namespace

void add_flops(const OpView& op, Context& context, OpCost& cost) {
  const Instruction& i = *op.instruction;
  const Shape& out = *op.result;
  if (is_elementwise(op.opcode)) {
    if (is_transcendental(op.opcode)) {
      add_transcendentals(cost, elements(out));
    } else {
      add_vector(cost, elements(out));
    }
    return;
  }
  switch (op.opcode) {
    case Opcode::kDot:
      return dot_flops(op, 0, 1, cost);
    case Opcode::kScaledDot:  // lhs, lhs scale, rhs, rhs scale
      return dot_flops(op, 0, 2, cost);
    case Opcode::kRaggedDot:
      return ragged_dot_flops(op, cost);
    case Opcode::kConvolution:
      return convolution_op_flops(op, cost);
    case Opcode::kFft:
      return fft_flops(op, cost);
    case Opcode::kTriangularSolve: {
      const Shape* a = op.operand_shape(0);
      const Shape* b = op.operand_shape(1);
      if (a == nullptr || b == nullptr || a->rank() == 0) return;
      return add_vector(cost, kFmaFlops * static_cast<double>(a->dims.back().size) * elements(*b));
    }
    case Opcode::kCholesky: {
      const Shape* a = op.operand_shape(0);
      if (a == nullptr || a->rank() == 0) return;
      return add_vector(cost,
                        std::floor(static_cast<double>(a->dims.back().size) * elements(*a) / 3));
    }
    case Opcode::kReduce: {
      const Shape* input = op.operand_shape(0);
      if (input == nullptr) return;
      // The reducer already does the work of every input of a variadic reduce.
      return add_applications(cost, context, i.to_apply(),
                              elements(*input) - elements(first_array(out)));
    }
    case Opcode::kReduceWindow:
      return add_applications(cost, context, i.to_apply(), reduce_window_applications(op));
    case Opcode::kSelectAndScatter: {
      const Shape* source = op.operand_shape(1);
      if (source == nullptr) return;
      const double n = elements(*source);
      add_applications(cost, context, i.computation_attribute(AttrId::kSelectComputation),
                       n * (window_size(i.window()) - 1));
      return add_applications(cost, context, i.computation_attribute(AttrId::kScatterComputation),
                              n);
    }
    case Opcode::kMap:
      return add_applications(cost, context, i.to_apply(), elements(out));
    case Opcode::kSort: {
      const Shape* keys = op.operand_shape(0);
      if (keys == nullptr) return;
      const double n = elements(*keys);
      return add_vector(cost, n <= 1 ? 0 : n * std::ceil(std::log2(n)));
    }
    case Opcode::kScatter: {
      // Operands: n inputs, the indices, n updates.
      const size_t n = (op.operand_count() - 1) / 2;
      const Shape* updates = op.operand_shape(n + 1);
      if (n == 0 || updates == nullptr) return;
      return add_applications(cost, context, i.to_apply(), elements(*updates));
    }
    case Opcode::kScan: {
      const Shape* input = op.operand_shape(1);
      if (input == nullptr) return;
      return add_applications(cost, context, i.to_apply(), elements(*input));
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      // XLA assumes two replicas: one addition per output element (docs/cost-conventions.md, "Where
      // hloroof follows XLA").
      return add_vector(cost, leaf_elements(out));
    case Opcode::kRng:
      return add_transcendentals(cost, elements(out));
    case Opcode::kRngBitGenerator:
      return add_transcendentals(cost, leaf_elements(out));
    default:
      return;
  }
}

}  // namespace hloroof::cost
