#include "text/lexer.h"

#include <array>
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "ir/byte_scan.h"
#include "ir/name_table.h"
#include "hloroof/absl_compat.h"

namespace hloroof::text {
namespace {

enum CharClass : uint8_t {
  kIdentStart = 1,  // [A-Za-z_]
  kIdentChar = 2,   // [A-Za-z0-9_.-]
  kDigit = 4,
  kSpace = 8,
  kHex = 16,
  kNumberTail = 32,  // [.eE_xbf?]: after digits, may continue a float, dim labels, DxD or pad
  kDimBF = 64,       // [0-9bf?]: batch/feature dim labels
  kDimIO = 128,      // [0-9io?]: kernel dim labels
};

constexpr std::array<uint8_t, 256> make_char_classes() {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kIdentStart | kIdentChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kIdentStart | kIdentChar;
  t['_'] = kIdentStart | kIdentChar;
  for (int c = '0'; c <= '9'; ++c) t[c] = kIdentChar | kDigit | kHex;
  for (int c = 'a'; c <= 'f'; ++c) t[c] |= kHex;
  for (int c = 'A'; c <= 'F'; ++c) t[c] |= kHex;
  t['.'] = kIdentChar;
  t['-'] = kIdentChar;
  t[' '] = t['\t'] = t['\r'] = t['\n'] = kSpace;
  for (char c : std::string_view(".eE_xbf?")) t[static_cast<unsigned char>(c)] |= kNumberTail;
  for (char c : std::string_view("0123456789bf?")) t[static_cast<unsigned char>(c)] |= kDimBF;
  for (char c : std::string_view("0123456789io?")) t[static_cast<unsigned char>(c)] |= kDimIO;
  return t;
}
constexpr std::array<uint8_t, 256> kClasses = make_char_classes();

// What the first byte of a token says about the token, for the dispatch in Lexer::next.
enum Lead : uint8_t {
  kLeadOther,    // the end, rare punctuation and bytes that start no token
  kLeadTrivia,   // whitespace, or '/' that may start a comment
  kLeadIdent,    // [A-Za-z_]
  kLeadNumber,   // [0-9?-]
  kLeadPercent,  // %name
  kLeadQuote,    // "string" or 'string'
  kLeadPunct,    // one-byte punctuation: its kind is in kPunctKinds
};

constexpr std::array<Lead, 256> make_leads() {
  std::array<Lead, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (kClasses[c] & kIdentStart) t[c] = kLeadIdent;
    if (kClasses[c] & kDigit) t[c] = kLeadNumber;
    if (kClasses[c] & kSpace) t[c] = kLeadTrivia;
  }
  t['/'] = kLeadTrivia;
  t['-'] = t['?'] = kLeadNumber;
  t['%'] = kLeadPercent;
  t['"'] = t['\''] = kLeadQuote;
  for (char c : std::string_view("=,:*#+~[]{}()")) t[static_cast<unsigned char>(c)] = kLeadPunct;
  return t;
}
constexpr std::array<Lead, 256> kLeads = make_leads();

constexpr std::array<TokenKind, 256> make_punct_kinds() {
  std::array<TokenKind, 256> t{};
#define HLOROOF_PUNCT(kind, spelling) \
  if (sizeof(spelling) == 2) t[static_cast<unsigned char>(spelling[0])] = TokenKind::kind;
#include "text/token_kinds.def"
  return t;
}
constexpr std::array<TokenKind, 256> kPunctKinds = make_punct_kinds();

inline bool is(char c, CharClass cls) { return kClasses[static_cast<unsigned char>(c)] & cls; }

// The end of a run of [A-Za-z0-9_.-] from `p`, four bytes a step. A byte is read only after an
// identifier byte, so the NUL after the source stops it.
inline const char* skip_ident_chars(const char* p) {
  for (;;) {
    if (!is(p[0], kIdentChar)) return p;
    if (!is(p[1], kIdentChar)) return p + 1;
    if (!is(p[2], kIdentChar)) return p + 2;
    if (!is(p[3], kIdentChar)) return p + 3;
    p += 4;
  }
}

// The sentinel-free matchers below look at most one character past what they accept, always
// checking `p < end` first.
struct Cursor {
  const char* p;
  const char* end;
  bool at(char c) const { return p < end && *p == c; }
  bool at_digit() const { return p < end && is(*p, kDigit); }
  bool at_digit(size_t ahead) const { return p + ahead < end && is(p[ahead], kDigit); }
  size_t digits() {
    const char* s = p;
    while (p < end && is(*p, kDigit)) ++p;
    return static_cast<size_t>(p - s);
  }
};

// float: -?(\d+|\d+\.\d*|\d*\.\d+)([eE][+-]?\d+) | -?(\d+\.\d*|\d*\.\d+)
size_t match_float(const char* start, const char* end) {
  Cursor c{start, end};
  if (c.at('-')) ++c.p;
  size_t whole = c.digits();
  bool has_dot = false;
  if (c.at('.')) {
    ++c.p;
    has_dot = true;
    if (whole + c.digits() == 0) return 0;
  } else if (whole == 0) {
    return 0;
  }
  if (c.p < end && (*c.p == 'e' || *c.p == 'E')) {
    size_t sign = (c.p + 1 < end && (c.p[1] == '+' || c.p[1] == '-')) ? 1 : 0;
    if (c.at_digit(1 + sign)) {
      c.p += 1 + sign;
      c.digits();
      return static_cast<size_t>(c.p - start);
    }
  }
  return has_dot ? static_cast<size_t>(c.p - start) : 0;
}

size_t count_in(const char* p, const char* end, CharClass cls) {
  const char* s = p;
  while (p < end && is(*p, cls)) ++p;
  return static_cast<size_t>(p - s);
}

// dim labels: [0-9bf?]{2,}_[0-9io?]{2,}->[0-9bf?]{2,}
size_t match_dim_labels(const char* start, const char* end) {
  const char* p = start;
  size_t n = count_in(p, end, kDimBF);
  if (n < 2) return 0;
  p += n;
  if (p >= end || *p != '_') return 0;
  ++p;
  n = count_in(p, end, kDimIO);
  if (n < 2) return 0;
  p += n;
  if (end - p < 2 || p[0] != '-' || p[1] != '>') return 0;
  p += 2;
  n = count_in(p, end, kDimBF);
  if (n < 2) return 0;
  return static_cast<size_t>(p + n - start);
}

// DxD: \d+(x\d+)+
size_t match_dxd(const char* start, const char* end) {
  Cursor c{start, end};
  if (c.digits() == 0) return 0;
  bool any = false;
  while (c.at('x') && c.at_digit(1)) {
    ++c.p;
    c.digits();
    any = true;
  }
  return any ? static_cast<size_t>(c.p - start) : 0;
}

// One padding group: -?\d+_-?\d+(_\d+)?
size_t match_pad_group(const char* start, const char* end) {
  Cursor c{start, end};
  if (c.at('-')) ++c.p;
  if (c.digits() == 0 || !c.at('_')) return 0;
  ++c.p;
  if (c.at('-')) ++c.p;
  if (c.digits() == 0) return 0;
  if (c.at('_') && c.at_digit(1)) {
    ++c.p;
    c.digits();
  }
  return static_cast<size_t>(c.p - start);
}

// PAD: groups joined by 'x'.
size_t match_pad(const char* start, const char* end) {
  size_t n = match_pad_group(start, end);
  if (n == 0) return 0;
  const char* p = start + n;
  while (p < end && *p == 'x') {
    size_t g = match_pad_group(p + 1, end);
    if (g == 0) break;
    p += 1 + g;
  }
  return static_cast<size_t>(p - start);
}

// nan(0xHEX) payload suffix after "nan"; 0 if absent or malformed.
size_t match_nan_payload(const char* p, const char* end) {
  const char* s = p;
  if (end - p < 4 || p[0] != '(' || p[1] != '0' || p[2] != 'x') return 0;
  p += 3;
  const char* digits = p;
  while (p < end && is(*p, kHex)) ++p;
  if (p == digits || p >= end || *p != ')') return 0;
  return static_cast<size_t>(p + 1 - s);
}

struct Reserved {
  TokenKind kind;
  PrimitiveType prim = PrimitiveType::kInvalid;
};

// Keywords, element types and `nan`.
constexpr detail::NameEntry<Reserved> kReservedList[] = {
#define HLOROOF_KEYWORD(spelling) {#spelling, {TokenKind::kw_##spelling}},
#include "text/token_kinds.def"
#define HLOROOF_PRIMITIVE(e, text, bits, bytes, cls) {text, {TokenKind::kPrim, PrimitiveType::e}},
#include "hloroof/primitive_types.def"
#undef HLOROOF_PRIMITIVE
    {"nan", {TokenKind::kDecimal}},
};
constexpr auto kReserved = detail::make_name_table(kReservedList);

// The reserved words of at most 8 bytes, which most reserved words in HLO text are (`f32`,
// `pred`, `ROOT`), in a table of their own that a look-up reaches with one load and one multiply.
// A word's bytes, read as one little-endian number, are its key: identifier bytes are never 0,
// so the key also says the length. A multiplier, searched for at compile time, sends every key
// to its own slot.
constexpr size_t kShortWordBytes = 8;
constexpr int kShortSlotBits = 7;

struct ShortReserved {
  uint64_t key = 0;  // 0: an empty slot
  Reserved value{};
};

struct ShortReservedTable {
  uint64_t multiplier = 0;
  std::array<ShortReserved, size_t{1} << kShortSlotBits> slots{};

