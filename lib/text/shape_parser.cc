// Shapes and layouts: docs/hlo-text.md, "Shapes" and "Layouts and tiles".
#include <algorithm>
#include <array>

#include "absl/strings/str_join.h"
#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "hloroof/absl_compat.h"
#include "text/parser.h"
#include "ir/shape_printer.h"

namespace hloroof::text {
namespace {

// Tuple shapes nest; a bound keeps hostile input from exhausting the stack.
constexpr int kMaxShapeDepth = 64;

// Layout properties, in the only order the text may list them (syntax 4.1).
enum class LayoutProperty : uint8_t { kD, kT, kL, kIndex, kPointer, kE, kS, kSC, kP, kM, kNone };
constexpr std::array<std::string_view, 10> kPropertyNames = {"D", "T", "L",  "#", "*",
                                                             "E", "S", "SC", "P", "M"};

LayoutProperty property_of(const Token& t) {
  if (t.is(TokenKind::kHash)) return LayoutProperty::kIndex;
  if (t.is(TokenKind::kStar)) return LayoutProperty::kPointer;
  if (!t.is(TokenKind::kIdent)) return LayoutProperty::kNone;
  for (size_t i = 0; i < kPropertyNames.size(); ++i) {
    if (t.text == kPropertyNames[i] && i != 3 && i != 4) return static_cast<LayoutProperty>(i);
  }
  return LayoutProperty::kNone;
}

std::string_view name_of(LayoutProperty p) { return kPropertyNames[static_cast<size_t>(p)]; }

}  // namespace

bool Parser::at_shape_start() {
  if (at(TokenKind::kPrim) || at(TokenKind::kLParen)) return true;
  return at(TokenKind::kIdent) && tok_.text == "b" && peek().is(TokenKind::kLParen);
}

bool Parser::parse_shape(Shape* out) { return parse_shape_at_depth(out, 0); }

// shape ::= array_shape | tuple_shape | buffer_shape
bool Parser::parse_shape_at_depth(Shape* out, int depth) {
  if (depth > kMaxShapeDepth) {
    return error_here(str_cat("shape nested more than ", kMaxShapeDepth, " levels deep"));
  }
  // Reset field by field: `out` is often a scratch shape whose dims are reused.
  out->kind = Shape::Kind::kArray;
  out->element_type = PrimitiveType::kInvalid;
  out->dims.clear();
  out->layout.reset();
  out->elements = TupleElements();
  if (at(TokenKind::kPrim)) return parse_array_shape(out, depth);

  // tuple_shape ::= '(' (shape (',' shape)*)? ')'
  if (consume_if(TokenKind::kLParen)) {
    out->kind = Shape::Kind::kTuple;
    if (consume_if(TokenKind::kRParen)) return true;
    // Each element is parsed into one scratch shape and stored once per distinct value.
    TupleBuilder elements;
    Shape element;
    do {
      // Long tuples (a while loop's state) repeat array shapes already read elsewhere.
      const bool array = depth < kMaxShapeDepth && at(TokenKind::kPrim);
      const char* begin = tok_.begin();
      if (array) {
        if (const Shape* known = take_known_array_shape()) {
          elements.add(*known);
          continue;
        }
      }
      if (!parse_shape_at_depth(&element, depth + 1)) return false;
      if (array) remember_array_shape(begin, element);
      elements.add(std::move(element));
    } while (consume_if(TokenKind::kComma));
    out->elements = elements.build();
    return expect(TokenKind::kRParen, "to close the tuple shape");
  }

  // buffer_shape ::= 'b' '(' array_shape ')'
  if (at(TokenKind::kIdent) && tok_.text == "b" && peek().is(TokenKind::kLParen)) {
    advance();
    advance();
    Token inner = tok_;
    Shape array;
    if (!parse_shape_at_depth(&array, depth + 1)) return false;
    if (!array.is_array()) return error(inner, "only an array shape can be wrapped in b(...)");
    *out = Shape::Buffer(std::move(array));
    return expect(TokenKind::kRParen, "to close the buffer shape b(...)");
  }

  if (at(TokenKind::kIdent) && peek().is(TokenKind::kLBracket)) {
    return error_here(str_cat("unknown element type '", tok_.text, "'"));
  }
  return expected("a shape");
}

// array_shape ::= PRIM '[' (dim (',' dim)*)? ']' layout?
// dim         ::= INT | '<=' INT | '?'
bool Parser::parse_array_shape(Shape* out, int depth) {
  Token start = tok_;
  PrimitiveType type = tok_.prim;
  advance();
  out->element_type = type;
  if (type == PrimitiveType::kToken) out->kind = Shape::Kind::kToken;
  if (!expect(TokenKind::kLBracket, "after the element type ", start.text)) {
    return false;
  }
  if (!at(TokenKind::kRBracket)) {
    do {
      Dimension dim;
      if (consume_if(TokenKind::kQuestion)) {
        dim.kind = Dimension::Kind::kUnbounded;
      } else {
        if (consume_if(TokenKind::kLeq)) dim.kind = Dimension::Kind::kBounded;
        if (at(TokenKind::kInt) && tok_.negative && tok_.int_bits != 0) {
          return error_here(str_cat("dimension size ", tok_.text, " is negative"));
        }
        if (!parse_int(&dim.size, "a dimension size")) return false;
      }
      out->dims.push_back(dim);
    } while (consume_if(TokenKind::kComma));
  }
  if (!expect(TokenKind::kRBracket, "to close the dimensions")) return false;

  if (out->kind == Shape::Kind::kToken && !out->dims.empty()) {
    return error(start, "a token shape has no dimensions: write token[]");
  }
  // The element count must be representable; bounded dims count at their bound.
  int64_t count = 1;
  for (const Dimension& d : out->dims) {
    if (d.kind == Dimension::Kind::kUnbounded || d.size == 0) continue;
    if (count > INT64_MAX / d.size) {
      return error(start, str_cat("shape ", to_string(*out),
                                  " has more elements than fit in a signed 64-bit count"));
    }
    count *= d.size;
  }

  // A `{` starts a layout only when an INT or ':' follows (syntax 3.2); `f32[8] {` may be the
  // start of a computation body.
  if (at(TokenKind::kLBrace)) {
    Token next = peek();
    if (next.is(TokenKind::kInt) || next.is(TokenKind::kColon)) {
      if (out->kind == Shape::Kind::kToken || type == PrimitiveType::kOpaque) {
        return error_here(str_cat(start.text, " shapes have no layout"));
      }
      return parse_layout(out, depth);
    }
  }
  return true;
}

// layout ::= '{' minor_to_major? (':' properties)? '}'
bool Parser::parse_layout(Shape* array, int depth) {
  Token open = tok_;
  advance();
  Layout& layout = array->layout.emplace();
  if (at(TokenKind::kInt)) {
    do {
      int64_t d;
      if (!parse_int(&d, "a minor_to_major entry")) return false;
      layout.minor_to_major.push_back(d);
    } while (consume_if(TokenKind::kComma));
  }
  if (consume_if(TokenKind::kColon)) {
    if (!parse_layout_properties(&layout, depth)) return false;
  }
  if (!at(TokenKind::kRBrace)) {
    return expected("a layout property (D T L # * E S SC P M, in that order) or '}'");
  }
  advance();

  const int64_t rank = array->rank();
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) {
    return error(open, str_cat("layout has ", layout.minor_to_major.size(),
                               " minor_to_major entries but the shape has rank ", rank));
  }
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t d : layout.minor_to_major) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) {
      return error(open, str_cat("minor_to_major {", absl::StrJoin(layout.minor_to_major, ","),
                                 "} is not a permutation of 0..", rank - 1));
    }
    seen[static_cast<size_t>(d)] = true;
  }
  if (!layout.physical_shape.empty()) {
    return error(open,
                 "a layout with a physical shape P(...) is only valid for sparse arrays, "
                 "which HLO text no longer has");
  }
  if (absl::Status s = validate_array_layout(*array); !s.ok()) {
    return error(open, std::string(s.message()));
  }
  // A scalar layout that says nothing (`{:}`, `{:S(0)}`) is the default layout, which the
  // printer leaves out: drop it so that a shape equals its reparsed printout.
  if (rank == 0 && layout.has_only_minor_to_major()) array->layout.reset();
  return true;
}

