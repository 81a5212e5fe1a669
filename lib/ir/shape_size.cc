// Logical and padded sizes of shapes (docs/sources.md, "TPU tiling and padding").
//
// The padded element count applies every tile level in turn: each level rounds the dims it
// covers up to its entries and appends the tile as new most-minor dims, so a later level can
// pad again (a bf16 scalar under `T(512)(2,1)` becomes 1024 elements). XLA's open-source size
// helper stops after the first level; that count is kept too (`first_tile_padded_bytes`) so
// the two can be compared where they differ.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "hloroof/shape_size.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

bool mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

absl::Status overflow(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " does not fit in 64 bits; the shape is too large to be real"));
}

// Product of `dims`, or an error if it overflows.
absl::StatusOr<int64_t> product(absl::Span<const int64_t> dims, absl::string_view what) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (!mul(p, d, &p)) return overflow(what);
  }
  return p;
}

// Bits one element occupies in memory: E(n) when the layout packs, else whole storage bytes.
int64_t stored_bits(const Shape& array) {
  if (array.layout && array.layout->element_size_bits > 0) return array.layout->element_size_bits;
  return 8 * int64_t{primitive_storage_bytes(array.element_type)};
}

// Bits one element occupies logically: packed for sub-byte types (pred excluded: it is a byte).
int64_t logical_bits(const Shape& array) {
  if (array.layout && array.layout->element_size_bits > 0) return array.layout->element_size_bits;
  int bits = primitive_bit_width(array.element_type);
  if (bits < 8 && array.element_type != PrimitiveType::kPred) return bits;
  return 8 * int64_t{primitive_storage_bytes(array.element_type)};
}

absl::StatusOr<int64_t> bytes_of(int64_t count, int64_t bits) {
  int64_t total_bits = 0;
  if (!mul(count, bits, &total_bits)) return overflow("the size in bits");
  return total_bits / 8 + (total_bits % 8 != 0);
}

// Physical dims, most major first, each split dim replaced by its largest piece.
absl::InlinedVector<int64_t, 6> physical_dims(const Shape& array) {
  absl::InlinedVector<int64_t, 6> dims;
  const Layout& layout = *array.layout;
  if (layout.minor_to_major.empty()) {
    for (const Dimension& d : array.dims) dims.push_back(d.size);
  } else {
    for (auto it = layout.minor_to_major.rbegin(); it != layout.minor_to_major.rend(); ++it) {
      dims.push_back(array.dims[*it].size);
    }
  }
  for (const SplitConfig& split : layout.split_configs) {
    int64_t& dim = dims[split.dimension];
    int64_t largest = 0, start = 0;
    for (int64_t index : split.split_indices) {
      largest = std::max(largest, index - start);
      start = index;
    }
    dim = std::max(largest, dim - start);
  }
  return dims;
}