  static constexpr size_t slot_of(uint64_t key, uint64_t multiplier) {
    return static_cast<size_t>((key * multiplier) >> (64 - kShortSlotBits));
  }
  const ShortReserved& at(uint64_t key) const { return slots[slot_of(key, multiplier)]; }
};

constexpr uint64_t short_key(std::string_view word) {
  uint64_t key = 0;
  for (size_t i = word.size(); i-- > 0;) key = key << 8 | static_cast<unsigned char>(word[i]);
  return key;
}

constexpr ShortReservedTable make_short_reserved() {
  uint64_t state = 0x2545f4914f6cdd1du;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    state = state * 6364136223846793005u + 1442695040888963407u;  // a 64-bit LCG step
    ShortReservedTable table;
    table.multiplier = state | 1;
    bool fits = true;
    for (const auto& entry : kReservedList) {
      if (entry.name.size() > kShortWordBytes) continue;
      const uint64_t key = short_key(entry.name);
      ShortReserved& slot = table.slots[ShortReservedTable::slot_of(key, table.multiplier)];
      if (slot.key != 0) {
        fits = false;
        break;
      }
      slot = {key, entry.value};
    }
    if (fits) return table;
  }
  // Not a constant expression: a set that no multiplier separates does not compile.
  throw "no multiplier sends every short reserved word to its own slot";
}
constexpr ShortReservedTable kShortReserved = make_short_reserved();

}  // namespace

