// The parser core shared by every production: a one-token cursor over the lexer, first-error
// diagnostics, and the value syntaxes used all over HLO text (shapes, layouts, integer lists).
// Productions return false after reporting an error; the first error is the one kept.
#ifndef HLOROOF_TEXT_PARSER_H_
#define HLOROOF_TEXT_PARSER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "hloroof/shape.h"
#include "hloroof/absl_compat.h"
#include "text/diagnostic.h"
#include "text/lexer.h"

namespace hloroof::text {

class Parser {
 public:
  explicit Parser(std::string_view source);
  virtual ~Parser() = default;
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // ---- Token cursor.
  const Token& tok() const { return tok_; }
  bool at(TokenKind kind) const { return tok_.kind == kind; }
  void advance() {
    prev_end_ = tok_.end();
    lexer_.next(&tok_);  // the lexer writes the token where it is kept, without a copy
    if (tok_.kind == TokenKind::kError) report_lexer_error();
  }
  bool consume_if(TokenKind kind) {
    if (tok_.kind != kind) return false;
    advance();
    return true;
  }
  // Consumes a token of `kind`, or reports "expected <kind> <context...>, got <token>"; the
  // context is only formatted on failure.
  template <typename... Context>
  [[nodiscard]] bool expect(TokenKind kind, const Context&... context) {
    if (consume_if(kind)) return true;
    return expect_failed(kind, context...);
  }
  // The token after the current one, without consuming anything.
  Token peek();
  // A position to rewind to after a look-ahead parse; rewinding also forgets an error reported
  // after the checkpoint.
  struct Checkpoint {
    Lexer::State lexer;
    Token tok;
    const char* prev_end;
    bool had_error;
  };
  Checkpoint checkpoint() const { return {lexer_.state(), tok_, prev_end_, failed()}; }
  void rewind(const Checkpoint& c) {
    lexer_.restore(c.lexer);
    tok_ = c.tok;
    prev_end_ = c.prev_end;
    if (!c.had_error) error_message_.reset();
  }
  // Consumes everything up to `end` (starting at the current token) as if it had been parsed.
  void skip_to(const char* end) {
    lexer_.skip_to(end);
    tok_.text = std::string_view(end, 0);
    advance();
  }
  // skip_to(end) where the text at `end` is a ',' (which the lexer reads as the one-byte comma
  // token whatever follows), without lexing it.
  void skip_to_comma(const char* end) {
    prev_end_ = end;
    lexer_.skip_to(end + 1);
    tok_.kind = TokenKind::kComma;
    tok_.prim = PrimitiveType::kInvalid;
    tok_.negative = false;
    tok_.has_escapes = false;
    tok_.text = std::string_view(end, 1);
    tok_.int_bits = 0;
  }
  // The source text from `begin` to the end of the last consumed token.
  std::string_view text_since(const char* begin) const {
    return std::string_view(begin, static_cast<size_t>(prev_end_ - begin));
  }

  // ---- Diagnostics. Each returns false so that `return error(...)` reads naturally.
  bool error(const Token& at, std::string message) {
    return error_at(at.begin(), std::move(message));
  }
  // At `at`, a pointer into the source.
  bool error_at(const char* at, std::string message);
  bool error_here(std::string message) { return error(tok_, std::move(message)); }
  // "expected WHAT, got 'x'" at the current token.
  bool expected(std::string_view what);
  bool failed() const { return error_message_.has_value(); }
  // The first error, with its line and column (computed here, from the source).
  std::optional<Diagnostic> diagnostic() const;
  // The 1-based line of a token.
  uint32_t line_of(const Token& t) const { return position_in(lexer_.source(), t.begin()).line; }
  // How the current token reads in a message: `'foo'`, or "end of input".
  std::string describe_current() const;

  // ---- Shapes and layouts (shape_parser.cc), docs/hlo-text.md, "Shapes" and "Layouts and tiles".
  // shape ::= array_shape | tuple_shape | buffer_shape
  [[nodiscard]] bool parse_shape(Shape* out);
  // True when the current token can start a shape.
  bool at_shape_start();

  // An array shape already read whose text is exactly the one at the cursor (a PRIM token) up
  // to a following ',' or ')', consumed; null, consuming nothing, when there is none. A tuple's
  // elements are looked up this way before being parsed (ModuleParser knows shapes by text).
  virtual const Shape* take_known_array_shape() { return nullptr; }
  // After an array shape that take_known_array_shape did not know was parsed from `begin` to the
  // cursor: lets it know the shape by that text from now on.
  virtual void remember_array_shape(const char* begin, const Shape& shape) {
    (void)begin;
    (void)shape;
  }

  // ---- Small value syntaxes (values.cc).
  // INT, with the sign rules of a signed 64-bit value.
  [[nodiscard]] bool parse_int(int64_t* out, std::string_view what);
  // '{' (INT (',' INT)*)? '}'; `what` names the list in messages ("dimensions").
  template <typename Container>
  [[nodiscard]] bool parse_int_list(Container* out, std::string_view what);
  // 'true' | 'false'
  [[nodiscard]] bool parse_bool(bool* out, std::string_view what);
  // A STRING token, escapes decoded into `out`.
  [[nodiscard]] bool parse_string(std::string* out, std::string_view what);
  // At a `{`: consumes the raw brace-balanced text up to its matching `}` (syntax 1.8).
  [[nodiscard]] bool parse_blob(std::string_view* out);
  // Consumes one value without interpreting it: a single token, or a bracketed group with
  // everything up to its matching bracket.
  [[nodiscard]] bool skip_value(std::string_view what);

 protected:
  Lexer lexer_;
  Token tok_;
  const char* prev_end_ = nullptr;  // end of the last consumed token

 private:
  [[nodiscard]] bool parse_shape_at_depth(Shape* out, int depth);
  // `depth`: shapes enclosing this one (a layout's P(...) holds a shape).
  [[nodiscard]] bool parse_array_shape(Shape* out, int depth = 0);
  [[nodiscard]] bool parse_layout(Shape* array, int depth = 0);
  [[nodiscard]] bool parse_layout_properties(Layout* layout, int depth);
  [[nodiscard]] bool parse_tiles(Layout* layout);
  [[nodiscard]] bool parse_dim_levels(Layout* layout);
  [[nodiscard]] bool parse_split_configs(Layout* layout);
  [[nodiscard]] bool parse_paren_int(int64_t* out, std::string_view what);
  [[nodiscard]] bool parse_paren_prim(PrimitiveType* out, std::string_view what);
  void report_lexer_error();
  // The error of expect(), out of the way of its inlined fast path.
  template <typename... Context>
  [[gnu::noinline, gnu::cold]] bool expect_failed(TokenKind kind, const Context&... context) {
    return error_here(
        str_cat("expected ", describe(kind), " ", context..., ", got ", describe_current()));
  }

  // The first error: where it is and what it says.
  const char* error_at_ = nullptr;
  std::optional<std::string> error_message_;
};

template <typename Container>
bool Parser::parse_int_list(Container* out, std::string_view what) {
  out->clear();
  if (!expect(TokenKind::kLBrace, "to open ", what)) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    int64_t v;
    if (!parse_int(&v, what)) return false;
    out->push_back(v);
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close ", what);
}

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_PARSER_H_