// Applies one tile level to `dims` (docs/sources.md, "TPU tiling and padding"): covered dims become
// (ceil(d / t)..., t...). When `index` is given, the position of one element is carried
// through the same transformation: i becomes (i / t..., i % t...).
absl::Status apply_tile(const Tile& tile, absl::InlinedVector<int64_t, 6>& dims,
                        absl::InlinedVector<int64_t, 6>* index = nullptr) {
  const size_t k = tile.dims.size();
  if (k == 0) return absl::OkStatus();
  if (dims.size() < k) {
    if (index) index->insert(index->begin(), k - dims.size(), 0);
    dims.insert(dims.begin(), k - dims.size(), 1);
  }
  const size_t first = dims.size() - k;
  absl::InlinedVector<int64_t, 6> out(dims.begin(), dims.begin() + first);
  absl::InlinedVector<int64_t, 6> tile_dims;
  absl::InlinedVector<int64_t, 6> out_index, tile_index;
  if (index) out_index.assign(index->begin(), index->begin() + first);
  int64_t carry = 1, carry_index = 0;
  for (size_t i = 0; i < k; ++i) {
    int64_t d = 0;
    if (!mul(dims[first + i], carry, &d)) return overflow("a combined dimension");
    // Row-major position within the merged dims; cannot overflow since it is below d.
    const int64_t at = index ? carry_index * dims[first + i] + (*index)[first + i] : 0;
    if (tile.dims[i] == Tile::kCombinedDim) {
      carry = d;
      carry_index = at;
      continue;
    }
    carry = 1;
    carry_index = 0;
    const int64_t t = tile.dims[i];
    out.push_back(d / t + (d % t != 0));
    tile_dims.push_back(t);
    if (index) {
      out_index.push_back(at / t);
      tile_index.push_back(at % t);
    }
  }
  out.insert(out.end(), tile_dims.begin(), tile_dims.end());
  dims = std::move(out);
  if (index) {
    out_index.insert(out_index.end(), tile_index.begin(), tile_index.end());
    *index = std::move(out_index);
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> round_up(int64_t count, int64_t multiple) {
  if (multiple <= 1 || count % multiple == 0) return count;
  int64_t r = 0;
  if (__builtin_add_overflow(count, multiple - count % multiple, &r)) {
    return overflow("the padded element count");
  }
  return r;
}

std::string tile_text(const Tile& tile) {
  return absl::StrCat(
      "(",
      absl::StrJoin(tile.dims, ",",
                    [](std::string* out, int64_t d) {
                      absl::StrAppend(out, d == Tile::kCombinedDim ? "*" : absl::StrCat(d));
                    }),
      ")");
}

// The checks without which sizes cannot be computed safely: dims, permutation, tiles, splits.
absl::Status check_structure(const Shape& array) {
  const size_t rank = array.dims.size();
  for (size_t i = 0; i < rank; ++i) {
    const Dimension& d = array.dims[i];
    if (d.kind != Dimension::Kind::kUnbounded && d.size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("dimension ", i, " has negative size ", d.size));
    }
  }
  if (!array.layout) return absl::OkStatus();
  const Layout& layout = *array.layout;
  if (!layout.minor_to_major.empty() || rank > 0) {
    if (layout.minor_to_major.size() != rank) {
      return absl::InvalidArgumentError(absl::StrCat("layout has ", layout.minor_to_major.size(),
                                                     " entries but the shape has rank ", rank));
    }
    std::vector<bool> seen(rank, false);
    for (int64_t d : layout.minor_to_major) {
      if (d < 0 || static_cast<size_t>(d) >= rank || seen[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("layout {", absl::StrJoin(layout.minor_to_major, ","),
                         "} is not a permutation of the dimensions 0..", rank - 1));
      }
      seen[d] = true;
    }
  }
  for (const Tile& tile : layout.tiles) {
    for (int64_t t : tile.dims) {
      if (t != Tile::kCombinedDim && t <= 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("tile ", tile_text(tile), " has a non-positive entry ", t));
      }
    }
    if (!tile.dims.empty() && tile.dims.back() == Tile::kCombinedDim) {
      return absl::InvalidArgumentError(
          absl::StrCat("tile ", tile_text(tile),
                       " ends in '*', which has no more minor dimension to merge into"));
    }
  }
  for (const SplitConfig& split : layout.split_configs) {
    if (split.dimension < 0 || static_cast<size_t>(split.dimension) >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("split config dimension ", split.dimension,
                                                     " is out of range for rank ", rank));
    }
    const int64_t size = array.dims[layout.minor_to_major[rank - 1 - split.dimension]].size;
    int64_t previous = 0;
    for (int64_t index : split.split_indices) {
      if (index <= previous || index >= size) {
        return absl::InvalidArgumentError(
            absl::StrCat("split indices of physical dimension ", split.dimension,
                         " must increase strictly inside (0, ", size, "); got ", index));
      }
      previous = index;
    }
  }
  return absl::OkStatus();
}

}  // namespace

double ArraySize::padding_factor() const {
  return logical_bytes == 0 ? 1.0 : static_cast<double>(padded_bytes) / logical_bytes;
}

double ShapeSize::padding_factor() const {
  return logical_bytes == 0 ? 1.0 : static_cast<double>(padded_bytes) / logical_bytes;
}

absl::Status validate_array_layout(const Shape& array) {
  if (!array.is_array()) return absl::InvalidArgumentError("expected an array shape");
  if (array.layout) {
    const Layout& layout = *array.layout;
    if (layout.tail_padding_alignment < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("L(", layout.tail_padding_alignment, ") must be at least 1"));
    }
    if (layout.element_size_bits < 0 || layout.element_size_bits > 128) {
      return absl::InvalidArgumentError(absl::StrCat(
          "E(", layout.element_size_bits, ") is not an element size in bits (0-128)"));
    }
    if (layout.memory_space < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("S(", layout.memory_space, ") is not a memory space"));
    }
    if (layout.dynamic_shape_metadata_prefix_bytes < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "M(", layout.dynamic_shape_metadata_prefix_bytes, ") must not be negative"));
    }
    for (PrimitiveType t : {layout.index_type, layout.pointer_type}) {
      if (t != PrimitiveType::kInvalid && !is_unsigned_integral(t)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "index and pointer types must be unsigned integers, not ",
            sv(primitive_type_name(t))));
      }
    }
    for (const Shape& physical : layout.physical_shape) {
      if (!physical.is_array()) continue;
      if (absl::Status s = validate_array_layout(physical); !s.ok()) return s;
    }
  }
  // The structure (permutation, tiles, splits) and every size, padded ones included, must be
  // representable; an unbounded dim has no static size but is still a valid shape.
  bool unbounded = false;
  for (const Dimension& d : array.dims) unbounded |= d.kind == Dimension::Kind::kUnbounded;
  if (unbounded) return check_structure(array);
  return array_size(array).status();
}

