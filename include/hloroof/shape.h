// Element types, layouts and shapes of HLO values.
//
// A Shape is a value type: an array (element type, dimensions, optional layout), a tuple of
// shapes, a buffer wrapping an array (`b(f32[8]{0})`), or a token. Everything the text can say
// about a layout is kept, so a shape prints back exactly as it was read (in canonical form).
#ifndef HLOROOF_SHAPE_H_
#define HLOROOF_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace hloroof {

enum class PrimitiveType : uint8_t {
  kInvalid = 0,
#define HLOROOF_PRIMITIVE(e, text, bits, bytes, cls) e,
#include "hloroof/primitive_types.def"
#undef HLOROOF_PRIMITIVE
};

// The text spelling (`bf16`); "invalid" for kInvalid.
std::string_view primitive_type_name(PrimitiveType type);
// Looks up a text spelling; nullopt when `name` is not an element type.
std::optional<PrimitiveType> primitive_type_from_name(std::string_view name);
// Logical bits of one element (pred 1, s4 4, bf16 16, c64 64, token 0).
int primitive_bit_width(PrimitiveType type);
// Bytes one element occupies when the layout does not pack it with E(n) (sub-byte types: 1).
int primitive_storage_bytes(PrimitiveType type);
bool is_floating_point(PrimitiveType type);
bool is_complex(PrimitiveType type);
bool is_signed_integral(PrimitiveType type);
bool is_unsigned_integral(PrimitiveType type);

// One level of tiling, `(8,128)`. An entry equal to kCombinedDim is printed `*`: it merges that
// dimension into the next more minor one before tiling.
struct Tile {
  static constexpr int64_t kCombinedDim = INT64_MIN;
  absl::InlinedVector<int64_t, 4> dims;
  friend bool operator==(const Tile&, const Tile&) = default;
};

// `SC(d:i,j)`: physical dimension d (0 = majormost) is split at element indices i, j, ...
struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  friend bool operator==(const SplitConfig&, const SplitConfig&) = default;
};

// Legacy sparse dimension level types `D(D,C+~)`: kept so such text prints back.
struct DimLevel {
  char kind = 'D';  // 'D' dense, 'C' compressed, 'S' singleton, 'H' loose-compressed.
  bool not_unique = false;   // `+`
  bool not_ordered = false;  // `~`
  friend bool operator==(const DimLevel&, const DimLevel&) = default;
};

struct Shape;

struct Layout {
  // Physical order of dimensions, most minor first. Empty for scalars (`{:T(128)}`).
  absl::InlinedVector<int64_t, 6> minor_to_major;
  bool has_dim_levels = false;  // `D(...)` was present (possibly empty).
  std::vector<DimLevel> dim_levels;
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment = 1;                      // `L(n)`
  PrimitiveType index_type = PrimitiveType::kInvalid;      // `#(u32)`
  PrimitiveType pointer_type = PrimitiveType::kInvalid;    // `*(u32)`
  int64_t element_size_bits = 0;                           // `E(n)`, 0 = natural size
  int64_t memory_space = 0;                                // `S(n)`
  std::vector<SplitConfig> split_configs;                  // `SC(...)...`
  std::vector<Shape> physical_shape;                       // `P(shape)`: zero or one entry
  int64_t dynamic_shape_metadata_prefix_bytes = 0;         // `M(n)`

  // True when nothing follows the `:` (only minor_to_major would print).
  bool has_only_minor_to_major() const;
  friend bool operator==(const Layout&, const Layout&);
};

// Memory spaces with a meaning the cost model relies on (docs/sources.md, "TPU tiling and
// padding").
inline constexpr int64_t kDefaultMemorySpace = 0;  // HBM / device memory
inline constexpr int64_t kOnChipMemorySpace = 1;   // VMEM-class fast memory
inline constexpr int64_t kHostMemorySpace = 5;     // pinned host memory

struct Dimension {
  enum class Kind : uint8_t { kStatic, kBounded, kUnbounded };
  Kind kind = Kind::kStatic;
  int64_t size = 0;  // the size, or the bound for kBounded; 0 for kUnbounded
  friend bool operator==(const Dimension&, const Dimension&) = default;
};

struct Shape {
  enum class Kind : uint8_t { kArray, kTuple, kBuffer, kToken };
  Kind kind = Kind::kArray;
  PrimitiveType element_type = PrimitiveType::kInvalid;  // arrays only (opaque is an array)
  absl::InlinedVector<Dimension, 6> dims;                 // arrays only
  std::optional<Layout> layout;                           // arrays only; nullopt: none written
  std::vector<Shape> elements;                            // tuple elements; buffer: one array

  static Shape Array(PrimitiveType type, std::initializer_list<int64_t> dims);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();

  bool is_array() const { return kind == Kind::kArray; }
  bool is_tuple() const { return kind == Kind::kTuple; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  friend bool operator==(const Shape&, const Shape&);
};

// Calls `fn(const Shape& leaf)` for every array leaf (tuples flattened depth first, buffers
// unwrapped, tokens skipped).
template <typename Fn>
void for_each_array_leaf(const Shape& shape, Fn&& fn) {
  switch (shape.kind) {
    case Shape::Kind::kArray:
      fn(shape);
      return;
    case Shape::Kind::kTuple:
    case Shape::Kind::kBuffer:
      for (const Shape& e : shape.elements) for_each_array_leaf(e, fn);
      return;
    case Shape::Kind::kToken:
      return;
  }
}

}  // namespace hloroof

#endif  // HLOROOF_SHAPE_H_
