// parse_hlo_proto and write_hlo_proto: hand-made wire bytes for the fields the reader maps,
// round trips (text -> proto -> module -> text) over every module of tests/data and a module
// that exercises every attribute the writer maps, and malformed protos.
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "examples.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace fs = std::filesystem;
using namespace hloroof;

namespace {

using hloroof::testing::read_file;

// Protobuf wire format: a tag is (field << 3) | wire type; 0 varint, 2 length-delimited.
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string field_varint(int field, uint64_t v) { return varint(uint64_t(field) << 3) + varint(v); }
std::string field_bytes(int field, const std::string& bytes) {
  return varint((uint64_t(field) << 3) | 2) + varint(bytes.size()) + bytes;
}

// ShapeProto f32[4]{0}: element_type (2) = F32 (11), dimensions (3) = [4], layout (5) with
// minor_to_major (1) = [0]. Bytes: 10 0b | 18 04 | 2a 02 08 00.
std::string f32_4() {
  return field_varint(2, 11) + field_varint(3, 4) + field_bytes(5, field_varint(1, 0));
}

// An HloInstructionProto: name (1), opcode (2), shape (3), id (35), operand_ids (36, one
// varint each, unpacked: protobuf accepts both), parameter_number (9).
std::string instruction(const std::string& name, const std::string& opcode, int64_t id,
                        std::vector<int64_t> operands, int64_t parameter = -1) {
  std::string out = field_bytes(1, name) + field_bytes(2, opcode) + field_bytes(3, f32_4());
  if (parameter > 0) out += field_varint(9, static_cast<uint64_t>(parameter));
  out += field_varint(35, static_cast<uint64_t>(id));
  for (int64_t o : operands) out += field_varint(36, static_cast<uint64_t>(o));
  return out;
}

// HloModuleProto "m": computations (3) holding one HloComputationProto "main" (name 1,
// instructions 2, id 5 = 7, root_id 6 = 3), entry_computation_id (6) = 7.
std::string add_module_bytes() {
  std::string comp = field_bytes(1, "main") + field_bytes(2, instruction("x", "parameter", 1, {})) +
                     field_bytes(2, instruction("y", "parameter", 2, {}, 1)) +
                     field_bytes(2, instruction("sum", "add", 3, {1, 2})) + field_varint(5, 7) +
                     field_varint(6, 3);
  return field_bytes(1, "m") + field_bytes(3, comp) + field_varint(6, 7);
}

// Header attributes that XLA keeps in the module's config, not in HloModuleProto: a module read
// from a proto lacks them.
void drop_config_attributes(Module& m) {
  auto& others = m.mutable_attributes().others;
  std::erase_if(others, [](const RawModuleAttribute& a) {
    return a.name.rfind("allow_spmd_sharding_propagation", 0) == 0;
  });
}

// Texts that XLA printed with options its dumps no longer use: backend configs whose JSON keys
// are not sorted (XLA sorts them: xla/sort_json.cc; the reader sorts too), and async ops written
// out in full where the printer's default async sugar would write `all-to-all-start`.
bool keys_sorted(const std::string& text, size_t open) {
  // The keys of the JSON object at `open`, at its own depth, in order.
  std::vector<std::string> keys;
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t end = text.find('"', i + 1);
      if (end == std::string::npos) return true;
      if (depth == 1 && end + 1 < text.size() && text[end + 1] == ':') {
        keys.push_back(text.substr(i + 1, end - i - 1));
      }
      i = end;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) break;
    }
  }
  return std::is_sorted(keys.begin(), keys.end());
}
bool printed_with_other_options(const std::string& text) {
  for (size_t at = text.find("backend_config={"); at != std::string::npos;
       at = text.find("backend_config={", at + 1)) {
    if (!keys_sorted(text, at + 15)) return true;
  }
  return text.find(" async-start(") != std::string::npos;
}

std::string print_or_error(const absl::StatusOr<Module>& m) {
  return m.ok() ? print(*m) : std::string(m.status().message());
}

