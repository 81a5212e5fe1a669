#include "ir/shape_inference.h"

#include <algorithm>
#include <vector>

#include "hloroof/computation.h"

namespace hloroof::detail {
namespace {

bool contains(IntList list, int64_t v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

Shape scalar(PrimitiveType type) {
  Shape s;
  s.element_type = type;
  return s;
}

// The operand's array shape with another element type and no layout.
Shape retyped(const Shape& array, PrimitiveType type) {
  Shape s;
  s.element_type = type;
  s.dims = array.dims;
  return s;
}

// The real type of a complex type's parts (c64 -> f32, c128 -> f64); others unchanged.
PrimitiveType component_type(PrimitiveType type) {
  if (type == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (type == PrimitiveType::kC128) return PrimitiveType::kF64;
  return type;
}

// Each entry of `dims` is a distinct dimension of a rank-`rank` array.
bool is_dimension_set(IntList dims, int64_t rank) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

// A tuple of the shapes, or the one shape when there is one (variadic reduce, scatter, ...).
Shape one_or_tuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

// Output size of one windowed dimension (XLA's window semantics):
// padded = (n - 1) * base_dilation + 1 + low + high; span = (size - 1) * window_dilation + 1;
// out = (padded - span) / stride + 1, or 0 when the window does not fit.
std::optional<int64_t> window_output(int64_t n, const WindowDim& w) {
  if (w.size < 1 || w.stride < 1 || w.lhs_dilation < 1 || w.rhs_dilation < 1) return std::nullopt;
  int64_t padded = 0, span = 0;
  if (n > 0 && (__builtin_mul_overflow(n - 1, w.lhs_dilation, &padded) ||
                __builtin_add_overflow(padded, 1, &padded))) {
    return std::nullopt;
  }
  if (__builtin_add_overflow(padded, w.pad_low, &padded) ||
      __builtin_add_overflow(padded, w.pad_high, &padded) ||
      __builtin_mul_overflow(w.size - 1, w.rhs_dilation, &span) ||
      __builtin_add_overflow(span, 1, &span)) {
    return std::nullopt;
  }
  if (padded < span) return 0;
  return (padded - span) / w.stride + 1;
}

std::optional<Shape> transpose(const Shape& a, IntList perm) {
  if (!a.is_array() || static_cast<int64_t>(perm.size()) != a.rank() ||
      !is_dimension_set(perm, a.rank())) {
    return std::nullopt;
  }
  Shape out = retyped(a, a.element_type);
  for (size_t k = 0; k < perm.size(); ++k) out.dims[k] = a.dims[static_cast<size_t>(perm[k])];
  return out;
}

// reduce(inputs..., inits...): each input without the reduced dimensions, typed as its init.
std::optional<Shape> reduce(const Instruction& i) {
  const size_t n = i.operand_count() / 2;
  if (n == 0 || i.operand_count() != 2 * n) return std::nullopt;
  const Shape& first = i.operand(0)->shape();
  IntList dims = i.dimensions();
  if (!first.is_array() || !is_dimension_set(dims, first.rank())) return std::nullopt;
  std::vector<Shape> results;
  for (size_t k = 0; k < n; ++k) {
    const Shape& input = i.operand(k)->shape();
    const Shape& init = i.operand(n + k)->shape();
    if (!input.is_array() || input.dims != first.dims || !init.is_array() || init.rank() != 0) {
      return std::nullopt;
    }
    Shape r = scalar(init.element_type);
    for (int64_t d = 0; d < input.rank(); ++d) {
      if (!contains(dims, d)) r.dims.push_back(input.dims[static_cast<size_t>(d)]);
    }
    results.push_back(std::move(r));
  }
  return one_or_tuple(std::move(results));
}

// reduce-window(inputs..., inits...): each window position reduced to one element.
std::optional<Shape> reduce_window(const Instruction& i) {
  const size_t n = i.operand_count() / 2;
  if (n == 0 || i.operand_count() != 2 * n) return std::nullopt;
  const Shape& first = i.operand(0)->shape();
  if (!first.is_array()) return std::nullopt;
  const Window* window = i.window();
  // No window attribute: XLA's default window (rank 0), valid only for scalars.
  const size_t rank = first.dims.size();
  if ((window == nullptr && rank != 0) || (window != nullptr && window->dims.size() != rank)) {
    return std::nullopt;
  }
  decltype(Shape::dims) dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    std::optional<int64_t> size = window_output(first.dims[d].size, window->dims[d]);
    if (!size) return std::nullopt;
    dims[d].size = *size;
  }
  std::vector<Shape> results;
  for (size_t k = 0; k < n; ++k) {
    const Shape& input = i.operand(k)->shape();
    const Shape& init = i.operand(n + k)->shape();
    if (!input.is_array() || input.dims != first.dims || !init.is_array() || init.rank() != 0) {
      return std::nullopt;
    }
    Shape r = scalar(init.element_type);
    r.dims = dims;
    results.push_back(std::move(r));
  }
  return one_or_tuple(std::move(results));
}

std::optional<Shape> concatenate(const Instruction& i) {
  IntList dims = i.dimensions();
  const Shape& first = i.operand(0)->shape();
  if (dims.size() != 1 || !first.is_array() || dims[0] < 0 || dims[0] >= first.rank()) {
    return std::nullopt;
  }
  const size_t along = static_cast<size_t>(dims[0]);
  Shape out = retyped(first, first.element_type);
  out.dims[along].size = 0;
  for (const Instruction* operand : i.operands()) {
    const Shape& s = operand->shape();
    if (!s.is_array() || s.rank() != first.rank() || s.element_type != first.element_type) {
      return std::nullopt;
    }
    for (size_t d = 0; d < s.dims.size(); ++d) {
      if (d != along && s.dims[d].size != first.dims[d].size) return std::nullopt;
    }
    if (__builtin_add_overflow(out.dims[along].size, s.dims[along].size, &out.dims[along].size)) {
      return std::nullopt;
    }
    if (s.dims[along].kind != Dimension::Kind::kStatic) out.dims[along].kind = s.dims[along].kind;
  }
  return out;
}

// gather: batch dimensions of the indices, with the slice dimensions at offset_dims.
std::optional<Shape> gather(const Instruction& i) {
  const Shape& operand = i.operand(0)->shape();
  const Shape& indices = i.operand(1)->shape();
  GatherDimensionNumbers g = i.gather_dimensions();
  if (!operand.is_array() || !indices.is_array() ||
      static_cast<int64_t>(g.slice_sizes.size()) != operand.rank() || g.index_vector_dim < 0 ||
      g.index_vector_dim > indices.rank()) {
    return std::nullopt;
  }
  std::vector<int64_t> offsets;  // slice sizes of the dimensions kept in the result
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!contains(g.collapsed_slice_dims, d) && !contains(g.operand_batching_dims, d)) {
      offsets.push_back(g.slice_sizes[static_cast<size_t>(d)]);
    }
  }
  std::vector<int64_t> batch;  // index dimensions other than index_vector_dim
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != g.index_vector_dim) batch.push_back(indices.dims[static_cast<size_t>(d)].size);
  }
  if (offsets.size() != g.offset_dims.size()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(offsets.size() + batch.size());
  if (!is_dimension_set(g.offset_dims, rank)) return std::nullopt;
  Shape out = scalar(operand.element_type);
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = contains(g.offset_dims, d) ? offsets[next_offset++] : batch[next_batch++];
    out.dims.push_back(Dimension{Dimension::Kind::kStatic, size});
  }
  return out;
}

