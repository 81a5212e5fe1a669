// Instructions and operands (docs/hlo-text.md, "Instructions and operands").
#include <algorithm>
#include <array>
#include <limits>

#include "hloroof/shape_text.h"
#include "ir/byte_scan.h"
#include "ir/shape_util.h"
#include "hloroof/absl_compat.h"
#include "text/module_parser.h"
#include "text/name_chars.h"

namespace hloroof::text {

using detail::IrAccess;

namespace {

// Nested instruction operands recurse; hostile input must not exhaust the stack.
constexpr int kMaxNesting = 64;

// Where `p` (a pointer into `source`) is, as "line L, column C"; empty when outside.
std::string position_of(std::string_view source, const char* p) {
  if (p < source.data() || p >= source.data() + source.size()) return "";
  SourcePosition pos = position_in(source, p);
  return str_cat(pos.line, ":", pos.column);
}

}  // namespace

// instruction ::= 'ROOT'? name '=' shape? opcode '(' operand_list? ')' (',' attribute)*
bool ModuleParser::parse_instruction() {
  Token root_token = tok_;
  bool is_root = consume_if(TokenKind::kw_ROOT);
  Token name = tok_;
  if (at(TokenKind::kAttr)) {
    return error_here(str_cat("expected an instruction name; `", tok_.text,
                              "` was read as an attribute name (write `", name.name(),
                              " = ...` or `%", name.name(), "=...`)"));
  }
  if (at(TokenKind::kName) && tok_.text.back() == ':') {
    return error_here(
        str_cat("expected '=' after the instruction name ", name.name(), ", got ':'"));
  }
  if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("an instruction name");
  if (!check_instruction_name(name)) return false;
  if (IrAccess::large_name_map(computation_)) IrAccess::prefetch_name(computation_, name.name());

  const Shape* shape = nullptr;
  Token op_token;
  OpcodeSpelling op;
  // Read straight from the text when it is laid out as dumps print it, else token by token.
  const char* operands_begin = scan_instruction_head(&shape, &op, &op_token);
  if (operands_begin == nullptr) {
    advance();
    if (!expect(TokenKind::kEqual, "after the instruction name ", name.name())) {
      return false;
    }
    if (at_shape_start() && !parse_cached_shape(&shape)) return false;
    if (at(TokenKind::kLBrace) && peek().is(TokenKind::kRBrace)) {
      return error_here(
          "'{}' is not a layout here; a scalar's layout is omitted or written {:...}");
    }
    op_token = tok_;
    if (!parse_opcode(&op)) return false;
    if (!expect(TokenKind::kLParen, "after the opcode ", op_token.text)) return false;
  }

  Instruction* instruction = nullptr;
  if (op.opcode == Opcode::kParameter || op.opcode == Opcode::kConstant) {
    if (operands_begin != nullptr) skip_to(operands_begin);
    instruction = create_instruction(op, name.name(), shape);
    if (op.opcode == Opcode::kParameter) {
      Token number = tok_;
      int64_t n;
      if (!parse_int(&n, "the parameter number")) return false;
      if (n < 0) return error(number, "a parameter number cannot be negative");
      if (!add_parameter(instruction, n, number)) return false;
    } else {
      if (shape == nullptr) return error(op_token, "a constant needs its shape written");
      const char* begin = tok_.begin();
      if (!parse_literal(*shape, 0)) return false;
      IrAccess::set_literal(*state_, instruction, text_since(begin));
    }
    if (!expect(TokenKind::kRParen, "to close the operand list")) return false;
  } else {
    absl::InlinedVector<Instruction*, 8> operands;
    if (operands_begin == nullptr || !scan_operands(operands_begin, &operands)) {
      if (operands_begin != nullptr) skip_to(operands_begin);
      if (!parse_operands(&operands)) return false;
    }
    instruction = create_instruction(op, name.name(), shape);
    IrAccess::set_operands(*state_, instruction, operands);
  }
  if (!IrAccess::add_to_computation(computation_, instruction)) {
    return report_duplicate_name(name, computation_->find_instruction(name.name()));
  }
  if (!parse_attributes(instruction)) return false;
  if (!check_instruction(instruction, op_token)) return false;

  if (is_root) {
    if (root_ != nullptr) {
      return error(root_token, str_cat("a computation can have only one ROOT (", root_->name(),
                                       " is already the root)"));
    }
    root_ = instruction;
  }
  return true;
}

bool ModuleParser::add_parameter(Instruction* parameter, int64_t number, const Token& at) {
  // Parameters are numbered 0..n-1 (checked at the end of the computation), and no text of at
  // most 4 GiB declares 2^31 of them.
  if (number > std::numeric_limits<int32_t>::max()) {
    return error(at, str_cat("parameter number ", number,
                             " is out of range (a computation has fewer than 2^31 parameters)"));
  }
  if (Instruction* taken = parameter_numbers_.insert(number, parameter)) {
    return error(at, str_cat("parameter number ", number, " is already taken by ", taken->name()));
  }
  IrAccess::set_parameter_number(parameter, number);
  IrAccess::parameters(computation_).push_back(parameter);
  return true;
}

bool ModuleParser::report_duplicate_name(const Token& name, const Instruction* previous) {
  // Point at the `%` when the name has one.
  const char* at = previous ? previous->name().data() : nullptr;
  if (at != nullptr && at > lexer_.source().data() && at[-1] == '%') --at;
  std::string where = at ? position_of(lexer_.source(), at) : std::string();
  return error(name, str_cat("instruction already exists: ", name.name(),
                             where.empty() ? "" : str_cat(" (first defined at ", where, ")")));
}

// The length of the shape text starting at `p` (`f32[8,128]{1,0:T(8,128)}`, `(f32[], s32[])`)
// when it can be told from the characters alone: one line, no strings, no operand names.
// Returns 0 otherwise; the shape is then parsed in full (and the result is only cached when
// the parse consumed exactly this text).
enum ShapeChar : uint8_t { kTypeChar = 1, kDimChar = 2, kLayoutChar = 4, kTupleStop = 8 };

constexpr std::array<uint8_t, 256> make_shape_chars() {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kTypeChar;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kTypeChar | kDimChar;
  for (char c : {',', '<', '=', '?'}) t[static_cast<uint8_t>(c)] |= kDimChar;
  for (int c = 0x21; c < 0x7f; ++c) t[c] |= kLayoutChar;  // printable, not space
  for (char c : {'{', '[', '/', '"'}) t[static_cast<uint8_t>(c)] &= ~kLayoutChar;
  for (char c : {'\n', '"', '%', '\'', '\0'}) t[static_cast<uint8_t>(c)] |= kTupleStop;
  return t;
}
constexpr std::array<uint8_t, 256> kShapeChars = make_shape_chars();

inline bool is_shape_char(char c, ShapeChar cls) {
  return kShapeChars[static_cast<uint8_t>(c)] & cls;
}

static size_t shape_extent(const char* p, const char* end) {
  const char* s = p;
  if (*p == '(') {
    int depth = 0;
    for (; p < end; ++p) {
      char c = *p;
      if (c == '(') {
        ++depth;
      } else if (c == ')') {
        if (--depth == 0) return static_cast<size_t>(p + 1 - s);
      } else if (is_shape_char(c, kTupleStop)) {
        return 0;
      }
    }
    return 0;
  }
  // The source is followed by a NUL, which no class includes, so these loops stop at the end.
  while (is_shape_char(*p, kTypeChar)) ++p;
  if (*p != '[') return 0;
  for (++p; is_shape_char(*p, kDimChar); ++p) {
  }
  if (*p != ']') return 0;
  ++p;
  if (*p == '{' && ((p[1] >= '0' && p[1] <= '9') || p[1] == ':')) {
    for (++p; *p != '}' && is_shape_char(*p, kLayoutChar); ++p) {
    }
    if (*p != '}') return 0;
    ++p;
  }
  (void)end;
  return static_cast<size_t>(p - s);
}

// The cached shape whose text starts at `p` and is followed by a space, with its length; null
// when there is none. A cached text is one that shape_extent measured where it was first read,
// and shape_extent decides where a text ends from its own bytes and a following ' ' alike, so
// when the text up to the first space is cached, shape_extent would measure the same here and
// the look-up by its result is skipped.
const Shape* ModuleParser::cached_shape_before_space(const char* p, size_t* length) {
  // Neighbouring instructions often have the same shape: the text this found last, compared
  // byte for byte, answers without a hash. It was found below with a space after it, and the
  // same bytes with a space after them are found the same way.
  const size_t last = last_shape_text_.size();
  const char* end = lexer_.source().data() + lexer_.source().size();
  if (last != 0 && static_cast<size_t>(end - p) > last && p[last] == ' ' &&
      detail::same_text(std::string_view(p, last), last_shape_text_)) {
    *length = last;
    return last_shape_;
  }
  const Shape* found = find_cached_shape_before_space(p, length);
  if (found != nullptr) {
    last_shape_text_ = std::string_view(p, *length);
    last_shape_ = found;
  }
  return found;
}

const Shape* ModuleParser::find_cached_shape_before_space(const char* p, size_t* length) {
  const char* end = lexer_.source().data() + lexer_.source().size();
  // The text up to its first byte at or below ' ' (a space, a line break, the NUL after it).
  size_t n = static_cast<size_t>(detail::find_first_below<' ' + 1>(p, end) - p);
  if (p[n] == ' ') {
    if (auto it = shapes_by_text_.find(std::string_view(p, n)); it != shapes_by_text_.end()) {
      *length = n;
      return it->second;
    }
  }
  n = shape_extent(p, end);
  if (n == 0 || p[n] != ' ') return nullptr;
  auto it = shapes_by_text_.find(std::string_view(p, n));
  if (it == shapes_by_text_.end()) return nullptr;
  *length = n;
  return it->second;
}

// Where an operand's name from `p` ends, for a look-up: at the first byte below '-' (',', ')',
// ' ', '#', '(', a line break, the NUL after the source), eight bytes a step. The name chars
// [A-Za-z0-9_.-] are all '-' or above, so this is the lexer's end of the name whenever that
// end is one of those bytes; otherwise the text taken has a byte no name has, and the
// look-up, in a computation whose names all came from the lexer or from unique_name (name
// characters only), finds nothing.
inline const char* operand_name_end(const char* p, const char* end) {
  return detail::find_first_below<'-'>(p, end);
}

// Prefetches the names of a long operand list (a root tuple of thousands) a few places ahead
// of the operand being read, in a computation with a name map: once the map outgrows the
// caches, each name's slots are a miss.
class OperandLookahead {
 public:
  OperandLookahead(const Computation* c, const char* end) : computation_(c), end_(end) {}

