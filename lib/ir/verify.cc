// verify(): the parser's checks on a module as it stands, and the agreements edits can break
// that text cannot (users and operands in step, callees before callers, the module header).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hloroof/edit.h"
#include "ir/instruction_rules.h"
#include "ir/module_state.h"
#include "ir/shape_inference.h"
#include "ir/shape_util.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

// Dot and convolution results may take another element type than their operands
// (preferred_element_type), and TPU dumps hold copies that convert: their dimensions are
// checked, not their type.
bool result_type_is_free(Opcode op) {
  return op == Opcode::kDot || op == Opcode::kConvolution || op == Opcode::kRaggedDot ||
         op == Opcode::kCopy;
}

// Opcodes whose shape the parser infers when the text omits it, but which modules write in
// older forms XLA still reads (outfeed as `()`, send's context as s32[], ...): not checked
// against inference.
bool shape_has_older_forms(Opcode op) {
  return op == Opcode::kOutfeed || op == Opcode::kSend || op == Opcode::kSendDone ||
         op == Opcode::kRecvDone;
}

bool agrees(const Instruction& i, const Shape& inferred) {
  if (!result_type_is_free(i.opcode()) || !inferred.is_array() || !i.shape().is_array()) {
    return detail::compatible(inferred, i.shape());
  }
  Shape same_type = inferred;
  same_type.element_type = i.shape().element_type;
  return detail::compatible(same_type, i.shape());
}

}  // namespace

// The checks every reader runs too (instruction_rules.h): dimension lists, dot and broadcast.
namespace detail {

// The broadcast rule: `dimensions` maps operand dimension k to result dimension
// dimensions[k], whose size it keeps.
bool check_broadcast(const Instruction& i, std::string* message) {
  const Shape& from = i.operand(0)->shape();
  const Shape& to = i.shape();
  if (!from.is_array() || !to.is_array()) {
    *message = "broadcast takes and gives arrays";
    return false;
  }
  IntList dims = i.dimensions();
  if (static_cast<int64_t>(dims.size()) != from.rank()) {
    *message = str_cat("broadcast of ", to_string(from), " needs ", from.rank(),
                       " dimensions in dimensions={...}, got ", dims.size());
    return false;
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] < 0 || dims[k] >= to.rank() ||
        to.dims[static_cast<size_t>(dims[k])].size != from.dims[k].size) {
      *message = str_cat("broadcast of ", to_string(from), " to ", to_string(to),
                         ": operand dimension ", k, " does not map to result dimension ", dims[k],
                         " of the same size");
      return false;
    }
  }
  return true;
}

// Dot: contracting and batch dimensions pair up with the same sizes.
bool check_dot(const Instruction& i, std::string* message) {
  const Shape& lhs = i.operand(0)->shape();
  const Shape& rhs = i.operand(1)->shape();
  const DotDimensionNumbers d = i.dot_dimensions();
  auto pairs = [&](IntList l, IntList r, std::string_view what) {
    if (l.size() != r.size()) {
      *message = str_cat("it has ", l.size(), " lhs and ", r.size(), " rhs ", what,
                         " dimensions");
      return false;
    }
    for (size_t k = 0; k < l.size(); ++k) {
      if (l[k] < 0 || l[k] >= lhs.rank() || r[k] < 0 || r[k] >= rhs.rank()) {
        *message = str_cat("a ", what, " dimension is out of range");
        return false;
      }
      const int64_t a = lhs.dims[static_cast<size_t>(l[k])].size;
      const int64_t b = rhs.dims[static_cast<size_t>(r[k])].size;
      if (a != b) {
        *message = str_cat(what, " dimension ", l[k], " of ", i.operand(0)->name(), " (",
                           to_string(lhs), ") has size ", a, " but ", what, " dimension ", r[k],
                           " of ", i.operand(1)->name(), " (", to_string(rhs), ") has size ", b);
        return false;
      }
    }
    return true;
  };
  if (!lhs.is_array() || !rhs.is_array()) {
    *message = "dot takes arrays";
    return false;
  }
  return pairs(d.lhs_contracting, d.rhs_contracting, "contracting") &&
         pairs(d.lhs_batch, d.rhs_batch, "batch");
}

