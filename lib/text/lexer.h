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

class Lexer {
 public:
  // `source` must be followed by a NUL byte, as the text of a std::string or a string literal
  // is: the scanning loops stop at it instead of checking the end at every character.
  explicit Lexer(std::string_view source);
  Lexer(const Lexer&) = delete;
  Lexer& operator=(const Lexer&) = delete;

  // The next token; kEof at the end, kError (see error()) on text that is not a token.
  Token next();

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
  Token make(TokenKind kind, const char* start) const {
    Token t;
    t.kind = kind;
    t.text = std::string_view(start, static_cast<size_t>(pos_ - start));
    return t;
  }
  [[gnu::noinline]] Token fail(const char* start, std::string_view message);
  // Skips whitespace and comments; the start of an unterminated block comment, else null.
  const char* skip_trivia();
  [[gnu::noinline]] Token unterminated_comment(const char* start);
  // Skips trivia at `start`, then lexes the token after it.
  [[gnu::noinline]] Token lex_after_trivia(const char* start);

  Token lex_identifier(const char* start);
  Token lex_number_like(const char* start);
  Token lex_percent_name(const char* start);
  // An integer whose digits are [digits, end); start is `-` or the first digit.
  Token lex_int(const char* start, const char* digits, const char* end);
  [[gnu::noinline]] Token int_overflow(const char* start, const char* end);
  Token lex_string(const char* start);
  // The end of input, and the rare tokens and errors that the dispatch of next() leaves.
  [[gnu::noinline]] Token lex_other(const char* start);

  const char* begin_;
  const char* end_;
  const char* pos_;
  std::string error_;
};

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_LEXER_H_
