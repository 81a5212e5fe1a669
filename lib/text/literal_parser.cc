// Constant literals, checked against their shape (docs/hlo-text.md, "Attributes"). The literal is
// kept as written; parsing it only validates nesting, element counts and value ranges.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_join.h"
#include "hloroof/shape_text.h"
#include "hloroof/absl_compat.h"
#include "text/module_parser.h"

namespace hloroof::text {
namespace {

constexpr int kMaxLiteralDepth = 64;

struct FloatFormat {
  PrimitiveType type;
  double max_finite;
  int mantissa_bits;
  int nan_payload_bits;  // 0: NaN has a single encoding; -1: no NaN at all
};

constexpr FloatFormat kFloatFormats[] = {
    {PrimitiveType::kF16, 65504.0, 10, 10},
    {PrimitiveType::kBF16, 3.38953138925153547590e38, 7, 7},
    {PrimitiveType::kF32, 3.40282346638528859812e38, 23, 23},
    {PrimitiveType::kF64, std::numeric_limits<double>::max(), 52, 52},
    {PrimitiveType::kF8E5M2, 57344.0, 2, 2},
    {PrimitiveType::kF8E4M3, 240.0, 3, 3},
    {PrimitiveType::kF8E4M3FN, 448.0, 3, 0},
    {PrimitiveType::kF8E4M3B11FNUZ, 30.0, 3, 0},
    {PrimitiveType::kF8E3M4, 15.5, 4, 4},
    {PrimitiveType::kF8E5M2FNUZ, 57344.0, 2, 0},
    {PrimitiveType::kF8E4M3FNUZ, 240.0, 3, 0},
    {PrimitiveType::kF8E8M0FNU, 1.70141183460469231732e38, 0, 0},
    {PrimitiveType::kF6E3M2FN, 28.0, 2, -1},
    {PrimitiveType::kF6E2M3FN, 7.5, 3, -1},
    {PrimitiveType::kF4E2M1FN, 6.0, 1, -1},
};

const FloatFormat* float_format(PrimitiveType type) {
  for (const FloatFormat& f : kFloatFormats) {
    if (f.type == type) return &f;
  }
  return nullptr;
}

// Values below max_finite + half an ulp round to a finite value.
double overflow_threshold(const FloatFormat& f) {
  if (f.type == PrimitiveType::kF64) return f.max_finite;
  int exponent = static_cast<int>(std::floor(std::log2(f.max_finite)));
  return f.max_finite + std::ldexp(1.0, exponent - f.mantissa_bits - 1);
}

std::string index_path(const std::vector<int64_t>& index) {
  return str_cat("[", absl::StrJoin(index, ","), "]");
}

}  // namespace

// literal ::= scalar | array | tuple_lit | '{' '...' '}'
bool ModuleParser::parse_literal(const Shape& shape, int depth) {
  if (depth > kMaxLiteralDepth) {
    return error_here(str_cat("literal nested more than ", kMaxLiteralDepth, " levels deep"));
  }
  // `{...}`: an elided value (printed for large constants); its value is unknown.
  if (at(TokenKind::kLBrace) && peek().is(TokenKind::kDots)) {
    advance();
    advance();
    return expect(TokenKind::kRBrace, "after '...'");
  }
  switch (shape.kind) {
    case Shape::Kind::kTuple: {
      if (!at(TokenKind::kLParen)) {
        return expected(str_cat("'(' to open the tuple literal of ", to_string(shape)));
      }
      advance();
      for (size_t i = 0; i < shape.elements.size(); ++i) {
        if (i > 0 && !expect(TokenKind::kComma, "between tuple literal elements")) return false;
        if (!parse_literal(shape.elements[i], depth + 1)) return false;
      }
      return expect(TokenKind::kRParen,
                    str_cat("to close the tuple literal of ", to_string(shape)));
    }
    case Shape::Kind::kBuffer:
    case Shape::Kind::kToken:
      return error_here(str_cat("a constant cannot have shape ", to_string(shape)));
    case Shape::Kind::kArray:
      break;
  }
  if (shape.element_type == PrimitiveType::kOpaque) {
    return error_here("a constant cannot have an opaque shape");
  }
  // A bare scalar for an array is accepted as upstream does (its tests use it, e.g.
  // `f32[8] constant(0)`); the literal is kept as written.
  if (shape.dims.empty() || !at(TokenKind::kLBrace)) {
    return parse_scalar_literal(shape.element_type);
  }
  if (!at(TokenKind::kLBrace)) {
    return expected(
        str_cat("'{' to open the literal of ", to_string(shape), " (rank ", shape.rank(), ")"));
  }
  std::vector<int64_t> index;
  return parse_array_literal(shape, 0, index);
}

// array ::= '{' (elem (',' elem)*)? '}', nested to exactly the rank, with dims[d] elements.
bool ModuleParser::parse_array_literal(const Shape& shape, size_t dim,
                                       std::vector<int64_t>& index) {
  if (dim > static_cast<size_t>(kMaxLiteralDepth)) {
    return error_here(str_cat("literal nested more than ", kMaxLiteralDepth, " levels deep"));
  }
  Token open = tok_;
  if (!at(TokenKind::kLBrace)) {
    return expected(str_cat("'{' to open sub-array ", index_path(index), " of the ",
                            to_string(shape), " literal"));
  }
  advance();
  const bool last = dim + 1 == shape.dims.size();
  const Dimension& d = shape.dims[dim];
  int64_t count = 0;
  if (!at(TokenKind::kRBrace)) {
    do {
      if (last) {
        if (at(TokenKind::kLBrace)) {
          return error_here(str_cat("the literal nests deeper than the rank ", shape.rank(), " of ",
                                    to_string(shape)));
        }
        if (!parse_scalar_literal(shape.element_type)) return false;
      } else {
        index.push_back(count);
        if (!at(TokenKind::kLBrace)) {
          return expected(str_cat("'{' to open sub-array ", index_path(index), " (the ",
                                  to_string(shape), " literal nests ", shape.rank(), " levels)"));
        }
        if (!parse_array_literal(shape, dim + 1, index)) return false;
        index.pop_back();
      }
      ++count;
      // Upstream does not insist on the commas between elements; some of its tests omit them.
      consume_if(TokenKind::kComma);
    } while (!at(TokenKind::kRBrace) && !at(TokenKind::kEof));
  }
  if (!at(TokenKind::kRBrace)) {
    return expected(str_cat("'}' to close sub-array ", index_path(index)));
  }
  advance();
  bool fits = d.kind == Dimension::Kind::kStatic    ? count == d.size
              : d.kind == Dimension::Kind::kBounded ? count <= d.size
                                                    : true;
  if (!fits) {
    std::string where =
        index.empty() ? std::string("the literal") : str_cat("sub-array ", index_path(index));
    return error(open, str_cat("expected ", d.size, " elements in ", where, ", found ", count));
  }
  return true;
}

// scalar ::= number | 'true' | 'false' | '(' number ',' number ')'
bool ModuleParser::parse_scalar_literal(PrimitiveType type) {
  if (at(TokenKind::kDxD) && tok_.text.substr(0, 2) == "0x") {
    return error_here(str_cat("hex integers are not supported: ", tok_.text));
  }
  if (type == PrimitiveType::kPred) {
    if (consume_if(TokenKind::kw_true) || consume_if(TokenKind::kw_false)) return true;
    if (at(TokenKind::kInt) && !tok_.negative && tok_.int_bits <= 1) {
      advance();
      return true;
    }
    return expected("true, false, 0 or 1 for a pred value");
  }
  if (is_signed_integral(type) || is_unsigned_integral(type)) {
    if (!at(TokenKind::kInt)) {
      return expected(str_cat("an integer for a ", primitive_type_name(type), " value"));
    }
    const int bits = primitive_bit_width(type);
    bool in_range;
    std::string range;
    if (is_unsigned_integral(type)) {
      uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
      // u64 takes negative values and wraps them, as upstream does (its tests rely on it).
      in_range = bits == 64 || ((!tok_.negative || tok_.int_bits == 0) && tok_.int_bits <= max);
      range = str_cat("[0, ", max, "]");
    } else {
      int64_t min = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
      int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
      in_range =
          tok_.negative ? tok_.int_value() >= min : tok_.int_bits <= static_cast<uint64_t>(max);
      range = str_cat("[", min, ", ", max, "]");
    }
    if (!in_range) {
      return error_here(str_cat("value ", tok_.text, " is out of range for ",
                                primitive_type_name(type), " ", range));
    }
    advance();
    return true;
  }
  if (is_complex(type)) {
    PrimitiveType part = type == PrimitiveType::kC64 ? PrimitiveType::kF32 : PrimitiveType::kF64;
    if (!expect(TokenKind::kLParen,
                str_cat("to open a ", primitive_type_name(type), " value (real, imag)"))) {
      return false;
    }
    if (!parse_scalar_literal(part)) return false;
    if (!expect(TokenKind::kComma, "between the real and imaginary parts")) return false;
    if (!parse_scalar_literal(part)) return false;
    return expect(TokenKind::kRParen, "to close the complex value");
  }
  const FloatFormat* format = float_format(type);
  if (format == nullptr) {
    return error_here(str_cat("a constant cannot hold ", primitive_type_name(type), " values"));
  }
  if (consume_if(TokenKind::kw_inf) || consume_if(TokenKind::kNegInf)) return true;
  if (!at(TokenKind::kInt) && !at(TokenKind::kDecimal)) {
    return expected(str_cat("a number for a ", primitive_type_name(type), " value"));
  }
  std::string_view text = tok_.text;
  std::string_view unsigned_text = text.substr(text[0] == '-' ? 1 : 0);
  if (unsigned_text.substr(0, 3) == "nan") {
    if (format->nan_payload_bits < 0) {
      return error_here(str_cat(primitive_type_name(type), " has no NaN"));
    }
    if (unsigned_text.size() > 3) {  // nan(0xHEX)
      std::string_view hex = unsigned_text.substr(6, unsigned_text.size() - 7);
      uint64_t payload = 0;
      auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), payload, 16);
      int bits = format->nan_payload_bits;
      if (ec != std::errc() || payload == 0 || (bits < 64 && payload >> bits != 0)) {
        return error_here(str_cat("NaN payload 0x", hex, " does not fit the ", bits,
                                  " payload bits of ", primitive_type_name(type)));
      }
    }
    advance();
    return true;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    value = std::strtod(std::string(text).c_str(), nullptr);  // +-HUGE_VAL, or tiny on underflow
  } else if (ec != std::errc()) {
    return error_here(str_cat("cannot read ", text, " as a number"));
  }
  if (std::isinf(value) ||
      (type != PrimitiveType::kF64 && std::fabs(value) >= overflow_threshold(*format))) {
    return error_here(str_cat("value ", text, " is out of range for ", primitive_type_name(type),
                              " (largest finite value ", format->max_finite, ")"));
  }
  advance();
  return true;
}

// typed_literal ::= shape literal | '(' typed_literal (',' typed_literal)* ')'
// (custom-call `literal=`: a tuple prints each element with its own shape).
bool ModuleParser::parse_typed_literal(int depth) {
  if (depth > kMaxLiteralDepth) {
    return error_here(str_cat("literal nested more than ", kMaxLiteralDepth, " levels deep"));
  }
  if (at(TokenKind::kLParen)) {
    // `(s32[2]{0} {1, 2}, ...)` or a tuple shape `(s32[2], ...) (...)`: a shape followed by
    // ',' or ')' means the latter.
    Checkpoint start = checkpoint();
    advance();
    Shape first;
    bool tuple_shape = consume_if(TokenKind::kRParen) ||
                       (parse_shape(&first) && (at(TokenKind::kComma) || at(TokenKind::kRParen)));
    rewind(start);
    if (!tuple_shape) {
      advance();
      do {
        if (!parse_typed_literal(depth + 1)) return false;
      } while (consume_if(TokenKind::kComma));
      return expect(TokenKind::kRParen, "to close the tuple literal");
    }
  }
  Shape shape;
  if (!parse_shape(&shape)) return false;
  return parse_literal(shape, depth + 1);
}

}  // namespace hloroof::text