// The attributes the writer has no proto field for (hlo_proto_writer.cc).
bool has_unmapped_attribute(const std::string& text) {
  for (const char* a : {"statistics=", "origin=", "original_value=", "domain=", "sparsity",
                        "result_accuracy=", "async_group_id=", "outer_dimension_partitions=",
                        "literal=", "mesh[", "metadata_payload", "debug_attributes",
                        "origin_recovery_table", "alias_passthrough_params"}) {
    if (text.find(a) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a hand-made HloModuleProto reads as its text") {
  absl::StatusOr<Module> m = parse_hlo_proto(add_module_bytes());
  REQUIRE_OK(m);
  CHECK(print(*m) ==
        "HloModule m\n\n"
        "ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {\n"
        "  %x = f32[4]{0} parameter(0)\n"
        "  %y = f32[4]{0} parameter(1)\n"
        "  ROOT %sum = f32[4]{0} add(%x, %y)\n"
        "}\n");
  // The same module inside an HloProto (field 1) reads the same.
  absl::StatusOr<Module> wrapped = parse_hlo_proto(field_bytes(1, add_module_bytes()));
  REQUIRE_OK(wrapped);
  CHECK(print(*wrapped) == print(*m));
  CHECK(is_hlo_proto(add_module_bytes()));
  CHECK(is_hlo_proto(field_bytes(1, add_module_bytes())));
  CHECK_FALSE(is_hlo_proto("HloModule m\n"));
  CHECK_FALSE(is_hlo_proto(""));
}

TEST_CASE("the proto's fields become the attributes XLA prints") {
  // A layout with tiles and a memory space: LayoutProto minor_to_major 1,0; tiles (6) {8,128};
  // memory_space (8) = 1: f32[16,256]{1,0:T(8,128)S(1)}.
  std::string layout = field_varint(1, 1) + field_varint(1, 0) +
                       field_bytes(6, field_varint(1, 8) + field_varint(1, 128)) +
                       field_varint(8, 1);
  std::string shape = field_varint(2, 11) + field_varint(3, 16) + field_varint(3, 256) +
                      field_bytes(5, layout);
  // A scalar parameter (shape f32[] with an empty layout), and a metadata op_name (7 -> 2).
  std::string scalar = field_varint(2, 11) + field_bytes(5, "");
  std::string p = field_bytes(1, "p") + field_bytes(2, "parameter") + field_bytes(3, shape) +
                  field_bytes(7, field_bytes(2, "jit(f)/x") + field_varint(4, 12)) +
                  field_varint(35, 1);
  // broadcast of a scalar constant: dimensions (14) empty; literal (8) f32s (8) = 0.5,
  // a fixed32 (wire type 5): tag (8 << 3) | 5 = 0x45, then 0.5f = 00 00 00 3f.
  std::string lit = field_bytes(1, scalar) + std::string("\x45\x00\x00\x00\x3f", 5);
  std::string c = field_bytes(1, "half") + field_bytes(2, "constant") + field_bytes(3, scalar) +
                  field_bytes(8, lit) + field_varint(35, 2);
  std::string b = field_bytes(1, "b") + field_bytes(2, "broadcast") + field_bytes(3, shape) +
                  field_varint(35, 3) + field_varint(36, 2);
  // multiply with a frontend attribute (68: map entry 1 {key 1, value 2}) and a JSON backend
  // config (43) whose keys print sorted.
  std::string fe = field_bytes(1, field_bytes(1, "_xla_stream") + field_bytes(2, "1"));
  std::string mul = field_bytes(1, "mul") + field_bytes(2, "multiply") + field_bytes(3, shape) +
                    field_varint(35, 4) + field_varint(36, 1) + field_varint(36, 3) +
                    field_bytes(68, fe) + field_bytes(43, "{\"z\":1,\"a\":[2,3]}");
  std::string comp = field_bytes(1, "main") + field_bytes(2, p) + field_bytes(2, c) +
                     field_bytes(2, b) + field_bytes(2, mul) + field_varint(5, 1) +
                     field_varint(6, 4);
  // A schedule (7) of computation 1 (map entry: key 1, value InstructionSequence 1 = ids) that
  // puts the constant first.
  std::string seq = field_varint(1, 2) + field_varint(1, 1) + field_varint(1, 3) +
                    field_varint(1, 4);
  std::string schedule = field_bytes(1, field_varint(1, 1) + field_bytes(2, seq));
  std::string module = field_bytes(1, "jit_f") + field_bytes(3, comp) + field_varint(6, 1) +
                       field_bytes(7, schedule);
  absl::StatusOr<Module> m = parse_hlo_proto(module);
  REQUIRE_OK(m);
  CHECK(print(*m) ==
        "HloModule jit_f, is_scheduled=true\n\n"
        "ENTRY %main (p: f32[16,256]) -> f32[16,256] {\n"
        "  %half = f32[] constant(0.5)\n"
        "  %p = f32[16,256]{1,0:T(8,128)S(1)} parameter(0), metadata={op_name=\"jit(f)/x\" "
        "source_line=12}\n"
        "  %b = f32[16,256]{1,0:T(8,128)S(1)} broadcast(%half), dimensions={}\n"
        "  ROOT %mul = f32[16,256]{1,0:T(8,128)S(1)} multiply(%p, %b), "
        "frontend_attributes={_xla_stream=\"1\"}, backend_config={\"a\":[2,3],\"z\":1}\n"
        "}\n");
}

TEST_CASE("malformed protos are errors that say where") {
  // Truncated: the last byte of the computation is missing, so the length prefix overruns.
  std::string bytes = add_module_bytes();
  absl::StatusOr<Module> cut = parse_hlo_proto(bytes.substr(0, bytes.size() - 4));
  REQUIRE_FALSE(cut.ok());
  CHECK(std::string(cut.status().message()).find("neither an xla.HloProto") != std::string::npos);

  // An operand id that names no instruction.
  std::string comp = field_bytes(1, "main") + field_bytes(2, instruction("x", "parameter", 1, {})) +
                     field_bytes(2, instruction("n", "negate", 2, {9})) + field_varint(5, 1) +
                     field_varint(6, 2);
  absl::StatusOr<Module> dangling = parse_hlo_proto(field_bytes(1, "m") + field_bytes(3, comp));
  REQUIRE_FALSE(dangling.ok());
  CHECK(std::string(dangling.status().message()) ==
        "error: HloModuleProto: computation %main, instruction %n: operand 0 has the id 9, "
        "which is not an instruction of this computation");

  // A name the text cannot hold.
  comp = field_bytes(1, "main") + field_bytes(2, instruction("x y", "parameter", 1, {})) +
         field_varint(5, 1) + field_varint(6, 1);
  absl::StatusOr<Module> bad_name = parse_hlo_proto(field_bytes(1, "m") + field_bytes(3, comp));
  REQUIRE_FALSE(bad_name.ok());
  CHECK(std::string(bad_name.status().message()).find("\"x y\", which is not an HLO name") !=
        std::string::npos);

  // An unknown opcode, and an operand count the opcode does not take (the text parser's check,
  // reported against the instruction).
  comp = field_bytes(1, "main") + field_bytes(2, instruction("x", "parameter", 1, {})) +
         field_bytes(2, instruction("n", "frobnicate", 2, {1})) + field_varint(5, 1) +
         field_varint(6, 2);
  absl::StatusOr<Module> bad_op = parse_hlo_proto(field_bytes(1, "m") + field_bytes(3, comp));
  REQUIRE_FALSE(bad_op.ok());
  CHECK(std::string(bad_op.status().message()).find("unknown opcode \"frobnicate\"") !=
        std::string::npos);
  comp = field_bytes(1, "main") + field_bytes(2, instruction("x", "parameter", 1, {})) +
         field_bytes(2, instruction("n", "negate", 2, {1, 1})) + field_varint(5, 1) +
         field_varint(6, 2);
  ParseOptions options;
  options.file_name = "dump.hlo.pb";
  absl::StatusOr<Module> arity =
      parse_hlo_proto(field_bytes(1, "m") + field_bytes(3, comp), options);
  REQUIRE_FALSE(arity.ok());
  std::string message(arity.status().message());
  CHECK(message.rfind("dump.hlo.pb: error: HloModuleProto: computation %main, instruction %n: ",
                      0) == 0);

  // An element type XLA does not have (99).
  std::string bad_shape = field_varint(2, 99);
  comp = field_bytes(1, "main") +
         field_bytes(2, field_bytes(1, "x") + field_bytes(2, "parameter") +
                            field_bytes(3, bad_shape) + field_varint(35, 1)) +
         field_varint(5, 1) + field_varint(6, 1);
  absl::StatusOr<Module> bad_type = parse_hlo_proto(field_bytes(1, "m") + field_bytes(3, comp));
  REQUIRE_FALSE(bad_type.ok());
  CHECK(std::string(bad_type.status().message()).find("unknown element type 99") !=
        std::string::npos);
  CHECK_FALSE(parse_hlo_proto("").ok());
}

TEST_CASE("async-updates whose operands loop are an error, not a hang") {
  // One async-update whose operand is itself; then two that point at each other. The reader
  // walked update operands until it found a start: forever.
  const auto module = [](const std::string& instructions, int64_t root) {
    std::string comp = field_bytes(1, "main") + instructions + field_varint(5, 1) +
                       field_varint(6, static_cast<uint64_t>(root));
    return field_bytes(1, "m") + field_bytes(3, comp);
  };
  absl::StatusOr<Module> self = parse_hlo_proto(
      module(field_bytes(2, instruction("u", "async-update", 1, {1})), 1));
  REQUIRE_FALSE(self.ok());
  CHECK(std::string(self.status().message()).find("async-updates in a loop") !=
        std::string::npos);
  absl::StatusOr<Module> pair = parse_hlo_proto(
      module(field_bytes(2, instruction("u", "async-update", 1, {2})) +
                 field_bytes(2, instruction("v", "async-update", 2, {1})) +
                 field_bytes(2, instruction("d", "async-done", 3, {2})),
             3));
  REQUIRE_FALSE(pair.ok());
  CHECK(std::string(pair.status().message()).find("async-updates in a loop") !=
        std::string::npos);
}

TEST_CASE("an async-done's start is found by id, not by a name two instructions share") {
  // computation "w" (id 2): p = parameter(0), n = negate(p), root n. computation "main" (id 1):
  // x = parameter(0) (id 1); s = async-start(x) calls w (id 2); a second instruction also named
  // "s", a negate of x (id 3); d = async-done(3): its operand is the negate, not the start.
  // With the start's sugar keyed by name, the done took the negate for the start and read its
  // called computation, which it has none of. Either way the names repeat: an error.
  std::string w = field_bytes(1, "w") + field_bytes(2, instruction("p", "parameter", 1, {})) +
                  field_bytes(2, instruction("n", "negate", 2, {1})) + field_varint(5, 2) +
                  field_varint(6, 2);
  std::string start = instruction("s", "async-start", 2, {1}) + field_varint(38, 2);
  std::string main = field_bytes(1, "main") + field_bytes(2, instruction("x", "parameter", 1, {})) +
                     field_bytes(2, start) + field_bytes(2, instruction("s", "negate", 3, {1})) +
                     field_bytes(2, instruction("d", "async-done", 4, {3})) + field_varint(5, 1) +
                     field_varint(6, 4);
  absl::StatusOr<Module> m = parse_hlo_proto(field_bytes(1, "m") + field_bytes(3, w) +
                                             field_bytes(3, main) + field_varint(6, 1));
  REQUIRE_FALSE(m.ok());
  CHECK(std::string(m.status().message()).find("computation %main, instruction %") !=
        std::string::npos);
}

TEST_CASE("a long name referenced thousands of times is refused, not written at each") {
  // A parameter with a 64 KiB name that one tuple takes 32,768 times: 65536 + 3 x 32768 bytes
  // of proto, and 2 GiB of text were every reference written out. The text stops at 64 MiB +
  // 32 x the proto's size (about 69 MiB).
  const std::string name(65536, 'p');
  std::string tuple = field_bytes(1, "t") + field_bytes(2, "tuple") + field_bytes(3, f32_4()) +
                      field_varint(35, 2);
  for (int k = 0; k < 32768; ++k) tuple += field_varint(36, 1);
  std::string comp = field_bytes(1, "main") + field_bytes(2, instruction(name, "parameter", 1, {})) +
                     field_bytes(2, tuple) + field_varint(5, 1) + field_varint(6, 2);
  const std::string bytes = field_bytes(1, "m") + field_bytes(3, comp);
  CHECK(bytes.size() < 200000);
  absl::StatusOr<Module> m = parse_hlo_proto(bytes);
  REQUIRE_FALSE(m.ok());
  const std::string message(m.status().message());
  CHECK(message.find("instruction %t: the module's text passes") != std::string::npos);
  CHECK(message.size() < 400);
}

TEST_CASE("detect_input_kind hands its parse on: the module and errors of parse_hlo_proto") {
  const std::string module = add_module_bytes();
  const std::string dangling =
      field_bytes(1, "m") +
      field_bytes(3, field_bytes(1, "main") +
                         field_bytes(2, instruction("x", "parameter", 1, {})) +
                         field_bytes(2, instruction("n", "negate", 2, {9})) +
                         field_varint(5, 1) + field_varint(6, 2));
  struct Input {
    std::string bytes;
    InputKind kind;
  };
  const Input inputs[] = {
      {module, InputKind::kHloProto},
      {field_bytes(1, module), InputKind::kHloProto},  // inside an HloProto
      {dangling, InputKind::kHloProto},  // protobuf reads it; the reader refuses it
      // Cut inside the computation: protobuf refuses it, and its bytes are not text.
      {module.substr(0, module.size() - 4), InputKind::kBinary},
      {"HloModule m\n", InputKind::kHloText},
      {"", InputKind::kEmpty},
      {" \n\t", InputKind::kEmpty},
      {"{\"a\": 1}", InputKind::kJson},
  };
  ParseOptions options;
  options.file_name = "in.pb";
  for (const Input& in : inputs) {
    INFO("input of " << in.bytes.size() << " bytes");
    ParsedHloProto parsed(module);  // what it held before goes
    const InputKind kind = detect_input_kind(in.bytes, &parsed);
    CHECK(kind == in.kind);
    CHECK(kind == detect_input_kind(in.bytes));
    CHECK(parsed.ok() == (kind == InputKind::kHloProto));
    CHECK(parsed.ok() == is_hlo_proto(in.bytes));
    CHECK(print_or_error(parsed.module(options)) ==
          print_or_error(parse_hlo_proto(in.bytes, options)));
    absl::StatusOr<XlaBufferAssignment> assigned = parsed.xla_buffer_assignment();
    absl::StatusOr<XlaBufferAssignment> read = read_xla_buffer_assignment(in.bytes);
    CHECK(assigned.status() == read.status());
    // An HloModuleProto carries no buffer assignment.
    if (assigned.ok()) CHECK(assigned->allocations.empty());
  }
  // Read from the messages it keeps, a module does not depend on the bytes living on.
  ParsedHloProto kept;
  {
    std::string bytes = module;
    kept = ParsedHloProto(bytes);
    bytes.assign(bytes.size(), '\0');
  }
  REQUIRE_OK(kept);
  CHECK(print_or_error(kept.module()) == print_or_error(parse_hlo_proto(module)));
  CHECK(print_or_error(ParsedHloProto().module()) == print_or_error(parse_hlo_proto("")));
}

// Every kind of attribute the writer maps, in one module (XLA's text for each).
constexpr const char* kRichModule = R"(HloModule rich, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, buffer_donor={ (1, {}) }, entry_computation_layout={(f32[8,16]{1,0}, f32[8,16]{1,0}, s32[4]{0})->(f32[8,16]{1,0}, f32[8,16]{1,0})}, replica_count=2, num_partitions=4, frontend_attributes={key="v a"}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%cmp (c0: f32[], c1: f32[]) -> pred[] {
  %c0 = f32[] parameter(0)
  %c1 = f32[] parameter(1)
  ROOT %lt = pred[] compare(%c0, %c1), direction=LT, type=TOTALORDER
}

%fused (f0: f32[8,16]) -> f32[8,16] {
  %f0 = f32[8,16]{1,0} parameter(0)
  ROOT %neg = f32[8,16]{1,0} negate(%f0)
}

%body (w1: (s32[], f32[8,16])) -> (s32[], f32[8,16]) {
  %w1 = (s32[], f32[8,16]{1,0}) parameter(0)
  %j = s32[] get-tuple-element(%w1), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%j, %one)
  %v = f32[8,16]{1,0} get-tuple-element(%w1), index=1
  ROOT %t = (s32[], f32[8,16]{1,0}) tuple(%next, %v)
}