absl::StatusOr<ArraySize> array_size(const Shape& array) {
  if (!array.is_array()) return absl::InvalidArgumentError("expected an array shape");
  if (absl::Status s = check_structure(array); !s.ok()) return s;
  absl::InlinedVector<int64_t, 6> logical;
  for (const Dimension& d : array.dims) {
    if (d.kind == Dimension::Kind::kUnbounded) {
      return absl::InvalidArgumentError("an unbounded dimension '?' has no static size");
    }
    logical.push_back(d.size);
  }
  ArraySize size;
  absl::StatusOr<int64_t> elements = product(logical, "the element count");
  if (!elements.ok()) return elements.status();
  size.elements = *elements;
  absl::StatusOr<int64_t> logical_bytes = bytes_of(size.elements, logical_bits(array));
  if (!logical_bytes.ok()) return logical_bytes.status();
  size.logical_bytes = *logical_bytes;

  const Layout* layout = array.layout ? &*array.layout : nullptr;
  size.memory_space = layout ? layout->memory_space : 0;
  if (layout == nullptr || layout->tiles.empty()) {
    // Untiled: dense; L(n) and split configs do not apply (docs/hlo-text.md, "Layouts and
    // tiles").
    size.padded_elements = size.first_tile_padded_elements = size.elements;
  } else {
    absl::InlinedVector<int64_t, 6> dims = physical_dims(array);
    for (size_t level = 0; level < layout->tiles.size(); ++level) {
      if (absl::Status s = apply_tile(layout->tiles[level], dims); !s.ok()) return s;
      if (level == 0) {
        auto count = product(dims, "the padded element count");
        if (!count.ok()) return count.status();
        auto rounded = round_up(*count, layout->tail_padding_alignment);
        if (!rounded.ok()) return rounded.status();
        size.first_tile_padded_elements = *rounded;
      }
    }
    auto count = product(dims, "the padded element count");
    if (!count.ok()) return count.status();
    auto rounded = round_up(*count, layout->tail_padding_alignment);
    if (!rounded.ok()) return rounded.status();
    size.padded_elements = *rounded;
  }
  const int64_t bits = stored_bits(array);
  absl::StatusOr<int64_t> padded = bytes_of(size.padded_elements, bits);
  if (!padded.ok()) return padded.status();
  size.padded_bytes = *padded;
  absl::StatusOr<int64_t> first = bytes_of(size.first_tile_padded_elements, bits);
  if (!first.ok()) return first.status();
  size.first_tile_padded_bytes = *first;
  return size;
}

absl::StatusOr<int64_t> physical_element_index(const Shape& array,
                                               absl::Span<const int64_t> index) {
  absl::StatusOr<ArraySize> size = array_size(array);  // also checks the structure
  if (!size.ok()) return size.status();
  if (index.size() != array.dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat("index has ", index.size(),
                                                   " entries but the shape has rank ",
                                                   array.dims.size()));
  }
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] < 0 || index[i] >= array.dims[i].size) {
      return absl::OutOfRangeError(absl::StrCat("index ", index[i],
                                                " is out of bounds for dimension ", i, " of size ",
                                                array.dims[i].size));
    }
  }
  absl::InlinedVector<int64_t, 6> dims, at;
  const bool has_layout = array.layout && !array.layout->minor_to_major.empty();
  for (size_t i = 0; i < index.size(); ++i) {
    const size_t logical = has_layout ? array.layout->minor_to_major[index.size() - 1 - i] : i;
    dims.push_back(array.dims[logical].size);
    at.push_back(index[logical]);
  }
  if (array.layout) {
    for (const Tile& tile : array.layout->tiles) {
      if (absl::Status s = apply_tile(tile, dims, &at); !s.ok()) return s;
    }
  }
  // Row-major over the tiled dims; bounded by the padded element count, so no overflow.
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) linear = linear * dims[i] + at[i];
  return linear;
}

absl::StatusOr<ShapeSize> shape_size(const Shape& shape) {
  ShapeSize total;
  absl::Status status;
  for_each_array_leaf(shape, [&](const Shape& leaf) {
    if (!status.ok()) return;
    absl::StatusOr<ArraySize> a = array_size(leaf);
    if (!a.ok()) {
      status = a.status();
      return;
    }
    bool ok = !__builtin_add_overflow(total.elements, a->elements, &total.elements) &&
              !__builtin_add_overflow(total.logical_bytes, a->logical_bytes,
                                      &total.logical_bytes) &&
              !__builtin_add_overflow(total.padded_bytes, a->padded_bytes, &total.padded_bytes);
    if (!ok) {
      status = overflow("the total size of the tuple");
      return;
    }
    int64_t& bucket = a->memory_space == kDefaultMemorySpace ? total.padded_bytes_default
                      : a->memory_space == kHostMemorySpace ? total.padded_bytes_host
                                                            : total.padded_bytes_on_chip;
    bucket += a->padded_bytes;  // bounded by padded_bytes, which did not overflow
  });
  if (!status.ok()) return status;
  return total;
}

}  // namespace hloroof