std::string_view describe(TokenKind kind) {
  switch (kind) {
#define HLOROOF_TOKEN(kind, description) \
  case TokenKind::kind:                  \
    return description;
#define HLOROOF_PUNCT(kind, spelling) \
  case TokenKind::kind:               \
    return "'" spelling "'";
#define HLOROOF_KEYWORD(spelling) \
  case TokenKind::kw_##spelling:  \
    return "'" #spelling "'";
#include "text/token_kinds.def"
  }
  return "token";
}

bool is_reserved_word(std::string_view word) { return kReserved.find(word) != nullptr; }

bool is_element_type_name(std::string_view word) {
  const Reserved* r = kReserved.find(word);
  return r != nullptr && r->kind == TokenKind::kPrim;
}

Lexer::Lexer(std::string_view source)
    : begin_(source.data()), end_(source.data() + source.size()), pos_(begin_) {
  // A UTF-8 byte-order mark, which some editors write at the start of a file: not text.
  if (source.starts_with("\xEF\xBB\xBF")) pos_ += 3;
}

void Lexer::fail(Token* out, const char* start, std::string_view message) {
  error_ = message;
  emit(out, TokenKind::kError, start);
  out->text = std::string_view(
      start, start < end_ ? static_cast<size_t>(std::max(pos_, start + 1) - start) : 0);
}

