#include "text/parser.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "hloroof/absl_compat.h"

namespace hloroof::text {

Parser::Parser(std::string_view source) : lexer_(source) {
  tok_.text = std::string_view(source.data(), 0);
  advance();
}

void Parser::report_lexer_error() { error(tok_, lexer_.error()); }

bool Parser::expected(std::string_view what) {
  return error_here(str_cat("expected ", what, ", got ", describe_current()));
}

Token Parser::peek() {
  Lexer::State saved = lexer_.state();
  Token next = lexer_.next();
  lexer_.restore(saved);
  return next;
}

bool Parser::parse_blob(std::string_view* out) {
  if (!at(TokenKind::kLBrace)) return expected("'{'");
  Token blob = lexer_.balanced_braces(tok_);
  if (blob.is(TokenKind::kError)) return error(blob, lexer_.error());
  *out = blob.text;
  tok_ = blob;
  advance();
  return true;
}

bool Parser::skip_value(std::string_view what) {
  auto opens = [](TokenKind k) {
    return k == TokenKind::kLBrace || k == TokenKind::kLParen || k == TokenKind::kLBracket;
  };
  auto closes = [](TokenKind k) {
    return k == TokenKind::kRBrace || k == TokenKind::kRParen || k == TokenKind::kRBracket;
  };
  if (at(TokenKind::kEof) || at(TokenKind::kComma) || closes(tok_.kind)) {
    return expected(str_cat("a value for ", what));
  }
  std::vector<TokenKind> stack;
  do {
    if (at(TokenKind::kEof)) return error_here(str_cat("unbalanced brackets in ", what));
    if (opens(tok_.kind)) {
      stack.push_back(tok_.kind);
    } else if (closes(tok_.kind)) {
      TokenKind open = stack.back();
      bool match = (open == TokenKind::kLBrace && at(TokenKind::kRBrace)) ||
                   (open == TokenKind::kLParen && at(TokenKind::kRParen)) ||
                   (open == TokenKind::kLBracket && at(TokenKind::kRBracket));
      if (!match) return error_here(str_cat("mismatched ", describe(tok_.kind), " in ", what));
      stack.pop_back();
    }
    advance();
    if (failed()) return false;
  } while (!stack.empty());
  return true;
}

std::string Parser::describe_current() const {
  switch (tok_.kind) {
    case TokenKind::kEof:
      return "end of input";
    case TokenKind::kError:
      return "invalid text";
    default:
      break;
  }
  std::string_view text = tok_.text;
  if (text.size() > 40) return str_cat("'", text.substr(0, 37), "...'");
  return str_cat("'", text, "'");
}

bool Parser::error_at(const char* at, std::string message) {
  if (!error_message_) {
    error_at_ = at;
    error_message_ = std::move(message);
  }
  return false;
}

std::optional<Diagnostic> Parser::diagnostic() const {
  if (!error_message_) return std::nullopt;
  SourcePosition pos = position_in(lexer_.source(), error_at_);
  return Diagnostic{pos.line, pos.column, *error_message_};
}

bool Parser::parse_int(int64_t* out, std::string_view what) {
  if (!at(TokenKind::kInt)) return expected(str_cat("an integer (", what, ")"));
  if (!tok_.negative && tok_.int_bits > static_cast<uint64_t>(INT64_MAX)) {
    return error_here(str_cat("integer ", tok_.text, " is too large for ", what));
  }
  *out = tok_.int_value();
  advance();
  return true;
}

bool Parser::parse_bool(bool* out, std::string_view what) {
  if (at(TokenKind::kw_true) || at(TokenKind::kw_false)) {
    *out = at(TokenKind::kw_true);
    advance();
    return true;
  }
  return expected(str_cat("true or false (", what, ")"));
}

bool Parser::parse_string(std::string* out, std::string_view what) {
  if (!at(TokenKind::kString)) return expected(str_cat("a string (", what, ")"));
  if (tok_.has_escapes) {
    std::string error;
    if (!absl::CUnescape(sv(tok_.string_body()), out, &error)) return error_here(error);
  } else {
    out->assign(tok_.string_body());
  }
  advance();
  return true;
}

}  // namespace hloroof::text
