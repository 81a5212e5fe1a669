#include "ir/shape_printer.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "hloroof/shape.h"

namespace hloroof::detail {
namespace {

// Text appended to a string through a buffer on the stack, handed over when full and at the
// end: a shape is dozens of pieces of a few characters, each an append of its own otherwise.
class Text {
 public:
  explicit Text(std::string* out) : out_(out) {}
  Text(const Text&) = delete;
  Text& operator=(const Text&) = delete;
  ~Text() { flush(); }

  Text& operator<<(char c) {
    if (at_ == std::end(buffer_)) flush();
    *at_++ = c;
    return *this;
  }
  Text& operator<<(std::string_view s) {
    if (s.size() > static_cast<size_t>(std::end(buffer_) - at_)) {
      flush();
      if (s.size() > sizeof buffer_) {
        out_->append(s);
        return *this;
      }
    }
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
    return *this;
  }
  Text& operator<<(int64_t v) {
    if (std::end(buffer_) - at_ < kMaxDigits) flush();
    at_ = std::to_chars(at_, std::end(buffer_), v).ptr;
    return *this;
  }
  Text& operator<<(size_t v) { return *this << static_cast<int64_t>(v); }

  void flush() {
    out_->append(buffer_, static_cast<size_t>(at_ - buffer_));
    at_ = buffer_;
  }

 private:
  static constexpr std::ptrdiff_t kMaxDigits = 20;  // -9223372036854775808
  std::string* out_;
  char buffer_[256];
  char* at_ = buffer_;
};

void write_shape(Text& out, const Shape& shape);

void write_paren_int(Text& out, std::string_view letter, int64_t value) {
  out << letter << '(' << value << ')';
}

// The parts after `:`; empty when the layout has only minor_to_major.
void write_layout_properties(Text& out, const Layout& layout) {
  if (layout.has_dim_levels) {
    out << "D(";
    for (size_t i = 0; i < layout.dim_levels.size(); ++i) {
      const DimLevel& level = layout.dim_levels[i];
      if (i > 0) out << ',';
      out << level.kind;
      if (level.not_unique) out << '+';
      if (level.not_ordered) out << '~';
    }
    out << ')';
  }
  if (!layout.tiles.empty()) {
    out << 'T';
    for (const Tile& tile : layout.tiles) {
      out << '(';
      for (size_t i = 0; i < tile.dims.size(); ++i) {
        if (i > 0) out << ',';
        if (tile.dims[i] == Tile::kCombinedDim) {
          out << '*';
        } else {
          out << static_cast<int64_t>(tile.dims[i]);
        }
      }
      out << ')';
    }
  }
  if (layout.tail_padding_alignment != 1) {
    write_paren_int(out, "L", layout.tail_padding_alignment);
  }
  if (layout.index_type != PrimitiveType::kInvalid) {
    out << "#(" << primitive_type_name(layout.index_type) << ')';
  }
  if (layout.pointer_type != PrimitiveType::kInvalid) {
    out << "*(" << primitive_type_name(layout.pointer_type) << ')';
  }
  if (layout.element_size_bits != 0) write_paren_int(out, "E", layout.element_size_bits);
  if (layout.memory_space != 0) write_paren_int(out, "S", layout.memory_space);
  if (!layout.split_configs.empty()) {
    out << "SC";
    for (const SplitConfig& config : layout.split_configs) {
      out << '(' << static_cast<int64_t>(config.dimension) << ':';
      for (size_t i = 0; i < config.split_indices.size(); ++i) {
        if (i > 0) out << ',';
        out << static_cast<int64_t>(config.split_indices[i]);
      }
      out << ')';
    }
  }
  for (const Shape& physical : layout.physical_shape) {
    out << "P(";
    write_shape(out, physical);
    out << ')';
  }
  if (layout.dynamic_shape_metadata_prefix_bytes != 0) {
    write_paren_int(out, "M", layout.dynamic_shape_metadata_prefix_bytes);
  }
}

void write_layout(Text& out, const Layout& layout) {
  out << '{';
  for (size_t i = 0; i < layout.minor_to_major.size(); ++i) {
    if (i > 0) out << ',';
    out << static_cast<int64_t>(layout.minor_to_major[i]);
  }
  if (!layout.has_only_minor_to_major()) {
    out << ':';
    write_layout_properties(out, layout);
  }
  out << '}';
}

void write_shape(Text& out, const Shape& shape) {
  switch (shape.kind) {
    case Shape::Kind::kTuple:
      out << '(';
      for (size_t i = 0; i < shape.elements.size(); ++i) {
        if (i > 0) out << ", ";
        if (i > 0 && i % 5 == 0) out << "/*index=" << i << "*/";
        write_shape(out, shape.elements[i]);
      }
      out << ')';
      return;
    case Shape::Kind::kBuffer:
      out << "b(";
      if (!shape.elements.empty()) write_shape(out, shape.elements[0]);
      out << ')';
      return;
    case Shape::Kind::kToken:
      out << "token[]";
      return;
    case Shape::Kind::kArray:
      break;
  }
  out << primitive_type_name(shape.element_type) << '[';
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (i > 0) out << ',';
    const Dimension& d = shape.dims[i];
    switch (d.kind) {
      case Dimension::Kind::kStatic:
        out << static_cast<int64_t>(d.size);
        break;
      case Dimension::Kind::kBounded:
        out << "<=" << static_cast<int64_t>(d.size);
        break;
      case Dimension::Kind::kUnbounded:
        out << '?';
        break;
    }
  }
  out << ']';
  // A scalar's layout prints only when it says more than `{}` (syntax 3.2).
  if (shape.layout && !(shape.dims.empty() && shape.layout->has_only_minor_to_major())) {
    write_layout(out, *shape.layout);
  }
}

}  // namespace

void append_shape(std::string* out, const Shape& shape) {
  Text text(out);
  write_shape(text, shape);
}

void append_layout(std::string* out, const Layout& layout) {
  Text text(out);
  write_layout(text, layout);
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
