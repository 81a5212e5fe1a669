// Array leaves of a shape, numbered in depth-first order (the order of for_each_array_leaf):
// buffers are tracked per leaf, and tuple shape indices name ranges of leaves.
#ifndef HLOROOF_PREDICT_SHAPE_LEAVES_H_
#define HLOROOF_PREDICT_SHAPE_LEAVES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "hloroof/shape.h"

namespace hloroof::detail {

// Array leaves under `shape` (tokens have none, a buffer shape has one).
int64_t leaf_count(const Shape& shape);

// The leaves under the subshape at `index`: leaves [first, first + count).
struct LeafRange {
  int64_t first = 0;
  int64_t count = 0;
};
// nullopt when `index` names no subshape of `shape`.
std::optional<LeafRange> leaf_range(const Shape& shape, absl::Span<const int64_t> index);

// The shape index of leaf number `leaf` ({} for an array shape). Constant time per level of
// a tuple whose elements hold the same number of leaves; otherwise a walk over the elements
// before the leaf's (use a LeafIndexer to ask for many leaves).
std::vector<int64_t> leaf_index(const Shape& shape, int64_t leaf);

// leaf_index for many leaves: a tuple whose elements hold different numbers of leaves is
// walked once, then searched (logarithmic time per level), so that naming every leaf of a wide
// tuple takes time linear in its width. Holds pointers to the shapes it was asked about.
class LeafIndexer {
 public:
  std::vector<int64_t> index(const Shape& shape, int64_t leaf);

 private:
  // Per tuple: the leaves under its elements [0, i], for each i.
  absl::flat_hash_map<const Shape*, std::vector<int64_t>> ends_;
};


}  // namespace hloroof::detail

#endif  // HLOROOF_PREDICT_SHAPE_LEAVES_H_