const char* Lexer::skip_trivia(const char* p) {
  for (;;) {
    while (is(*p, kSpace)) ++p;  // the NUL after the source ends the loop at the end
    if (p[0] != '/' || p + 1 >= end_) break;
    if (p[1] == '*') {
      const char* close = nullptr;
      for (const char* q = p + 2; q + 1 < end_; ++q) {
        if (q[0] == '*' && q[1] == '/') {
          close = q;
          break;
        }
      }
      if (close == nullptr) {
        pos_ = p;
        return p;
      }
      p = close + 2;
    } else if (p[1] == '/') {
      while (p < end_ && *p != '\n' && *p != '\r') ++p;
    } else {
      break;
    }
  }
  pos_ = p;
  return nullptr;
}

void Lexer::unterminated_comment(Token* out, const char* start) {
  pos_ = end_;
  fail(out, start, "unterminated block comment");
  out->text = std::string_view(start, 2);
}

void Lexer::next(Token* out) {
  const char* start = pos_;
  if (*start == ' ') ++start;  // most tokens follow a single space or nothing
  switch (kLeads[static_cast<unsigned char>(*start)]) {
    case kLeadIdent:
      return lex_identifier(out, start);
    case kLeadPunct:
      pos_ = start + 1;
      return emit(out, kPunctKinds[static_cast<unsigned char>(*start)], start);
    case kLeadNumber:
      pos_ = start;
      return lex_number_like(out, start);
    case kLeadPercent:
      return lex_percent_name(out, start);
    case kLeadQuote:
      pos_ = start;
      return lex_string(out, start);
    case kLeadTrivia:
      return lex_after_trivia(out, start);
    case kLeadOther:
      pos_ = start;
      return lex_other(out, start);
  }
  __builtin_unreachable();  // kLeads holds only the cases above
}

void Lexer::lex_after_trivia(Token* out, const char* start) {
  // Most trivia is a line break and the indentation of the next line.
  if (*start == '\n') {
    const char* p = start + 1;
    while (*p == ' ') ++p;
    if (kLeads[static_cast<unsigned char>(*p)] != kLeadTrivia) {
      pos_ = p;
      return next(out);
    }
  }
  return lex_after_any_trivia(out, start);
}

void Lexer::lex_after_any_trivia(Token* out, const char* start) {
  if (const char* comment = skip_trivia(start)) return unterminated_comment(out, comment);
  if (pos_ == start) return lex_other(out, start);  // a '/' that starts no comment
  return next(out);
}

void Lexer::lex_other(Token* out, const char* start) {
  if (start >= end_) return emit(out, TokenKind::kEof, start);
  const char c = *start;
  if (c == '<' && pos_ + 1 < end_ && pos_[1] == '=') {
    pos_ += 2;
    return emit(out, TokenKind::kLeq, start);
  }
  if (c == '.') {
    if (end_ - pos_ >= 3 && pos_[1] == '.' && pos_[2] == '.') {
      pos_ += 3;
      return emit(out, TokenKind::kDots, start);
    }
    ++pos_;
    return fail(out, start,
                "unexpected '.' (a number needs a digit before the point, and '...' three dots)");
  }
  ++pos_;
  if (c == '\0') return fail(out, start, "NUL byte in the input");
  if (static_cast<unsigned char>(c) >= 0x80 || c < 0x20) {
    return fail(
        out, start,
        absl::StrFormat("unexpected byte 0x%02x outside a string", static_cast<unsigned char>(c)));
  }
  return fail(out, start, str_cat("unexpected character '", std::string(1, c), "'"));
}

void Lexer::lex_identifier(Token* out, const char* start) {
  const char* p = skip_ident_chars(start + 1);
  pos_ = p;
  if (*p == '=') {
    ++pos_;
    return emit(out, TokenKind::kAttr, start);
  }
  if (*p == ':') {
    ++pos_;
    return emit(out, TokenKind::kName, start);
  }
  // This path calls nothing but in tail position, so that it saves no registers.
  const size_t n = static_cast<size_t>(p - start);
  if (n > kShortWordBytes || end_ - start < static_cast<ptrdiff_t>(kShortWordBytes) - 1) {
    return lex_long_word(out, start);
  }
  // The 8 bytes from `start` end at the NUL after the source at the latest; keep the word's.
  const uint64_t key = detail::load_le(start, 8) & (~uint64_t{0} >> (64 - 8 * n));
  const ShortReserved& slot = kShortReserved.at(key);
  if (slot.key == key) {
    if (slot.value.kind == TokenKind::kDecimal) return lex_nan(out, start);
    emit(out, slot.value.kind, start);
    out->prim = slot.value.prim;
    return;
  }
  return lex_plain_word(out, start);
}

