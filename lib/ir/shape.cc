#include "hloroof/shape.h"

#include <array>

#include "absl/container/flat_hash_map.h"

namespace hloroof {
namespace {

enum class TypeClass : uint8_t { Invalid, Pred, Signed, Unsigned, Float, Complex, Token, Opaque };

struct TypeInfo {
  std::string_view name;
  int bits;
  int bytes;
  TypeClass cls;
};

constexpr std::array kTypes = {
    TypeInfo{"invalid", 0, 0, TypeClass::Invalid},
#define HLOROOF_PRIMITIVE(e, text, bits, bytes, cls) TypeInfo{text, bits, bytes, TypeClass::cls},
#include "hloroof/primitive_types.def"
#undef HLOROOF_PRIMITIVE
};

const TypeInfo& info(PrimitiveType type) {
  auto i = static_cast<size_t>(type);
  return i < kTypes.size() ? kTypes[i] : kTypes[0];
}

}  // namespace

std::string_view primitive_type_name(PrimitiveType type) { return info(type).name; }

std::optional<PrimitiveType> primitive_type_from_name(std::string_view name) {
  static const auto* const kByName = [] {
    auto* m = new absl::flat_hash_map<std::string_view, PrimitiveType>();
    for (size_t i = 1; i < kTypes.size(); ++i) {
      m->emplace(kTypes[i].name, static_cast<PrimitiveType>(i));
    }
    return m;
  }();
  auto it = kByName->find(name);
  if (it == kByName->end()) return std::nullopt;
  return it->second;
}

int primitive_bit_width(PrimitiveType type) { return info(type).bits; }
int primitive_storage_bytes(PrimitiveType type) { return info(type).bytes; }
bool is_floating_point(PrimitiveType type) { return info(type).cls == TypeClass::Float; }
bool is_complex(PrimitiveType type) { return info(type).cls == TypeClass::Complex; }
bool is_signed_integral(PrimitiveType type) { return info(type).cls == TypeClass::Signed; }
bool is_unsigned_integral(PrimitiveType type) { return info(type).cls == TypeClass::Unsigned; }

bool Layout::has_only_minor_to_major() const {
  return !has_dim_levels && tiles.empty() && tail_padding_alignment == 1 &&
         index_type == PrimitiveType::kInvalid && pointer_type == PrimitiveType::kInvalid &&
         element_size_bits == 0 && memory_space == 0 && split_configs.empty() &&
         physical_shape.empty() && dynamic_shape_metadata_prefix_bytes == 0;
}

bool operator==(const Layout& a, const Layout& b) {
  return a.minor_to_major == b.minor_to_major && a.has_dim_levels == b.has_dim_levels &&
         a.dim_levels == b.dim_levels && a.tiles == b.tiles &&
         a.tail_padding_alignment == b.tail_padding_alignment && a.index_type == b.index_type &&
         a.pointer_type == b.pointer_type && a.element_size_bits == b.element_size_bits &&
         a.memory_space == b.memory_space && a.split_configs == b.split_configs &&
         a.physical_shape == b.physical_shape &&
         a.dynamic_shape_metadata_prefix_bytes == b.dynamic_shape_metadata_prefix_bytes;
}

bool operator==(const Shape& a, const Shape& b) {
  return a.kind == b.kind && a.element_type == b.element_type && a.dims == b.dims &&
         a.layout == b.layout && a.elements == b.elements;
}

Shape Shape::Array(PrimitiveType type, std::initializer_list<int64_t> dims) {
  Shape s;
  s.kind = Kind::kArray;
  s.element_type = type;
  for (int64_t d : dims) s.dims.push_back(Dimension{Dimension::Kind::kStatic, d});
  return s;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.kind = Kind::kTuple;
  s.elements = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.kind = Kind::kToken;
  s.element_type = PrimitiveType::kToken;
  return s;
}

}  // namespace hloroof