%cond (w0: (s32[], f32[8,16])) -> pred[] {
  %w0 = (s32[], f32[8,16]{1,0}) parameter(0)
  %i = s32[] get-tuple-element(%w0), index=0
  %ten = s32[] constant(10)
  ROOT %less = pred[] compare(%i, %ten), direction=LT
}

ENTRY %main (p0: f32[8,16], p1: f32[8,16], idx: s32[4]) -> (f32[8,16], f32[8,16]) {
  %p0 = f32[8,16]{1,0} parameter(0), sharding={devices=[2,2]<=[4]}, metadata={op_name="x" stack_frame_id=1}
  %p1 = f32[8,16]{1,0} parameter(1), sharding={replicated}
  %idx = s32[4]{0} parameter(2), parameter_replication={false}
  %c = f32[2,2]{1,0} constant({ {1, 2.5}, {-inf, 0} })
  %big = s32[16]{0} constant({...})
  %h = bf16[] constant(0.7969)
  %tp = f32[16,8]{0,1} transpose(%p0), dimensions={1,0}
  %dot = f32[8,8]{1,0} dot(%p0, %tp), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high,default}, algorithm=dot_bf16_bf16_f32
  %r3 = f32[2,4,8]{2,1,0} reshape(%dot)
  %r4 = f32[2,8,4]{2,1,0} reshape(%dot)
  %bdot = f32[2,4,4]{2,1,0} dot(f32[2,4,8]{2,1,0} %r3, f32[2,8,4]{2,1,0} %r4), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  %sl = f32[4,8]{1,0} slice(%p0), slice={[0:8:2], [0:16:2]}
  %h2 = f32[] constant(0)
  %pad = f32[10,16]{1,0} pad(%p0, f32[] %h2), padding=1_1x0_0
  %i0 = s32[] constant(0)
  %ds = f32[2,16]{1,0} dynamic-slice(%p0, s32[] %i0, s32[] %i0), dynamic_slice_sizes={2,16}
  %rd = f32[8]{0} reduce(%p0, %h2), dimensions={1}, to_apply=%add
  %rw = f32[8,16]{1,0} reduce-window(%p0, %h2), window={size=1x3 pad=0_0x1_1}, to_apply=%add
  %in = f32[1,8,16,1]{3,2,1,0} reshape(%p0)
  %k = f32[3,3,1,1]{3,2,1,0} broadcast(%h2), dimensions={}
  %conv = f32[1,8,16,1]{3,2,1,0} convolution(f32[1,8,16,1]{3,2,1,0} %in, f32[3,3,1,1]{3,2,1,0} %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  %ix = s32[4,1]{1,0} reshape(%idx)
  %g = f32[4,16]{1,0} gather(%p0, s32[4,1]{1,0} %ix), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}, indices_are_sorted=true
  %sc = f32[8,16]{1,0} scatter(%p0, %ix, %g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=%add
  %srt = f32[8,16]{1,0} sort(%p0), dimensions={1}, is_stable=true, to_apply=%cmp
  %io = s32[8]{0} iota(), iota_dimension=0
  %cv = bf16[8,16]{1,0} convert(%p0)
  %ar = f32[8,16]{1,0} all-reduce(%p0), channel_id=1, replica_groups=[2,4]<=[4,2]T(1,0), use_global_device_ids=true, to_apply=%add
  %ag = f32[16,16]{1,0} all-gather(%p0), channel_id=2, replica_groups={{0,1},{2,3}}, dimensions={0}, use_global_device_ids=true
  %rs = f32[4,16]{1,0} reduce-scatter(%p0), replica_groups={{0,1}}, dimensions={0}, to_apply=%add
  %a2a = f32[8,16]{1,0} all-to-all(%p0), replica_groups={{0,1}}, dimensions={0}
  %cp = f32[8,16]{1,0} collective-permute(%p0), channel_id=3, source_target_pairs={{0,1},{1,0}}
  %fu = f32[8,16]{1,0} fusion(%p0), kind=kLoop, calls=%fused, backend_config={"a":{"b":2,"y":1},"kind":"__loop"}
  %fs = ((f32[8,16]{1,0}), f32[8,16]{1,0}, u32[]) fusion-start(%p1), kind=kLoop, calls=%fused, metadata={op_name="fs"}
  %fd = f32[8,16]{1,0} fusion-done(%fs)
  %cc = (f32[8,16]{1,0}, s8[64]{0}) custom-call(%p0, %p1), custom_call_target="__cublas$gemm", operand_layout_constraints={f32[8,16]{1,0}, f32[8,16]{1,0}}, custom_call_has_side_effect=true, output_to_operand_aliasing={{0}: (1, {})}, schedule=SCHEDULE_LATEST, api_version=API_VERSION_TYPED_FFI, backend_config="opaque\n"
  %gte = f32[8,16]{1,0} get-tuple-element(%cc), index=0
  %zero = s32[] constant(0)
  %tup = (s32[], f32[8,16]{1,0}) tuple(%zero, %gte)
  %wh = (s32[], f32[8,16]{1,0}) while(%tup), condition=%cond, body=%body, frontend_attributes={_xla_tag="x",blob={a=1}}
  %wv = f32[8,16]{1,0} get-tuple-element(%wh), index=1, control-predecessors={%fu}
  %cs = (f32[8,16]{1,0}, u32[], token[]) copy-start(%wv), cross_program_prefetch_index=0
  %cd = f32[8,16]{1,0:S(5)} copy-done(%cs)
  %dyn = f32[<=8,16]{1,0} set-dimension-size(%p0, %i0), dimensions={0}
  %tk = token[] after-all()
  %rng = f32[8]{0} rng(%h2, %h2), distribution=rng_uniform
  ROOT %out = (f32[8,16]{1,0}, f32[8,16]{1,0}) tuple(%sc, %srt)
}
)";

