// The HLO text lexer (docs/hlo-text.md, "Lexical structure"): one token at a time, no copies.
#ifndef HLOROOF_TEXT_LEXER_H_
#define HLOROOF_TEXT_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "text/token.h"

namespace hloroof::text {

// True when `word` is an element type's name (`f32`, `bf16`, `pred`...), which the lexer reads
// as a kPrim token.
bool is_element_type_name(std::string_view word);
// True when the lexer reads `word`, made of identifier bytes, as something other than an
// identifier: a keyword, an element type or `nan`.
bool is_reserved_word(std::string_view word);
// The byte after the `}` that closes the `{` at `open`, over nested braces and over strings
// (with their escapes) inside, bounded by `end`; null when the braces never balance.
// Lexer::balanced_braces reads a blob with it, and the parser reads printed blobs directly.
const char* balanced_braces_end(const char* open, const char* end);

class Lexer {
 public:
  // `source` must be followed by a NUL byte, as the text of a std::string or a string literal
  // is: the scanning loops stop at it instead of checking the end at every character.
  explicit Lexer(std::string_view source);
  Lexer(const Lexer&) = delete;
  Lexer& operator=(const Lexer&) = delete;

  // Lexes the next token into `*out`, every field of it: kEof at the end, kError (see error())
  // on text that is not a token. The parser's cursor lexes into the token it keeps.
  void next(Token* out);
  // The next token, as a value.
  Token next() {
    Token t;
    next(&t);
    return t;
  }

  // A raw balanced-brace blob (docs/hlo-text.md, "Lexical structure"). Call right after next()
  // returned the
  // `{` token `open`: consumes up to the matching `}` and returns a kString-like token whose
  // text is the whole blob, braces included; kError if the braces never balance.
  Token balanced_braces(const Token& open);

  // Position to return to, for the rare two-token look-ahead.
  struct State {
    const char* pos;
  };
  State state() const { return {pos_}; }
  void restore(const State& s) { pos_ = s.pos; }

  // Moves the cursor forward to `p` (the caller has read the text in between).
  void skip_to(const char* p) { pos_ = p; }

  // What was wrong with the last kError token.
  const std::string& error() const { return error_; }
  std::string_view source() const { return {begin_, static_cast<size_t>(end_ - begin_)}; }
  // The text after the cursor.
  std::string_view rest() const { return {pos_, static_cast<size_t>(end_ - pos_)}; }

 private:
  // Writes a token of `kind` from `start` to the cursor, with no value.
  void emit(Token* out, TokenKind kind, const char* start) const {
    out->kind = kind;
    out->prim = PrimitiveType::kInvalid;
    out->negative = false;
    out->has_escapes = false;
    out->text = std::string_view(start, static_cast<size_t>(pos_ - start));
    out->int_bits = 0;
  }
  // Every lexing function below writes the whole token into `*out`, and every one that
  // returns returns what another returns: their calls are jumps.
  [[gnu::noinline]] void fail(Token* out, const char* start, std::string_view message);
  // Skips whitespace and comments from `p`; the start of an unterminated block comment, else
  // null.
  const char* skip_trivia(const char* p);
  [[gnu::noinline]] void unterminated_comment(Token* out, const char* start);
  // Skips trivia at `start`, then lexes the token after it: a line break and indentation here,
  // anything else (comments, other whitespace) in lex_after_any_trivia.
  [[gnu::noinline]] void lex_after_trivia(Token* out, const char* start);
  [[gnu::noinline]] void lex_after_any_trivia(Token* out, const char* start);

  void lex_identifier(Token* out, const char* start);
  // After lex_identifier has moved the cursor to the end of a word from `start`: a reserved word
  // of more than 8 bytes or near the end of the source; `nan` and its payload; a word that is
  // not reserved (an identifier, or dim labels).
  [[gnu::noinline]] void lex_long_word(Token* out, const char* start);
  [[gnu::noinline]] void lex_nan(Token* out, const char* start);
  void lex_plain_word(Token* out, const char* start);
  void lex_number_like(Token* out, const char* start);
  // Every number-like token but a plain non-negative integer of at most 19 digits.
  [[gnu::noinline]] void lex_number_pattern(Token* out, const char* start);
  void lex_percent_name(Token* out, const char* start);
  // An integer whose digits are [digits, end); start is `-` or the first digit.
  void lex_int(Token* out, const char* start, const char* digits, const char* end);
  [[gnu::noinline]] void int_overflow(Token* out, const char* start, const char* end);
  void lex_string(Token* out, const char* start);
  // The end of input, and the rare tokens and errors that the dispatch of next() leaves.
  [[gnu::noinline]] void lex_other(Token* out, const char* start);

  const char* begin_;
  const char* end_;
  const char* pos_;
  std::string error_;
};

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_LEXER_H_
