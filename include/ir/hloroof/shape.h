// Element types, layouts and shapes of HLO values.
//
// A Shape is a value type: an array (element type, dimensions, optional layout), a tuple of
// shapes, a buffer wrapping an array (`b(f32[8]{0})`), or a token. Everything the text can say
// about a layout is kept, so a shape prints back exactly as it was read (in canonical form).
//
// Shapes are compact: the dimensions of an array up to rank 4 are held inline, a layout is held
// out of line (shared between copies, copied only when written), and the elements of a tuple are
// an immutable list shared between copies that stores each distinct element once: a tuple of a
// million `f32[]` holds one `f32[]` and costs a few bytes, whatever its width.
#ifndef HLOROOF_SHAPE_H_
#define HLOROOF_SHAPE_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
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

// A layout or none (`std::optional<Layout>` in use), held out of line: copying a shape shares its
// layout, and writing through a non-const accessor first gives this shape its own copy.
class OptionalLayout {
 public:
  OptionalLayout() = default;
  OptionalLayout(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  OptionalLayout(Layout layout);     // NOLINT(google-explicit-constructor): as std::optional

  bool has_value() const { return layout_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const Layout& operator*() const { return *layout_; }
  const Layout* operator->() const { return layout_.get(); }
  Layout& operator*() { return mutable_layout(); }
  Layout* operator->() { return &mutable_layout(); }
  // A default layout (no minor_to_major, no properties), this shape's own; returns it.
  Layout& emplace();
  void reset() { layout_.reset(); }

  friend bool operator==(const OptionalLayout& a, const OptionalLayout& b);

 private:
  Layout& mutable_layout();
  std::shared_ptr<Layout> layout_;  // shared with copies until one of them writes
};

// The elements of a tuple shape (or the one array of a buffer shape): a read-only, random-access
// list of shapes, shared between copies. Each distinct element is stored once, so the list costs
// a few bytes per element at most, and none when all elements are equal or all distinct.
// Build one with TupleBuilder or Shape::Tuple. The representation is canonical (elements
// deduplicated, distinct ones in order of first appearance), so equality and hashing take time
// linear in what is stored, not in the width.
class TupleElements {
 public:
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Shape;
    using difference_type = std::ptrdiff_t;
    using pointer = const Shape*;
    using reference = const Shape&;

    iterator() = default;
    reference operator*() const;
    pointer operator->() const { return &**this; }
    reference operator[](difference_type n) const { return *(*this + n); }
    iterator& operator++() { ++i_; return *this; }
    iterator operator++(int) { iterator t = *this; ++i_; return t; }
    iterator& operator--() { --i_; return *this; }
    iterator operator--(int) { iterator t = *this; --i_; return t; }
    iterator& operator+=(difference_type n) { i_ += static_cast<size_t>(n); return *this; }
    iterator& operator-=(difference_type n) { i_ -= static_cast<size_t>(n); return *this; }
    friend iterator operator+(iterator it, difference_type n) { return it += n; }
    friend iterator operator+(difference_type n, iterator it) { return it += n; }
    friend iterator operator-(iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) { return a.i_ <=> b.i_; }

   private:
    friend class TupleElements;
    iterator(const TupleElements* list, size_t i) : list_(list), i_(i) {}
    const TupleElements* list_ = nullptr;
    size_t i_ = 0;
  };
  using const_iterator = iterator;
  using value_type = Shape;
  using size_type = size_t;

  TupleElements() = default;

  size_t size() const;
  bool empty() const { return size() == 0; }
  const Shape& operator[](size_t i) const;
  const Shape& front() const { return (*this)[0]; }
  const Shape& back() const { return (*this)[size() - 1]; }
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size()); }

  // The distinct elements, in order of first appearance; element i is
  // distinct()[distinct_index(i)]. Lets a consumer do per-distinct work once.
  const std::vector<Shape>& distinct() const;
  size_t distinct_index(size_t i) const;

  // Array leaves under all the elements (for_each_array_leaf's count), in constant time.
  int64_t array_leaf_count() const;
  // The array leaves under each element when every element has the same number; -1 otherwise.
  int64_t array_leaves_per_element() const;
  // Shapes under all the elements, counted as a tree (each element and everything under it,
  // repeats included; saturates at INT64_MAX), and the deepest element's nesting depth.
  int64_t tree_size() const;
  int depth() const;

  friend bool operator==(const TupleElements& a, const TupleElements& b);

 private:
  friend class TupleBuilder;
  friend struct Shape;
  struct Rep;
  std::shared_ptr<const Rep> rep_;  // null: no elements
};

