// The module parser: docs/hlo-text.md, "Module header" to "Instructions and operands" (module,
// computations, instructions, operands) on top of the Parser core, with one file per area of the
// language:
//   module_parser.cc        header, stack-frame tables, computations, entry
//   instruction_parser.cc   instructions, opcodes, operands, compact GTE, nested instructions
//   attribute_parser.cc     attribute values (section 5) other than the ones below
//   collective_parser.cc    replica groups and mesh device lists
//   sharding_parser.cc      shardings
//   metadata_parser.cc      op metadata
//   literal_parser.cc       constant literals, checked against their shape
//   instruction_checks.cc   the per-opcode rules and shape inference (lib/ir), at the opcode
#ifndef HLOROOF_TEXT_MODULE_PARSER_H_
#define HLOROOF_TEXT_MODULE_PARSER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "hloroof/attributes.h"
#include "hloroof/metadata.h"
#include "hloroof/module.h"
#include "hloroof/replica_groups.h"
#include "hloroof/sharding.h"
#include "ir/module_state.h"
#include "text/parser.h"
#include "util/string_view_hash.h"

namespace hloroof::text {

// A computation's parameter numbers and their parameters: a table indexed by number while the
// numbers stay dense (printers number them 0, 1, 2, ...: 8 bytes a parameter), a hash map for a
// number far past the others (a hash map for all of them took about 50 bytes a parameter).
class ParameterNumbers {
 public:
  // The parameter already numbered `number` (0 <= number < 2^31), else null, having recorded
  // `parameter` under it.
  Instruction* insert(int64_t number, Instruction* parameter);
  void reserve(size_t count) { dense_.reserve(count); }
  void clear() {
    dense_.clear();
    sparse_.clear();
  }

 private:
  std::vector<Instruction*> dense_;  // null: not taken
  absl::flat_hash_map<int64_t, Instruction*> sparse_;
};

// Replica groups as printers write the iota form, `[G,S]<=[dims]` or `[G,S]<=[dims]T(perm)`,
// at `p` and before `,` or a line end: where the value stopped, *out filled in that form. Null
// on any other text or on one that fails a check (the token path then reports it); *out is
// then partly written. The source must end with a NUL byte, as for the lexer.
const char* scan_iota_replica_groups(const char* p, ReplicaGroups* out);
// An iota device list `[dims]`, or `[dims]T(perm)` with a permutation when there are several
// dims, at `p`: where it stopped, or null on any other text (dims and perm then partly written).
const char* scan_iota_list(const char* p, std::vector<int64_t>* dims,
                           std::vector<int64_t>* perm);
// A sharding as printers write the common ones, `{replicated}`, `{maximal device=N}` and
// `{devices=[tiles]<=[dims]T(perm)}` or `{devices=[tiles]0,1,...}` (either with
// ` last_tile_dim_replicate`), before `,` or a line end: as scan_iota_replica_groups.
const char* scan_sharding(const char* p, Sharding* out);

// The lines of a text, counted in one pass before it is parsed: how many there are (which sizes
// the module's arena) and where printed computation bodies end (a line that starts with `}`),
// which sizes each computation's instruction list and name map before its first instruction.
struct TextLines {
  struct BodyEnd {
    const char* newline;  // the newline before the `}`
    size_t line;          // how many newlines come before it
  };
  size_t count = 0;  // newlines in the text
  // In text order. At most 16 and one per 64 bytes of text: bodies past that many get no size
  // hint (a text of `}` lines would otherwise take 8 bytes of records per byte).
  std::vector<BodyEnd> body_ends;
};
TextLines count_lines(std::string_view text);

class ModuleParser : public Parser {
 public:
  // Parses `state->source`, filling `state`; `lines`, when given, are state->source's.
  explicit ModuleParser(detail::ModuleState* state, const TextLines* lines = nullptr);
  // Parses `text` as one attribute value for `instruction` (which lives in `state`); the text
  // must outlive the module (callers save it in the arena first).
  ModuleParser(detail::ModuleState* state, std::string_view text);

  [[nodiscard]] bool parse_module();
  [[nodiscard]] bool parse_single_attribute(Instruction* instruction, AttrId id, Attribute* out);

 private:
  // ---- module_parser.cc
  [[nodiscard]] bool parse_header();
  [[nodiscard]] bool parse_module_attribute(std::vector<bool>* seen);
  [[nodiscard]] bool parse_shape_index(ShapeIndex* out);
  [[nodiscard]] bool parse_entry_computation_layout();
  [[nodiscard]] bool parse_input_output_alias();
  [[nodiscard]] bool parse_buffer_donor();
  [[nodiscard]] bool parse_computation();
  [[nodiscard]] bool finish_computation(const Token& at, const Shape* declared_result);
  [[nodiscard]] bool finish_module();

