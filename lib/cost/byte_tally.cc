// Measuring shapes: element counts, sizes under the options, and the byte tally rules charge.
#include "cost/cost_internal.h"
#include "hloroof/shape_size.h"

namespace hloroof::cost {
namespace {

// XLA measures a tuple operand by its table of element pointers (docs/cost-conventions.md, "Where
// hloroof follows XLA").
constexpr double kPointerBytes = 8;

}  // namespace

double elements(const Shape& shape) {
  if (shape.kind == Shape::Kind::kBuffer && !shape.elements.empty()) {
    return elements(shape.elements.front());
  }
  if (!shape.is_array()) return 0;
  double n = 1;
  for (const Dimension& d : shape.dims) n *= static_cast<double>(d.size);
  return n;
}

double leaf_elements(const Shape& shape) {
  double n = 0;
  for_each_array_leaf(shape, [&](const Shape& leaf) { n += elements(leaf); });
  return n;
}

int64_t memory_space(const Shape& array) {
  if (array.kind == Shape::Kind::kBuffer && !array.elements.empty()) {
    return memory_space(array.elements.front());
  }
  return array.layout ? array.layout->memory_space : kDefaultMemorySpace;
}

PrimitiveType matrix_operand_type(PrimitiveType a, PrimitiveType b) {
  return primitive_bit_width(b) > primitive_bit_width(a) ? b : a;
}

void add_to_space(SpaceBytes& to, int64_t space, double bytes) {
  if (space == kDefaultMemorySpace) {
    to.device += bytes;
  } else if (space == kHostMemorySpace) {
    to.host += bytes;
  } else {
    to.on_chip += bytes;
  }
}

ArrayBytes ShapeSizes::array(const Shape& array) {
  auto [it, inserted] = cache_.try_emplace(&array);
  if (!inserted) return it->second;
  const Shape& leaf =
      array.kind == Shape::Kind::kBuffer && !array.elements.empty() ? array.elements[0] : array;
  absl::StatusOr<ArraySize> size = array_size(leaf);
  if (!size.ok()) {
    ++failures_;
    return it->second;
  }
  ArrayBytes& b = it->second;
  b.logical = static_cast<double>(size->logical_bytes);
  b.padded = static_cast<double>(padded_ ? size->padded_bytes : size->logical_bytes);
  b.xla = static_cast<double>(padded_ ? size->first_tile_padded_bytes : size->logical_bytes);
  b.space = size->memory_space;
  return b;
}

void ByteTally::charge(bool is_write, const Shape& measured, std::optional<int64_t> space,
                       Model model, double scale) {
  double logical = 0, padded = 0, xla = 0;
  int64_t where = kDefaultMemorySpace;
  switch (measured.kind) {
    case Shape::Kind::kToken:
      return;
    case Shape::Kind::kTuple:
      logical = padded = xla = kPointerBytes * static_cast<double>(measured.elements.size());
      break;
    case Shape::Kind::kArray:
    case Shape::Kind::kBuffer: {
      const ArrayBytes b = sizes_.array(measured);
      logical = b.logical;
      padded = b.padded;
      xla = b.xla;
      where = b.space;
      break;
    }
  }
  if (space) where = *space;
  if (model != Model::kXla) {
    (is_write ? logical_written_ : logical_read_) += logical * scale;
    add_to_space(is_write ? padded_written_ : padded_read_, where, padded * scale);
  }
  if (model != Model::kOurs) xla_ += xla * scale;
}

void ByteTally::read(const Shape& shape, Model model, double scale) {
  charge(false, shape, std::nullopt, model, scale);
}

void ByteTally::write(const Shape& shape, Model model, double scale) {
  charge(true, shape, std::nullopt, model, scale);
}

void ByteTally::read_leaves(const Shape& shape, Model model) {
  for_each_array_leaf(shape, [&](const Shape& leaf) { read(leaf, model); });
}

void ByteTally::write_leaves(const Shape& shape, Model model) {
  for_each_array_leaf(shape, [&](const Shape& leaf) { write(leaf, model); });
}

void ByteTally::read_in(const Shape& measured, int64_t space, Model model, double scale) {
  charge(false, measured, space, model, scale);
}

void ByteTally::write_in(const Shape& measured, int64_t space, Model model, double scale) {
  charge(true, measured, space, model, scale);
}

void ByteTally::add_to(OpCost& cost) const {
  cost.bytes_read += logical_read_;
  cost.bytes_written += logical_written_;
  cost.padded_read += padded_read_;
  cost.padded_written += padded_written_;
  cost.xla_bytes_accessed += xla_;
}

void ByteTally::add(const ByteTally& other) {
  logical_read_ += other.logical_read_;
  logical_written_ += other.logical_written_;
  padded_read_ += other.padded_read_;
  padded_written_ += other.padded_written_;
  xla_ += other.xla_;
}

}  // namespace hloroof::cost