TEST_CASE("text -> proto -> module -> text is the identity") {
  absl::StatusOr<Module> text = parse_module(kRichModule);
  INFO(print_or_error(text));
  REQUIRE_OK(text);
  std::string expected = print(*text);
  absl::StatusOr<Module> back = parse_hlo_proto(write_hlo_proto(*text));
  INFO(print_or_error(back));
  REQUIRE_OK(back);
  CHECK(print(*back) == expected);
  std::string difference;
  CHECK(structurally_equal(*text, *back, &difference));
  INFO(difference);
  // The HloModuleProto alone reads the same.
  absl::StatusOr<Module> bare = parse_hlo_proto(write_hlo_module_proto(*text));
  REQUIRE_OK(bare);
  CHECK(print(*bare) == expected);
}

TEST_CASE("a header of billions of devices writes their counts, not an id for each") {
  // 65536 x 65536 = 2^32 devices: listing each id would take 2^32 x 8 bytes (32 GiB). The
  // proto keeps the two counts, all a reader takes back (a failing write would not return).
  absl::StatusOr<Module> huge = parse_module(
      "HloModule huge, replica_count=65536, num_partitions=65536\n"
      "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  REQUIRE_OK(huge);
  const std::string bytes = write_hlo_module_proto(*huge);
  CHECK(bytes.size() < 1000);
  absl::StatusOr<Module> back = parse_hlo_proto(bytes);
  REQUIRE_OK(back);
  CHECK(print(*back) == print(*huge));
}

TEST_CASE("every module of tests/data survives the proto round trip") {
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(HLOROOF_SOURCE_DIR) /
                                                            "tests" / "data")) {
    if (entry.path().extension() != ".hlo") continue;
    std::string text = read_file(entry.path());
    absl::StatusOr<Module> m = parse_module(text);
    if (!m.ok() || has_unmapped_attribute(text) || printed_with_other_options(text)) continue;
    drop_config_attributes(*m);
    absl::StatusOr<Module> back = parse_hlo_proto(write_hlo_proto(*m));
    INFO(entry.path().string());
    INFO(print_or_error(back));
    REQUIRE_OK(back);
    std::string difference;
    CHECK(structurally_equal(*m, *back, &difference));
    INFO(difference);
    CHECK(print(*back) == print(*m));
    ++checked;
  }
  // 88 of the 175 modules of tests/data: the others were printed with unsorted backend configs
  // or explicit async ops (printed_with_other_options), or hold attributes the proto subset
  // has no field for.
  CHECK(checked >= 88);
}