// properties ::= dim_levels? tiles? tail_pad? index_type? pointer_type? elem_size? mem_space?
//                split_cfgs? physical? dyn_prefix?
bool Parser::parse_layout_properties(Layout* layout, int depth) {
  LayoutProperty last = LayoutProperty::kNone;
  for (;;) {
    LayoutProperty p = property_of(tok_);
    if (p == LayoutProperty::kNone) return true;
    if (last != LayoutProperty::kNone && p <= last) {
      if (p == last) return error_here(str_cat("layout property ", name_of(p), "(...) repeated"));
      return error_here(str_cat("layout properties out of order: ", name_of(p),
                                "(...) must come before ", name_of(last), "(...)"));
    }
    last = p;
    advance();
    switch (p) {
      case LayoutProperty::kD:
        if (!parse_dim_levels(layout)) return false;
        break;
      case LayoutProperty::kT:
        if (!parse_tiles(layout)) return false;
        break;
      case LayoutProperty::kL:
        if (!parse_paren_int(&layout->tail_padding_alignment, "L(...) tail padding alignment")) {
          return false;
        }
        break;
      case LayoutProperty::kIndex:
        if (!parse_paren_prim(&layout->index_type, "#(...) index type")) return false;
        break;
      case LayoutProperty::kPointer:
        if (!parse_paren_prim(&layout->pointer_type, "*(...) pointer type")) return false;
        break;
      case LayoutProperty::kE:
        if (!parse_paren_int(&layout->element_size_bits, "E(...) element size in bits")) {
          return false;
        }
        break;
      case LayoutProperty::kS:
        if (!parse_paren_int(&layout->memory_space, "S(...) memory space")) return false;
        break;
      case LayoutProperty::kSC:
        if (!parse_split_configs(layout)) return false;
        break;
      case LayoutProperty::kP: {
        if (!expect(TokenKind::kLParen, "after P")) return false;
        layout->physical_shape.emplace_back();
        if (!parse_shape_at_depth(&layout->physical_shape.back(), depth + 1)) return false;
        if (!expect(TokenKind::kRParen, "to close P(...)")) return false;
        break;
      }
      case LayoutProperty::kM:
        if (!parse_paren_int(&layout->dynamic_shape_metadata_prefix_bytes,
                             "M(...) dynamic shape metadata bytes")) {
          return false;
        }
        break;
      case LayoutProperty::kNone:
        return true;
    }
  }
}

