// Instruction attributes: the catalogue (attributes.def) and the typed values the parser
// decodes them into. Every attribute also keeps its value text as written, so that attributes
// hloroof does not decode (kRaw) print back unchanged.
#ifndef HLOROOF_ATTRIBUTES_H_
#define HLOROOF_ATTRIBUTES_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "hloroof/shape.h"

namespace hloroof {

class Computation;
class Instruction;
struct OpMetadata;
struct ReplicaGroups;
struct Sharding;

enum class AttrId : uint8_t {
#define HLOROOF_ATTRIBUTE(e, text, kind, group) e,
#include "hloroof/attributes.def"
#undef HLOROOF_ATTRIBUTE
};

// How an attribute's value is written and stored.
enum class AttrKind : uint8_t {
  kBool,                // true | false                     -> bool
  kInt,                 // INT                              -> int64_t
  kFloat,               // 1e-05                            -> double
  kIntList,             // {0,1}                            -> IntList
  kIntListList,         // {{0,1},{1,2}}                    -> const IntListList*
  kSliceSizes,          // {1,2} or {{1},{2}}               -> IntList or const IntListList*
  kString,              // "text"                           -> std::string_view (decoded)
  kWord,                // kLoop, EQ, dot_bf16_bf16_f32     -> std::string_view
  kWordList,            // {default,highest}                -> const WordList*
  kComputation,         // %add                             -> Computation*
  kComputationList,     // {%a, %b}                         -> ComputationList
  kInstructionList,     // {%x, %y}                         -> InstructionList
  kSlice,               // {[0:2], [1:8:2]}                 -> const Slice*
  kPadding,             // 0_0x1_2                          -> const Padding*
  kWindow,              // {size=3x3 stride=2x2}            -> const Window*
  kDimLabels,           // b01f_01io->b01f                  -> const ConvDimLabels*
  kReplicaGroups,       // {{0,1}}, [2,4]<=[8], mesh[...]   -> const ReplicaGroups*
  kSharding,            // {devices=[2,1]0,1}               -> const Sharding*
  kMetadata,            // {op_name="..." source_line=3}    -> kept as text (plain strings,
                        //   Instruction::metadata() decodes it) or const OpMetadata*
  kFrontendAttributes,  // {key="value",k2={blob}}          -> const FrontendAttributes*
  kBackendConfig,       // "string" or {balanced blob}      -> std::string_view (decoded)
  kShape,               // f32[4]{0}                        -> const Shape*
  kLiteral,             // f32[] 0.1 (custom-call literal)  -> kept as text
  kRaw,                 // any balanced value               -> kept as text
};

std::string_view attribute_name(AttrId id);
AttrKind attribute_kind(AttrId id);
// 0: opcode-specific; 1..8: common attributes in their print order (docs/hlo-text.md, "Common
// attributes").
int attribute_print_group(AttrId id);
std::optional<AttrId> attribute_from_name(std::string_view name);

using IntList = absl::Span<const int64_t>;
using IntListList = std::vector<std::vector<int64_t>>;
using WordList = std::vector<std::string_view>;
using ComputationList = absl::Span<Computation* const>;
using InstructionList = absl::Span<Instruction* const>;

// `[start:limit:stride]` for one dimension; limits are exclusive.
struct SliceDim {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  friend bool operator==(const SliceDim&, const SliceDim&) = default;
};
struct Slice {
  std::vector<SliceDim> dims;
  friend bool operator==(const Slice&, const Slice&) = default;
};

// `low_high` or `low_high_interior` for one dimension of a pad.
struct PaddingDim {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  friend bool operator==(const PaddingDim&, const PaddingDim&) = default;
};
struct Padding {
  std::vector<PaddingDim> dims;
  friend bool operator==(const Padding&, const Padding&) = default;
};

struct WindowDim {
  int64_t size = 0;
  int64_t stride = 1;
  int64_t pad_low = 0;
  int64_t pad_high = 0;
  int64_t lhs_dilation = 1;  // base dilation
  int64_t rhs_dilation = 1;  // window dilation
  bool reversal = false;
  friend bool operator==(const WindowDim&, const WindowDim&) = default;
};
struct Window {
  std::vector<WindowDim> dims;
  friend bool operator==(const Window&, const Window&) = default;
};

// Convolution dimension numbers from `dim_labels=b01f_01io->b01f`: logical dimension indices.
struct ConvDimLabels {
  int64_t input_batch = -1;
  int64_t input_feature = -1;
  absl::InlinedVector<int64_t, 3> input_spatial;  // by spatial number: digit 0, 1, ...
  int64_t kernel_input_feature = -1;
  int64_t kernel_output_feature = -1;
  absl::InlinedVector<int64_t, 3> kernel_spatial;
  int64_t output_batch = -1;
  int64_t output_feature = -1;
  absl::InlinedVector<int64_t, 3> output_spatial;
  std::string_view text;  // as written, e.g. "b01f_01io->b01f"
  friend bool operator==(const ConvDimLabels&, const ConvDimLabels&) = default;
};

// One `key=value` of frontend_attributes; `value` is the decoded string, or the raw `{...}`
// blob when `is_blob`.
struct FrontendAttribute {
  std::string_view key;
  std::string_view value;
  bool is_blob = false;
  friend bool operator==(const FrontendAttribute&, const FrontendAttribute&) = default;
};
struct FrontendAttributes {
  std::vector<FrontendAttribute> entries;  // sorted by key
  // The value of `key`, if present.
  std::optional<std::string_view> find(std::string_view key) const;
  friend bool operator==(const FrontendAttributes&, const FrontendAttributes&) = default;
};

// Views over the separate dot dimension attributes (empty spans when absent).
struct DotDimensionNumbers {
  IntList lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
  IntList lhs_ragged, rhs_group;  // ragged-dot
};
struct GatherDimensionNumbers {
  IntList offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims, slice_sizes;
  int64_t index_vector_dim = 0;
};
struct ScatterDimensionNumbers {
  IntList update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
      input_batching_dims, scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
};

// A decoded attribute value; which alternative is held follows from the attribute's AttrKind.
// std::monostate: the attribute is kept only as text.
using AttrValue = std::variant<std::monostate, bool, int64_t, double, std::string_view, IntList,
                               const IntListList*, const WordList*, Computation*, ComputationList,
                               InstructionList, const Slice*, const Padding*, const Window*,
                               const ConvDimLabels*, const ReplicaGroups*, const Sharding*,
                               const OpMetadata*, const FrontendAttributes*, const Shape*>;

// One attribute of an instruction: which one, its value text as written (after `name=`, e.g.
// `{0,1}`) and its decoded value. Kept in 32 bytes (a module has more attribute records than
// instructions): the text as a pointer and a 32-bit length, the value in place of a
// std::variant, with the index of its AttrValue alternative beside it.
class Attribute {
  static constexpr size_t kAlternatives = std::variant_size_v<AttrValue>;
  template <typename T, size_t... I>
  static constexpr bool is_alternative(std::index_sequence<I...>) {
    return (std::is_same_v<T, std::variant_alternative_t<I, AttrValue>> || ...);
  }
  template <typename T>
  static constexpr bool is_alternative() {
    return is_alternative<T>(std::make_index_sequence<kAlternatives>());
  }
  template <typename T, size_t I = 0>
  static constexpr size_t alternative_index() {
    static_assert(I < kAlternatives, "not an alternative of AttrValue");
    if constexpr (std::is_same_v<T, std::variant_alternative_t<I, AttrValue>>) {
      return I;
    } else {
      return alternative_index<T, I + 1>();
    }
  }