  // At the start of each operand (at `p`, with `read` operands before it), in order: from the
  // fourth on, prefetches the name kAhead places further.
  void at_operand(const char* p, size_t read) {
    if (read >= 3) [[unlikely]] {
      from_fourth(p);
    }
  }

 private:
  static constexpr int kAhead = 8;

  // Out of line: most lists are shorter.
  [[gnu::noinline]] void from_fourth(const char* p) {
    if (ahead_ != nullptr) {
      ahead_ = prefetch(ahead_);
    } else if (!started_) {
      started_ = true;
      if (!IrAccess::large_name_map(computation_)) return;
      ahead_ = p;
      for (int k = 0; k < kAhead && ahead_ != nullptr; ++k) ahead_ = prefetch(ahead_);
    }
  }

  // Prefetches the name at `p` (after a '%', if any) and returns where the next operand
  // starts, or nullptr where the list seems to end: a guess that only prefetches (a typed
  // operand's shape is taken for a name).
  const char* prefetch(const char* p) const {
    if (*p == '%') ++p;
    const char* name_end = operand_name_end(p, end_);
    IrAccess::prefetch_name(computation_, std::string_view(p, static_cast<size_t>(name_end - p)));
    return name_end[0] == ',' && name_end[1] == ' ' ? name_end + 2 : nullptr;
  }

