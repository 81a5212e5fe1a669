#include "ir/shape_table.h"

#include <utility>

namespace hloroof::detail {

size_t hash_shape(const Shape& s) { return s.hash(); }

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