// dim_levels ::= 'D' '(' (dlt (',' dlt)*)? ')'     dlt ::= ('D'|'C'|'S'|'H') '+'? '~'?
bool Parser::parse_dim_levels(Layout* layout) {
  layout->has_dim_levels = true;
  if (!expect(TokenKind::kLParen, "after D")) return false;
  if (consume_if(TokenKind::kRParen)) return true;
  do {
    if (!at(TokenKind::kIdent) || tok_.text.size() != 1 ||
        std::string_view("DCSH").find(tok_.text[0]) == std::string_view::npos) {
      return expected("a dimension level type D, C, S or H");
    }
    DimLevel level;
    level.kind = tok_.text[0];
    advance();
    level.not_unique = consume_if(TokenKind::kPlus);
    level.not_ordered = consume_if(TokenKind::kTilde);
    layout->dim_levels.push_back(level);
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRParen, "to close D(...)");
}

// tiles ::= 'T' ( '(' (tdim (',' tdim)*)? ')' )+       tdim ::= INT | '*'
bool Parser::parse_tiles(Layout* layout) {
  if (!at(TokenKind::kLParen)) return expected("'(' after T");
  while (consume_if(TokenKind::kLParen)) {
    Tile& tile = layout->tiles.emplace_back();
    if (consume_if(TokenKind::kRParen)) continue;
    do {
      if (consume_if(TokenKind::kStar)) {
        tile.dims.push_back(Tile::kCombinedDim);
        continue;
      }
      if (at(TokenKind::kInt) && (tok_.negative || tok_.int_bits == 0)) {
        return error_here(str_cat("tile dimension ", tok_.text, " must be positive"));
      }
      int64_t d;
      if (!parse_int(&d, "a tile dimension or '*'")) return false;
      tile.dims.push_back(d);
    } while (consume_if(TokenKind::kComma));
    if (!expect(TokenKind::kRParen, "to close a tile")) return false;
  }
  return true;
}

// split_cfgs ::= 'SC' ( '(' INT ':' INT (',' INT)* ')' )+
bool Parser::parse_split_configs(Layout* layout) {
  if (!at(TokenKind::kLParen)) return expected("'(' after SC");
  while (consume_if(TokenKind::kLParen)) {
    SplitConfig& config = layout->split_configs.emplace_back();
    if (!parse_int(&config.dimension, "a split dimension")) return false;
    if (!expect(TokenKind::kColon, "after the split dimension")) return false;
    do {
      int64_t index;
      if (!parse_int(&index, "a split index")) return false;
      config.split_indices.push_back(index);
    } while (consume_if(TokenKind::kComma));
    if (!expect(TokenKind::kRParen, "to close a split config")) return false;
  }
  return true;
}

bool Parser::parse_paren_int(int64_t* out, std::string_view what) {
  if (!expect(TokenKind::kLParen, "to open ", what)) return false;
  if (at(TokenKind::kInt) && tok_.negative && tok_.int_bits != 0) {
    return error_here(str_cat(what, " cannot be negative"));
  }
  if (!parse_int(out, what)) return false;
  return expect(TokenKind::kRParen, "to close ", what);
}

bool Parser::parse_paren_prim(PrimitiveType* out, std::string_view what) {
  if (!expect(TokenKind::kLParen, "to open ", what)) return false;
  if (!at(TokenKind::kPrim)) return expected(str_cat("an element type (", what, ")"));
  if (!is_unsigned_integral(tok_.prim)) {
    return error_here(str_cat(what, " must be an unsigned integer type, got ", tok_.text));
  }
  *out = tok_.prim;
  advance();
  return expect(TokenKind::kRParen, "to close ", what);
}

}  // namespace hloroof::text

namespace hloroof {

absl::StatusOr<Shape> parse_shape(std::string_view view) {
  const std::string text(view);  // the lexer wants a NUL after the text
  text::Parser parser(text);
  Shape shape;
  if (parser.parse_shape(&shape)) {
    if (parser.at(text::TokenKind::kLBrace) && parser.peek().is(text::TokenKind::kRBrace)) {
      parser.error_here(
          "'{}' is not a layout; a layout lists minor_to_major ({1,0}), and a "
          "scalar's layout is omitted or written {:...}");
    } else if (!parser.at(text::TokenKind::kEof)) {
      parser.expected("the end of the shape");
    }
  }
  if (parser.failed()) {
    return text::diagnostic_status(*parser.diagnostic(), text, "", /*with_source_line=*/false);
  }
  return shape;
}

}  // namespace hloroof