  // ---- metadata_parser.cc
  [[nodiscard]] bool parse_stack_frames();
  [[nodiscard]] bool parse_metadata(OpMetadata* out);
  [[nodiscard]] bool scan_metadata(OpMetadata* out);

  // ---- instruction_parser.cc
  // Opcode as spelled, with the async sugar of syntax 5.20 resolved.
  struct OpcodeSpelling {
    Opcode opcode = Opcode::kParameter;
    bool sugar = false;
    Opcode wrapped = Opcode::kParameter;
  };
  [[nodiscard]] bool parse_instruction();
  [[nodiscard]] bool parse_opcode(OpcodeSpelling* out);
  [[nodiscard]] bool check_instruction_name(const Token& name);
  [[gnu::cold, gnu::noinline]] bool report_illegal_instruction_name(const Token& name,
                                                                    bool type_name);
  // The operand list after `(`, consuming the `)`; nested instructions and compact GTEs are
  // added to the computation as they are met.
  [[nodiscard]] bool parse_operands(absl::InlinedVector<Instruction*, 8>* out);
  [[nodiscard]] bool scan_operands(const char* p, absl::InlinedVector<Instruction*, 8>* out);
  const char* scan_instruction_head(const Shape** shape, OpcodeSpelling* op, Token* op_token);
  const Shape* cached_shape_before_space(const char* p, size_t* length);
  const Shape* find_cached_shape_before_space(const char* p, size_t* length);
  [[nodiscard]] bool parse_operand(Instruction** out);
  [[nodiscard]] bool parse_nested_instruction(const Shape* shape, Instruction** out, int depth);
  [[nodiscard]] bool resolve_instruction(const Token& name, Instruction** out);
  [[nodiscard]] bool compact_gte(Instruction* tuple, const Token& index, Instruction** out);
  [[nodiscard]] bool parse_attributes(Instruction* instruction);
  Instruction* create_instruction(const OpcodeSpelling& op, std::string_view name,
                                  const Shape* shape);
  bool report_duplicate_name(const Token& name, const Instruction* previous);
  [[nodiscard]] bool add_parameter(Instruction* parameter, int64_t number, const Token& at);

  // ---- attribute_parser.cc
  [[nodiscard]] bool parse_attribute_value(Instruction* instruction, AttrId id, Attribute* out);
  // parse_attribute_value's, by the kind of value.
  [[nodiscard]] bool parse_scalar_value(AttrId id, Attribute* out);
  [[nodiscard]] bool parse_list_value(Instruction* instruction, AttrId id, Attribute* out);
  [[nodiscard]] bool parse_record_value(Instruction* instruction, AttrId id, Attribute* out);
  [[nodiscard]] bool parse_int_list_value(IntList* out, std::string_view what);
  [[nodiscard]] bool parse_int_list_list(IntListList* out, std::string_view what);
  [[nodiscard]] bool parse_word(AttrId id, std::string_view* out);
  [[nodiscard]] bool parse_word_list(AttrId id, WordList* out);
  [[nodiscard]] bool parse_decoded_string(std::string_view* out, std::string_view what);
  [[nodiscard]] bool parse_computation_ref(Computation** out);
  [[nodiscard]] bool parse_callee(Computation** out);  // a name or an inline computation
  // Records that the computation being parsed calls `callee`; false, recording nothing, when
  // calls would then nest deeper than the parser allows.
  [[nodiscard]] bool note_call(const Computation* callee);
  // `{ instruction+ }` in place of a computation name (canonical text prints these).
  [[nodiscard]] bool parse_inline_computation(Computation** out);
  [[nodiscard]] bool parse_computation_list(ComputationList* out);
  [[nodiscard]] bool parse_instruction_list(InstructionList* out);
  [[nodiscard]] bool parse_slice(Slice* out);
  [[nodiscard]] bool parse_padding(Padding* out);
  [[nodiscard]] bool parse_window(Window* out);
  [[nodiscard]] bool parse_dim_labels(ConvDimLabels* out);
  [[nodiscard]] bool parse_frontend_attributes(FrontendAttributes* out);
  [[nodiscard]] bool parse_backend_config(std::string_view* out);
  [[nodiscard]] bool parse_interned_shape(const Shape** out);
  // An array shape, looked up by its text first: modules repeat a few hundred shapes across
  // many instructions, so most are recognized without being parsed again.
  [[nodiscard]] bool parse_cached_shape(const Shape** out);
  const Shape* take_known_array_shape() override;
  void remember_array_shape(const char* begin, const Shape& shape) override;
  [[nodiscard]] bool parse_result_accuracy();
  [[nodiscard]] bool parse_operand_layout_constraints(Instruction* instruction);
  [[nodiscard]] bool parse_debug_attributes();
  // The attribute after the current `,` read from the text when in a common form (appended to
  // *attributes, consuming it); false, having consumed nothing, otherwise.
  [[nodiscard]] bool scan_attribute(absl::InlinedVector<Attribute, 8>* attributes);

