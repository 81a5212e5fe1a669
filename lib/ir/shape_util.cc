#include "ir/shape_util.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hloroof::detail {
namespace {

// `same(x, y)` for each pair of elements at the same position of a and b (which have as many).
// Two elements lists share their distinct entries often (copies of one shape): each pair of
// distinct entries is compared once.
bool all_element_pairs(const Shape& a, const Shape& b, bool (*same)(const Shape&, const Shape&)) {
  const TupleElements& x = a.elements;
  const TupleElements& y = b.elements;
  if (x.empty()) return true;
  if (x.distinct().size() == 1 && y.distinct().size() == 1) return same(x[0], y[0]);
  if (x.size() <= 16) {
    for (size_t i = 0; i < x.size(); ++i) {
      if (!same(x[i], y[i])) return false;
    }
    return true;
  }
  absl::flat_hash_map<std::pair<size_t, size_t>, bool> seen;
  for (size_t i = 0; i < x.size(); ++i) {
    auto [it, added] = seen.try_emplace({x.distinct_index(i), y.distinct_index(i)}, false);
    if (added) it->second = same(x[i], y[i]);
    if (!it->second) return false;
  }
  return true;
}

}  // namespace

bool same_ignoring_layout(const Shape& a, const Shape& b) {
  if (a.kind != b.kind || a.elements.size() != b.elements.size()) return false;
  if (a.kind == Shape::Kind::kArray && (a.element_type != b.element_type || a.dims != b.dims)) {
    return false;
  }
  return all_element_pairs(a, b, same_ignoring_layout);
}

bool compatible(const Shape& a, const Shape& b) {
  if (a.kind != b.kind || a.elements.size() != b.elements.size()) return false;
  if (a.kind == Shape::Kind::kArray) {
    if (a.element_type != b.element_type || a.dims.size() != b.dims.size()) return false;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      const Dimension& x = a.dims[d];
      const Dimension& y = b.dims[d];
      if (x.kind == Dimension::Kind::kUnbounded || y.kind == Dimension::Kind::kUnbounded) continue;
      if (x.size != y.size) return false;
    }
  }
  return all_element_pairs(a, b, compatible);
}

int64_t element_count(const Shape& array) {
  int64_t n = 1;
  for (const Dimension& d : array.dims) {
    if (d.kind == Dimension::Kind::kUnbounded) return -1;
    // A multiply that reports overflow, not a division per dimension.
    if (d.size < 0 || __builtin_mul_overflow(n, d.size, &n)) return -1;
  }
  return n;
}

Shape without_layout(const Shape& shape) {
  Shape out = shape;
  out.layout.reset();
  if (!shape.elements.empty()) {
    // Each distinct element once, then the list rebuilt from them (linear in its width).
    std::vector<Shape> plain;
    plain.reserve(shape.elements.distinct().size());
    for (const Shape& e : shape.elements.distinct()) plain.push_back(without_layout(e));
    TupleBuilder elements;
    for (size_t i = 0; i < shape.elements.size(); ++i) {
      elements.add(plain[shape.elements.distinct_index(i)]);
    }
    out.elements = elements.build();
  }
  return out;
}

}  // namespace hloroof::detail
