#include "predict/shape_leaves.h"

namespace hloroof::detail {

int64_t leaf_count(const Shape& shape) {
  switch (shape.kind) {
    case Shape::Kind::kArray:
      return 1;
    case Shape::Kind::kToken:
      return 0;
    case Shape::Kind::kTuple:
    case Shape::Kind::kBuffer: {
      int64_t n = 0;
      for (const Shape& e : shape.elements) n += leaf_count(e);
      return n;
    }
  }
  return 0;
}

std::optional<LeafRange> leaf_range(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  int64_t first = 0;
  for (int64_t i : index) {
    if (!s->is_tuple() || i < 0 || i >= static_cast<int64_t>(s->elements.size())) {
      return std::nullopt;
    }
    for (int64_t k = 0; k < i; ++k) first += leaf_count(s->elements[k]);
    s = &s->elements[i];
  }
  return LeafRange{first, leaf_count(*s)};
}

std::vector<int64_t> leaf_index(const Shape& shape, int64_t leaf) {
  std::vector<int64_t> index;
  const Shape* s = &shape;
  while (s->is_tuple()) {
    int64_t i = 0;
    for (; i < static_cast<int64_t>(s->elements.size()); ++i) {
      int64_t n = leaf_count(s->elements[i]);
      if (leaf < n) break;
      leaf -= n;
    }
    if (i == static_cast<int64_t>(s->elements.size())) break;  // out of range: stop here
    index.push_back(i);
    s = &s->elements[i];
  }
  return index;
}

std::vector<const Shape*> leaf_shapes(const Shape& shape) {
  std::vector<const Shape*> leaves;
  for_each_array_leaf(shape, [&](const Shape& leaf) { leaves.push_back(&leaf); });
  return leaves;
}

}  // namespace hloroof::detail