// Dimension lists: each dimension within the rank of the shape it indexes, none twice. A
// shape that is no array is left to the shape checks.
namespace {

// Who a dimension list indexes ("operand p", "the result"), written out for a message only: the
// parser checks every instruction, and builds no string for one that passes.
class Whose {
 public:
  Whose(const Instruction* operand) : operand_(operand) {}  // NOLINT(google-explicit-constructor)
  Whose(const char* text) : text_(text) {}                   // NOLINT(google-explicit-constructor)
  std::string text() const {
    return operand_ != nullptr ? str_cat("operand ", operand_->name()) : std::string(text_);
  }

 private:
  const Instruction* operand_ = nullptr;
  std::string_view text_;
};

class DimensionCheck {
 public:
  explicit DimensionCheck(std::string* message) : message_(message) {}

  // `dims`, the value of attribute `name`, index `shape`, of `whose` ("operand p", "the
  // result").
  bool in_range(IntList dims, std::string_view name, const Shape& shape,
                const Whose& whose) {
    if (!shape.is_array()) return true;
    // Each dimension marked as it is met: a list of a million entries costs a million steps.
    std::vector<bool> seen(dims.size() > 8 ? static_cast<size_t>(shape.rank()) : 0);
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] < 0 || dims[k] >= shape.rank()) {
        *message_ = str_cat(list_text(name, dims), " names dimension ", dims[k], ", but ",
                            whose.text(), " (", to_string(shape), ") has ",
                            rank_text(shape.rank()));
        return false;
      }
      bool twice = false;
      if (seen.empty()) {
        for (size_t j = 0; j < k && !twice; ++j) twice = dims[j] == dims[k];
      } else {
        twice = seen[static_cast<size_t>(dims[k])];
        seen[static_cast<size_t>(dims[k])] = true;
      }
      if (twice) {
        *message_ = str_cat(list_text(name, dims), " names dimension ", dims[k], " twice");
        return false;
      }
    }
    return true;
  }
  // As many dimensions in `dims` as `shape` has.
  bool count(IntList dims, std::string_view name, const Shape& shape, const Whose& whose) {
    if (!shape.is_array() || static_cast<int64_t>(dims.size()) == shape.rank()) return true;
    *message_ = str_cat(list_text(name, dims), " names ", rank_text(dims.size()), ", but ",
                        whose.text(), " (", to_string(shape), ") has ", rank_text(shape.rank()));
    return false;
  }
  // index_vector_dim: a dimension of `shape`, or its rank (the index vector then stands past
  // the last dimension, of size 1).
  bool index_vector(int64_t d, const Shape& shape, const Whose& whose) {
    if (!shape.is_array() || (d >= 0 && d <= shape.rank())) return true;
    *message_ = str_cat("index_vector_dim=", d, " is not a dimension of ", whose.text(), " (",
                        to_string(shape), ") nor its rank, ", shape.rank());
    return false;
  }
  // Two lists of one operand's dimensions that share none (dot's contracting and batch).
  bool disjoint(IntList a, std::string_view a_name, IntList b, std::string_view b_name) {
    for (int64_t x : a) {
      if (std::find(b.begin(), b.end(), x) != b.end()) {
        *message_ = str_cat("dimension ", x, " is in both ", list_text(a_name, a), " and ",
                            list_text(b_name, b));
        return false;
      }
    }
    return true;
  }

 private:
  static std::string rank_text(int64_t rank) {
    return rank == 1 ? std::string("1 dimension") : str_cat(rank, " dimensions");
  }
  // `name={d,...}`, the first 16 dimensions of a longer list written (an edit may set any).
  static std::string list_text(std::string_view name, IntList dims) {
    constexpr size_t kShown = 16;
    std::string text = str_cat(name, "={");
    for (size_t k = 0; k < dims.size() && k < kShown; ++k) {
      str_append(&text, k > 0 ? "," : "", dims[k]);
    }
    if (dims.size() > kShown) str_append(&text, ",... (", dims.size(), " in all)");
    return text + "}";
  }
  std::string* message_;
};

Whose operand_text(const Instruction& i, size_t k) { return Whose(i.operand(k)); }

