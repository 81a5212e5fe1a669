// Tokens of HLO text: a kind and the exact source text, which says where the token is: the line
// and column are computed from the source only when a diagnostic needs them (diagnostic.h).
#ifndef HLOROOF_TEXT_TOKEN_H_
#define HLOROOF_TEXT_TOKEN_H_

#include <cstdint>
#include <string_view>

#include "hloroof/shape.h"

namespace hloroof::text {

enum class TokenKind : uint8_t {
#define HLOROOF_TOKEN(kind, description) kind,
#define HLOROOF_PUNCT(kind, spelling) kind,
#define HLOROOF_KEYWORD(spelling) kw_##spelling,
#include "text/token_kinds.def"
};

// How a token kind reads in a message: "integer", "'='", "'ROOT'".
std::string_view describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kEof;
  PrimitiveType prim = PrimitiveType::kInvalid;  // kPrim: which type
  bool negative = false;                         // kInt: written with a leading '-'
  bool has_escapes = false;                      // kString: contains a backslash
  std::string_view text;  // exactly as written, e.g. `%add.1`, `dims=`, `"a\n"`
  uint64_t int_bits = 0;  // kInt: the value as a 64-bit pattern (u64 max and s64 min both fit)

  bool is(TokenKind k) const { return kind == k; }
  // kName: without `%` or the glued `:`; kAttr: without `=`; otherwise the text.
  std::string_view name() const {
    if (kind == TokenKind::kName) {
      return text[0] == '%' ? text.substr(1) : text.substr(0, text.size() - 1);
    }
    if (kind == TokenKind::kAttr) return text.substr(0, text.size() - 1);
    return text;
  }
  // kString: the text between the quotes, escapes not decoded.
  std::string_view string_body() const { return text.substr(1, text.size() - 2); }
  int64_t int_value() const { return static_cast<int64_t>(int_bits); }
  const char* begin() const { return text.data(); }
  const char* end() const { return text.data() + text.size(); }
};

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_TOKEN_H_