 public:
  Attribute() = default;
  // `text` is at most 4 GiB - 1 bytes long (every input is at most 4 GiB).
  Attribute(AttrId attribute_id, std::string_view text, const AttrValue& value = {})
      : id(attribute_id) {
    set_text(text);
    set_value(value);
  }

  std::string_view name() const { return attribute_name(id); }
  // The value as written (after `name=`), e.g. `{0,1}`.
  std::string_view text() const { return std::string_view(text_data_, text_size_); }
  void set_text(std::string_view text) {
    text_data_ = text.data();
    text_size_ = static_cast<uint32_t>(text.size());
  }

  // The decoded value, or null when the value is of another type.
  template <typename T>
  const T* get() const {
    if (index_ != alternative_index<T>()) return nullptr;
    return std::launder(reinterpret_cast<const T*>(value_));
  }
  // The decoded value as an AttrValue (std::monostate: kept only as text).
  AttrValue value() const { return value_at(std::make_index_sequence<kAlternatives>()); }
  // value().index() without making the AttrValue.
  size_t value_index() const { return index_; }
  void set_value(const AttrValue& value) {
    std::visit([this](const auto& v) { set_value(v); }, value);
  }
  template <typename T, typename = std::enable_if_t<is_alternative<T>()>>
  void set_value(const T& v) {
    ::new (static_cast<void*>(value_)) T(v);
    index_ = static_cast<uint8_t>(alternative_index<T>());
  }

 private:
  template <size_t... I>
  AttrValue value_at(std::index_sequence<I...>) const {
    AttrValue out;
    ((index_ == I ? (out.emplace<I>(*get<std::variant_alternative_t<I, AttrValue>>()), 0) : 0),
     ...);
    return out;
  }

  const char* text_data_ = nullptr;
  alignas(8) unsigned char value_[16] = {};  // alternative `index_` of AttrValue
  uint32_t text_size_ = 0;

 public:
  AttrId id{};

 private:
  uint8_t index_ = 0;  // std::monostate
};

// Every alternative fits the record's value in place and is copied with it byte for byte.
namespace detail {
template <typename T>
constexpr bool fits_attribute_value() {
  return sizeof(T) <= 16 && alignof(T) <= 8 && std::is_trivially_copyable_v<T> &&
         std::is_trivially_destructible_v<T>;
}
template <size_t... I>
constexpr bool attribute_values_fit(std::index_sequence<I...>) {
  return (fits_attribute_value<std::variant_alternative_t<I, AttrValue>>() && ...);
}
}  // namespace detail
static_assert(
    detail::attribute_values_fit(std::make_index_sequence<std::variant_size_v<AttrValue>>{}));
static_assert(sizeof(Attribute) == 32);
static_assert(std::is_trivially_copyable_v<Attribute>);

}  // namespace hloroof

#endif  // HLOROOF_ATTRIBUTES_H_
