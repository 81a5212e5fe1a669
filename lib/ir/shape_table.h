// Interned shapes: each distinct shape of a module is stored once, and instructions point at it.
// Real modules repeat a few hundred shapes across hundreds of thousands of instructions.
#ifndef HLOROOF_IR_SHAPE_TABLE_H_
#define HLOROOF_IR_SHAPE_TABLE_H_

#include <cstddef>

#include "absl/container/flat_hash_set.h"
#include "hloroof/shape.h"
#include "ir/arena.h"

namespace hloroof::detail {

size_t hash_shape(const Shape& shape);

class ShapeTable {
 public:
  explicit ShapeTable(Arena* arena) : arena_(arena) {}
  // The module's copy of `shape`, created on first use.
  const Shape* intern(const Shape& shape);
  // Same, moving `shape` into the module when it is new (a wide tuple is then never copied);
  // `shape` is left valid but unspecified.
  const Shape* intern(Shape&& shape);
  size_t size() const { return shapes_.size(); }
  // Heap bytes of the hash set (one pointer and one control byte per bucket).
  size_t table_bytes() const {
    return shapes_.capacity() == 0 ? 0 : shapes_.capacity() * (sizeof(const Shape*) + 1);
  }

 private:
  struct Hash {
    size_t operator()(const Shape* s) const { return hash_shape(*s); }
  };
  struct Eq {
    bool operator()(const Shape* a, const Shape* b) const { return *a == *b; }
  };
  Arena* arena_;
  absl::flat_hash_set<const Shape*, Hash, Eq> shapes_;
};

}  // namespace hloroof::detail

#endif  // HLOROOF_IR_SHAPE_TABLE_H_