void Lexer::lex_long_word(Token* out, const char* start) {
  if (const Reserved* r =
          kReserved.find(std::string_view(start, static_cast<size_t>(pos_ - start)))) {
    if (r->kind == TokenKind::kDecimal) return lex_nan(out, start);
    emit(out, r->kind, start);
    out->prim = r->prim;
    return;
  }
  return lex_plain_word(out, start);
}

void Lexer::lex_nan(Token* out, const char* start) {
  pos_ += match_nan_payload(pos_, end_);  // nan(0x7f)
  return emit(out, TokenKind::kDecimal, start);
}

void Lexer::lex_plain_word(Token* out, const char* start) {
  // Dim labels such as b01f_01io->b01f: the identifier stops at their first '?' or at the '>'.
  if ((*start == 'b' || *start == 'f') && (*pos_ == '>' || *pos_ == '?')) {
    if (size_t n = match_dim_labels(start, end_)) {
      pos_ = start + n;
      return emit(out, TokenKind::kDimLabels, start);
    }
  }
  return emit(out, TokenKind::kIdent, start);
}

void Lexer::lex_number_like(Token* out, const char* start) {
  // Most number-like tokens are plain integers of a few digits: when no more than 19 digits
  // (below 2^64) are followed by nothing that could continue a float, dim labels, DxD or pad,
  // they are read here, in a function that saves no registers.
  const char* p = start;
  uint64_t value = 0;
  for (unsigned d; (d = static_cast<unsigned char>(*p) - unsigned{'0'}) <= 9; ++p) {
    value = value * 10 + d;
  }
  if (p > start && p - start <= 19 && !is(*p, kNumberTail)) {
    pos_ = p;
    emit(out, TokenKind::kInt, start);
    out->int_bits = value;
    return;
  }
  return lex_number_pattern(out, start);
}

void Lexer::lex_number_pattern(Token* out, const char* start) {
  if (*start == '?') {
    if (size_t n = match_dim_labels(start, end_)) {
      pos_ = start + n;
      return emit(out, TokenKind::kDimLabels, start);
    }
    ++pos_;
    return emit(out, TokenKind::kQuestion, start);
  }
  if (*start == '-' && pos_ + 1 < end_ && pos_[1] == '>') {
    pos_ += 2;
    return emit(out, TokenKind::kArrow, start);
  }
  // A negative integer, or one of more than 19 digits: no pattern chain either.
  {
    const char* p = start + (*start == '-' ? 1 : 0);
    const char* digits = p;
    uint64_t value = 0;  // wraps past 19 digits, when lex_int reads them again with checks
    for (; is(*p, kDigit); ++p) value = value * 10 + static_cast<uint64_t>(*p - '0');
    if (p > digits && !is(*p, kNumberTail)) {
      if (p - digits > 19 || *start == '-') return lex_int(out, start, digits, p);
      pos_ = p;
      emit(out, TokenKind::kInt, start);
      out->int_bits = value;
      return;
    }
  }
  // Upstream's priority: float, dim labels, DxD, pad, int, -inf, -nan (syntax 1.6).
  if (size_t n = match_float(start, end_)) {
    pos_ = start + n;
    return emit(out, TokenKind::kDecimal, start);
  }
  if (size_t n = match_dim_labels(start, end_)) {
    pos_ = start + n;
    return emit(out, TokenKind::kDimLabels, start);
  }
  if (size_t n = match_dxd(start, end_)) {
    pos_ = start + n;
    return emit(out, TokenKind::kDxD, start);
  }
  if (size_t n = match_pad(start, end_)) {
    pos_ = start + n;
    return emit(out, TokenKind::kPad, start);
  }
  Cursor c{start, end_};
  if (c.at('-')) ++c.p;
  const char* digits = c.p;
  if (c.digits() > 0) return lex_int(out, start, digits, c.p);
  std::string_view rest(start, static_cast<size_t>(end_ - start));
  if (rest.substr(0, 4) == "-inf") {
    pos_ = start + 4;
    return emit(out, TokenKind::kNegInf, start);
  }
  if (rest.substr(0, 4) == "-nan") {
    pos_ = start + 4;
    pos_ += match_nan_payload(pos_, end_);
    return emit(out, TokenKind::kDecimal, start);
  }
  ++pos_;
  return fail(out, start, "unexpected '-'");
}