// The opcodes check_dimension_lists checks (most instructions are none of them).
bool has_dimension_checks(Opcode op) {
  switch (op) {
    case Opcode::kReduce:
    case Opcode::kReverse:
    case Opcode::kTranspose:
    case Opcode::kBroadcast:
    case Opcode::kConcatenate:
    case Opcode::kSort:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kDot:
    case Opcode::kConvolution:
    case Opcode::kGather:
    case Opcode::kScatter:
    case Opcode::kPad:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kFft:
    case Opcode::kTopK:
      return true;
    default:
      return false;
  }
}

// XLA's shape inference: a window's sizes, strides and dilations at least 1 (each field over
// every dimension, then the next field).
bool check_window(const Window* w, std::string* message) {
  if (w == nullptr) return true;
  using Field = int64_t WindowDim::*;
  constexpr std::pair<std::string_view, Field> kFields[] = {
      {"size", &WindowDim::size},
      {"stride", &WindowDim::stride},
      {"lhs_dilate", &WindowDim::lhs_dilation},
      {"rhs_dilate", &WindowDim::rhs_dilation}};
  for (const auto& [name, field] : kFields) {
    for (const WindowDim& d : w->dims) {
      if (d.*field < 1) {
        *message = str_cat("window ", name, " must be at least 1, got ", d.*field);
        return false;
      }
    }
  }
  return true;
}

// iota_dimension: a dimension of the result.
bool check_iota(const Instruction& i, std::string* message) {
  const std::optional<int64_t> d = i.int_attribute(AttrId::kIotaDimension);
  const Shape& shape = i.shape();
  if (!d || !shape.is_array() || (*d >= 0 && *d < shape.rank())) return true;
  *message = str_cat("iota_dimension=", *d, " is not a dimension of the result (",
                     to_string(shape), "), which has ", shape.rank(),
                     shape.rank() == 1 ? " dimension" : " dimensions");
  return false;
}

// A slice's `[start:limit:stride]` per dimension of the operand, within it.
bool check_slice(const Instruction& i, const Shape& in, const Whose& first,
                 std::string* message) {
  const Slice* slice = i.slice();
  if (slice == nullptr || !in.is_array()) return true;
  if (static_cast<int64_t>(slice->dims.size()) != in.rank()) {
    *message = str_cat("slice={...} has ", slice->dims.size(), " dimensions, but ",
                       first.text(), " (", to_string(in), ") has ", in.rank());
    return false;
  }
  for (size_t k = 0; k < slice->dims.size(); ++k) {
    const SliceDim& d = slice->dims[k];
    const int64_t size = in.dims[k].size;
    if (in.dims[k].kind == Dimension::Kind::kUnbounded) continue;  // any size
    if (d.start < 0 || d.start > d.limit || d.limit > size || d.stride < 1) {
      *message = str_cat("slice dimension ", k, " [", d.start, ":", d.limit, ":", d.stride,
                         "] is not within dimension ", k, " of ", first.text(), " (", to_string(in),
                         "): 0 <= start <= limit <= ", size, ", stride >= 1");
      return false;
    }
  }
  return true;
}

// dynamic_slice_sizes: one size per dimension of the operand, each within it.
bool check_dynamic_slice(const Instruction& i, const Shape& in, const Whose& first,
                         std::string* message) {
  IntList sizes = i.int_list(AttrId::kDynamicSliceSizes);
  if (!in.is_array() || !i.has_attribute(AttrId::kDynamicSliceSizes)) return true;
  if (static_cast<int64_t>(sizes.size()) != in.rank()) {
    *message = str_cat("dynamic_slice_sizes has ", sizes.size(), " sizes, but ", first.text(), " (",
                       to_string(in), ") has ", in.rank(), " dimensions");
    return false;
  }
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0 ||
        (in.dims[k].kind != Dimension::Kind::kUnbounded && sizes[k] > in.dims[k].size)) {
      *message = str_cat("dynamic_slice_sizes names size ", sizes[k], " for dimension ", k,
                         " of ", first.text(), " (", to_string(in), "), which has ",
                         in.dims[k].size);
      return false;
    }
  }
  return true;
}