  // ---- collective_parser.cc
  [[nodiscard]] bool parse_replica_groups(ReplicaGroups* out);
  [[nodiscard]] bool parse_iota_list(std::vector<int64_t>* dims, std::vector<int64_t>* perm);
  struct Mesh {
    std::vector<Sharding::MeshAxis> axes;
    DeviceIds device_ids;  // empty: 0..N-1
  };
  // A reference to a mesh axis, `'x'`, or to the sub-axis `'x':(pre)size` of it.
  struct AxisRef {
    std::string_view text;  // as written, quotes removed, e.g. x or x:(2)4
    size_t axis = 0;
    int64_t pre = 1;
    int64_t size = 0;
  };
  [[nodiscard]] bool parse_mesh(Mesh* out);
  // axis_list ::= '{' (axis_ref (',' axis_ref)*)? '}'; with allow_open a final '?' sets *open.
  [[nodiscard]] bool parse_axis_list(const Mesh& mesh, std::vector<AxisRef>* out, bool allow_open,
                                     bool* open);

  // ---- sharding_parser.cc
  [[nodiscard]] bool parse_sharding(Sharding* out);
  [[nodiscard]] bool parse_single_sharding_body(Sharding* out);
  [[nodiscard]] bool parse_named_sharding_body(Sharding* out);
  [[nodiscard]] bool parse_sharding_metadata();

  // ---- literal_parser.cc
  [[nodiscard]] bool parse_literal(const Shape& shape, int depth);
  [[nodiscard]] bool parse_array_literal(const Shape& shape, size_t dim,
                                         std::vector<int64_t>& index);
  [[nodiscard]] bool parse_scalar_literal(PrimitiveType type);
  [[nodiscard]] bool parse_typed_literal(int depth);

  // ---- instruction_checks.cc
  // Checks the rules of the opcode (ir/instruction_rules.h), and infers the shape when the text
  // omitted it. `at` locates errors.
  [[nodiscard]] bool check_instruction(Instruction* instruction, const Token& at);
  // Every check, one by one (check_instruction takes a shortcut for the usual instruction).
  [[nodiscard]] bool check_instruction_in_full(Instruction* instruction, const Token& at);
  // verify()'s dimension checks (ir/instruction_rules.h), on every instruction.
  [[nodiscard]] bool check_dimensions(Instruction* instruction, const Token& at);

  // About how many instructions the body whose `{` is at `body` holds (to size its lists).
  size_t estimated_instruction_count(const char* body);
  std::string_view save(std::string_view text) { return state_->arena.save(text); }
  // When `name` is defined later in the text: the position of that definition.
  bool find_later_definition(std::string_view name, bool computation) const;

  detail::ModuleState* state_;
  Computation* computation_ = nullptr;  // being parsed
  Instruction* root_ = nullptr;         // marked ROOT in the current computation
  Token root_token_;
  bool saw_entry_ = false;
  Token entry_token_;
  // Compact GTE results per (tuple, index), so that `%t#0` twice is one get-tuple-element.
  absl::flat_hash_map<std::pair<Instruction*, int64_t>, Instruction*> compact_gtes_;
  // Parameter numbers of the current computation.
  ParameterNumbers parameter_numbers_;
  Shape shape_scratch_;
  detail::StringViewMap<const Shape*> shapes_by_text_;
  // What cached_shape_before_space found last, and the text it found it by.
  std::string_view last_shape_text_;
  const Shape* last_shape_ = nullptr;
  // For estimated_instruction_count(): the text's lines; the body end the last hint used (or
  // the first after it); the text up to that end (a body starting in it gets no hint); and how
  // many newlines come before counted_to_.
  const TextLines* lines_ = nullptr;
  size_t next_body_end_ = 0;
  const char* scanned_to_ = nullptr;
  const char* counted_to_ = nullptr;
  size_t counted_lines_ = 0;
  int nesting_ = 0;       // nested instruction operands
  int inline_depth_ = 0;  // inline computations
  // The longest chain of calls below each computation parsed so far that calls any (1: it
  // calls only computations that call nothing), so that call nesting stays bounded for every
  // later walk; and below computation_, which goes into the map when it is finished (most
  // computations call nothing and stay out of it).
  absl::flat_hash_map<const Computation*, int> call_height_;
  int call_height_here_ = 0;
};

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_MODULE_PARSER_H_