std::optional<Shape> fft(const Instruction& i) {
  const Shape& a = i.operand(0)->shape();
  IntList length = i.fft_length();
  std::string_view type = i.string_attribute(AttrId::kFftType);
  if (!a.is_array() || length.empty() || static_cast<int64_t>(length.size()) > a.rank()) {
    return std::nullopt;
  }
  Shape out = retyped(a, a.element_type);
  Dimension& last = out.dims.back();
  if (type == "FFT" || type == "IFFT") {
    if (!is_complex(a.element_type)) return std::nullopt;
  } else if (type == "RFFT") {
    // Real to complex: the last dimension keeps fft_length / 2 + 1 frequencies.
    if (a.element_type == PrimitiveType::kF32) {
      out.element_type = PrimitiveType::kC64;
    } else if (a.element_type == PrimitiveType::kF64) {
      out.element_type = PrimitiveType::kC128;
    } else {
      return std::nullopt;
    }
    last.size = length.back() / 2 + 1;
  } else if (type == "IRFFT") {
    if (!is_complex(a.element_type)) return std::nullopt;
    out.element_type = component_type(a.element_type);
    last.size = length.back();
  } else {
    return std::nullopt;
  }
  return out;
}

std::optional<Shape> batch_norm(const Instruction& i, bool with_statistics) {
  const Shape& a = i.operand(0)->shape();
  std::optional<int64_t> feature = i.int_attribute(AttrId::kFeatureIndex);
  if (!a.is_array() || !feature || *feature < 0 || *feature >= a.rank()) return std::nullopt;
  Shape operand = retyped(a, a.element_type);
  if (!with_statistics) return operand;
  Shape stat = scalar(a.element_type);
  stat.dims.push_back(a.dims[static_cast<size_t>(*feature)]);
  return Shape::Tuple({operand, stat, stat});
}