// fft_length: 1 to 3 lengths of the operand's last dimensions (XLA's shape inference): RFFT's
// are those dimensions' sizes, and IRFFT's too but the last, which holds length / 2 + 1
// frequencies (FFT and IFFT check the count only, as XLA does).
bool check_fft(const Instruction& i, const Shape& in, const Whose& first,
               std::string* message) {
  IntList length = i.fft_length();
  if (!in.is_array() || !i.has_attribute(AttrId::kFftLength)) return true;
  const auto n = static_cast<int64_t>(length.size());
  if (n < 1 || n > 3 || n > in.rank()) {
    *message = str_cat("fft_length names ", n, " lengths, but an fft transforms 1 to 3 of the "
                       "last dimensions of ", first.text(), " (", to_string(in), ")");
    return false;
  }
  const std::string_view type = i.string_attribute(AttrId::kFftType);
  if (type != "RFFT" && type != "IRFFT") return true;
  const bool inverse_real = type == "IRFFT";
  for (int64_t k = 0; k < n; ++k) {
    const Dimension& dim = in.dims[static_cast<size_t>(in.rank() - n + k)];
    if (dim.kind == Dimension::Kind::kUnbounded) continue;
    const int64_t have = dim.size;
    int64_t want = length[static_cast<size_t>(k)];
    if (inverse_real && k == n - 1) want = want / 2 + 1;
    if (want < 0 || have != want) {
      *message = str_cat("fft_length={...} entry ", k, " (", length[static_cast<size_t>(k)],
                         ") wants dimension ", in.rank() - n + k, " of ", first.text(), " (",
                         to_string(in), ") of size ", want, ", not ", have);
      return false;
    }
  }
  return true;
}

// topk's k: at most the size of the operand's last dimension.
bool check_topk(const Instruction& i, const Shape& in, const Whose& first,
                std::string* message) {
  const std::optional<int64_t> k = i.int_attribute(AttrId::kK);
  if (!k || !in.is_array()) return true;
  if (in.rank() > 0 && in.dims.back().kind == Dimension::Kind::kUnbounded) return true;
  const int64_t last = in.rank() == 0 ? -1 : in.dims.back().size;
  if (*k < 0 || *k > last) {
    *message = str_cat("k=", *k, " is not within the last dimension of ", first.text(), " (",
                       to_string(in), "): topk takes 0 <= k <= its size");
    return false;
  }
  return true;
}

}  // namespace

