// Attribute values (docs/hlo-text.md, "Attributes"), by AttrKind.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "hloroof/metadata.h"
#include "hloroof/shape_text.h"
#include "ir/byte_scan.h"
#include "ir/metadata_scan.h"
#include "ir/shape_util.h"
#include "hloroof/absl_compat.h"
#include "text/lexer.h"
#include "text/module_parser.h"
#include "text/name_chars.h"

namespace hloroof::text {

using detail::IrAccess;

namespace {

// Allowed spellings of enumerated attribute values; empty means any identifier.
struct WordSet {
  AttrId id;
  bool case_insensitive;
  std::initializer_list<std::string_view> words;
};

const WordSet kWordSets[] = {
    {AttrId::kDirection, false, {"EQ", "NE", "GE", "GT", "LE", "LT"}},
    {AttrId::kComparisonType, false, {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
    {AttrId::kFftType, false, {"FFT", "IFFT", "RFFT", "IRFFT"}},
    {AttrId::kFusionKind, false, {"kLoop", "kInput", "kOutput", "kCustom"}},
    {AttrId::kDistribution, false, {"rng_uniform", "rng_normal"}},
    {AttrId::kTransposeA, false, {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
    {AttrId::kSchedule, false, {"SCHEDULE_NONE", "SCHEDULE_LATEST", "SCHEDULE_EARLIEST"}},
    {AttrId::kPaddingType, false, {"PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"}},
    {AttrId::kConvolutionKind, false, {"fprop", "dgrad", "wgrad", "unset"}},
    // API_VERSION_UNSPECIFIED is rejected upstream but older torch-xla dumps carry it.
    {AttrId::kApiVersion,
     true,
     {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
      "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}},
    {AttrId::kOperandPrecision, true, {"default", "high", "highest"}},
};

const WordSet* word_set(AttrId id) {
  for (const WordSet& s : kWordSets) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

bool allowed(const WordSet& set, std::string_view word) {
  for (std::string_view w : set.words) {
    if (set.case_insensitive ? absl::EqualsIgnoreCase(sv(w), sv(word)) : w == word) {
      return true;
    }
  }
  return false;
}

std::string join_words(const WordSet& set) {
  std::string out;
  for (std::string_view w : set.words) str_append(&out, out.empty() ? "" : ", ", w);
  return out;
}

// Splits `text` at `sep`.
std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

bool to_int(std::string_view text, int64_t* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Every analysis walks calls recursively; a chain of calls (fusions, loops, calls, conditionals,
// appliers) deeper than this is refused where the text is.
constexpr int kMaxCallDepth = 128;

// ---- Text scanners for scan_attribute: each reads one form at `p`, bounded by `end`, and
// returns where it stopped, or null when the text is not in that form.

bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// attribute_kind(id), inline (the direct reading asks it for every attribute).
constexpr AttrKind kAttributeKinds[] = {
#define HLOROOF_ATTRIBUTE(e, text, kind, group) AttrKind::kind,
#include "hloroof/attributes.def"
#undef HLOROOF_ATTRIBUTE
};

// The first '=' among the 32 bytes at `p` (fewer before `end`), or null. Attribute names are
// shorter.
const char* find_equals(const char* p, const char* end) {
  const char* stop = end - p > 32 ? p + 32 : end;
  const char* equals = detail::find_first_of<'='>(p, stop);
  return equals != stop ? equals : nullptr;
}

// [0-9]{1,18} into *out: at most 18 digits, which cannot overflow (longer ones, never printed,
// take the token path).
[[gnu::always_inline]] inline const char* scan_digits(const char* p, const char* end,
                                                      int64_t* out) {
  const char* digits = p;
  const char* stop = end - p > 18 ? p + 18 : end;
  int64_t value = 0;
  for (; p != stop && is_digit(*p); ++p) value = value * 10 + (*p - '0');
  if (p == digits || (p != end && is_digit(*p))) return nullptr;
  *out = value;
  return p;
}

// '{' ([0-9]+ (',' [0-9]+)*)? '}' with nothing else in between, as printers write int lists.
const char* scan_int_list(const char* p, const char* end, absl::InlinedVector<int64_t, 8>* out) {
  if (p == end || *p != '{') return nullptr;
  ++p;
  if (p != end && *p == '}') return p + 1;
  for (;;) {
    int64_t v;
    p = scan_digits(p, end, &v);
    if (p == nullptr || p == end) return nullptr;
    out->push_back(v);
    if (*p == '}') return p + 1;
    if (*p != ',') return nullptr;
    ++p;
  }
}

// '{' ('[' INT ':' INT (':' INT)? ']' (',' ' '? ...)*)? '}' with unsigned integers and a
// positive stride.
const char* scan_slice(const char* p, const char* end, absl::InlinedVector<SliceDim, 4>* out) {
  if (p == end || *p != '{') return nullptr;
  ++p;
  if (p != end && *p == '}') return p + 1;
  for (;;) {
    if (p == end || *p != '[') return nullptr;
    SliceDim& d = out->emplace_back();
    p = scan_digits(p + 1, end, &d.start);
    if (p == nullptr || p == end || *p != ':') return nullptr;
    p = scan_digits(p + 1, end, &d.limit);
    if (p == nullptr || p == end) return nullptr;
    if (*p == ':') {
      p = scan_digits(p + 1, end, &d.stride);
      if (p == nullptr || p == end || d.stride == 0) return nullptr;
    }
    if (*p != ']') return nullptr;
    ++p;
    if (p == end) return nullptr;
    if (*p == '}') return p + 1;
    if (*p != ',') return nullptr;
    ++p;
    if (p != end && *p == ' ') ++p;
  }
}

// A record in its printed form, read by `scan` (scan_iota_replica_groups, scan_sharding), into
// an arena copy held by *attribute: where the value stopped, or null. Out of line, as these
// records are large and most attributes are neither.
template <typename Record, const char* (*scan)(const char*, Record*)>
[[gnu::noinline]] const char* scan_record_value(const char* value, detail::Arena& arena,
                                                Attribute* attribute) {
  Record record;
  const char* value_end = scan(value, &record);
  if (value_end != nullptr) {
    attribute->set_value(static_cast<const Record*>(arena.create<Record>(std::move(record))));
  }
  return value_end;
}

}  // namespace

// The attribute after the current `,` in the forms printers write, read straight from the text:
// most instructions carry a few attributes of a few kinds, and going token by token costs more
// than the rest of the instruction. `metadata={...}` in the plain form, integer lists such as
// `dimensions={1,0}`, unsigned integers, booleans and words of a fixed set followed by `,` or a
// line end, slices, computation references, replica groups in iota form, common shardings and
// backend_config blobs in braces.
// Anything else, including every error, returns false having consumed nothing, and the token
// path takes over.
bool ModuleParser::scan_attribute(absl::InlinedVector<Attribute, 8>* attributes) {
  const char* end = lexer_.source().data() + lexer_.source().size();
  const char* p = tok_.end();
  if (p != end && *p == ' ') ++p;  // as the lexer skips one space
  // The name: [a-z_]+ before `=`, which the lexer would read as the same attribute token.
  AttrId id;
  const char* value;
  if (end - p >= 10 && std::memcmp(p, "metadata={", 10) == 0) {
    id = AttrId::kMetadata;
    value = p + 9;
  } else {
    // Everything before the first '=' must be an attribute's name: such names are made of
    // identifier bytes only, which the lexer would read as the same attribute token.
    const char* equals = find_equals(p, end);
    if (equals == nullptr || equals == p) return false;
    std::optional<AttrId> found =
        attribute_from_name(std::string_view(p, static_cast<size_t>(equals - p)));
    if (!found) return false;
    id = *found;
    value = equals + 1;
  }
  for (const Attribute& a : *attributes) {
    if (a.id == id) return false;
  }
  Attribute attribute{id, {}, {}};
  const char* value_end = nullptr;
  switch (kAttributeKinds[static_cast<size_t>(id)]) {
    case AttrKind::kMetadata:
      if (value != end && *value == '{') {
        const std::string_view text(value, static_cast<size_t>(end - value));
        size_t length = detail::scan_plain_metadata(text, nullptr);
        if (length > 0) {
          value_end = value + length;
        } else if (OpMetadata decoded;
                   (length = detail::scan_escaped_metadata(text, state_->arena, &decoded)) > 0) {
          // Escaped strings (JAX's `op_name="params[\'w\']"` on parameters): a decoded record,
          // as the token path keeps.
          attribute.set_value(static_cast<const OpMetadata*>(
              state_->arena.create<OpMetadata>(decoded)));
          value_end = value + length;
        }
      }
      break;
    case AttrKind::kIntList:
    case AttrKind::kSliceSizes: {
      absl::InlinedVector<int64_t, 8> values;
      value_end = scan_int_list(value, end, &values);
      if (value_end != nullptr) attribute.set_value(state_->arena.copy<int64_t>(values));
      break;
    }
    case AttrKind::kInt: {
      int64_t v;
      value_end = scan_digits(value, end, &v);
      // Only before `,` or a line end: other bytes may continue the number into another token.
      if (value_end != nullptr && value_end != end && (*value_end == ',' || *value_end == '\n')) {
        attribute.set_value(v);
      } else {
        value_end = nullptr;
      }
      break;
    }
    case AttrKind::kSlice: {
      absl::InlinedVector<SliceDim, 4> dims;
      value_end = scan_slice(value, end, &dims);
      if (value_end != nullptr) {
        auto* slice = state_->arena.create<Slice>();
        slice->dims.assign(dims.begin(), dims.end());
        attribute.set_value(static_cast<const Slice*>(slice));
      }
      break;
    }
    case AttrKind::kWord: {
      // A word of a fixed set (direction=GE, kind=kLoop), none of which is a keyword or a type,
      // before `,` or a line end: the lexer would read it as the same identifier.
      const WordSet* set = word_set(id);
      const char* q = value;
      while (q != end && is_name_char(*q)) ++q;
      if (set == nullptr || q == value || q == end || (*q != ',' && *q != '\n')) break;
      std::string_view word(value, static_cast<size_t>(q - value));
      if (!allowed(*set, word)) break;
      attribute.set_value(word);
      value_end = q;
      break;
    }
    case AttrKind::kBool: {
      // `true` or `false` before `,` or a line end: the lexer would read the same keyword.
      const char* q = value;
      while (q != end && is_name_char(*q)) ++q;
      if (q == end || (*q != ',' && *q != '\n')) break;
      std::string_view word(value, static_cast<size_t>(q - value));
      if (word != "true" && word != "false") break;
      attribute.set_value(word == "true");
      value_end = q;
      break;
    }
    case AttrKind::kReplicaGroups:
      value_end = scan_record_value<ReplicaGroups, scan_iota_replica_groups>(value, state_->arena,
                                                                             &attribute);
      break;
    case AttrKind::kSharding:
      value_end = scan_record_value<Sharding, scan_sharding>(value, state_->arena, &attribute);
      break;
    case AttrKind::kBackendConfig: {
      // A blob in braces (the JSON that printers write), which the token path also keeps whole.
      if (value == end || *value != '{') break;
      value_end = balanced_braces_end(value, end);
      if (value_end == nullptr || value_end == end) {
        value_end = nullptr;
        break;
      }
      attribute.set_value(std::string_view(value, static_cast<size_t>(value_end - value)));
      break;
    }
    case AttrKind::kComputation: {
      // `%name`, or the name alone when the lexer would read it as a plain identifier: not
      // followed by ':', '=' or what continues dimension labels, and not a reserved word.
      const bool percent = value != end && *value == '%';
      const char* name = percent ? value + 1 : value;
      if (name == end || !is_name_start(*name)) break;
      const char* q = name;
      while (q != end && is_name_char(*q)) ++q;
      std::string_view callee_name(name, static_cast<size_t>(q - name));
      if (!percent && (q == end || (*q != ',' && *q != '\n') || is_reserved_word(callee_name))) {
        break;
      }
      auto callee = state_->computations_by_name.find(callee_name);
      if (callee == state_->computations_by_name.end()) break;
      if (!note_call(callee->second)) break;  // the token path reports it
      attribute.set_value(callee->second);
      value_end = q;
      break;
    }
    default:
      break;
  }
  if (value_end == nullptr) return false;
  attribute.set_text(std::string_view(value, static_cast<size_t>(value_end - value)));
  attributes->push_back(attribute);
  if (*value_end == ',') {
    skip_to_comma(value_end);  // another attribute follows
  } else {
    skip_to(value_end);
  }
  return true;
}

// A value of one figure, word, string or shape.
bool ModuleParser::parse_scalar_value(AttrId id, Attribute* out) {
  std::string_view what = attribute_name(id);
  switch (attribute_kind(id)) {
    case AttrKind::kBool: {
      bool b;
      if (!parse_bool(&b, what)) return false;
      out->set_value(b);
      break;
    }
    case AttrKind::kInt: {
      int64_t v;
      if (!parse_int(&v, what)) return false;
      out->set_value(v);
      break;
    }
    case AttrKind::kFloat: {
      if (!at(TokenKind::kInt) && !at(TokenKind::kDecimal)) return expected("a number");
      double v = 0;
      if (!absl::SimpleAtod(sv(tok_.text), &v)) {
        return error_here(str_cat("cannot read ", tok_.text, " as a number"));
      }
      advance();
      out->set_value(v);
      break;
    }
    case AttrKind::kString: {
      std::string_view s;
      if (!parse_decoded_string(&s, what)) return false;
      out->set_value(s);
      break;
    }
    case AttrKind::kWord: {
      std::string_view w;
      if (!parse_word(id, &w)) return false;
      out->set_value(w);
      break;
    }
    case AttrKind::kBackendConfig: {
      std::string_view config;
      if (!parse_backend_config(&config)) return false;
      out->set_value(config);
      break;
    }
    case AttrKind::kShape: {
      const Shape* shape;
      if (!parse_interned_shape(&shape)) return false;
      out->set_value(shape);
      break;
    }
    default:
      break;
  }
  return true;
}

// A list: of integers, integer lists, words, computations or instructions.
bool ModuleParser::parse_list_value(Instruction* instruction, AttrId id, Attribute* out) {
  std::string_view what = attribute_name(id);
  detail::Arena& arena = state_->arena;
  switch (attribute_kind(id)) {
    case AttrKind::kIntList: {
      IntList list;
      if (!parse_int_list_value(&list, what)) return false;
      out->set_value(list);
      break;
    }
    case AttrKind::kIntListList: {
      auto* lists = arena.create<IntListList>();
      if (!parse_int_list_list(lists, what)) return false;
      out->set_value(static_cast<const IntListList*>(lists));
      break;
    }
    case AttrKind::kSliceSizes: {
      if (at(TokenKind::kLBrace) && peek().is(TokenKind::kLBrace)) {
        auto* lists = arena.create<IntListList>();
        if (!parse_int_list_list(lists, what)) return false;
        out->set_value(static_cast<const IntListList*>(lists));
      } else {
        IntList list;
        if (!parse_int_list_value(&list, what)) return false;
        out->set_value(list);
      }
      break;
    }
    case AttrKind::kWordList: {
      auto* words = arena.create<WordList>();
      if (!parse_word_list(id, words)) return false;
      out->set_value(static_cast<const WordList*>(words));
      break;
    }
    case AttrKind::kComputation: {
      Computation* c;
      if (!parse_computation_ref(&c)) return false;
      out->set_value(c);
      break;
    }
    case AttrKind::kComputationList: {
      ComputationList list;
      if (!parse_computation_list(&list)) return false;
      out->set_value(list);
      break;
    }
    case AttrKind::kInstructionList: {
      Token start = tok_;
      InstructionList list;
      if (!parse_instruction_list(&list)) return false;
      for (Instruction* pred : list) {
        if (pred == instruction) {
          return error(start,
                       str_cat(instruction->name(), " cannot be its own control predecessor"));
        }
      }
      out->set_value(list);
      break;
    }
    default:
      break;
  }
  return true;
}

// A structured value: a record made in the arena, or text kept as it is.
bool ModuleParser::parse_record_value(Instruction* instruction, AttrId id, Attribute* out) {
  std::string_view what = attribute_name(id);
  // A T made in the arena, read by `parse` and set as the value.
  auto in_arena = [&]<typename T>(bool (ModuleParser::*parse)(T*)) {
    T* value = state_->arena.create<T>();
    if (!(this->*parse)(value)) return false;
    out->set_value(static_cast<const T*>(value));
    return true;
  };
  switch (attribute_kind(id)) {
    case AttrKind::kSlice:
      return in_arena(&ModuleParser::parse_slice);
    case AttrKind::kPadding:
      return in_arena(&ModuleParser::parse_padding);
    case AttrKind::kWindow:
      return in_arena(&ModuleParser::parse_window);
    case AttrKind::kDimLabels:
      return in_arena(&ModuleParser::parse_dim_labels);
    case AttrKind::kReplicaGroups:
      return in_arena(&ModuleParser::parse_replica_groups);
    case AttrKind::kSharding:
      return in_arena(&ModuleParser::parse_sharding);
    case AttrKind::kMetadata:
      // Metadata in the printers' plain form stays text, read again by Instruction::metadata();
      // only other spellings keep a decoded record.
      if (at(TokenKind::kLBrace) && scan_metadata(nullptr)) return true;
      return in_arena(&ModuleParser::parse_metadata);
    case AttrKind::kFrontendAttributes:
      return in_arena(&ModuleParser::parse_frontend_attributes);
    case AttrKind::kLiteral:
      if (!parse_typed_literal(0)) return false;
      break;
    case AttrKind::kRaw:
      if (id == AttrId::kResultAccuracy) {
        if (!parse_result_accuracy()) return false;
      } else if (id == AttrId::kOperandLayoutConstraints) {
        if (!parse_operand_layout_constraints(instruction)) return false;
      } else if (!skip_value(what)) {
        return false;
      }
      break;
    default:
      break;
  }
  return true;
}

bool ModuleParser::parse_attribute_value(Instruction* instruction, AttrId id, Attribute* out) {
  out->id = id;
  const char* begin = tok_.begin();
  bool parsed = false;
  switch (attribute_kind(id)) {
    case AttrKind::kBool:
    case AttrKind::kInt:
    case AttrKind::kFloat:
    case AttrKind::kString:
    case AttrKind::kWord:
    case AttrKind::kBackendConfig:
    case AttrKind::kShape:
      parsed = parse_scalar_value(id, out);
      break;
    case AttrKind::kIntList:
    case AttrKind::kIntListList:
    case AttrKind::kSliceSizes:
    case AttrKind::kWordList:
    case AttrKind::kComputation:
    case AttrKind::kComputationList:
    case AttrKind::kInstructionList:
      parsed = parse_list_value(instruction, id, out);
      break;
    case AttrKind::kSlice:
    case AttrKind::kPadding:
    case AttrKind::kWindow:
    case AttrKind::kDimLabels:
    case AttrKind::kReplicaGroups:
    case AttrKind::kSharding:
    case AttrKind::kMetadata:
    case AttrKind::kFrontendAttributes:
    case AttrKind::kLiteral:
    case AttrKind::kRaw:
      parsed = parse_record_value(instruction, id, out);
      break;
  }
  if (!parsed) return false;
  out->set_text(text_since(begin));
  return true;
}

bool ModuleParser::parse_int_list_value(IntList* out, std::string_view what) {
  absl::InlinedVector<int64_t, 8> values;
  if (!parse_int_list(&values, what)) return false;
  *out = state_->arena.copy<int64_t>(values);
  return true;
}

// int_list_list ::= '{' (int_list (',' int_list)*)? '}'
bool ModuleParser::parse_int_list_list(IntListList* out, std::string_view what) {
  if (!expect(TokenKind::kLBrace, "to open ", what)) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    if (!parse_int_list(&out->emplace_back(), what)) return false;
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close ", what);
}

bool ModuleParser::parse_word(AttrId id, std::string_view* out) {
  if (!at(TokenKind::kIdent)) return expected(str_cat("a value for ", attribute_name(id)));
  if (const WordSet* set = word_set(id); set && !allowed(*set, tok_.text)) {
    return error_here(str_cat("'", tok_.text, "' is not a valid ", attribute_name(id),
                              "; expected one of ", join_words(*set)));
  }
  *out = tok_.text;
  advance();
  return true;
}

// '{' IDENT (',' IDENT)* '}'
bool ModuleParser::parse_word_list(AttrId id, WordList* out) {
  if (!expect(TokenKind::kLBrace, "to open ", attribute_name(id))) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    std::string_view w;
    if (!parse_word(id, &w)) return false;
    out->push_back(w);
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close ", attribute_name(id));
}

bool ModuleParser::parse_decoded_string(std::string_view* out, std::string_view what) {
  if (!at(TokenKind::kString)) return expected(str_cat("a string (", what, ")"));
  if (tok_.has_escapes) {
    std::string decoded;
    if (!parse_string(&decoded, what)) return false;
    *out = save(decoded);
    return true;
  }
  *out = tok_.string_body();
  advance();
  return true;
}

bool ModuleParser::parse_computation_ref(Computation** out) {
  const Token at_ref = tok_;
  if (!parse_callee(out)) return false;
  if (!note_call(*out)) {
    return error(at_ref, str_cat("calls nest more than ", kMaxCallDepth,
                                 " levels deep (a computation calling one that calls ...)"));
  }
  return true;
}

bool ModuleParser::note_call(const Computation* callee) {
  auto below = call_height_.find(callee);
  const int height = (below == call_height_.end() ? 0 : below->second) + 1;
  if (height > kMaxCallDepth) return false;
  if (computation_ != nullptr) call_height_here_ = std::max(call_height_here_, height);
  return true;
}

bool ModuleParser::parse_callee(Computation** out) {
  if (at(TokenKind::kLBrace)) return parse_inline_computation(out);
  if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("a computation name");
  auto it = state_->computations_by_name.find(tok_.name());
  if (it == state_->computations_by_name.end()) {
    if (computation_ != nullptr && tok_.name() == computation_->name()) {
      return error_here(str_cat("computation ", tok_.name(), " cannot call itself"));
    }
    if (find_later_definition(tok_.name(), /*computation=*/true)) {
      return error_here(str_cat("computation ", tok_.name(),
                                " is used before its definition (callees must come first)"));
    }
    return error_here(str_cat("computation does not exist: ", tok_.name()));
  }
  *out = it->second;
  advance();
  return true;
}

// comp_list ::= '{' (comp_ref (',' comp_ref)*)? '}'
bool ModuleParser::parse_computation_list(ComputationList* out) {
  if (!expect(TokenKind::kLBrace, "to open a computation list")) return false;
  absl::InlinedVector<Computation*, 4> list;
  if (!at(TokenKind::kRBrace)) {
    do {
      Computation* c;
      if (!parse_computation_ref(&c)) return false;
      list.push_back(c);
    } while (consume_if(TokenKind::kComma));
  }
  if (!expect(TokenKind::kRBrace, "to close the computation list")) return false;
  *out = state_->arena.copy<Computation*>(list);
  return true;
}

// '{' (name (',' name)*)? '}'
bool ModuleParser::parse_instruction_list(InstructionList* out) {
  if (!expect(TokenKind::kLBrace, "to open an instruction list")) return false;
  absl::InlinedVector<Instruction*, 4> list;
  if (!at(TokenKind::kRBrace)) {
    do {
      if (!at(TokenKind::kName) && !at(TokenKind::kIdent)) return expected("an instruction name");
      Instruction* i;
      if (!resolve_instruction(tok_, &i)) return false;
      advance();
      list.push_back(i);
    } while (consume_if(TokenKind::kComma));
  }
  if (!expect(TokenKind::kRBrace, "to close the instruction list")) return false;
  *out = state_->arena.copy<Instruction*>(list);
  return true;
}

// slice ::= '{' ('[' INT ':' INT (':' INT)? ']' (',' ...)*)? '}'
bool ModuleParser::parse_slice(Slice* out) {
  if (!expect(TokenKind::kLBrace, "to open the slice")) return false;
  if (consume_if(TokenKind::kRBrace)) return true;
  do {
    SliceDim& d = out->dims.emplace_back();
    if (!expect(TokenKind::kLBracket, "to open a slice dimension [start:limit]")) return false;
    if (!parse_int(&d.start, "the slice start")) return false;
    if (!expect(TokenKind::kColon, "after the slice start")) return false;
    if (!parse_int(&d.limit, "the slice limit")) return false;
    if (consume_if(TokenKind::kColon)) {
      Token stride = tok_;
      if (!parse_int(&d.stride, "the slice stride")) return false;
      if (d.stride <= 0) return error(stride, "a slice stride must be positive");
    }
    if (!expect(TokenKind::kRBracket, "to close a slice dimension")) return false;
  } while (consume_if(TokenKind::kComma));
  return expect(TokenKind::kRBrace, "to close the slice");
}

// padding ::= PAD (low_high or low_high_interior per dimension, joined by 'x')
bool ModuleParser::parse_padding(Padding* out) {
  if (!at(TokenKind::kPad)) return expected("a padding like 0_0x1_2 (low_high per dimension)");
  for (std::string_view group : split(tok_.text, 'x')) {
    std::vector<std::string_view> parts = split(group, '_');
    PaddingDim& d = out->dims.emplace_back();
    if (!to_int(parts[0], &d.low) || !to_int(parts[1], &d.high) ||
        (parts.size() == 3 && !to_int(parts[2], &d.interior))) {
      return error_here(str_cat("cannot read padding ", group));
    }
  }
  advance();
  return true;
}

// window ::= '{' (field=value)* '}', fields separated by spaces, each once
bool ModuleParser::parse_window(Window* out) {
  if (!expect(TokenKind::kLBrace, "to open the window")) return false;
  enum Field { kSize, kStride, kPad, kLhsDilate, kRhsDilate, kRhsReversal, kFieldCount };
  constexpr std::string_view kNames[kFieldCount] = {"size",       "stride",     "pad",
                                                    "lhs_dilate", "rhs_dilate", "rhs_reversal"};
  std::vector<std::vector<int64_t>> values(kFieldCount);
  std::vector<std::pair<int64_t, int64_t>> pads;
  std::vector<bool> seen(kFieldCount, false);
  Token size_token;
  while (!consume_if(TokenKind::kRBrace)) {
    if (!at(TokenKind::kAttr)) return expected("a window field (size=, stride=, pad=, ...) or '}'");
    int field = -1;
    for (int f = 0; f < kFieldCount; ++f) {
      if (tok_.name() == kNames[f]) field = f;
    }
    if (field < 0) return error_here(str_cat("unknown window field '", tok_.name(), "'"));
    if (seen[static_cast<size_t>(field)]) {
      return error_here(str_cat("window field '", tok_.name(), "' is given twice"));
    }
    seen[static_cast<size_t>(field)] = true;
    if (field == kSize) size_token = tok_;
    advance();
    if (field == kPad) {
      if (!at(TokenKind::kPad)) return expected("a padding like 0_1x0_1");
      for (std::string_view group : split(tok_.text, 'x')) {
        std::vector<std::string_view> parts = split(group, '_');
        std::pair<int64_t, int64_t> p;
        if (parts.size() != 2 || !to_int(parts[0], &p.first) || !to_int(parts[1], &p.second)) {
          return error_here(str_cat("window padding ", group, " must be low_high"));
        }
        pads.push_back(p);
      }
      advance();
      continue;
    }
    if (!at(TokenKind::kDxD) && !at(TokenKind::kInt)) {
      return expected(str_cat("a value like 3x3 for window field ", kNames[field]));
    }
    for (std::string_view part : split(tok_.text, 'x')) {
      int64_t v;
      if (!to_int(part, &v)) return error_here(str_cat("cannot read ", part, " as an integer"));
      values[static_cast<size_t>(field)].push_back(v);
    }
    advance();
  }
  const size_t rank = values[kSize].size();
  if (!seen[kSize] &&
      (seen[kStride] || seen[kPad] || seen[kLhsDilate] || seen[kRhsDilate] || seen[kRhsReversal])) {
    return error_here("a window needs size= when it has other fields");
  }
  auto check = [&](size_t count, std::string_view field) {
    if (count == rank) return true;
    return error(size_token, str_cat("window ", field, " has ", count,
                                     count == 1 ? " entry" : " entries", ", size has ", rank));
  };
  for (int f = kStride; f < kFieldCount; ++f) {
    if (f == kPad) {
      if (seen[kPad] && !check(pads.size(), "pad")) return false;
    } else if (seen[static_cast<size_t>(f)] &&
               !check(values[static_cast<size_t>(f)].size(), kNames[f])) {
      return false;
    }
  }
  out->dims.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    WindowDim& d = out->dims[i];
    d.size = values[kSize][i];
    if (seen[kStride]) d.stride = values[kStride][i];
    if (seen[kPad]) std::tie(d.pad_low, d.pad_high) = pads[i];
    if (seen[kLhsDilate]) d.lhs_dilation = values[kLhsDilate][i];
    if (seen[kRhsDilate]) d.rhs_dilation = values[kRhsDilate][i];
    if (seen[kRhsReversal]) d.reversal = values[kRhsReversal][i] != 0;
  }
  return true;
}

// dim_labels ::= DIMLABELS, e.g. b01f_01io->b01f (syntax 5.5)
bool ModuleParser::parse_dim_labels(ConvDimLabels* out) {
  if (!at(TokenKind::kDimLabels)) return expected("dimension labels like b01f_01io->b01f");
  std::string_view text = tok_.text;
  out->text = text;
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  std::string_view groups[3] = {text.substr(0, underscore),
                                text.substr(underscore + 1, arrow - underscore - 1),
                                text.substr(arrow + 2)};
  constexpr std::string_view kGroupNames[3] = {"input", "kernel", "output"};
  constexpr std::string_view kLetters[3] = {"bf", "io", "bf"};
  int64_t* letter_slots[3][2] = {{&out->input_batch, &out->input_feature},
                                 {&out->kernel_input_feature, &out->kernel_output_feature},
                                 {&out->output_batch, &out->output_feature}};
  absl::InlinedVector<int64_t, 3>* spatial[3] = {&out->input_spatial, &out->kernel_spatial,
                                                 &out->output_spatial};
  size_t counts[3];
  for (int g = 0; g < 3; ++g) {
    std::string_view group = groups[g];
    size_t digits = 0;
    for (char c : group) {
      if (c >= '0' && c <= '9') ++digits;
    }
    counts[g] = digits;
    spatial[g]->assign(digits, -1);
    for (size_t pos = 0; pos < group.size(); ++pos) {
      char c = group[pos];
      if (c == '?') continue;
      if (group.find(c) != pos) {
        return error_here(str_cat("'", std::string(1, c), "' appears twice in the ", kGroupNames[g],
                                  " labels of ", text));
      }
      auto index = static_cast<int64_t>(pos);
      if (c >= '0' && c <= '9') {
        size_t n = static_cast<size_t>(c - '0');
        if (n >= digits) {
          return error_here(str_cat("spatial dimension ", std::string(1, c), " in the ",
                                    kGroupNames[g], " labels of ", text, " exceeds the ", digits,
                                    " spatial dimensions"));
        }
        (*spatial[g])[n] = index;
      } else if (c == kLetters[g][0]) {
        *letter_slots[g][0] = index;
      } else if (c == kLetters[g][1]) {
        *letter_slots[g][1] = index;
      } else {
        return error_here(str_cat("'", std::string(1, c), "' is not a valid ", kGroupNames[g],
                                  " label in ", text));
      }
    }
    for (int k = 0; k < 2; ++k) {
      if (*letter_slots[g][k] < 0) {
        return error_here(str_cat("the ", kGroupNames[g], " labels of ", text, " lack '",
                                  std::string(1, kLetters[g][k]), "'"));
      }
    }
  }
  if (counts[0] != counts[1] || counts[1] != counts[2]) {
    return error_here(
        str_cat("input, kernel and output must have the same number of spatial "
                "dimensions (",
                counts[0], ", ", counts[1], ", ", counts[2], ")"));
  }
  advance();
  return true;
}

// frontend_attrs ::= '{' (ATTR (STRING | RAW_BLOB) (',' ...)*)? '}'
bool ModuleParser::parse_frontend_attributes(FrontendAttributes* out) {
  if (!expect(TokenKind::kLBrace, "to open frontend_attributes")) return false;
  if (!at(TokenKind::kRBrace)) {
    do {
      if (!at(TokenKind::kAttr)) return expected("a frontend attribute (key=\"value\")");
      FrontendAttribute& e = out->entries.emplace_back();
      e.key = tok_.name();
      advance();
      if (at(TokenKind::kLBrace)) {
        e.is_blob = true;
        if (!parse_blob(&e.value)) return false;
      } else if (!parse_decoded_string(&e.value, "a frontend attribute value")) {
        return false;
      }
    } while (consume_if(TokenKind::kComma));
  }
  std::stable_sort(
      out->entries.begin(), out->entries.end(),
      [](const FrontendAttribute& a, const FrontendAttribute& b) { return a.key < b.key; });
  return expect(TokenKind::kRBrace, "to close frontend_attributes");
}

// backend_config ::= STRING | RAW_BLOB
bool ModuleParser::parse_backend_config(std::string_view* out) {
  if (at(TokenKind::kLBrace)) return parse_blob(out);
  return parse_decoded_string(out, "backend_config");
}

// result_accuracy ::= '{' ATTR(mode) IDENT '}'   (IDENT: default, highest, tolerance; any case)
//                   | '{' ATTR(tolerance) '{' (ATTR(atol|rtol|ulps) number (',' ...)*)? '}' '}'
bool ModuleParser::parse_result_accuracy() {
  if (!expect(TokenKind::kLBrace, "to open result_accuracy")) return false;
  if (!at(TokenKind::kAttr)) return expected("mode= or tolerance= in result_accuracy");
  std::string_view key = tok_.name();
  advance();
  if (key == "mode") {
    // Any letter case, as XLA reads the mode (it upper-cases the word before looking it up).
    auto is_mode = [](std::string_view word) {
      for (std::string_view mode : {"default", "highest", "tolerance"}) {
        if (word.size() == mode.size() &&
            std::equal(word.begin(), word.end(), mode.begin(), [](char a, char b) {
              return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
            })) {
          return true;
        }
      }
      return false;
    };
    if (!at(TokenKind::kIdent) || !is_mode(tok_.text)) {
      return expected("default, highest or tolerance (the result_accuracy mode, any case)");
    }
    advance();
  } else if (key == "tolerance") {
    if (!expect(TokenKind::kLBrace, "to open the tolerance")) return false;
    std::vector<std::string_view> seen;
    if (!at(TokenKind::kRBrace)) {
      do {
        if (!at(TokenKind::kAttr) ||
            (tok_.name() != "atol" && tok_.name() != "rtol" && tok_.name() != "ulps")) {
          return expected("atol=, rtol= or ulps= in the tolerance");
        }
        if (std::find(seen.begin(), seen.end(), tok_.name()) != seen.end()) {
          return error_here(str_cat(tok_.name(), " is given twice"));
        }
        seen.push_back(tok_.name());
        bool ulps = tok_.name() == "ulps";
        advance();
        if (!at(TokenKind::kInt) && (ulps || !at(TokenKind::kDecimal))) {
          return expected(ulps ? "an integer" : "a number");
        }
        advance();
      } while (consume_if(TokenKind::kComma));
    }
    if (!expect(TokenKind::kRBrace, "to close the tolerance")) return false;
  } else {
    return error_here(str_cat("result_accuracy has mode= or tolerance=, not ", key, "="));
  }
  return expect(TokenKind::kRBrace, "to close result_accuracy");
}

// operand_layout_constraints ::= '{' shape (',' shape)* '}', one per operand, with layouts.
bool ModuleParser::parse_operand_layout_constraints(Instruction* instruction) {
  Token open = tok_;
  if (!expect(TokenKind::kLBrace, "to open operand_layout_constraints")) return false;
  size_t k = 0;
  if (!at(TokenKind::kRBrace)) {
    do {
      Token at_shape = tok_;
      Shape shape;
      if (!parse_shape(&shape)) return false;
      if (k < instruction->operand_count() &&
          !detail::compatible(shape, instruction->operand(k)->shape())) {
        return error(at_shape, str_cat("operand layout constraint ", to_string(shape),
                                       " does not match operand ", k, ", ",
                                       to_string(instruction->operand(k)->shape())));
      }
      ++k;
    } while (consume_if(TokenKind::kComma));
  }
  if (!expect(TokenKind::kRBrace, "to close operand_layout_constraints")) return false;
  if (k != instruction->operand_count()) {
    return error(open, str_cat("operand_layout_constraints lists ", k, " shapes for ",
                               instruction->operand_count(), " operands"));
  }
  return true;
}

bool ModuleParser::parse_interned_shape(const Shape** out) {
  Shape shape;
  if (!parse_shape(&shape)) return false;
  *out = state_->shapes.intern(shape);
  return true;
}

}  // namespace hloroof::text