std::optional<Shape> topk(const Instruction& i) {
  const Shape& a = i.operand(0)->shape();
  std::optional<int64_t> k = i.int_attribute(AttrId::kK);
  if (!a.is_array() || a.rank() < 1 || !k || *k < 0 || *k > a.dims.back().size) {
    return std::nullopt;
  }
  Shape values = retyped(a, a.element_type);
  values.dims.back() = Dimension{Dimension::Kind::kStatic, *k};
  return Shape::Tuple({values, retyped(values, PrimitiveType::kS32)});
}

// ragged-dot(lhs, rhs, group_sizes): a dot whose rhs has group dimensions (rhs_group_dims) that
// do not reach the result. When the lhs ragged dimension is a contracting one, each group gives
// its own result: the number of groups (group_sizes' last dimension) leads the result.
std::optional<Shape> ragged_dot(const Instruction& i) {
  const Shape& lhs = i.operand(0)->shape();
  const Shape& rhs = i.operand(1)->shape();
  const Shape& groups = i.operand(2)->shape();
  DotDimensionNumbers d = i.dot_dimensions();
  IntList ragged = i.int_list(AttrId::kLhsRaggedDims);
  IntList group_dims = i.int_list(AttrId::kRhsGroupDims);
  auto in_range = [](IntList dims, int64_t rank) {
    return std::all_of(dims.begin(), dims.end(), [&](int64_t k) { return k >= 0 && k < rank; });
  };
  if (!lhs.is_array() || !rhs.is_array() || !groups.is_array() || ragged.size() != 1 ||
      !in_range(d.lhs_batch, lhs.rank()) || !in_range(d.lhs_contracting, lhs.rank()) ||
      !in_range(d.rhs_batch, rhs.rank()) || !in_range(d.rhs_contracting, rhs.rank()) ||
      !in_range(ragged, lhs.rank()) || !in_range(group_dims, rhs.rank())) {
    return std::nullopt;
  }
  Shape out = scalar(lhs.element_type);
  if (contains(d.lhs_contracting, ragged[0])) {
    if (groups.rank() < 1) return std::nullopt;
    out.dims.push_back(groups.dims.back());
  }
  for (int64_t b : d.lhs_batch) out.dims.push_back(lhs.dims[static_cast<size_t>(b)]);
  for (int64_t k = 0; k < lhs.rank(); ++k) {
    if (!contains(d.lhs_batch, k) && !contains(d.lhs_contracting, k)) {
      out.dims.push_back(lhs.dims[static_cast<size_t>(k)]);
    }
  }
  for (int64_t k = 0; k < rhs.rank(); ++k) {
    if (!contains(d.rhs_batch, k) && !contains(d.rhs_contracting, k) && !contains(group_dims, k)) {
      out.dims.push_back(rhs.dims[static_cast<size_t>(k)]);
    }
  }
  return out;
}

std::optional<Shape> unary(Opcode op, const Shape& a) {
  if (!a.is_array()) return std::nullopt;
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kReal:
    case Opcode::kImag:
      return retyped(a, component_type(a.element_type));
    case Opcode::kIsFinite:
      if (!is_floating_point(a.element_type)) return std::nullopt;
      return retyped(a, PrimitiveType::kPred);
    default:
      return retyped(a, a.element_type);
  }
}

std::optional<Shape> complex(const Shape& re, const Shape& im) {
  if (!re.is_array() || !im.is_array() || re.element_type != im.element_type) return std::nullopt;
  const Shape& larger = re.rank() >= im.rank() ? re : im;
  if (re.element_type == PrimitiveType::kF32) return retyped(larger, PrimitiveType::kC64);
  if (re.element_type == PrimitiveType::kF64) return retyped(larger, PrimitiveType::kC128);
  return std::nullopt;
}

}  // namespace