bool check_dimension_lists(const Instruction& i, std::string* message) {
  if (i.opcode() == Opcode::kIota) return check_iota(i, message);
  if (!has_dimension_checks(i.opcode())) return true;
  DimensionCheck check(message);
  const size_t n = i.operand_count();
  if (n == 0) return true;
  const Shape& in = i.operand(0)->shape();
  const Whose first = operand_text(i, 0);
  switch (i.opcode()) {
    case Opcode::kPad: {
      const Padding* padding = i.padding();
      if (padding == nullptr || !in.is_array()) return true;
      if (static_cast<int64_t>(padding->dims.size()) != in.rank()) {
        *message = str_cat("padding={...} has ", padding->dims.size(), " dimensions, but ",
                           first.text(), " (", to_string(in), ") has ", in.rank());
        return false;
      }
      return true;
    }
    case Opcode::kSlice:
      return check_slice(i, in, first, message);
    case Opcode::kDynamicSlice:
      return check_dynamic_slice(i, in, first, message);
    case Opcode::kFft:
      return check_fft(i, in, first, message);
    case Opcode::kTopK:
      return check_topk(i, in, first, message);
    case Opcode::kReduce:
    case Opcode::kReverse:
      return check.in_range(i.dimensions(), "dimensions", in, first);
    case Opcode::kTranspose:
      return check.count(i.dimensions(), "dimensions", in, first) &&
             check.in_range(i.dimensions(), "dimensions", in, first);
    case Opcode::kBroadcast:
      return check.in_range(i.dimensions(), "dimensions", i.shape(), "the result");
    case Opcode::kConcatenate:
    case Opcode::kSort:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
      return check.in_range(i.dimensions(), "dimensions", in, first);
    case Opcode::kSelectAndScatter:
      return check_window(i.window(), message);
    case Opcode::kReduceWindow: {
      const Window* w = i.window();
      if (!check_window(w, message)) return false;
      if (w == nullptr || !in.is_array()) return true;
      if (static_cast<int64_t>(w->dims.size()) != in.rank()) {
        *message = str_cat("window={...} has ", w->dims.size(), " dimensions, but ", first.text(),
                           " (", to_string(in), ") has ", in.rank());
        return false;
      }
      return true;
    }
    case Opcode::kConvolution: {
      // XLA's shape inference: a positive window, both group counts positive, the feature
      // groups dividing the input's features.
      if (!check_window(i.window(), message)) return false;
      for (AttrId id : {AttrId::kFeatureGroupCount, AttrId::kBatchGroupCount}) {
        const std::optional<int64_t> groups = i.int_attribute(id);
        if (groups && *groups < 1) {
          *message = str_cat(attribute_name(id), " must be at least 1, got ", *groups);
          return false;
        }
      }
      const ConvDimLabels* labels = i.conv_dim_labels();
      const int64_t groups = i.feature_group_count();
      if (labels == nullptr || !in.is_array() || labels->input_feature < 0 ||
          labels->input_feature >= in.rank()) {
        return true;
      }
      const int64_t features = in.dims[static_cast<size_t>(labels->input_feature)].size;
      if (features % groups != 0) {
        *message = str_cat("feature_group_count=", groups, " does not divide the ", features,
                           " input features of ", first.text(), " (", to_string(in), ")");
        return false;
      }
      return true;
    }
    case Opcode::kDot: {
      if (n != 2) return true;
      const DotDimensionNumbers d = i.dot_dimensions();
      const Shape& rhs = i.operand(1)->shape();
      const Whose second = operand_text(i, 1);
      return check.in_range(d.lhs_contracting, "lhs_contracting_dims", in, first) &&
             check.in_range(d.lhs_batch, "lhs_batch_dims", in, first) &&
             check.in_range(d.rhs_contracting, "rhs_contracting_dims", rhs, second) &&
             check.in_range(d.rhs_batch, "rhs_batch_dims", rhs, second) &&
             check.disjoint(d.lhs_contracting, "lhs_contracting_dims", d.lhs_batch,
                            "lhs_batch_dims") &&
             check.disjoint(d.rhs_contracting, "rhs_contracting_dims", d.rhs_batch,
                            "rhs_batch_dims");
    }
    case Opcode::kGather: {
      if (n != 2) return true;
      const GatherDimensionNumbers d = i.gather_dimensions();
      const Shape& indices = i.operand(1)->shape();
      const Whose second = operand_text(i, 1);
      return check.in_range(d.offset_dims, "offset_dims", i.shape(), "the result") &&
             check.in_range(d.collapsed_slice_dims, "collapsed_slice_dims", in, first) &&
             check.in_range(d.start_index_map, "start_index_map", in, first) &&
             check.in_range(d.operand_batching_dims, "operand_batching_dims", in, first) &&
             check.in_range(d.start_indices_batching_dims, "start_indices_batching_dims",
                            indices, second) &&
             check.index_vector(d.index_vector_dim, indices, second) &&
             check.count(d.slice_sizes, "slice_sizes", in, first);
    }
    case Opcode::kScatter: {
      // scatter(inputs..., indices, updates...): as many updates as inputs.
      if (n < 3 || n % 2 == 0) return true;
      const size_t inputs = (n - 1) / 2;
      const ScatterDimensionNumbers d = i.scatter_dimensions();
      const Shape& indices = i.operand(inputs)->shape();
      const Shape& updates = i.operand(inputs + 1)->shape();
      const Whose index_text = operand_text(i, inputs);
      const Whose update_text = operand_text(i, inputs + 1);
      return check.in_range(d.update_window_dims, "update_window_dims", updates,
                            update_text) &&
             check.in_range(d.inserted_window_dims, "inserted_window_dims", in, first) &&
             check.in_range(d.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims", in,
                            first) &&
             check.in_range(d.input_batching_dims, "input_batching_dims", in, first) &&
             check.in_range(d.scatter_indices_batching_dims, "scatter_indices_batching_dims",
                            indices, index_text) &&
             check.index_vector(d.index_vector_dim, indices, index_text);
    }
    default:
      return true;
  }
}

}  // namespace detail

