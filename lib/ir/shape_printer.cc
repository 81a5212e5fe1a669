#include "ir/shape_printer.h"

#include "hloroof/shape.h"
#include "ir/strings.h"

namespace hloroof::detail {
namespace {

void append_paren_int(std::string* out, std::string_view letter, int64_t value) {
  str_append(out, letter, "(", value, ")");
}

// The parts after `:`; empty when the layout has only minor_to_major.
void append_layout_properties(std::string* out, const Layout& layout) {
  if (layout.has_dim_levels) {
    out->append("D(");
    for (size_t i = 0; i < layout.dim_levels.size(); ++i) {
      const DimLevel& level = layout.dim_levels[i];
      if (i > 0) out->push_back(',');
      out->push_back(level.kind);
      if (level.not_unique) out->push_back('+');
      if (level.not_ordered) out->push_back('~');
    }
    out->push_back(')');
  }
  if (!layout.tiles.empty()) {
    out->push_back('T');
    for (const Tile& tile : layout.tiles) {
      out->push_back('(');
      for (size_t i = 0; i < tile.dims.size(); ++i) {
        if (i > 0) out->push_back(',');
        if (tile.dims[i] == Tile::kCombinedDim) {
          out->push_back('*');
        } else {
          str_append(out, tile.dims[i]);
        }
      }
      out->push_back(')');
    }
  }
  if (layout.tail_padding_alignment != 1) append_paren_int(out, "L", layout.tail_padding_alignment);
  if (layout.index_type != PrimitiveType::kInvalid) {
    str_append(out, "#(", primitive_type_name(layout.index_type), ")");
  }
  if (layout.pointer_type != PrimitiveType::kInvalid) {
    str_append(out, "*(", primitive_type_name(layout.pointer_type), ")");
  }
  if (layout.element_size_bits != 0) append_paren_int(out, "E", layout.element_size_bits);
  if (layout.memory_space != 0) append_paren_int(out, "S", layout.memory_space);
  if (!layout.split_configs.empty()) {
    out->append("SC");
    for (const SplitConfig& config : layout.split_configs) {
      str_append(out, "(", config.dimension, ":");
      for (size_t i = 0; i < config.split_indices.size(); ++i) {
        if (i > 0) out->push_back(',');
        str_append(out, config.split_indices[i]);
      }
      out->push_back(')');
    }
  }
  for (const Shape& physical : layout.physical_shape) {
    out->append("P(");
    append_shape(out, physical);
    out->push_back(')');
  }
  if (layout.dynamic_shape_metadata_prefix_bytes != 0) {
    append_paren_int(out, "M", layout.dynamic_shape_metadata_prefix_bytes);
  }
}

}  // namespace

void append_layout(std::string* out, const Layout& layout) {
  out->push_back('{');
  for (size_t i = 0; i < layout.minor_to_major.size(); ++i) {
    if (i > 0) out->push_back(',');
    str_append(out, layout.minor_to_major[i]);
  }
  if (!layout.has_only_minor_to_major()) {
    out->push_back(':');
    append_layout_properties(out, layout);
  }
  out->push_back('}');
}

void append_shape(std::string* out, const Shape& shape) {
  switch (shape.kind) {
    case Shape::Kind::kTuple:
      out->push_back('(');
      for (size_t i = 0; i < shape.elements.size(); ++i) {
        if (i > 0) out->append(", ");
        if (i > 0 && i % 5 == 0) str_append(out, "/*index=", i, "*/");
        append_shape(out, shape.elements[i]);
      }
      out->push_back(')');
      return;
    case Shape::Kind::kBuffer:
      out->append("b(");
      if (!shape.elements.empty()) append_shape(out, shape.elements[0]);
      out->push_back(')');
      return;
    case Shape::Kind::kToken:
      out->append("token[]");
      return;
    case Shape::Kind::kArray:
      break;
  }
  out->append(primitive_type_name(shape.element_type));
  out->push_back('[');
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (i > 0) out->push_back(',');
    const Dimension& d = shape.dims[i];
    switch (d.kind) {
      case Dimension::Kind::kStatic:
        str_append(out, d.size);
        break;
      case Dimension::Kind::kBounded:
        str_append(out, "<=", d.size);
        break;
      case Dimension::Kind::kUnbounded:
        out->push_back('?');
        break;
    }
  }
  out->push_back(']');
  // A scalar's layout prints only when it says more than `{}` (syntax 3.2).
  if (shape.layout && !(shape.dims.empty() && shape.layout->has_only_minor_to_major())) {
    append_layout(out, *shape.layout);
  }
}

}  // namespace hloroof::detail

namespace hloroof {

std::string to_string(const Shape& shape) {
  std::string out;
  detail::append_shape(&out, shape);
  return out;
}

std::string to_string(const Layout& layout) {
  std::string out;
  detail::append_layout(&out, layout);
  return out;
}

}  // namespace hloroof