TEST_CASE("gather and scatter flags written false read back as written") {
  // XLA prints these flags only when true; a text may spell them false, and the proto keeps
  // that they were written.
  constexpr const char* kFlags = R"(HloModule flags

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (p0: f32[8,16], ix: s32[4,1], up: f32[4,16]) -> (f32[4,16], f32[8,16], f32[8,16]) {
  %p0 = f32[8,16]{1,0} parameter(0)
  %ix = s32[4,1]{1,0} parameter(1)
  %up = f32[4,16]{1,0} parameter(2)
  %g = f32[4,16]{1,0} gather(%p0, %ix), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}, indices_are_sorted=false
  %sf = f32[8,16]{1,0} scatter(%p0, %ix, %up), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=false, unique_indices=false, to_apply=%add
  %st = f32[8,16]{1,0} scatter(%p0, %ix, %up), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=%add
  ROOT %out = (f32[4,16]{1,0}, f32[8,16]{1,0}, f32[8,16]{1,0}) tuple(%g, %sf, %st)
}
)";
  absl::StatusOr<Module> text = parse_module(kFlags);
  INFO(print_or_error(text));
  REQUIRE_OK(text);
  absl::StatusOr<Module> back = parse_hlo_proto(write_hlo_proto(*text));
  INFO(print_or_error(back));
  REQUIRE_OK(back);
  CHECK(print(*back) == print(*text));
  std::string difference;
  CHECK(structurally_equal(*text, *back, &difference));
  INFO(difference);
}