namespace {

using detail::check_broadcast;
using detail::check_dimension_lists;
using detail::check_dot;

// Elementwise ops: every operand that is not a scalar has the result's dimensions.
bool check_elementwise(const Instruction& i, std::string* message) {
  const Shape& shape = i.shape();
  if (!shape.is_array()) return true;
  for (const Instruction* operand : i.operands()) {
    const Shape& s = operand->shape();
    if (!s.is_array() || s.rank() == 0) continue;
    bool same = s.rank() == shape.rank();
    for (size_t d = 0; same && d < s.dims.size(); ++d) {
      same = s.dims[d].size == shape.dims[d].size;
    }
    if (!same) {
      *message = str_cat("operand ", operand->name(), " has shape ", to_string(s),
                         ", whose dimensions are not those of the result ", to_string(shape));
      return false;
    }
  }
  return true;
}

class Verifier {
 public:
  explicit Verifier(const Module& module) : module_(module) {}

  absl::Status run() {
    if (module_.computations().empty() || module_.entry() == nullptr) {
      return absl::FailedPreconditionError("the module has no computations");
    }
    for (const Computation* c : module_.computations()) {
      if (absl::Status s = check_computation(*c); !s.ok()) return s;
      verified_.insert(c);
    }
    return check_header();
  }

 private:
  absl::Status fail(const Computation& c, const Instruction* i, std::string_view rule,
                    std::string_view message) {
    std::string where = str_cat("computation ", c.name());
    if (i != nullptr) {
      where = str_cat(where, ", instruction ", i->name(), " (", spelled_opcode(*i), ")");
    }
    return absl::FailedPreconditionError(str_cat(where, ": ", rule, ": ", message));
  }

  absl::Status check_computation(const Computation& c) {
    if (module_.find_computation(c.name()) != &c) {
      return fail(c, nullptr, "references", "another computation of the module has its name");
    }
    if (c.instruction_count() == 0 || c.root() == nullptr) {
      return fail(c, nullptr, "root", "the computation has no instructions");
    }
    if (c.root()->parent() != &c) {
      return fail(c, nullptr, "root", str_cat("its root ", c.root()->name(), " is not its own"));
    }
    for (size_t n = 0; n < c.parameters().size(); ++n) {
      if (c.parameters()[n]->parameter_number() != static_cast<int64_t>(n)) {
        return fail(c, nullptr, "parameters",
                    str_cat("has ", c.parameters().size(), " parameters but no parameter(", n,
                            ")"));
      }
    }
    defined_.clear();
    for (const Instruction* i : c.instructions()) {
      if (absl::Status s = check_references(c, *i); !s.ok()) return s;
      if (absl::Status s = check_rules(c, *i); !s.ok()) return s;
      defined_.insert(i);
    }
    return absl::OkStatus();
  }

  // Edges in step in both directions, operands defined before their users (the printed order
  // is the schedule), called computations of this module printed before their callers.
  absl::Status check_references(const Computation& c, const Instruction& i) {
    if (i.parent() != &c || c.find_instruction(i.name()) != &i) {
      return fail(c, &i, "references", "the computation does not hold it under its name");
    }
    for (const Instruction* operand : i.operands()) {
      if (operand == nullptr || operand->parent() != &c) {
        return fail(c, &i, "references", "an operand is not in the same computation");
      }
      if (!defined_.contains(operand)) {
        return fail(c, &i, "references",
                    str_cat("operand ", operand->name(), " is defined after its user"));
      }
      absl::Span<Instruction* const> users = operand->users();
      if (std::find(users.begin(), users.end(), &i) == users.end()) {
        return fail(c, &i, "references",
                    str_cat("operand ", operand->name(), " does not list it as a user"));
      }
    }
    for (const Instruction* user : i.users()) {
      absl::Span<Instruction* const> operands = user->operands();
      if (std::find(operands.begin(), operands.end(), &i) == operands.end()) {
        return fail(c, &i, "references",
                    str_cat("user ", user->name(), " does not take it as an operand"));
      }
    }
    for (const Instruction* predecessor : i.control_predecessors()) {
      if (predecessor->parent() != &c) {
        return fail(c, &i, "references",
                    str_cat("control predecessor ", predecessor->name(),
                            " is not in the same computation"));
      }
    }
    for (const Computation* callee : i.called_computations()) {
      if (module_.find_computation(callee->name()) != callee) {
        return fail(c, &i, "references",
                    str_cat("it calls ", callee->name(), ", which is not in the module"));
      }
      if (!verified_.contains(callee)) {
        return fail(c, &i, "references",
                    str_cat("it calls ", callee->name(),
                            ", which is not printed before its caller (computations are "
                            "ordered callees first)"));
      }
      if (callee->root() == nullptr) {
        return fail(c, &i, "references", str_cat("it calls the empty ", callee->name()));
      }
    }
    return absl::OkStatus();
  }

