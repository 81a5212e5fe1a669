// Modules: header, computations and the entry (docs/hlo-text.md, "Module header" to "Computations
// and the entry"), and the public parse_module entry points.
#include "text/module_parser.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "hloroof/hlo_text.h"
#include "hloroof/shape_text.h"
#include "ir/shape_util.h"
#include "hloroof/absl_compat.h"
#include "hloroof/huge_pages.h"
#include "text/module_attributes.h"

namespace hloroof::text {

using detail::IrAccess;

ModuleParser::ModuleParser(detail::ModuleState* state, const TextLines* lines)
    : Parser(state->source),
      state_(state),
      lines_(lines),
      counted_to_(state->source.data()) {}

ModuleParser::ModuleParser(detail::ModuleState* state, std::string_view text)
    : Parser(text), state_(state) {}

Instruction* ParameterNumbers::insert(int64_t number, Instruction* parameter) {
  if (!sparse_.empty()) {
    if (auto it = sparse_.find(number); it != sparse_.end()) return it->second;
  }
  const auto n = static_cast<size_t>(number);
  if (n < dense_.size()) {
    if (dense_[n] != nullptr) return dense_[n];
    dense_[n] = parameter;
    return nullptr;
  }
  // The table grows to at most twice its size and a little more; a number past that goes to the
  // map, so that `parameter(2000000000)` costs no 16 GB table.
  if (n <= 2 * dense_.size() + 64) {
    dense_.resize(n + 1, nullptr);
    dense_[n] = parameter;
    return nullptr;
  }
  sparse_.emplace(number, parameter);
  return nullptr;
}

// module ::= header stack_frames? computation+ EOF | computation+ EOF
bool ModuleParser::parse_module() {
  if (at(TokenKind::kw_HloModule) && !parse_header()) return false;
  if (at(TokenKind::kw_FileNames) && !parse_stack_frames()) return false;
  if (at(TokenKind::kEof)) return expected("a computation");
  while (!at(TokenKind::kEof)) {
    if (!parse_computation()) return false;
  }
  return finish_module();
}

// header ::= 'HloModule' name (',' module_attr)*
bool ModuleParser::parse_header() {
  advance();
  if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("the module name");
  state_->name = tok_.name();
  advance();
  std::vector<bool> seen(kModuleAttributeOrder.size(), false);
  while (consume_if(TokenKind::kComma)) {
    if (!parse_module_attribute(&seen)) return false;
  }
  return true;
}

bool ModuleParser::parse_module_attribute(std::vector<bool>* seen) {
  if (!at(TokenKind::kAttr)) return expected("a module attribute (name=value)");
  Token name = tok_;
  int rank = module_attribute_rank(name.name());
  if (rank < 0) return error_here(str_cat("unknown module attribute '", name.name(), "'"));
  if ((*seen)[static_cast<size_t>(rank)]) {
    return error_here(str_cat("module attribute '", name.name(), "' is given twice"));
  }
  (*seen)[static_cast<size_t>(rank)] = true;
  advance();
  ModuleAttributes& attrs = state_->attributes;
  std::string_view key = name.name();
  if (key == "is_scheduled") return parse_bool(&attrs.is_scheduled, "is_scheduled");
  if (key == "replica_count" || key == "num_partitions") {
    int64_t* target = key == "replica_count" ? &attrs.replica_count : &attrs.num_partitions;
    Token value = tok_;
    if (!parse_int(target, key)) return false;
    if (*target < 1) return error(value, str_cat(key, " must be at least 1"));
    return true;
  }
  if (key == "entry_computation_layout") return parse_entry_computation_layout();
  if (key == "input_output_alias") return parse_input_output_alias();
  if (key == "buffer_donor") return parse_buffer_donor();

  // Kept as written; frontend attributes are read properly since their values may be raw
  // blobs that are not tokens.
  const char* begin = tok_.begin();
  if (key == "frontend_attributes") {
    FrontendAttributes ignored;
    if (!parse_frontend_attributes(&ignored)) return false;
  } else if (key == "debug_attributes") {
    if (!parse_debug_attributes()) return false;
  } else if (!skip_value(key)) {
    return false;
  }
  RawModuleAttribute raw{key, text_since(begin)};
  auto& others = attrs.others;
  auto pos = std::find_if(others.begin(), others.end(), [&](const RawModuleAttribute& o) {
    return module_attribute_rank(o.name) > rank;
  });
  others.insert(pos, raw);
  return true;
}

// shape_index ::= '{' (INT (',' INT)*)? '}'
bool ModuleParser::parse_shape_index(ShapeIndex* out) {
  return parse_int_list(out, "a shape index like {0,1}");
}

// debug_table ::= '{' (orig_array ':' debug_list (',' ...)*)? '}'
// debug_list  ::= '(' (debug_attrs (',' debug_attrs)*)? ')' | debug_attrs
// debug_attrs ::= '{' debug_attr (',' debug_attr)* '}'
// orig_array  ::= '{' (STRING shape_index?)? '}'
bool ModuleParser::parse_debug_attributes() {
  auto parse_origin = [&] {
    if (!expect(TokenKind::kLBrace, "to open an original value like {\"name\" {0}}")) {
      return false;
    }
    if (at(TokenKind::kString)) {
      advance();
      ShapeIndex index;
      if (at(TokenKind::kLBrace) && !parse_shape_index(&index)) return false;
    }
    return expect(TokenKind::kRBrace, "to close the original value");
  };
  auto parse_attrs = [&] {
    if (!expect(TokenKind::kLBrace, "to open debug attributes")) return false;
    do {
      if (!at(TokenKind::kAttr)) return expected("a debug attribute (log_mode=, ...)");
      std::string_view key = tok_.name();
      advance();
      if (key == "log_mode") {
        if (!at(TokenKind::kIdent) || (tok_.text != "default" && tok_.text != "fusion_debugger")) {
          return expected("default or fusion_debugger (the log mode)");
        }
        advance();
      } else if (key == "partitioned") {
        bool ignored;
        if (!parse_bool(&ignored, key)) return false;
      } else if (key == "callback_id" || key == "op_id") {
        int64_t ignored;
        if (!parse_int(&ignored, key)) return false;
      } else {
        return error_here(str_cat("unknown debug attribute '", key, "'"));
      }
    } while (consume_if(TokenKind::kComma));
    return expect(TokenKind::kRBrace, "to close debug attributes");
  };
  if (!expect(TokenKind::kLBrace, "to open debug_attributes")) return false;
  if (!at(TokenKind::kRBrace)) {
    do {
      if (!parse_origin()) return false;
      if (!expect(TokenKind::kColon, "after an original value")) return false;
      if (consume_if(TokenKind::kLParen)) {
        if (!at(TokenKind::kRParen)) {
          do {
            if (!parse_attrs()) return false;
          } while (consume_if(TokenKind::kComma));
        }
        if (!expect(TokenKind::kRParen, "to close the debug attribute list")) return false;
      } else if (!parse_attrs()) {
        return false;
      }
    } while (consume_if(TokenKind::kComma));
  }
  return expect(TokenKind::kRBrace, "to close debug_attributes");
}

// '{' '(' (shape (',' shape)*)? ')' '->' shape '}'
bool ModuleParser::parse_entry_computation_layout() {
  ModuleAttributes& attrs = state_->attributes;
  attrs.has_entry_computation_layout = true;
  if (!expect(TokenKind::kLBrace, "to open entry_computation_layout")) return false;
  if (!expect(TokenKind::kLParen, "before the entry parameter layouts")) return false;
  if (!at(TokenKind::kRParen)) {
    do {
      const Shape* shape;
      if (!parse_cached_shape(&shape)) return false;
      attrs.entry_parameter_layouts.push_back(shape);
    } while (consume_if(TokenKind::kComma));
  }
  if (!expect(TokenKind::kRParen, "after the entry parameter layouts")) return false;
  if (!expect(TokenKind::kArrow, "before the entry result layout")) return false;
  const Shape* result;
  if (!parse_cached_shape(&result)) return false;
  attrs.entry_result_layout = result;
  return expect(TokenKind::kRBrace, "to close entry_computation_layout");
}

// '{' (shape_index ':' '(' INT ',' shape_index (',' IDENT)? ')' (',' ...)*)? '}'
bool ModuleParser::parse_input_output_alias() {
  ModuleAttributes& attrs = state_->attributes;
  attrs.has_input_output_alias = true;
  if (!expect(TokenKind::kLBrace, "to open input_output_alias")) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    InputOutputAlias& alias = attrs.input_output_alias.emplace_back();
    if (!parse_shape_index(&alias.output_index)) return false;
    if (!expect(TokenKind::kColon, "after the output shape index of an alias")) return false;
    if (!expect(TokenKind::kLParen, "to open an alias target (parameter, {index}, kind)")) {
      return false;
    }
    if (!parse_int(&alias.parameter_number, "the aliased parameter number")) return false;
    if (!expect(TokenKind::kComma, "after the aliased parameter number")) return false;
    if (!parse_shape_index(&alias.parameter_index)) return false;
    if (consume_if(TokenKind::kComma)) {
      if (at(TokenKind::kIdent) && (tok_.text == "may-alias" || tok_.text == "must-alias")) {
        alias.must_alias = tok_.text == "must-alias";
        advance();
      } else {
        return expected("may-alias or must-alias");
      }
    }
    if (!expect(TokenKind::kRParen, "to close an alias target")) return false;
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close input_output_alias");
}

// '{' ('(' INT ',' shape_index ')' (',' ...)*)? '}'
bool ModuleParser::parse_buffer_donor() {
  ModuleAttributes& attrs = state_->attributes;
  attrs.has_buffer_donor = true;
  if (!expect(TokenKind::kLBrace, "to open buffer_donor")) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    BufferDonor& donor = attrs.buffer_donor.emplace_back();
    if (!expect(TokenKind::kLParen, "to open a buffer donor (parameter, {index})")) return false;
    if (!parse_int(&donor.parameter_number, "the donated parameter number")) return false;
    if (!expect(TokenKind::kComma, "after the donated parameter number")) return false;
    if (!parse_shape_index(&donor.parameter_index)) return false;
    if (!expect(TokenKind::kRParen, "to close a buffer donor")) return false;
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close buffer_donor");
}

// computation ::= 'ENTRY'? name signature? body (',' ATTR(execution_thread) STRING)?
// signature   ::= '(' (param (',' param)*)? ')' '->' shape
bool ModuleParser::parse_computation() {
  Token entry = tok_;
  bool is_entry = consume_if(TokenKind::kw_ENTRY);
  if (is_entry && saw_entry_) {
    return error(entry, str_cat("only one ENTRY computation is allowed (the first is at line ",
                                line_of(entry_token_), ")"));
  }
  if (is_entry) {
    saw_entry_ = true;
    entry_token_ = entry;
  }
  Token name = tok_;
  if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("a computation name");
  if (state_->computations_by_name.contains(name.name())) {
    return error_here(str_cat("computation already exists: ", name.name()));
  }
  advance();

  const Shape* declared_result = nullptr;
  size_t declared_parameters = 0;
  if (consume_if(TokenKind::kLParen)) {
    if (!at(TokenKind::kRParen)) {
      do {
        ++declared_parameters;
        // `p0: f32[]` lexes as NAME `p0:`; upstream also takes `p0 f32[]` and we take `%p0:`.
        if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("a parameter name");
        advance();
        consume_if(TokenKind::kColon);
        const Shape* ignored;  // signature shapes are not checked against the parameters
        if (!parse_cached_shape(&ignored)) return false;
      } while (consume_if(TokenKind::kComma));
    }
    if (!expect(TokenKind::kRParen, "to close the parameter list")) return false;
    if (!expect(TokenKind::kArrow, "before the result shape of the computation")) return false;
    if (!parse_cached_shape(&declared_result)) return false;
  }
  const char* body = tok().begin();
  if (!expect(TokenKind::kLBrace, "to open the body of computation ", name.name())) {
    return false;
  }

  computation_ = IrAccess::new_computation(*state_, name.name());
  call_height_here_ = 0;
  IrAccess::reserve_instructions(computation_, estimated_instruction_count(body));
  IrAccess::set_entry(computation_, is_entry);
  root_ = nullptr;
  compact_gtes_.clear();
  parameter_numbers_.clear();
  // Sized from the signature (a step's entry computation takes thousands of parameters).
  parameter_numbers_.reserve(declared_parameters);
  IrAccess::parameters(computation_).reserve(declared_parameters);
  if (at(TokenKind::kRBrace)) {
    return error_here(str_cat("computation ", name.name(), " has no instructions"));
  }
  while (!at(TokenKind::kRBrace)) {
    if (at(TokenKind::kEof)) {
      return expected(str_cat("'}' to close computation ", name.name()));
    }
    if (!parse_instruction()) return false;
  }
  advance();
  if (at(TokenKind::kComma)) {
    Token next = peek();
    if (next.is(TokenKind::kAttr) && next.name() == "execution_thread") {
      advance();
      advance();
      std::string_view thread;
      if (!parse_decoded_string(&thread, "the execution thread")) return false;
      IrAccess::set_execution_thread(computation_, thread);
    }
  }
  return finish_computation(name, declared_result);
}

TextLines count_lines(std::string_view text) {
  TextLines lines;
  const size_t max_ends = 16 + text.size() / 64;
  const char* end = text.data() + text.size();
  for (const char* p = text.data();;) {
    const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    if (nl == nullptr) break;
    if (nl + 1 < end && nl[1] == '}' && lines.body_ends.size() < max_ends) {
      lines.body_ends.push_back({nl, lines.count});
    }
    ++lines.count;
    p = nl + 1;
  }
  return lines;
}

// Printed modules put one instruction on a line and close a body with `}` at the start of a
// line: the lines from the body's `{` to the next such line (a body end count_lines found)
// estimate the body's size. It is a hint only: text laid out otherwise just costs a map that
// grows as it goes. A body that starts before the end an earlier estimate used (an inline
// computation) gets no hint. Only the text between bodies (their headers) is counted here, each
// byte once.
size_t ModuleParser::estimated_instruction_count(const char* p) {
  if (lines_ == nullptr || p < scanned_to_) return 0;
  const std::vector<TextLines::BodyEnd>& ends = lines_->body_ends;
  while (next_body_end_ < ends.size() && ends[next_body_end_].newline < p) ++next_body_end_;
  if (next_body_end_ == ends.size()) return 0;
  if (next_body_end_ > 0 && ends[next_body_end_ - 1].newline >= counted_to_) {
    counted_to_ = ends[next_body_end_ - 1].newline;
    counted_lines_ = ends[next_body_end_ - 1].line;
  }
  while (const char* nl = static_cast<const char*>(
             std::memchr(counted_to_, '\n', static_cast<size_t>(p - counted_to_)))) {
    ++counted_lines_;
    counted_to_ = nl + 1;
  }
  counted_to_ = p;
  const TextLines::BodyEnd& body_end = ends[next_body_end_];
  scanned_to_ = body_end.newline + 1;
  constexpr size_t kMaxHint = size_t{1} << 20;
  return std::min(body_end.line - counted_lines_, kMaxHint);
}

bool ModuleParser::parse_inline_computation(Computation** out) {
  constexpr int kMaxInlineDepth = 32;
  if (inline_depth_ >= kMaxInlineDepth) {
    return error_here(
        str_cat("inline computations nested more than ", kMaxInlineDepth, " levels deep"));
  }
  Token open = tok_;
  advance();
  // The enclosing computation is mid-instruction: set its state aside.
  Computation* outer = computation_;
  Instruction* outer_root = root_;
  auto outer_gtes = std::move(compact_gtes_);
  auto outer_parameters = std::move(parameter_numbers_);
  compact_gtes_.clear();
  parameter_numbers_.clear();
  std::string name = "inline_computation";
  for (int n = 1; state_->computations_by_name.contains(name); ++n) {
    name = str_cat("inline_computation.", n);
  }
  computation_ = IrAccess::new_computation(*state_, save(name));
  const int outer_height = std::exchange(call_height_here_, 0);
  root_ = nullptr;
  ++inline_depth_;
  bool ok = true;
  if (at(TokenKind::kRBrace)) ok = error_here("an inline computation needs instructions");
  while (ok && !at(TokenKind::kRBrace)) {
    if (at(TokenKind::kEof)) {
      ok = error(open, "this inline computation is never closed");
      break;
    }
    ok = parse_instruction();
  }
  if (ok) {
    advance();
    *out = computation_;
    ok = finish_computation(open, nullptr);
  }
  --inline_depth_;
  computation_ = outer;
  call_height_here_ = outer_height;
  root_ = outer_root;
  compact_gtes_ = std::move(outer_gtes);
  parameter_numbers_ = std::move(outer_parameters);
  return ok;
}

bool ModuleParser::finish_computation(const Token& at, const Shape* declared_result) {
  Computation* c = computation_;
  std::string_view name = c->name();
  IrAccess::set_root(c, root_ != nullptr ? root_ : c->instructions().back());

  // Parameters must be numbered 0..n-1, each once.
  detail::InstructionVector& params = IrAccess::parameters(c);
  std::sort(params.begin(), params.end(), [](Instruction* a, Instruction* b) {
    return a->parameter_number() < b->parameter_number();
  });
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i]->parameter_number() != static_cast<int64_t>(i)) {
      return error(at, str_cat("computation ", name, " has ", params.size(),
                               " parameters but no parameter(", i, ")"));
    }
  }
  if (declared_result != nullptr &&
      !detail::same_ignoring_layout(*declared_result, c->root()->shape())) {
    return error(at, str_cat("computation ", name, " declares result shape ",
                             to_string(*declared_result), " but its root ", c->root()->name(),
                             " has shape ", to_string(c->root()->shape())));
  }
  if (call_height_here_ > 0) call_height_[c] = call_height_here_;
  state_->computations.push_back(c);
  state_->computations_by_name.emplace(c->name(), c);
  computation_ = nullptr;
  return true;
}