std::optional<bool> infer_shape_from_operands(const Instruction& i, Shape* out) {
  const Opcode op = i.opcode();
  auto done = [&](std::optional<Shape> s) {
    if (!s) return false;
    *out = *std::move(s);
    return true;
  };
  // Opcodes without operands.
  switch (op) {
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      return done(scalar(PrimitiveType::kU32));
    default:
      break;
  }
  if (i.operand_count() == 0) return std::nullopt;
  const Shape& first = i.operand(0)->shape();
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kReal:
    case Opcode::kImag:
    case Opcode::kIsFinite:
      return done(unary(op, first));
    case Opcode::kComplex:
      if (i.operand_count() != 2) return false;
      return done(complex(first, i.operand(1)->shape()));
    case Opcode::kTranspose:
      return done(transpose(first, i.dimensions()));
    case Opcode::kReduce:
      return done(reduce(i));
    case Opcode::kReduceWindow:
      return done(reduce_window(i));
    case Opcode::kConcatenate:
      return done(concatenate(i));
    case Opcode::kBroadcast: {
      // XLA's parser, given no shape, prepends the `dimensions` values as new sizes.
      if (!first.is_array()) return false;
      Shape s = scalar(first.element_type);
      for (int64_t size : i.dimensions()) {
        if (size < 0) return false;
        s.dims.push_back(Dimension{Dimension::Kind::kStatic, size});
      }
      s.dims.insert(s.dims.end(), first.dims.begin(), first.dims.end());
      return done(s);
    }
    case Opcode::kReverse:
    case Opcode::kSelectAndScatter:
    case Opcode::kCholesky:
    case Opcode::kDomain:
      if (!first.is_array() && op != Opcode::kDomain) return false;
      return done(op == Opcode::kDomain ? first : retyped(first, first.element_type));
    case Opcode::kTriangularSolve:
      if (i.operand_count() != 2) return false;
      return done(i.operand(1)->shape());
    case Opcode::kAddDependency:
      return done(first);
    case Opcode::kMap: {
      const Computation* f = i.to_apply();
      if (f == nullptr || f->root() == nullptr || !f->root()->shape().is_array() ||
          !first.is_array()) {
        return false;
      }
      return done(retyped(first, f->root()->shape().element_type));
    }
    case Opcode::kScatter: {
      // scatter(inputs..., indices, updates...): the inputs' shapes.
      const size_t n = i.operand_count() / 2;
      if (i.operand_count() != 2 * n + 1) return false;
      std::vector<Shape> inputs;
      for (size_t k = 0; k < n; ++k) inputs.push_back(i.operand(k)->shape());
      return done(one_or_tuple(std::move(inputs)));
    }
    case Opcode::kGather:
      if (i.operand_count() != 2) return false;
      return done(gather(i));
    case Opcode::kFft:
      return done(fft(i));
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormGrad:
      return done(batch_norm(i, /*with_statistics=*/true));
    case Opcode::kBatchNormInference:
      return done(batch_norm(i, /*with_statistics=*/false));
    case Opcode::kTopK:
      return done(topk(i));
    case Opcode::kRaggedDot:
      if (i.operand_count() != 3) return false;
      return done(ragged_dot(i));
    case Opcode::kGetDimensionSize:
      return done(scalar(PrimitiveType::kS32));
    case Opcode::kSetDimensionSize: {
      IntList dims = i.dimensions();
      if (!first.is_array() || dims.size() != 1 || dims[0] < 0 || dims[0] >= first.rank()) {
        return false;
      }
      Shape s = retyped(first, first.element_type);
      Dimension& d = s.dims[static_cast<size_t>(dims[0])];
      if (d.kind == Dimension::Kind::kStatic) d.kind = Dimension::Kind::kBounded;
      return done(s);
    }
    case Opcode::kSend:
      // (data, u32[] context, token[]).
      return done(Shape::Tuple({first, scalar(PrimitiveType::kU32), Shape::Token()}));
    case Opcode::kSendDone:
    case Opcode::kOutfeed:
      return done(Shape::Token());
    case Opcode::kRecvDone:
      // From recv's (data, u32[] context, token[]): (data, token[]).
      if (!first.is_tuple() || first.elements.empty()) return false;
      return done(Shape::Tuple({first.elements[0], Shape::Token()}));
    default:
      return std::nullopt;
  }
}

namespace {

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

// pad: the operand's shape with each dimension padded; false where a size does not fit.
bool padded_shape(const Instruction& i, const Shape& first, Shape* out) {
  const Padding* padding = i.padding();
  if (padding == nullptr || !first.is_array() || padding->dims.size() != first.dims.size()) {
    return false;
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
      return false;
    }
    out->dims[d].size = size;
  }
  return true;
}