  // The parser's per-opcode rules, then the shape against the one inference gives.
  absl::Status check_rules(const Computation& c, const Instruction& i) {
    std::string message;
    if (!detail::passes_rules_quickly(i)) {
      if (!detail::check_operand_and_attribute_rules(i, &message)) {
        return fail(c, &i, "operands and attributes", message);
      }
      if (!detail::check_shape_rules(i, &message)) return fail(c, &i, "shape", message);
    }
    if (detail::takes_replica_groups(detail::collective_opcode(i)) &&
        !detail::check_collective_groups(i, module_.attributes().replica_count,
                                         module_.attributes().num_partitions, &message)) {
      return fail(c, &i, "replica groups", message);
    }
    if (!check_dimension_lists(i, &message)) return fail(c, &i, "dimensions", message);
    if (i.opcode() == Opcode::kBroadcast) {
      if (!check_broadcast(i, &message)) return fail(c, &i, "shape", message);
      return absl::OkStatus();
    }
    if (i.opcode() == Opcode::kDot && i.operand_count() == 2 && !check_dot(i, &message)) {
      return fail(c, &i, "shape", message);
    }
    if (is_elementwise(i.opcode()) && i.opcode() != Opcode::kBitcastConvert &&
        !check_elementwise(i, &message)) {
      return fail(c, &i, "shape", message);
    }
    if (shape_has_older_forms(i.opcode())) return absl::OkStatus();
    absl::StatusOr<Shape> inferred = infer_shape(i);
    if (inferred.ok() && !agrees(i, *inferred)) {
      std::string operands;
      for (const Instruction* operand : i.operands()) {
        str_append(&operands, operands.empty() ? "" : ", ", operand->name(), ": ",
                   to_string(operand->shape()));
      }
      return fail(c, &i, "shape",
                  str_cat("it has shape ", to_string(i.shape()), " but its operands (", operands,
                          ") and attributes give ", to_string(*inferred)));
    }
    return absl::OkStatus();
  }

  // entry_computation_layout names the entry's parameter and result shapes.
  absl::Status check_header() {
    const ModuleAttributes& a = module_.attributes();
    const Computation& entry = *module_.entry();
    // A dump cut off before its entry computation (none marked ENTRY: the last one is taken)
    // has a header that describes a computation it does not hold.
    if (!a.has_entry_computation_layout || !module_.entry_marked()) return absl::OkStatus();
    auto header = [&](std::string message) {
      return absl::FailedPreconditionError(
          str_cat("module header: entry_computation_layout: ", message));
    };
    if (a.entry_parameter_layouts.size() != entry.parameters().size()) {
      return header(str_cat("it lists ", a.entry_parameter_layouts.size(),
                            " parameters, but the entry computation ", entry.name(), " has ",
                            entry.parameters().size()));
    }
    for (size_t n = 0; n < entry.parameters().size(); ++n) {
      const Shape& layout = *a.entry_parameter_layouts[n];
      const Shape& shape = entry.parameters()[n]->shape();
      if (!detail::compatible(layout, shape)) {
        return header(str_cat("parameter ", n, " is ", to_string(layout), " there, but ",
                              entry.parameters()[n]->name(), " has shape ", to_string(shape)));
      }
    }
    if (a.entry_result_layout != nullptr &&
        !detail::compatible(*a.entry_result_layout, entry.root()->shape())) {
      return header(str_cat("the result is ", to_string(*a.entry_result_layout), " there, but ",
                            "the root ", entry.root()->name(), " has shape ",
                            to_string(entry.root()->shape())));
    }
    return absl::OkStatus();
  }

  const Module& module_;
  absl::flat_hash_set<const Computation*> verified_;
  absl::flat_hash_set<const Instruction*> defined_;
};

}  // namespace

absl::Status verify(const Module& module) { return Verifier(module).run(); }

}  // namespace hloroof