TEST_CASE("a splat constant is written element by element, so that the reader takes it back") {
  // `constant(0)` of an f32[2,2] (XLA's text parser takes it; a module of XLA's own tests has
  // it) was written as a one-element literal, which the reader refuses ("the literal holds 1
  // elements where its shape has 4").
  absl::StatusOr<Module> text = parse_module(R"(HloModule splat
ENTRY e {
  zero = f32[2,2]{1,0} constant(0)
  pair = c64[3]{0} constant((1, 2))
  big = f32[1024,1024]{1,0} constant(0)
  ROOT t = (f32[2,2]{1,0}, c64[3]{0}, f32[1024,1024]{1,0}) tuple(zero, pair, big)
})");
  REQUIRE_OK(text);
  const std::string bytes = write_hlo_proto(*text);
  // 2^20 elements are past kMaxSplatElements (2^16): written as their shape alone, as an
  // elided constant is, not 4 MiB of zeros.
  CHECK(bytes.size() < 4096);
  absl::StatusOr<Module> back = parse_hlo_proto(bytes);
  INFO(print_or_error(back));
  REQUIRE_OK(back);
  const std::string printed = print(*back);
  // Every element of the splats, as the reader prints a literal.
  CHECK(printed.find("{0, 0}, {0, 0}") != std::string::npos);
  CHECK(printed.find("(1, 2), (1, 2), (1, 2)") != std::string::npos);
}

