// The lexer against docs/hlo-text.md, "Lexical structure".
#include "text/lexer.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "text/diagnostic.h"

namespace hloroof::text {
namespace {

struct Lexed {
  TokenKind kind;
  std::string text;
};

std::vector<Lexed> lex_all(std::string_view source) {
  Lexer lexer(source);
  std::vector<Lexed> out;
  for (;;) {
    Token t = lexer.next();
    if (t.is(TokenKind::kEof)) break;
    out.push_back({t.kind, std::string(t.text)});
    if (t.is(TokenKind::kError)) break;
  }
  return out;
}

Token lex_one(std::string_view source) {
  Lexer lexer(source);
  return lexer.next();
}

std::string lex_error(std::string_view source) {
  Lexer lexer(source);
  for (;;) {
    Token t = lexer.next();
    if (t.is(TokenKind::kError)) {
      SourcePosition pos = position_in(source, t.begin());
      return std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + lexer.error();
    }
    if (t.is(TokenKind::kEof)) return "no error";
  }
}

TEST_CASE("names glue a following colon, attribute names a following equals sign") {
  auto tokens = lex_all("%p0: p0: dims= %x = x =");
  REQUIRE(tokens.size() == 8);
  CHECK(tokens[0].kind == TokenKind::kName);  // %p0 never absorbs the colon (syntax 1.4)
  CHECK(tokens[1].kind == TokenKind::kColon);
  CHECK(tokens[2].kind == TokenKind::kName);
  CHECK(tokens[2].text == "p0:");
  CHECK(tokens[3].kind == TokenKind::kAttr);
  CHECK(tokens[4].kind == TokenKind::kName);
  CHECK(tokens[5].kind == TokenKind::kEqual);
  CHECK(tokens[6].kind == TokenKind::kIdent);
  CHECK(tokens[7].kind == TokenKind::kEqual);

  Lexer lexer("%add.1 x: dimensions=");
  CHECK(lexer.next().name() == "add.1");
  CHECK(lexer.next().name() == "x");
  CHECK(lexer.next().name() == "dimensions");
}

TEST_CASE("identifiers keep dots and dashes") {
  auto tokens = lex_all("get-tuple-element.3 fusion.12.remat2 may-alias");
  REQUIRE(tokens.size() == 3);
  for (const auto& t : tokens) CHECK(t.kind == TokenKind::kIdent);
  CHECK(tokens[0].text == "get-tuple-element.3");
}

TEST_CASE("element types and keywords are reserved only without a percent sign") {
  CHECK(lex_one("f32").kind == TokenKind::kPrim);
  CHECK(lex_one("f32").prim == PrimitiveType::kF32);
  CHECK(lex_one("token").prim == PrimitiveType::kToken);
  CHECK(lex_one("tuple").kind == TokenKind::kIdent);  // not reserved (syntax 1.3)
  CHECK(lex_one("buffer").kind == TokenKind::kIdent);
  CHECK(lex_one("ROOT").kind == TokenKind::kw_ROOT);
  CHECK(lex_one("replicated").kind == TokenKind::kw_replicated);
  CHECK(lex_one("%replicated").kind == TokenKind::kName);
  CHECK(lex_one("last_tile_dim_replicate").kind == TokenKind::kw_last_tile_dim_replicate);
  CHECK(lex_one("StackFrames").kind == TokenKind::kw_StackFrames);
}

TEST_CASE("number-like tokens follow upstream's pattern priority") {
  struct Case {
    const char* text;
    TokenKind kind;
  };
  const Case cases[] = {
      {"1.5", TokenKind::kDecimal},
      {"5.", TokenKind::kDecimal},
      {"1e-05", TokenKind::kDecimal},
      {"3E+8", TokenKind::kDecimal},
      {"-2.5e3", TokenKind::kDecimal},
      {"-.5", TokenKind::kDecimal},
      {"nan", TokenKind::kDecimal},
      {"-nan", TokenKind::kDecimal},
      {"nan(0x7f)", TokenKind::kDecimal},
      {"-nan(0x1)", TokenKind::kDecimal},
      {"inf", TokenKind::kw_inf},
      {"-inf", TokenKind::kNegInf},
      {"3x3", TokenKind::kDxD},
      {"2x1x1", TokenKind::kDxD},
      {"1_1", TokenKind::kPad},
      {"0_1x-1_2", TokenKind::kPad},
      {"0_0_1x2_3_0", TokenKind::kPad},
      {"-1_2", TokenKind::kPad},
      {"42", TokenKind::kInt},
      {"-7", TokenKind::kInt},
      {"b01f_01io->b01f", TokenKind::kDimLabels},
      {"bf01_oi01->bf01", TokenKind::kDimLabels},
      {"0bf_0io->0bf", TokenKind::kDimLabels},
      {"?", TokenKind::kQuestion},
      {"->", TokenKind::kArrow},
      {"<=", TokenKind::kLeq},
      {"...", TokenKind::kDots},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Token t = lex_one(c.text);
    CHECK(t.kind == c.kind);
    CHECK(t.text == c.text);
  }
  // `0x10` is DxD (digits x digits), never hex (syntax 8.2 #19).
  CHECK(lex_one("0x10").kind == TokenKind::kDxD);
  // A DxD needs digits after each `x`: `3x` is an integer then an identifier.
  auto tokens = lex_all("3x");
  REQUIRE(tokens.size() == 2);
  CHECK(tokens[0].kind == TokenKind::kInt);
  CHECK(tokens[1].kind == TokenKind::kIdent);
  // A pad group needs digits after `x` too: `1_1x` is a pad then an identifier.
  tokens = lex_all("1_1xy");
  REQUIRE(tokens.size() == 2);
  CHECK(tokens[0].text == "1_1");
}

TEST_CASE("integers cover the u64 and s64 ranges and reject overflow") {
  Token max = lex_one("18446744073709551615");
  CHECK(max.kind == TokenKind::kInt);
  CHECK(max.int_bits == UINT64_MAX);
  Token min = lex_one("-9223372036854775808");
  CHECK(min.kind == TokenKind::kInt);
  CHECK(min.int_value() == INT64_MIN);
  CHECK(lex_one("-12").int_value() == -12);
  CHECK(lex_error("18446744073709551616") ==
        "1:1: integer 18446744073709551616 does not fit in 64 bits");
  CHECK(lex_error("-9223372036854775809") ==
        "1:1: integer -9223372036854775809 does not fit in 64 bits");
  // 19 digits always fit (10^19 - 1 < 2^64 - 1); 20 digits are checked digit by digit.
  CHECK(lex_one("9999999999999999999").int_bits == 9999999999999999999u);
  CHECK(lex_one("00000000000000000000000042").int_bits == 42);
  CHECK(lex_error("99999999999999999999") ==
        "1:1: integer 99999999999999999999 does not fit in 64 bits");
}

TEST_CASE("plain integers read in one pass agree with the pattern chain") {
  // Up to 19 digits followed by a byte that cannot continue a float, dim labels, DxD or pad are
  // read in one pass; any other integer goes through the patterns. Both give the same token.
  const std::string digits = "12345678901234567890";  // 20 digits still fit in 64 bits
  for (size_t n = 1; n <= digits.size(); ++n) {
    const std::string number = digits.substr(0, n);
    const uint64_t value = std::stoull(number);
    // Bytes that end a plain integer, then the bytes that may continue a longer pattern but
    // here do not (nothing valid follows them).
    for (std::string_view after : {"", " ", ",", "]", "}", ")", "\n", "y", "a", "i", "e ", "E ",
                                   "x ", "_ ", "b ", "f ", "? ", "x-", "e+"}) {
      const std::string source = number + std::string(after);
      INFO(source);
      Token t = lex_one(source);
      CHECK(t.kind == TokenKind::kInt);
      CHECK(t.text == number);
      CHECK(t.int_bits == value);
      CHECK(!t.negative);
      if (n == digits.size()) continue;  // 20 digits do not fit below -2^63
      const std::string negative = "-" + source;
      Token neg = lex_one(negative);
      CHECK(neg.kind == TokenKind::kInt);
      CHECK(neg.negative);
      CHECK(neg.int_bits == ~value + 1);  // the two's complement of the value
    }
  }
  CHECK(lex_error("123456789012345678901,") ==
        "1:1: integer 123456789012345678901 does not fit in 64 bits");
  CHECK(lex_one("0001 ").int_bits == 1);
  CHECK(lex_one("12.").kind == TokenKind::kDecimal);
  CHECK(lex_one("12e3").kind == TokenKind::kDecimal);
  CHECK(lex_one("12x3").kind == TokenKind::kDxD);
  CHECK(lex_one("12_3").kind == TokenKind::kPad);
  CHECK(lex_one("01b_01o->01b").kind == TokenKind::kDimLabels);
}

TEST_CASE("strings take both quotes, C escapes, and raw newlines") {
  Token t = lex_one(R"("a\"b\n")");
  CHECK(t.kind == TokenKind::kString);
  CHECK(t.has_escapes);
  CHECK(t.string_body() == R"(a\"b\n)");
  CHECK(lex_one("'x'").kind == TokenKind::kString);
  CHECK(lex_one(R"("caf\303\251")").kind == TokenKind::kString);

  std::string_view two_lines = "\"two\nlines\" next";
  Lexer lexer(two_lines);
  CHECK(lexer.next().is(TokenKind::kString));
  Token next = lexer.next();
  SourcePosition pos = position_in(two_lines, next.begin());
  CHECK((pos.line == 2 && pos.column == 8));

  CHECK(lex_error(R"(x = "a\qb")") == "1:5: invalid string: unknown escape sequence: \\q");
  CHECK(lex_error("  \"never closed") == "1:3: unterminated string");
}

TEST_CASE("comments are skipped; an unterminated block comment is an error at its start") {
  auto tokens = lex_all("a /*index=5*/b // rest of line\n c");
  REQUIRE(tokens.size() == 3);
  CHECK(tokens[1].text == "b");
  CHECK(tokens[2].text == "c");
  CHECK(lex_error("x\n  /* never closed") == "2:3: unterminated block comment");
}

TEST_CASE("a token's 1-based line and column are computed from the source") {
  std::string_view source = "HloModule m\n\nENTRY %e {\n  ROOT";
  Lexer lexer(source);
  auto where = [&](const Token& t) {
    SourcePosition pos = position_in(source, t.begin());
    return std::to_string(pos.line) + ":" + std::to_string(pos.column);
  };
  Token t = lexer.next();
  CHECK(where(t) == "1:1");
  lexer.next();
  t = lexer.next();
  CHECK(t.kind == TokenKind::kw_ENTRY);
  CHECK(where(t) == "3:1");
  t = lexer.next();
  CHECK(where(t) == "3:7");
  lexer.next();
  t = lexer.next();
  CHECK(t.kind == TokenKind::kw_ROOT);
  CHECK(where(t) == "4:3");
  t = lexer.next();
  CHECK(t.kind == TokenKind::kEof);
  CHECK(where(t) == "4:7");  // just past ROOT
  // A null pointer (no token yet) is 1:1; a position past the end is the end.
  CHECK((position_in(source, nullptr).line == 1 && position_in(source, nullptr).column == 1));
  std::string_view head = source.substr(0, 14);  // "HloModule m\n\nE"
  CHECK(position_in(head, source.data() + 20).line == 3);
  CHECK(position_in(head, source.data() + 20).column == 2);
}

TEST_CASE("every reserved word and element type is its own token; near misses are identifiers") {
  std::vector<std::pair<std::string, TokenKind>> words = {
#define HLOROOF_KEYWORD(spelling) {#spelling, TokenKind::kw_##spelling},
#include "text/token_kinds.def"
  };
  for (const auto& [word, kind] : words) {
    INFO(word);
    CHECK(lex_one(word).kind == kind);
    CHECK(lex_one(word + "x").kind == TokenKind::kIdent);
    CHECK(lex_one(word.substr(0, word.size() - 1)).kind != kind);
    std::string upper = word;
    upper[0] = static_cast<char>(upper[0] ^ 0x20);
    CHECK(lex_one(upper).kind != kind);
  }
  std::vector<std::pair<std::string, PrimitiveType>> types = {
#define HLOROOF_PRIMITIVE(e, text, bits, bytes, cls) {text, PrimitiveType::e},
#include "hloroof/primitive_types.def"
#undef HLOROOF_PRIMITIVE
  };
  for (const auto& [name, type] : types) {
    INFO(name);
    Token t = lex_one(name);
    CHECK(t.kind == TokenKind::kPrim);
    CHECK(t.prim == type);
    CHECK(lex_one(name + "0").kind == TokenKind::kIdent);
    CHECK(lex_one("x" + name).kind == TokenKind::kIdent);
  }
  CHECK(lex_one("nan").kind == TokenKind::kDecimal);
  CHECK(lex_one("nanx").kind == TokenKind::kIdent);
  CHECK(lex_one("f33").kind == TokenKind::kIdent);
  CHECK(lex_one("f8e4m3fnx").kind == TokenKind::kIdent);
}

TEST_CASE("reserved words are found the same away from and near the end of input") {
  // Words of at most 8 bytes are looked up with an 8-byte load when 8 bytes from their start lie
  // within the source and its NUL, otherwise (and for longer words) by the general table: each
  // word is lexed at the end, and followed by text long enough for the load.
  std::vector<std::pair<std::string, Token>> words;
#define HLOROOF_KEYWORD(spelling) words.push_back({#spelling, lex_one(#spelling)});
#include "text/token_kinds.def"
#define HLOROOF_PRIMITIVE(e, text, bits, bytes, cls) words.push_back({text, lex_one(text)});
#include "hloroof/primitive_types.def"
#undef HLOROOF_PRIMITIVE
  words.push_back({"nan", lex_one("nan")});
  for (const auto& [word, at_end] : words) {
    INFO(word);
    REQUIRE(at_end.kind != TokenKind::kIdent);
    for (std::string_view after : {"[1,2]{1,0} x", " = ROOT", ",", "(1)  more text"}) {
      const std::string source = word + std::string(after);
      Lexer lexer(source);
      Token t = lexer.next();
      CHECK(t.kind == at_end.kind);
      CHECK(t.prim == at_end.prim);
      CHECK(t.text == word);
      // One more identifier byte, or one less, is no longer the reserved word.
      CHECK(lex_one(word + "x" + std::string(after)).kind == TokenKind::kIdent);
      CHECK(lex_one(word + "_" + std::string(after)).kind == TokenKind::kIdent);
      if (word.size() > 1) {
        const std::string shorter_source = word.substr(0, word.size() - 1) + std::string(after);
        Token shorter = lex_one(shorter_source);
        CHECK(shorter.text == word.substr(0, word.size() - 1));
        CHECK(!(shorter.kind == at_end.kind && shorter.prim == at_end.prim));
      }
    }
  }
  // `nan` takes its payload wherever it is; a malformed payload is not part of it.
  Lexer lexer("nan(0x7f) nan(0x) nan");
  CHECK(lexer.next().text == "nan(0x7f)");
  Token t = lexer.next();
  CHECK(t.kind == TokenKind::kDecimal);
  CHECK(t.text == "nan");
  CHECK(lexer.next().is(TokenKind::kLParen));
}

TEST_CASE("identifiers and names end where they should at every distance from the end") {
  // Lengths around the 4-byte steps of the scan and the 8-byte reserved-word load, with '.',
  // '-', '_' and digits inside, ended by the end of input or by each kind of byte that stops them.
  const std::string body = "a.b-c_d0e.1-2_3x9.zz-Q_w8";
  for (size_t n = 1; n <= body.size(); ++n) {
    const std::string word = body.substr(0, n);
    for (std::string_view after :
         {"", " ", "[", "(", ",", "\n", "\"s\"", "\xc3\xa9", "\x7f", "/", "{", "}", "@"}) {
      const std::string source = word + std::string(after);
      INFO(source);
      for (std::string_view lead : {"", "%"}) {
        const std::string text = std::string(lead) + source;
        Token t = lex_one(text);
        CHECK(t.kind == (lead.empty() ? TokenKind::kIdent : TokenKind::kName));
        CHECK(t.text == std::string(lead) + word);
      }
      const std::string attr_source = word + "=" + std::string(after);
      Token attr = lex_one(attr_source);
      CHECK(attr.kind == TokenKind::kAttr);
      CHECK(attr.name() == word);
      const std::string name_source = word + ":" + std::string(after);
      Token name = lex_one(name_source);
      CHECK(name.kind == TokenKind::kName);
      CHECK(name.name() == word);
    }
  }
  // Bytes past 0x7f are no identifier bytes: the identifier stops before them, and the next
  // token is an error at the byte.
  CHECK(lex_error("abc\xc3\xa9") == "1:4: unexpected byte 0xc3 outside a string");
  CHECK(lex_error("%abc\xff") == "1:5: unexpected byte 0xff outside a string");
  // A NUL inside the text ends an identifier as the NUL after it does.
  auto tokens = lex_all(std::string_view("abc\0def", 7));
  REQUIRE(tokens.size() == 2);
  CHECK(tokens[0].text == "abc");
  CHECK(tokens[1].kind == TokenKind::kError);
  // Very long names are one token.
  const std::string long_name(100000, 'n');
  CHECK(lex_one(long_name).text.size() == long_name.size());
  CHECK(lex_one("%" + long_name + ".1 = f32[]").text.size() == long_name.size() + 3);
  CHECK(lex_one(long_name + "=1").kind == TokenKind::kAttr);
}

TEST_CASE("line breaks, indentation and comments between tokens") {
  std::string_view source = "a\n  b\n\n    c\n  /* x */ d\n\t e // f\n  g\r\n  h\n  ";
  auto tokens = lex_all(source);
  std::string texts;
  for (const auto& t : tokens) texts += t.text + " ";
  CHECK(texts == "a b c d e g h ");
  CHECK(lex_error("a\n  /x") == "2:3: unexpected character '/'");
  CHECK(lex_error("a\n  /") == "2:3: unexpected character '/'");
  CHECK(lex_error("a\n  /* open") == "2:3: unterminated block comment");
  CHECK(lex_error("a\n    \xc3") == "2:5: unexpected byte 0xc3 outside a string");
  // The end of input after a line break and indentation is the end, where the source ends.
  Lexer lexer("x\n   ");
  lexer.next();
  Token end = lexer.next();
  CHECK(end.is(TokenKind::kEof));
  CHECK(end.begin() == lexer.source().data() + 5);
}

TEST_CASE("lexing into a token writes every field of it") {
  // The parser's cursor lexes each token into the one it keeps: nothing of the previous token
  // (an element type, a negative integer, a string with escapes) may stay.
  Lexer lexer(R"(f32 -5 "a\n" x 7)");
  Token t;
  lexer.next(&t);
  CHECK(t.prim == PrimitiveType::kF32);
  lexer.next(&t);
  CHECK(t.kind == TokenKind::kInt);
  CHECK(t.prim == PrimitiveType::kInvalid);
  CHECK(t.negative);
  CHECK(t.int_value() == -5);
  lexer.next(&t);
  CHECK(t.kind == TokenKind::kString);
  CHECK(!t.negative);
  CHECK(t.int_bits == 0);
  CHECK(t.has_escapes);
  lexer.next(&t);
  CHECK(t.kind == TokenKind::kIdent);
  CHECK(!t.has_escapes);
  lexer.next(&t);
  CHECK(t.int_bits == 7);
  CHECK(!t.negative);
  lexer.next(&t);
  CHECK(t.kind == TokenKind::kEof);
  CHECK(t.int_bits == 0);
}

TEST_CASE("bytes that start no token are errors") {
  CHECK(lex_error("a .5") ==
        "1:3: unexpected '.' (a number needs a digit before the point, "
        "and '...' three dots)");
  CHECK(lex_error(std::string_view("a\0b", 3)) == "1:2: NUL byte in the input");
  CHECK(lex_error("@") == "1:1: unexpected character '@'");
  CHECK(lex_error("% x") == "1:1: expected a name after '%'");
  CHECK(lex_error("%") == "1:1: expected a name after '%'");  // at the end of input
  CHECK(lex_error("a %1") == "1:3: expected a name after '%'");
  CHECK(lex_error("%.a") == "1:1: expected a name after '%'");
  CHECK(lex_one("%_").text == "%_");
  CHECK(lex_one("%a").text == "%a");
}

TEST_CASE("balanced-brace blobs skip braces inside strings") {
  std::string_view source = R"({"a":"}{","b":{"c":"\"x\""},"n":[1,{}]}, next)";
  Lexer lexer(source);
  Token open = lexer.next();
  REQUIRE(open.is(TokenKind::kLBrace));
  Token blob = lexer.balanced_braces(open);
  CHECK(blob.kind == TokenKind::kBlob);
  CHECK(blob.text == R"({"a":"}{","b":{"c":"\"x\""},"n":[1,{}]})");
  CHECK(lexer.next().is(TokenKind::kComma));
  CHECK(lexer.next().text == "next");

  Lexer bad("{ {x: 1}");
  Token bad_open = bad.next();
  CHECK(bad.balanced_braces(bad_open).is(TokenKind::kError));
}