bool ModuleParser::finish_module() {
  Computation* entry = nullptr;
  for (Computation* c : state_->computations) {
    if (c->is_entry()) entry = c;
  }
  state_->entry_marked = entry != nullptr;
  if (entry == nullptr) {
    entry = state_->computations.back();
    IrAccess::set_entry(entry, true);
  }
  state_->entry = entry;
  if (state_->name.empty()) state_->name = save(str_cat("module_", entry->name()));
  return true;
}

bool ModuleParser::find_later_definition(std::string_view name, bool computation) const {
  std::string_view source = lexer_.source();
  size_t from = static_cast<size_t>(prev_end_ - source.data());
  size_t end = source.size();
  if (!computation) {
    // Instructions are scoped to their computation: stop at the next line starting with '}'.
    size_t close = source.find("\n}", from);
    if (close != std::string_view::npos) end = close;
  }
  auto is_name_char = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '-';
  };
  for (size_t pos = source.find(name, from); pos != std::string_view::npos && pos < end;
       pos = source.find(name, pos + 1)) {
    if (pos > 0 && is_name_char(source[pos - 1])) continue;
    size_t after = pos + name.size();
    if (after < source.size() && is_name_char(source[after])) continue;
    while (after < source.size() && (source[after] == ' ' || source[after] == '\t')) ++after;
    if (after >= source.size()) break;
    char next = source[after];
    if (!computation && next == '=') return true;
    if (computation && (next == '(' || next == '{')) return true;
  }
  return false;
}

}  // namespace hloroof::text