TEST_CASE("iota and mesh forms stay compact through the proto") {
  // 2^20 devices each: written as their iota form, never a list of 2^20 ids (8 MiB).
  absl::StatusOr<Module> text = parse_module(R"(HloModule compact
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[1024,1024]{1,0} parameter(0), sharding={devices=[1024,1024]<=[1048576]}
  q = f32[1024,1024]{1,0} parameter(1), sharding={devices=[1024,1024]<=[1024,1024]T(1,0)}
  r = f32[1024,1024]{1,0} all-reduce(p), replica_groups=mesh['x'=1024,'y'=1024] {'y'}, to_apply=sum
  ROOT t = (f32[1024,1024]{1,0}, f32[1024,1024]{1,0}) tuple(r, q)
})");
  INFO(print_or_error(text));
  REQUIRE_OK(text);
  const std::string bytes = write_hlo_proto(*text);
  CHECK(bytes.size() < 4096);
  absl::StatusOr<Module> back = parse_hlo_proto(bytes);
  INFO(print_or_error(back));
  REQUIRE_OK(back);
  const Computation* entry = back->entry();
  // Mesh x=1024, y=1024 (device = 1024x + y): group g varies y for x = g: 1024g .. 1024g+1023.
  const ReplicaGroups* groups = entry->find_instruction("r")->replica_groups();
  REQUIRE(groups != nullptr);
  CHECK(groups->group_count() == 1024);
  CHECK(groups->id_at(3, 5) == 3 * 1024 + 5);
  // [1024,1024]T(1,0): tile k = 1024i + j holds device 1024j + i.
  const Sharding* q = entry->find_instruction("q")->sharding();
  REQUIRE(q != nullptr);
  CHECK(q->devices.at(1024 * 2 + 7) == 1024 * 7 + 2);
}

namespace hloroof {
namespace {

TEST_CASE("an HloModuleProto whose dimension lists verify() refuses is refused as text is") {
  // The dot's lhs contracting dimension edited to 7 of a rank-2 operand, then written as a
  // proto: the reader names the list and the operand, where it predicted 142 ms before.
  absl::StatusOr<Module> m = parse_module(R"(HloModule m
ENTRY e {
  a = f32[8,16]{1,0} parameter(0)
  b = f32[16,4]{1,0} parameter(1)
  ROOT d = f32[8,4]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  REQUIRE_OK(m);
  REQUIRE_OK(set_attribute_from_text(*m->entry()->root(), "lhs_contracting_dims", "{7}"));
  absl::StatusOr<Module> back = parse_hlo_proto(write_hlo_proto(*m));
  REQUIRE_FALSE(back.ok());
  CHECK(std::string(back.status().message()).find(
            "lhs_contracting_dims={7} names dimension 7, but operand a (f32[8,16]{1,0}) has 2 "
            "dimensions") != std::string::npos);
}

}  // namespace
}  // namespace hloroof
