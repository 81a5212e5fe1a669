#include "ir/shape_table.h"

#include <cstdint>
#include <utility>

namespace hloroof::detail {
namespace {

inline size_t mix(size_t h, uint64_t v) {
  // 64-bit multiplicative mixing (the constant is 2^64 / golden ratio).
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

size_t hash_layout(size_t h, const Layout& l) {
  for (int64_t d : l.minor_to_major) h = mix(h, static_cast<uint64_t>(d));
  for (const Tile& t : l.tiles) {
    h = mix(h, 0x7117);
    for (int64_t d : t.dims) h = mix(h, static_cast<uint64_t>(d));
  }
  h = mix(h, static_cast<uint64_t>(l.memory_space));
  h = mix(h, static_cast<uint64_t>(l.element_size_bits));
  h = mix(h, static_cast<uint64_t>(l.tail_padding_alignment));
  h = mix(h, l.split_configs.size());
  return h;
}

}  // namespace

size_t hash_shape(const Shape& s) {
  size_t h = mix(static_cast<size_t>(s.kind), static_cast<uint64_t>(s.element_type));
  for (const Dimension& d : s.dims) {
    h = mix(h, static_cast<uint64_t>(d.size) * 4 + static_cast<uint64_t>(d.kind));
  }
  if (s.layout) h = hash_layout(mix(h, 1), *s.layout);
  for (const Shape& e : s.elements) h = mix(h, hash_shape(e));
  return h;
}

const Shape* ShapeTable::intern(const Shape& shape) {
  auto it = shapes_.find(&shape);
  if (it != shapes_.end()) return *it;
  const Shape* copy = arena_->create<Shape>(shape);
  shapes_.insert(copy);
  return copy;
}

const Shape* ShapeTable::intern(Shape&& shape) {
  auto it = shapes_.find(&shape);
  if (it != shapes_.end()) return *it;
  const Shape* moved = arena_->create<Shape>(std::move(shape));
  shapes_.insert(moved);
  return moved;
}

}  // namespace hloroof::detail