void Lexer::lex_int(Token* out, const char* start, const char* digits, const char* end) {
  pos_ = end;
  const bool negative = *start == '-';
  uint64_t value = 0;
  bool overflow = false;
  if (end - digits <= 19) {  // 19 digits are below 10^19 < 2^64: no check needed
    for (const char* d = digits; d < end; ++d) value = value * 10 + static_cast<uint64_t>(*d - '0');
  } else {
    for (const char* d = digits; d < end; ++d) {
      uint64_t digit = static_cast<uint64_t>(*d - '0');
      if (value > (UINT64_MAX - digit) / 10) overflow = true;
      value = value * 10 + digit;
    }
  }
  if (negative && value > (uint64_t{1} << 63)) overflow = true;
  if (overflow) return int_overflow(out, start, end);
  emit(out, TokenKind::kInt, start);
  out->negative = negative;
  out->int_bits = negative ? (~value + 1) : value;
}

void Lexer::int_overflow(Token* out, const char* start, const char* end) {
  return fail(out, start,
              str_cat("integer ", std::string_view(start, static_cast<size_t>(end - start)),
                      " does not fit in 64 bits"));
}

void Lexer::lex_percent_name(Token* out, const char* start) {
  const char* p = start + 1;
  if (!is(*p, kIdentStart)) {  // nor is the NUL after the source
    pos_ = p;
    return fail(out, start, "expected a name after '%'");
  }
  pos_ = skip_ident_chars(p + 1);
  return emit(out, TokenKind::kName, start);
}

void Lexer::lex_string(Token* out, const char* start) {
  const char quote = *start;
  bool escapes = false;
  const char* p = start + 1;
  // Find the closing quote with memchr; only a backslash before it needs a closer look.
  for (;;) {
    const char* close =
        static_cast<const char*>(std::memchr(p, quote, static_cast<size_t>(end_ - p)));
    if (close == nullptr) {
      p = end_;
      break;
    }
    const char* backslash =
        static_cast<const char*>(std::memchr(p, '\\', static_cast<size_t>(close - p)));
    if (backslash == nullptr) {
      p = close;
      break;
    }
    escapes = true;
    p = backslash + 2;  // skip the escaped character, which may be the quote
    if (p > end_) p = end_;
  }
  if (p >= end_) {
    pos_ = end_;
    fail(out, start, "unterminated string");
    out->text = std::string_view(start, 1);
    return;
  }
  pos_ = p + 1;
  emit(out, TokenKind::kString, start);
  out->has_escapes = escapes;
  if (escapes) {
    std::string decoded, error;
    if (!absl::CUnescape(sv(out->string_body()), &decoded, &error)) {
      if (!error.empty()) error[0] = static_cast<char>(std::tolower(error[0]));
      return fail(out, start, str_cat("invalid string: ", error));
    }
  }
}

const char* balanced_braces_end(const char* open, const char* end) {
  int depth = 0;
  // Blobs are mostly long runs of bytes that are none of these (backend configs in JSON):
  // skipped many bytes a step.
  const char* p = open;
  for (; (p = detail::find_first_of<'{', '}', '"'>(p, end)) < end; ++p) {
    if (*p == '{') {
      ++depth;
    } else if (*p == '}') {
      if (--depth == 0) return p + 1;
    } else {  // a string: to its closing quote, over escaped characters
      for (++p; (p = detail::find_first_of<'"', '\\'>(p, end)) < end && *p == '\\'; p += 2) {
      }
      if (p >= end) break;
    }
  }
  return nullptr;
}

Token Lexer::balanced_braces(const Token& open) {
  const char* start = open.begin();
  const char* close_end = balanced_braces_end(start, end_);
  Token t;
  if (close_end == nullptr) {
    pos_ = end_;
    fail(&t, start, "unbalanced '{' (no matching '}')");
    t.text = std::string_view(start, 1);
    return t;
  }
  pos_ = close_end;
  emit(&t, TokenKind::kBlob, start);
  return t;
}

}  // namespace hloroof::text