struct Shape {
  enum class Kind : uint8_t { kArray, kTuple, kBuffer, kToken };
  Kind kind = Kind::kArray;
  PrimitiveType element_type = PrimitiveType::kInvalid;  // arrays only (opaque is an array)
  absl::InlinedVector<Dimension, 4> dims;                 // arrays only
  OptionalLayout layout;                                  // arrays only; none: none written
  TupleElements elements;                                 // tuple elements; buffer: one array

  static Shape Array(PrimitiveType type, std::initializer_list<int64_t> dims);
  static Shape Tuple(const std::vector<Shape>& elements);
  static Shape Tuple(TupleElements elements);
  static Shape Buffer(Shape array);
  static Shape Token();

  bool is_array() const { return kind == Kind::kArray; }
  bool is_tuple() const { return kind == Kind::kTuple; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  // Array leaves (tuples flattened, buffers unwrapped, tokens none), in constant time.
  int64_t array_leaf_count() const;
  // Shapes in this one counted as a tree (itself, its elements, theirs...; a tuple of a million
  // `f32[]` is 1,000,001), and how deeply tuples nest (an array 0, a tuple of arrays 1), both in
  // constant time: a shape built from others (an inferred tuple) can be checked against limits
  // before anything walks it.
  int64_t tree_size() const;
  int depth() const;
  // A hash consistent with ==, in time linear in the stored size (not in a tuple's width).
  size_t hash() const;
  friend bool operator==(const Shape&, const Shape&);
  template <typename H>
  friend H AbslHashValue(H h, const Shape& s) {
    return H::combine(std::move(h), s.hash());
  }
};

struct TupleElements::Rep {
  size_t size = 0;
  std::vector<Shape> distinct;
  // Element i's entry in `distinct`, in `index_width` bytes (native order): 1 while there are at
  // most 256 distinct elements, 2 up to 65536, else 4. Empty when all elements are equal (one
  // distinct) or all distinct (entry i).
  std::vector<uint8_t> index;
  uint8_t index_width = 1;
  int64_t leaves = 0;               // saturates at INT64_MAX
  int64_t leaves_per_element = -1;  // -1: not the same for every element
  int64_t tree_size = 0;            // shapes under the elements, as a tree; saturates
  int depth = 0;                    // the deepest element's depth
  size_t hash = 0;

  size_t entry(size_t i) const {
    if (index_width == 1) return index[i];
    if (index_width == 2) {
      uint16_t v;
      std::memcpy(&v, &index[2 * i], 2);
      return v;
    }
    uint32_t v;
    std::memcpy(&v, &index[4 * i], 4);
    return v;
  }
};

inline size_t TupleElements::size() const { return rep_ ? rep_->size : 0; }
inline size_t TupleElements::distinct_index(size_t i) const {
  const Rep& r = *rep_;
  if (!r.index.empty()) return r.entry(i);
  return r.distinct.size() == 1 ? 0 : i;
}
inline const Shape& TupleElements::operator[](size_t i) const {
  return rep_->distinct[distinct_index(i)];
}
inline const Shape& TupleElements::iterator::operator*() const { return (*list_)[i_]; }

// Builds a tuple's elements, storing each distinct element once.
class TupleBuilder {
 public:
  TupleBuilder();
  ~TupleBuilder();
  TupleBuilder(const TupleBuilder&) = delete;
  TupleBuilder& operator=(const TupleBuilder&) = delete;

  void add(const Shape& element);
  void add(Shape&& element);
  size_t size() const;
  // The elements added so far; the builder is left empty.
  TupleElements build();

 private:
  struct State;
  std::unique_ptr<State> state_;
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

// Canonical text of a shape, as XLA prints it: layouts only when the shape has one (a scalar's
// only when it has properties), layout properties in grammar order, `/*index=N*/` before every
// 5th tuple element. parse_shape(to_string(s)) == s (shape_text.h).
std::string to_string(const Shape& shape);
std::string to_string(const Layout& layout);

}  // namespace hloroof

#endif  // HLOROOF_SHAPE_H_