namespace hloroof {
namespace {

// What parsing a text of `text_bytes` bytes and `lines` lines will take of its module's arena, for
// Arena::expect: from 1.5 MiB up, the arena's first block is that large, in huge pages made
// resident as it fills. Printers write an instruction a line, and a module takes 157-163 bytes of
// arena per instruction on the corpus's largest modules (module_memory_bench): so 160 bytes a line.
// That many huge pages pay on texts of a few MB (gemma3's 3.8 MB: 1.65 huge pages' worth, so two
// huge pages rather than one and 4 KiB pages after it); past 16 MiB, half the text's size is
// expected instead (the arena takes 0.56-1.2 bytes per text byte), since every block of an arena
// past 4 MiB is in huge pages anyway.
size_t expected_arena_bytes(size_t text_bytes, size_t lines) {
  constexpr size_t kCountUpTo = size_t{16} << 20;
  constexpr size_t kBytesPerLine = 160;
  if (text_bytes < detail::kHugePageBytes || text_bytes > kCountUpTo) return text_bytes / 2;
  return lines * kBytesPerLine;
}

// Parses `state.source` (set by the caller) into `module`.
absl::StatusOr<Module> parse_state(Module module, const ParseOptions& options) {
  detail::ModuleState& state = detail::IrAccess::state(module);
  const text::TextLines lines = text::count_lines(state.source);
  state.arena.expect(expected_arena_bytes(state.source.size(), lines.count));
  // Modules of many computations take 2 KB of text or more for each (the generated module's
  // fused computations, 2.0 KB; the corpus's largest modules, 6-8 KB): room for as many
  // computations as that allows, so that the map of their names never grows, rehashing every
  // name again (7% of the parse of the generated 105 MB module), for 12 bytes a KB of text.
  state.computations_by_name.reserve(state.source.size() / 2048);
  text::ModuleParser parser(&state, &lines);
  if (!parser.parse_module()) {
    return text::diagnostic_status(*parser.diagnostic(), state.source, options.file_name,
                                   options.show_source_line);
  }
  return module;
}

absl::StatusOr<Module> parse_owned(std::string text, const ParseOptions& options) {
  Module module;
  detail::ModuleState& state = detail::IrAccess::state(module);
  state.owned_source = std::move(text);
  state.source = state.owned_source;
  return parse_state(std::move(module), options);
}

}  // namespace

absl::StatusOr<Module> parse_module(std::string_view text, const ParseOptions& options) {
  return parse_owned(std::string(text), options);
}

absl::StatusOr<Module> parse_module(std::string&& text, const ParseOptions& options) {
  return parse_owned(std::move(text), options);
}

absl::StatusOr<Module> parse_module(InputFile&& file, const ParseOptions& options) {
  Module module;
  detail::ModuleState& state = detail::IrAccess::state(module);
  state.input = std::move(file);
  state.source = state.input.text();  // followed by a NUL, as InputFile promises
  return parse_state(std::move(module), options);
}

std::optional<ParseErrorLocation> parse_error_location(const absl::Status& status) {
  std::optional<text::Diagnostic> d = text::diagnostic_of(status);
  if (!d) return std::nullopt;
  return ParseErrorLocation{static_cast<int>(d->line), static_cast<int>(d->column),
                            std::move(d->message)};
}

absl::Status set_attribute_from_text(Instruction& instruction, std::string_view name,
                                     std::string_view value_text) {
  std::optional<AttrId> id = attribute_from_name(name);
  if (!id) return absl::InvalidArgumentError(str_cat("unknown attribute '", name, "'"));
  if (instruction.parent() == nullptr) {
    return absl::FailedPreconditionError("the instruction is not in a computation");
  }
  detail::ModuleState& state = detail::IrAccess::state(*instruction.parent());
  // Saved with a NUL after it, which the lexer wants.
  std::string_view saved = state.arena.save(str_cat(value_text, std::string_view("\0", 1)));
  saved.remove_suffix(1);
  text::ModuleParser parser(&state, saved);
  Attribute attribute;
  if (!parser.parse_single_attribute(&instruction, *id, &attribute)) {
    return text::diagnostic_status(*parser.diagnostic(), saved, str_cat("value of ", name),
                                   /*with_source_line=*/true);
  }
  detail::IrAccess::put_attribute(&instruction, attribute);
  // A computation it now calls is printed before its caller.
  const ComputationList callees = instruction.called_computations();
  if (!callees.empty()) detail::IrAccess::order_callees_first(state);
  return absl::OkStatus();
}

}  // namespace hloroof