// dot: dot_shape, once every dimension number names a dimension.
bool dot_result_shape(const Instruction& i, const Shape& first, Shape* out) {
  if (i.operand_count() != 2) return false;
  DotDimensionNumbers d = i.dot_dimensions();
  const Shape& rhs = i.operand(1)->shape();
  if (!dims_in_range(d.lhs_batch, first.rank()) ||
      !dims_in_range(d.lhs_contracting, first.rank()) ||
      !dims_in_range(d.rhs_batch, rhs.rank()) ||
      !dims_in_range(d.rhs_contracting, rhs.rank())) {
    return false;
  }
  *out = dot_shape(first, rhs, d);
  return true;
}

// convolution: batch and feature dimensions from the labels, each spatial one the number of
// places the dilated window takes in the padded, dilated input.
bool convolution_shape(const Instruction& i, const Shape& first, Shape* out) {
  const ConvDimLabels* labels = i.conv_dim_labels();
  if (labels == nullptr || i.operand_count() != 2 || i.batch_group_count() < 1) return false;
  const Shape& kernel = i.operand(1)->shape();
  const Window* window = i.window();
  const size_t spatial = labels->input_spatial.size();
  const auto rank = static_cast<int64_t>(spatial + 2);
  if (first.rank() != rank || kernel.rank() != rank ||
      (window != nullptr && window->dims.size() != spatial)) {
    return false;
  }
  // Labels may carry '?' positions; every index used must be a dimension.
  auto in_range = [&](int64_t k) { return k >= 0 && k < rank; };
  for (int64_t k : {labels->input_batch, labels->input_feature, labels->kernel_output_feature,
                    labels->output_batch, labels->output_feature}) {
    if (!in_range(k)) return false;
  }
  for (size_t s = 0; s < spatial; ++s) {
    if (!in_range(labels->input_spatial[s]) || !in_range(labels->kernel_spatial[s]) ||
        !in_range(labels->output_spatial[s])) {
      return false;
    }
  }
  out->element_type = first.element_type;
  out->dims.resize(spatial + 2);
  auto dim = [](const Shape& s, int64_t k) { return s.dims[static_cast<size_t>(k)].size; };
  out->dims[static_cast<size_t>(labels->output_batch)].size =
      dim(first, labels->input_batch) / i.batch_group_count();
  out->dims[static_cast<size_t>(labels->output_feature)].size =
      dim(kernel, labels->kernel_output_feature);
  for (size_t s = 0; s < spatial; ++s) {
    WindowDim w = window ? window->dims[s] : WindowDim{dim(kernel, labels->kernel_spatial[s])};
    int64_t in = dim(first, labels->input_spatial[s]);
    if (w.size < 1) return false;
    // padded = (in - 1) * lhs_dilation + 1 + pads; window = (size - 1) * rhs_dilation + 1.
    int64_t padded = 0, window_size = 0;
    if ((in > 0 && (__builtin_mul_overflow(in - 1, w.lhs_dilation, &padded) ||
                    __builtin_add_overflow(padded, 1, &padded))) ||
        __builtin_add_overflow(padded, w.pad_low, &padded) ||
        __builtin_add_overflow(padded, w.pad_high, &padded) ||
        __builtin_mul_overflow(w.size - 1, w.rhs_dilation, &window_size) ||
        __builtin_add_overflow(window_size, 1, &window_size)) {
      return false;
    }
    int64_t size =
        padded >= window_size && w.stride > 0 ? (padded - window_size) / w.stride + 1 : 0;
    out->dims[static_cast<size_t>(labels->output_spatial[s])].size = size;
  }
  return true;
}

}  // namespace

bool infer_omitted_shape(const Instruction& instruction, Shape* out) {
  const Instruction* i = &instruction;
  const Opcode op = i->opcode();
  auto operand_shape = [&](size_t k) -> const Shape& { return i->operand(k)->shape(); };
  auto fail = [] { return false; };
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
    if (i->called_computations().empty() || i->called_computations()[0]->root() == nullptr) {
      return fail();
    }
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
    case Opcode::kPad:
      return padded_shape(*i, first, out);
    case Opcode::kDot:
      return dot_result_shape(*i, first, out);
    case Opcode::kConvolution:
      return convolution_shape(*i, first, out);
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

}  // namespace hloroof::detail
