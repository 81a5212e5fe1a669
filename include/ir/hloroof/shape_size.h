// How many bytes a shape occupies: logically (dense, sub-byte types packed) and physically
// (padded by its layout's tiles), per memory space. The rules are those of
// docs/sources.md, "TPU tiling and padding".
#ifndef HLOROOF_SHAPE_SIZE_H_
#define HLOROOF_SHAPE_SIZE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hloroof/shape.h"

namespace hloroof {

// TPU scalar memory (SMEM), on chip: where public TPU dumps keep loop counters and slice
// indices (s32[]{:T(128)S(6)}). It is not host memory: only kHostMemorySpace (S(5)) is.
inline constexpr int64_t kScalarMemorySpace = 6;

// Sizes of one array (bounded dynamic dims count at their bound).
struct ArraySize {
  int64_t elements = 0;         // product of the dims
  int64_t logical_bytes = 0;    // ceil(elements * bits / 8); bits = E(n) if set, else 8 x storage
  int64_t padded_elements = 0;  // after tiling and L(n)
  int64_t padded_bytes = 0;     // ceil(padded_elements * bits / 8)
  // The same by XLA's open-source size helper, which pads by the first tile level only. It
  // differs from the above only where a later level pads again (bf16 scalar `T(512)(2,1)`).
  int64_t first_tile_padded_elements = 0;
  int64_t first_tile_padded_bytes = 0;
  int64_t memory_space = 0;     // S(n), 0 when the layout has none
  // padded_bytes / logical_bytes; 1.0 for empty arrays.
  double padding_factor() const;
};

// Sizes of a whole shape: array leaves summed, split by memory space.
struct ShapeSize {
  int64_t elements = 0;
  int64_t logical_bytes = 0;
  int64_t padded_bytes = 0;
  int64_t padded_bytes_default = 0;  // memory space 0 (HBM)
  int64_t padded_bytes_on_chip = 0;  // any space other than 0 and 5 (S(6) is TPU SMEM)
  int64_t padded_bytes_host = 0;     // space 5
  double padding_factor() const;
};

// Sizes of an array shape. Errors (never UB) for unbounded dims, non-array shapes, layouts that
// do not fit the shape, and counts that overflow 64 bits.
absl::StatusOr<ArraySize> array_size(const Shape& array);

// Sizes of any shape: tuple and buffer leaves are summed; tokens count 0.
absl::StatusOr<ShapeSize> shape_size(const Shape& shape);

// Position of element `index` (logical dims) in memory, counted in elements from the start of
// the buffer: tiles in row-major order over the tile grid, elements row-major inside each
// tile, recursively for each level (docs/hlo-text.md, "Layouts and tiles"). Errors for an index
// of the wrong rank or out of bounds.
absl::StatusOr<int64_t> physical_element_index(const Shape& array,
                                               absl::Span<const int64_t> index);

// Checks that an array shape is well formed: dims not negative, the layout fits (minor_to_major
// is a permutation of the dims, tile entries positive or `*` but not ending in `*`, E(n) within
// 0..128, split indices inside their dim, index/pointer types unsigned) and every size, padded
// ones included, fits in 64 bits. The shape parser calls this; builders of shapes may too.
absl::Status validate_array_layout(const Shape& array);

}  // namespace hloroof

#endif  // HLOROOF_SHAPE_SIZE_H_
