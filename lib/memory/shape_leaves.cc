#include "memory/shape_leaves.h"

#include <algorithm>

namespace hloroof::detail {
namespace {

// Leaves under the elements [0, i) of tuple `s`: constant time when every element holds as many
// leaves (the common case of a wide tuple), else a walk over those elements.
int64_t leaves_before(const Shape& s, int64_t i) {
  const int64_t per_element = s.elements.array_leaves_per_element();
  if (per_element >= 0) return per_element * i;
  int64_t first = 0;
  for (int64_t k = 0; k < i; ++k) first += s.elements[static_cast<size_t>(k)].array_leaf_count();
  return first;
}

}  // namespace

int64_t leaf_count(const Shape& shape) { return shape.array_leaf_count(); }

std::optional<LeafRange> leaf_range(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  int64_t first = 0;
  for (int64_t i : index) {
    if (!s->is_tuple() || i < 0 || i >= static_cast<int64_t>(s->elements.size())) {
      return std::nullopt;
    }
    first += leaves_before(*s, i);
    s = &s->elements[static_cast<size_t>(i)];
  }
  return LeafRange{first, leaf_count(*s)};
}

std::vector<int64_t> leaf_index(const Shape& shape, int64_t leaf) {
  std::vector<int64_t> index;
  const Shape* s = &shape;
  while (s->is_tuple()) {
    const auto size = static_cast<int64_t>(s->elements.size());
    const int64_t per_element = s->elements.array_leaves_per_element();
    int64_t i = 0;
    if (per_element > 0) {
      i = leaf >= 0 ? leaf / per_element : size;  // every element holds `per_element` leaves
      if (i < size) leaf -= i * per_element;
    } else {
      for (; i < size; ++i) {
        int64_t n = s->elements[static_cast<size_t>(i)].array_leaf_count();
        if (leaf < n) break;
        leaf -= n;
      }
    }
    if (i >= size) break;  // out of range: stop here
    index.push_back(i);
    s = &s->elements[static_cast<size_t>(i)];
  }
  return index;
}

std::vector<int64_t> LeafIndexer::index(const Shape& shape, int64_t leaf) {
  std::vector<int64_t> index;
  const Shape* s = &shape;
  while (s->is_tuple()) {
    const auto size = static_cast<int64_t>(s->elements.size());
    const int64_t per_element = s->elements.array_leaves_per_element();
    int64_t i = size;
    if (per_element > 0) {
      i = leaf >= 0 ? leaf / per_element : size;
      if (i < size) leaf -= i * per_element;
    } else if (per_element < 0) {
      auto [it, added] = ends_.try_emplace(s);
      std::vector<int64_t>& ends = it->second;
      if (added) {
        ends.reserve(static_cast<size_t>(size));
        int64_t n = 0;
        for (const Shape& e : s->elements) ends.push_back(n += e.array_leaf_count());
      }
      // The first element whose leaves end past `leaf`.
      i = std::upper_bound(ends.begin(), ends.end(), leaf) - ends.begin();
      if (i < size && i > 0) leaf -= ends[static_cast<size_t>(i) - 1];
    }
    if (i >= size) break;  // out of range: stop here
    index.push_back(i);
    s = &s->elements[static_cast<size_t>(i)];
  }
  return index;
}


}  // namespace hloroof::detail