  const Computation* computation_;
  const char* end_;              // the text's end (a NUL byte follows it)
  const char* ahead_ = nullptr;  // where the next operand to prefetch starts
  bool started_ = false;
};

// Whether [begin, end) has a '.': no keyword or element type name has one, so a word with one
// is a name wherever a name may stand (the lexer makes every other word an identifier too).
inline bool has_dot(const char* begin, const char* end) {
  while (end > begin) {
    if (*--end == '.') return true;  // XLA's names end with `.N`: look from the end
  }
  return false;
}

// `name = SHAPE opcode(` after the instruction name (the current token), read straight from
// the text when the shape's text is already known, the opcode is a plain one and single spaces
// separate them, as printed modules have it. Returns where the operands start (just after the
// `(`), leaving the lexer on the name; null when the text is laid out otherwise, having changed
// nothing, and the head is then read token by token (which gives the same result wherever this
// succeeds: the same shape look-up and opcode look-up on the same text).
const char* ModuleParser::scan_instruction_head(const Shape** shape, OpcodeSpelling* op,
                                                Token* op_token) {
  const char* p = tok_.end();
  if (p[0] != ' ' || p[1] != '=' || p[2] != ' ') return nullptr;
  p += 3;
  // A cached shape's text starts with an element type or '(' (parse_cached_shape).
  if (*p != '(' && !(*p >= 'a' && *p <= 'z')) return nullptr;
  size_t length = 0;
  const Shape* found = cached_shape_before_space(p, &length);
  if (found == nullptr) return nullptr;
  p += length;
  if (!is_name_start(p[1])) return nullptr;
  const char* op_begin = p + 1;
  // Up to the first byte below '-' ('(', ' ', ',', a line break, the NUL after the source):
  // a byte that is no name byte before it leaves a text that is no opcode's name, as the
  // look-up below then says.
  p = detail::find_first_below<'-'>(op_begin, lexer_.source().data() + lexer_.source().size());
  if (*p != '(') return nullptr;
  std::string_view text(op_begin, static_cast<size_t>(p - op_begin));
  std::optional<Opcode> opcode = opcode_from_name(text);
  if (!opcode) return nullptr;  // the async sugar, or no opcode: parse_opcode says which
  *shape = found;
  op->opcode = *opcode;
  op_token->kind = TokenKind::kIdent;
  op_token->text = text;
  return p + 1;
}

bool ModuleParser::parse_cached_shape(const Shape** out) {
  if (at(TokenKind::kPrim) || at(TokenKind::kLParen)) {
    std::string_view source = lexer_.source();
    const char* begin = tok_.begin();
    size_t length = shape_extent(begin, source.data() + source.size());
    if (length > 0) {
      std::string_view text(begin, length);
      if (auto it = shapes_by_text_.find(text); it != shapes_by_text_.end()) {
        skip_to(begin + length);
        *out = it->second;
        return true;
      }
      if (!parse_shape(&shape_scratch_)) return false;
      *out = state_->shapes.intern(std::move(shape_scratch_));
      if (text_since(begin).size() == length) shapes_by_text_.emplace(text, *out);
      return true;
    }
  }
  if (!parse_shape(&shape_scratch_)) return false;
  *out = state_->shapes.intern(std::move(shape_scratch_));
  return true;
}

// A known shape ends where the text ends when it was read; before ',' or ')' no layout can
// follow it (a `{` after a space would continue the shape), so parsing would stop there too.
const Shape* ModuleParser::take_known_array_shape() {
  std::string_view source = lexer_.source();
  const char* begin = tok_.begin();
  const size_t length = shape_extent(begin, source.data() + source.size());
  if (length == 0 || (begin[length] != ',' && begin[length] != ')')) return nullptr;
  auto it = shapes_by_text_.find(std::string_view(begin, length));
  if (it == shapes_by_text_.end()) return nullptr;
  skip_to(begin + length);
  return it->second;
}

void ModuleParser::remember_array_shape(const char* begin, const Shape& shape) {
  std::string_view source = lexer_.source();
  const size_t length = shape_extent(begin, source.data() + source.size());
  if (length == 0 || text_since(begin).size() != length) return;
  if (begin[length] != ',' && begin[length] != ')') return;
  shapes_by_text_.emplace(std::string_view(begin, length), state_->shapes.intern(shape));
}

// Upstream rejects instruction names that its own name sanitizer would change (syntax 1.4).
bool ModuleParser::check_instruction_name(const Token& name) {
  std::string_view n = name.name();
  // No element type name has a '.', and the table's first test (first byte and length) turns
  // away most names, so no test for a '.' comes first.
  const bool type_name = is_element_type_name(n);
  const bool reserved = n.size() >= 2 && n[0] == '_' && n[1] == '_' && n.substr(0, 6) != "__xla_";
  if (type_name || reserved) [[unlikely]] {
    return report_illegal_instruction_name(name, type_name);
  }
  return true;
}

bool ModuleParser::report_illegal_instruction_name(const Token& name, bool type_name) {
  std::string_view n = name.name();
  if (type_name) {
    return error(name, str_cat("illegal instruction name: ", n, "; suggest renaming to: ", n, "_"));
  }
  return error(name,
               str_cat("illegal instruction name: ", n, "; suggest renaming to: a_", n.substr(2)));
}

Instruction* ModuleParser::create_instruction(const OpcodeSpelling& op, std::string_view name,
                                              const Shape* shape) {
  Instruction* i = IrAccess::new_instruction(*state_, op.opcode, name, shape);
  if (op.sugar) IrAccess::set_async_sugar(i, op.wrapped);
  return i;
}

// opcode ::= IDENT, or <op>-start / -update / -done for ops without native async forms.
bool ModuleParser::parse_opcode(OpcodeSpelling* out) {
  if (!at(TokenKind::kIdent)) return expected("an opcode");
  std::string_view text = tok_.text;
  if (std::optional<Opcode> op = opcode_from_name(text)) {
    out->opcode = *op;
    advance();
    return true;
  }
  struct Suffix {
    std::string_view text;
    Opcode async;
  };
  constexpr Suffix kSuffixes[] = {{"-start", Opcode::kAsyncStart},
                                  {"-update", Opcode::kAsyncUpdate},
                                  {"-done", Opcode::kAsyncDone}};
  for (const Suffix& s : kSuffixes) {
    if (text.size() <= s.text.size() || text.substr(text.size() - s.text.size()) != s.text) {
      continue;
    }
    std::string_view base = text.substr(0, text.size() - s.text.size());
    std::optional<Opcode> wrapped = opcode_from_name(base);
    if (!wrapped) break;
    if (has_native_async_forms(*wrapped) || opcode_category(*wrapped) == OpCategory::kAsync) {
      return error_here(str_cat(base, " cannot be async-wrapped as ", text,
                                " (it has native -start/-done opcodes)"));
    }
    out->opcode = s.async;
    out->sugar = true;
    out->wrapped = *wrapped;
    advance();
    return true;
  }
  return error_here(str_cat("unknown opcode '", text, "'"));
}

// The usual operand list of dumps, `%a, %b)` or `a.1, b.2)`, read straight from the text
// from `p` (just after the `(`). Anything else (bare names without a '.', which may be keywords,
// `#` indices, comments, nested instructions, unknown names, other spacing) makes it return
// false having consumed nothing, and parse_operands reads the list token by token.
bool ModuleParser::scan_operands(const char* p, absl::InlinedVector<Instruction*, 8>* out) {
  const char* end = lexer_.source().data() + lexer_.source().size();
  // Half the operands of dumps are the instruction just before: its name, compared byte for
  // byte, answers without a hash (it is what the look-up would find, as names are unique).
  absl::Span<Instruction* const> defined = computation_->instructions();
  Instruction* const previous = defined.empty() ? nullptr : defined.back();
  OperandLookahead lookahead(computation_, end);
  for (;;) {
    lookahead.at_operand(p, out->size());
    const char* name = p;
    const char* name_end = nullptr;
    if (*p == '%') {
      name = p + 1;
    } else if (is_name_start(*p)) {
      name_end = operand_name_end(p, end);
      if (*name_end != ',' && *name_end != ')') name_end = nullptr;  // a shape, or a nested op
    }
    // A typed operand (`f32[8]{0} %x`, older dumps) whose shape text is already known.
    const Shape* declared = nullptr;
    if (*p != '%' && name_end == nullptr) {
      size_t length = 0;
      declared = cached_shape_before_space(p, &length);
      if (declared == nullptr) break;
      p += length + 1;
      name = *p == '%' ? p + 1 : p;
    }
    if (!is_name_start(*name)) break;
    const bool bare = name == p;  // without '%': a keyword unless it has a '.'
    if (name_end == nullptr) name_end = operand_name_end(name, end);
    p = name_end;
    const std::string_view text(name, static_cast<size_t>(p - name));
    Instruction* operand = previous != nullptr && detail::same_text(previous->name(), text)
                               ? previous
                               : IrAccess::find(computation_, text);
    if (operand == nullptr || (bare && !has_dot(name, p))) break;
    if (declared != nullptr && declared != &operand->shape() &&
        !detail::compatible(*declared, operand->shape())) {
      break;  // parse_operand reports the mismatch
    }
    out->push_back(operand);
    if (*p == ')') {
      if (p[1] == ',') {
        skip_to_comma(p + 1);  // before the attributes
      } else {
        skip_to(p + 1);
      }
      return true;
    }
    if (p[0] != ',' || p[1] != ' ') break;
    p += 2;
  }
  out->clear();
  return false;
}

// operand_list ::= operand (',' operand)*      (after '(', up to and including ')')
bool ModuleParser::parse_operands(absl::InlinedVector<Instruction*, 8>* out) {
  if ((at(TokenKind::kName) || at(TokenKind::kIdent) || at(TokenKind::kPrim) ||
       at(TokenKind::kLParen)) &&
      scan_operands(tok_.begin(), out)) {
    return true;
  }
  if (consume_if(TokenKind::kRParen)) return true;
  OperandLookahead lookahead(computation_, lexer_.source().data() + lexer_.source().size());
  do {
    lookahead.at_operand(tok_.begin(), out->size());
    Instruction* operand;
    if (!parse_operand(&operand)) return false;
    out->push_back(operand);
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRParen, "to close the operand list");
}

// operand ::= shape? name ('#' INT)* | shape? opcode '(' operand_list? ')'
bool ModuleParser::parse_operand(Instruction** out) {
  const Shape* declared = nullptr;
  if (at_shape_start() && !parse_cached_shape(&declared)) return false;
  Token name = tok_;
  if (at(TokenKind::kIdent) && peek().is(TokenKind::kLParen)) {
    return parse_nested_instruction(declared, out, nesting_ + 1);
  }
  if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("an operand");
  if (!resolve_instruction(name, out)) return false;
  advance();
  while (consume_if(TokenKind::kHash)) {
    Token index = tok_;
    if (!compact_gte(*out, index, out)) return false;
  }
  if (declared != nullptr && declared != &(*out)->shape() &&
      !detail::compatible(*declared, (*out)->shape())) {
    return error(name,
                 str_cat("operand ", (*out)->name(), " has shape ", to_string((*out)->shape()),
                         ", not ", to_string(*declared), " as written"));
  }
  return true;
}

bool ModuleParser::resolve_instruction(const Token& name, Instruction** out) {
  *out = IrAccess::find(computation_, name.name());
  if (*out != nullptr) return true;
  if (find_later_definition(name.name(), /*computation=*/false)) {
    return error(name, str_cat("instruction ", name.name(),
                               " is used before its definition (operands must be defined "
                               "earlier in the computation)"));
  }
  return error(name, str_cat("instruction does not exist: ", name.name()));
}

// `%t#1#0`: element 0 of element 1 of %t, through get-tuple-element instructions that are
// created once per (tuple, index) and named t_1, t_1_0 (syntax 2.6).
bool ModuleParser::compact_gte(Instruction* tuple, const Token& index_token, Instruction** out) {
  if (!at(TokenKind::kInt)) return expected("a tuple index after '#'");
  if (tok_.negative && tok_.int_bits != 0) {
    return error_here(str_cat("tuple index ", tok_.text, " cannot be negative"));
  }
  int64_t index;
  if (!parse_int(&index, "a tuple index")) return false;
  const Shape& shape = tuple->shape();
  if (!shape.is_tuple()) {
    return error(index_token, str_cat(tuple->name(), " has shape ", to_string(shape),
                                      ", which is not a tuple, so it has no element ", index));
  }
  if (index >= static_cast<int64_t>(shape.elements.size())) {
    return error(index_token, str_cat("tuple index ", index, " is out of range: ", tuple->name(),
                                      " has ", shape.elements.size(), " elements"));
  }
  auto [it, inserted] = compact_gtes_.try_emplace({tuple, index}, nullptr);
  if (!inserted) {
    *out = it->second;
    return true;
  }
  std::string_view name = IrAccess::unique_name(computation_, str_cat(tuple->name(), "_", index));
  const Shape* element = state_->shapes.intern(shape.elements[static_cast<size_t>(index)]);
  Instruction* gte = IrAccess::new_instruction(*state_, Opcode::kGetTupleElement, name, element);
  IrAccess::set_operands(*state_, gte, absl::Span<Instruction* const>(&tuple, 1));
  IrAccess::add_to_computation(computation_, gte);
  Attribute attribute{AttrId::kIndex, save(str_cat(index)), AttrValue(index)};
  IrAccess::set_attributes(gte, state_->arena.copy<Attribute>({&attribute, 1}));
  it->second = gte;
  *out = gte;
  return true;
}

// A nested operand `f32[] parameter(0)` or `add(x, y)` becomes an instruction of its own,
// named `<opcode>.anon`, placed before its user (syntax 2.6).
bool ModuleParser::parse_nested_instruction(const Shape* shape, Instruction** out, int depth) {
  if (depth > kMaxNesting) {
    return error_here(
        str_cat("instruction operands nested more than ", kMaxNesting, " levels deep"));
  }
  Token op_token = tok_;
  OpcodeSpelling op;
  if (!parse_opcode(&op)) return false;
  if (!expect(TokenKind::kLParen, "after the opcode ", op_token.text)) return false;
  // Named once its own nested operands have taken their names.
  auto anon_name = [&] {
    return IrAccess::unique_name(computation_, str_cat(opcode_name(op.opcode), ".anon"));
  };
  Instruction* instruction = nullptr;
  if (op.opcode == Opcode::kParameter || op.opcode == Opcode::kConstant) {
    if (shape == nullptr) return error(op_token, "a nested parameter or constant needs a shape");
    instruction = create_instruction(op, anon_name(), shape);
    if (op.opcode == Opcode::kParameter) {
      int64_t n;
      if (!parse_int(&n, "the parameter number")) return false;
      if (n < 0) return error(op_token, "a parameter number cannot be negative");
      if (!add_parameter(instruction, n, op_token)) return false;
    } else {
      const char* begin = tok_.begin();
      if (!parse_literal(*shape, 0)) return false;
      IrAccess::set_literal(*state_, instruction, text_since(begin));
    }
    if (!expect(TokenKind::kRParen, "to close the operand list")) return false;
  } else {
    absl::InlinedVector<Instruction*, 8> operands;
    int saved = nesting_;
    nesting_ = depth;
    bool ok = parse_operands(&operands);
    nesting_ = saved;
    if (!ok) return false;
    instruction = create_instruction(op, anon_name(), shape);
    IrAccess::set_operands(*state_, instruction, operands);
  }
  IrAccess::add_to_computation(computation_, instruction);
  if (!check_instruction(instruction, op_token)) return false;
  *out = instruction;
  return true;
}

// (',' ATTR value)*: any order, each name once.
bool ModuleParser::parse_attributes(Instruction* instruction) {
  absl::InlinedVector<Attribute, 8> attributes;
  while (at(TokenKind::kComma)) {
    if (scan_attribute(&attributes)) continue;
    advance();
    if (!at(TokenKind::kAttr)) return expected("an attribute (name=value)");
    Token name = tok_;
    std::optional<AttrId> id = attribute_from_name(name.name());
    if (!id) return error_here(str_cat("unknown attribute '", name.name(), "'"));
    for (const Attribute& a : attributes) {
      if (a.id == *id) return error_here(str_cat("attribute '", name.name(), "' is given twice"));
    }
    advance();
    Attribute& a = attributes.emplace_back();
    if (!parse_attribute_value(instruction, *id, &a)) return false;
  }
  // What follows an instruction begins the next one (`name = ...`, ROOT) or closes the
  // computation: anything else is left over from the value before it (`[2,4]<=[8]T(5)`), said
  // there rather than as an attribute missing further on.
  if (!at(TokenKind::kRBrace) && !at(TokenKind::kEof) && !at(TokenKind::kw_ROOT) &&
      !at(TokenKind::kAttr) && !peek().is(TokenKind::kEqual)) {
    if (attributes.empty()) {
      return error_here(str_cat("unexpected '", tok_.text, "' after the instruction; its "
                                "attributes follow a comma (`, name=value`)"));
    }
    return error_here(str_cat("unexpected '", tok_.text, "' after the value of attribute '",
                              attribute_name(attributes.back().id),
                              "'; attributes are separated by commas"));
  }
  if (attributes.empty()) return true;
  // Opcode-specific attributes first in their written order, then the common ones in print
  // order (syntax 2.8): a stable insertion sort, as lists are short.
  for (size_t k = 1; k < attributes.size(); ++k) {
    for (size_t j = k; j > 0 && attribute_print_group(attributes[j - 1].id) >
                                    attribute_print_group(attributes[j].id);
         --j) {
      std::swap(attributes[j - 1], attributes[j]);
    }
  }
  IrAccess::set_attributes(instruction, state_->arena.copy<Attribute>(attributes));
  return true;
}

bool ModuleParser::parse_single_attribute(Instruction* instruction, AttrId id, Attribute* out) {
  computation_ = instruction->parent();
  if (!parse_attribute_value(instruction, id, out)) return false;
  if (!at(TokenKind::kEof)) return expected("the end of the attribute value");
  return true;
}

}  // namespace hloroof::text