// The blob's end as a byte-by-byte reading finds it: after the `}` that closes the first `{`,
// braces inside strings not counted, a backslash in a string escaping the byte after it.
// 0 when the blob is not closed.
size_t reference_blob_length(std::string_view s) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{') {
      ++depth;
    } else if (s[i] == '}') {
      if (--depth == 0) return i + 1;
    } else if (s[i] == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\') ++i;
      }
      if (i >= s.size()) return 0;
    }
  }
  return 0;
}

TEST_CASE("balanced-brace blobs end where a byte-by-byte reading ends them, at every offset") {
  // Long runs (the scan takes 16 and 8 bytes a step) with each special byte placed at every
  // offset from the blob's start, at the end of the input and before more text.
  const std::vector<std::string> specials = {"}",          "{}",   "\"}\"",  "\"\\\"}\"",
                                             "\"a\\\\\"}", "\"\\", "{\"}\"", "\"{\""};
  int checked = 0;
  for (const std::string& special : specials) {
    for (size_t at = 0; at < 40; ++at) {
      for (const char* tail : {"", "}", "} , x", "x}}"}) {
        std::string source =
            "{" + std::string(at, 'a') + special + std::string(45 - at, 'b') + tail;
        Lexer lexer(source);
        Token open = lexer.next();
        REQUIRE(open.is(TokenKind::kLBrace));
        Token blob = lexer.balanced_braces(open);
        const size_t expected = reference_blob_length(source);
        INFO(source);
        if (expected == 0) {
          CHECK(blob.is(TokenKind::kError));
        } else {
          CHECK(blob.is(TokenKind::kBlob));
          CHECK(blob.text == std::string_view(source).substr(0, expected));
        }
        ++checked;
      }
    }
  }
  CHECK(checked == 8 * 40 * 4);
}

}  // namespace
}  // namespace hloroof::text
