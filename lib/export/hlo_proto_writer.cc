// write_hlo_module_proto: a module as XLA serializes it (HloModule::ToProto), in the subset of
// fields lib/proto/hlo.proto holds. Attributes with no field there (statistics, origin,
// original_value, domain, sparsity, result_accuracy, async_group_id, outer_dimension_partitions,
// a custom call's literal, named shardings) are left out.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "export/hlo_proto_buffers.h"
#include "export/hlo_proto_pieces.h"
#include "export/message_arena.h"
#include "export/wire_writer.h"
#include "hloroof/hlo_proto_writer.h"
#include "hloroof/replica_groups.h"
#include "hloroof/shape_text.h"
#include "proto/dot_algorithms.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"
#include "hloroof/absl_compat.h"
#include "util/checked_math.h"

namespace hloroof {
namespace {

namespace pb = ::hloroof::xla_proto;
using proto_internal::primitive_number_of;

void write_shape(const Shape& s, pb::ShapeProto* out) {
  switch (s.kind) {
    case Shape::Kind::kTuple:
      out->set_element_type(proto_internal::kTupleType);
      for (const Shape& e : s.elements) write_shape(e, out->add_tuple_shapes());
      return;
    case Shape::Kind::kBuffer:
      out->set_element_type(proto_internal::kBufferType);
      for (const Shape& e : s.elements) write_shape(e, out->add_tuple_shapes());
      return;
    case Shape::Kind::kToken:
      out->set_element_type(proto_internal::kTokenType);
      return;
    case Shape::Kind::kArray:
      break;
  }
  out->set_element_type(primitive_number_of(primitive_type_name(s.element_type)));
  bool dynamic = false;
  for (const Dimension& d : s.dims) dynamic = dynamic || d.kind != Dimension::Kind::kStatic;
  for (const Dimension& d : s.dims) {
    out->add_dimensions(d.kind == Dimension::Kind::kUnbounded
                            ? std::numeric_limits<int64_t>::min()
                            : d.size);
    if (dynamic) out->add_is_dynamic_dimension(d.kind != Dimension::Kind::kStatic);
  }
  if (!s.layout.has_value()) {
    // XLA gives every array a layout; a scalar's is empty, which prints nothing.
    if (s.dims.empty()) out->mutable_layout();
    return;
  }
  const Layout& l = *s.layout;
  pb::LayoutProto* pl = out->mutable_layout();
  for (int64_t d : l.minor_to_major) pl->add_minor_to_major(d);
  bool flags = false;
  for (const DimLevel& d : l.dim_levels) flags = flags || d.not_unique || d.not_ordered;
  for (const DimLevel& d : l.dim_levels) {
    pl->add_dim_level_types(d.kind == 'C' ? 1 : d.kind == 'S' ? 2 : d.kind == 'H' ? 3 : 0);
    if (flags) {
      pl->add_dim_unique(!d.not_unique);
      pl->add_dim_ordered(!d.not_ordered);
    }
  }
  for (const Tile& t : l.tiles) {
    pb::TileProto* pt = pl->add_tiles();
    for (int64_t d : t.dims) pt->add_dimensions(d);
  }
  pl->set_tail_padding_alignment_in_elements(l.tail_padding_alignment);
  if (l.index_type != PrimitiveType::kInvalid) {
    pl->set_index_primitive_type(primitive_number_of(primitive_type_name(l.index_type)));
  }
  if (l.pointer_type != PrimitiveType::kInvalid) {
    pl->set_pointer_primitive_type(primitive_number_of(primitive_type_name(l.pointer_type)));
  }
  pl->set_element_size_in_bits(l.element_size_bits);
  pl->set_memory_space(l.memory_space);
  for (const SplitConfig& sc : l.split_configs) {
    pb::SplitConfigProto* p = pl->add_split_configs();
    p->set_dimension(sc.dimension);
    for (int64_t v : sc.split_indices) p->add_split_indices(v);
  }
  if (!l.physical_shape.empty()) write_shape(l.physical_shape[0], pl->mutable_physical_shape());
  pl->set_dynamic_shape_metadata_prefix_bytes(l.dynamic_shape_metadata_prefix_bytes);
}

// The scalar tokens of a literal's text, in order: `{ {1, 2}, {3, 4} }` gives 1 2 3 4;
// a complex `(1, 2)` gives 1 2.
std::vector<std::string_view> literal_tokens(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '{' || c == '}' || c == ',' || c == '(' || c == ')' || c == ' ' || c == '\n') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && text[i] != '{' && text[i] != '}' && text[i] != ',' &&
           text[i] != '(' && text[i] != ')' && text[i] != ' ' && text[i] != '\n') {
      ++i;
    }
    out.push_back(text.substr(start, i - start));
  }
  return out;
}

double to_double(std::string_view t) {
  std::string s(t);
  // XLA prints NaN payloads as `nan(0x...)`, which splits into `nan` and a payload.
  return std::strtod(s.c_str(), nullptr);
}

int64_t to_int(std::string_view t) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(sv(t), &v)) {
    uint64_t u = 0;
    if (absl::SimpleAtoi(sv(t), &u)) v = static_cast<int64_t>(u);
  }
  return v;
}

uint16_t to_half(double v) {
  float f = static_cast<float>(v);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int exponent = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7e00);
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(sign | half);
}

uint16_t to_bf16(double v) {
  float f = static_cast<float>(v);
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

// The nearest value of a one-byte float type (ties to even), found by search over its codes.
uint8_t to_minifloat(double v, int t) {
  int best = 0;
  double best_error = std::numeric_limits<double>::infinity();
  for (int code = 0; code < 256; ++code) {
    double x = proto_internal::minifloat_to_double(static_cast<uint8_t>(code), t);
    if (std::isnan(v) && std::isnan(x)) return static_cast<uint8_t>(code);
    if (std::isnan(x)) continue;
    double error = std::fabs(x - v);
    if (error < best_error || (error == best_error && (code & 1) == 0)) {
      best = code;
      best_error = error;
    }
  }
  return static_cast<uint8_t>(best);
}

void append_le16(std::string* out, uint16_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>(v >> 8));
}

// The most elements a splat constant is written out to (256 KiB of f32).
constexpr int64_t kMaxSplatElements = int64_t{1} << 16;

void write_literal(const Shape& shape, std::string_view text, pb::LiteralProto* out) {
  write_shape(shape, out->mutable_shape());
  if (!shape.is_array() || text.find("...") != std::string_view::npos) return;
  const int t = primitive_number_of(primitive_type_name(shape.element_type));
  std::vector<std::string_view> tokens = literal_tokens(text);
  // A splat, one value for every element (`f32[2,2] constant(0)`, which XLA's text parser
  // takes): each element written, as a literal lists them (a reader checks their count), up to
  // kMaxSplatElements; a larger one keeps its shape only, as an elided `{...}` does.
  const size_t per_element = t == 15 || t == 18 ? 2 : 1;  // complex: real and imaginary
  int64_t elements = 1;
  for (const Dimension& d : shape.dims) {
    elements = saturating_mul(elements, std::max<int64_t>(d.size, 0));
  }
  if (tokens.size() == per_element && elements != 1) {
    if (elements > kMaxSplatElements) return;
    std::vector<std::string_view> one = std::move(tokens);
    tokens.clear();
    tokens.reserve(static_cast<size_t>(elements) * per_element);
    for (int64_t k = 0; k < elements; ++k) tokens.insert(tokens.end(), one.begin(), one.end());
  }
  for (std::string_view tok : tokens) {
    switch (t) {
      case 1: out->add_preds(tok == "true" || tok == "1"); break;
      case 2: out->mutable_s8s()->push_back(static_cast<char>(to_int(tok))); break;
      case 6: out->mutable_u8s()->push_back(static_cast<char>(to_int(tok))); break;
      case 30: out->mutable_s1s()->push_back(static_cast<char>(to_int(tok))); break;
      case 26: out->mutable_s2s()->push_back(static_cast<char>(to_int(tok))); break;
      case 21: out->mutable_s4s()->push_back(static_cast<char>(to_int(tok))); break;
      case 31: out->mutable_u1s()->push_back(static_cast<char>(to_int(tok))); break;
      case 27: out->mutable_u2s()->push_back(static_cast<char>(to_int(tok))); break;
      case 22: out->mutable_u4s()->push_back(static_cast<char>(to_int(tok))); break;
      case 3: append_le16(out->mutable_s16s(), static_cast<uint16_t>(to_int(tok))); break;
      case 7: append_le16(out->mutable_u16s(), static_cast<uint16_t>(to_int(tok))); break;
      case 10: append_le16(out->mutable_f16s(), to_half(to_double(tok))); break;
      case 16: append_le16(out->mutable_bf16s(), to_bf16(to_double(tok))); break;
      case 4: out->add_s32s(static_cast<int32_t>(to_int(tok))); break;
      case 5: out->add_s64s(to_int(tok)); break;
      case 8: out->add_u32s(static_cast<uint32_t>(to_int(tok))); break;
      case 9: out->add_u64s(static_cast<uint64_t>(to_int(tok))); break;
      case 11: out->add_f32s(static_cast<float>(to_double(tok))); break;
      case 12: out->add_f64s(to_double(tok)); break;
      case 15: out->add_c64s(static_cast<float>(to_double(tok))); break;
      case 18: out->add_c128s(to_double(tok)); break;
      default:
        if (tok.rfind("0x", 0) == 0) break;  // a NaN payload
        {
          std::string* field = nullptr;
          switch (t) {
            case 19: field = out->mutable_f8e5m2s(); break;
            case 28: field = out->mutable_f8e4m3s(); break;
            case 29: field = out->mutable_f8e3m4s(); break;
            case 20: field = out->mutable_f8e4m3fns(); break;
            case 23: field = out->mutable_f8e4m3b11fnuzs(); break;
            case 24: field = out->mutable_f8e5m2fnuzs(); break;
            case 25: field = out->mutable_f8e4m3fnuzs(); break;
            case 32: field = out->mutable_f4e2m1fns(); break;
            case 33: field = out->mutable_f8e8m0fnus(); break;
            default: break;
          }
          if (field != nullptr) {
            field->push_back(static_cast<char>(to_minifloat(to_double(tok), t)));
          }
        }
        break;
    }
  }
}

// OpMetadata's fields in order of their numbers, as protobuf writes them, into `out`; its int32
// fields cut to 32 bits as protobuf's setters cut them.
void write_metadata(const OpMetadata& m, std::string& out) {
  auto int32 = [](int64_t v) { return static_cast<int64_t>(static_cast<int32_t>(v)); };
  proto_internal::WireWriter w(out);
  w.bytes(1, m.op_type);
  w.bytes(2, m.op_name);
  w.bytes(3, m.source_file);
  w.integer(4, int32(m.source_line));
  if (!m.profile_type.empty()) {
    absl::InlinedVector<int32_t, 4> types;
    for (int64_t p : m.profile_type) types.push_back(static_cast<int32_t>(p));
    w.packed(5, types);
  }
  w.bytes(12, m.deduplicated_name);
  w.integer(15, int32(m.stack_frame_id));
  w.bytes(16, m.scheduling_name);
  w.integer(17, int32(m.source_end_line));
  w.integer(18, int32(m.source_column));
  w.integer(19, int32(m.source_end_column));
}

// Integers of a text in order, with the positions of `{`/`}` kept as markers: scans
// `{ {0}: (1, {}) }`-like values.
struct IntScanner {
  std::string_view s;
  size_t i = 0;
  void skip() {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',' || s[i] == ':' || s[i] == '(' ||
                            s[i] == ')')) {
      ++i;
    }
  }
  bool at(char c) {
    skip();
    return i < s.size() && s[i] == c;
  }
  bool take(char c) {
    if (!at(c)) return false;
    ++i;
    return true;
  }
  bool integer(int64_t* v) {
    skip();
    size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return absl::SimpleAtoi(sv(s.substr(start, i - start)), v);
  }
  // `{1,2}` into `out`.
  bool index(google::protobuf::RepeatedField<int64_t>* out) {
    if (!take('{')) return false;
    while (!at('}')) {
      int64_t v;
      if (!integer(&v)) return false;
      out->Add(v);
    }
    return take('}');
  }
};

// Module frontend attributes as written: `{key="value",k2={blob}}`.
void parse_frontend_text(std::string_view text, pb::FrontendAttributes* out) {
  if (text.size() < 2) return;
  std::string_view s = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ',' || s[i] == ' ')) ++i;
    size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) return;
    std::string key(s.substr(i, eq - i));
    i = eq + 1;
    std::string value;
    if (i < s.size() && s[i] == '"') {
      size_t start = ++i;
      while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
      std::string raw(s.substr(start, std::min(i, s.size()) - start));
      std::string unescaped;
      value = absl::CUnescape(raw, &unescaped) ? unescaped : raw;
      ++i;
    } else if (i < s.size() && s[i] == '{') {
      size_t start = i;
      int depth = 0;
      for (; i < s.size(); ++i) {
        if (s[i] == '{') ++depth;
        if (s[i] == '}' && --depth == 0) {
          ++i;
          break;
        }
      }
      value = std::string(s.substr(start, i - start));
    } else {
      size_t start = i;
      while (i < s.size() && s[i] != ',') ++i;
      value = std::string(s.substr(start, i - start));
    }
    pb::FrontendAttributes::Entry* e = out->add_map();
    e->set_key(key);
    e->set_value(value);
  }
}

void write_sharding(const Sharding& s, pb::OpSharding* out) {
  auto type_number = [](Sharding::Type t) {
    switch (t) {
      case Sharding::Type::kReplicated: return 0;
      case Sharding::Type::kMaximal: return 1;
      case Sharding::Type::kTuple: return 2;
      case Sharding::Type::kTiled: return 3;
      case Sharding::Type::kManual: return 4;
      case Sharding::Type::kUnknown: return 5;
      case Sharding::Type::kUnreduced: return 6;
      case Sharding::Type::kNamed: return 0;
    }
    return 0;
  };
  out->set_type(type_number(s.type));
  if (s.type == Sharding::Type::kMaximal) out->add_tile_assignment_devices(s.device);
  if (s.type == Sharding::Type::kTuple) {
    for (const Sharding& e : s.elements) {
      write_sharding(e, out->add_tuple_shardings());
    }
  }
  if (s.type == Sharding::Type::kTiled) {
    for (int64_t d : s.tile_shape) out->add_tile_assignment_dimensions(d);
    // The iota form `devices=[..]<=[dims]T(perm)` is kept as written.
    if (s.devices.is_iota()) {
      for (int64_t d : s.devices.iota_dims) out->add_iota_reshape_dims(d);
      for (size_t k = 0; k < s.devices.iota_dims.size(); ++k) {
        out->add_iota_transpose_perm(static_cast<int32_t>(
            s.devices.iota_transpose.empty() ? static_cast<int64_t>(k)
                                             : s.devices.iota_transpose[k]));
      }
    } else {
      for (int64_t d : s.devices.listed) out->add_tile_assignment_devices(d);
    }
    out->set_replicate_on_last_tile_dim(s.last_tile_dim_replicate);
    for (Sharding::Type t : s.last_tile_dims) out->add_last_tile_dims(type_number(t));
  }
  if (s.shard_group_id >= 0) {
    out->set_is_shard_group(true);
    out->set_shard_group_id(s.shard_group_id);
    out->set_shard_group_type(s.shard_as ? 0 : 1);
  }
}

void ints(IntList v, google::protobuf::RepeatedField<int64_t>* f) {
  for (int64_t x : v) f->Add(x);
}

int precision_number(std::string_view w) {
  if (w == "high") return 1;
  if (w == "highest") return 2;
  return 0;
}

class ProtoBuilder {
 public:
  // With `pieces`, build() writes into the string `pieces` hands over as pieces.
  explicit ProtoBuilder(const Module& m, proto_internal::WirePieces* pieces = nullptr)
      : m_(m), pieces_(pieces) {}
  // The module's HloModuleProto, its fields written into `out` (a computation's instructions
  // one at a time).
  void build(proto_internal::WireWriter& out);
  // After build: the id of every instruction of the module.
  const proto_internal::InstructionIds& instruction_ids() const { return *inst_ids_; }

 private:
  int64_t comp_id(const Computation* c) const { return comp_ids_.at(c); }
  int64_t inst_id(const Instruction* i) const { return inst_ids_->at(i); }
  // `i`'s fields after its name (1), opcode (2), shape (3) and metadata (7), which build writes
  // by hand.
  void write_instruction(const Instruction& i, pb::HloInstructionProto* out);
  // The same fields into `out` by hand, where `i` has no others than parameter_number (9),
  // id (35), operand_ids (36), control_predecessor_ids (37) and backend_config (43): most
  // instructions. False (nothing written) for the others.
  bool write_plain_instruction(const Instruction& i, std::string& out);
  // The serialized ShapeProto of `s`, made once for each shape object.
  const std::string& shape_bytes(const Shape& s);
  // The opcode-specific attributes of `i` (not the common ones) into `out`.
  void write_opcode_attributes(const Instruction& i, Opcode op, pb::HloInstructionProto* out);
  void write_common_attributes(const Instruction& i, pb::HloInstructionProto* out);
  // (XLA's position of a called computation, its id), one per called computation.
  using CalledIds = std::vector<std::pair<int, int64_t>>;
  // For write_opcode_attributes, the attribute `a` of an instruction of opcode `op` into `out`,
  // by kind; false (nothing written) for an attribute of another kind. Scalars, triangular
  // solves, slices, windows and convolutions:
  bool write_field_attribute(const Attribute& a, Opcode op, pb::HloInstructionProto* out);
  // Dot dimensions (into `dot`, when not null: a ragged dot's), precision, padding, called
  // computations (into `calls`), fusions, aliasing, replica groups and source-target pairs:
  bool write_structure_attribute(const Attribute& a, Opcode op, pb::DotDimensionNumbers* dot,
                                 pb::HloInstructionProto* out, CalledIds& calls);
  // Gathers, scatters, comparisons, random numbers, FFTs, custom calls, feeds, parameters:
  bool write_operation_attribute(const Attribute& a, Opcode op, pb::HloInstructionProto* out);
  // The module's fields after its computations (build's, from the schedule on).
  void write_module_fields(pb::HloModuleProto* out);
  // The wrapped computation of a sugared async start into `c`; its id.
  int64_t write_wrapped(const Instruction& start, pb::HloComputationProto* c);
  std::string unique_computation_name(std::string base);

  const Module& m_;
  proto_internal::WirePieces* pieces_;
  absl::flat_hash_map<const Computation*, int64_t> comp_ids_;
  std::optional<proto_internal::InstructionIds> inst_ids_;  // made by build()
  absl::flat_hash_map<const Instruction*, int64_t> wrapped_of_;  // sugared start: computation id
  absl::flat_hash_set<std::string> comp_names_;
  absl::flat_hash_map<const Shape*, std::string> shape_bytes_;
  int64_t next_id_ = 1;
};

const std::string& ProtoBuilder::shape_bytes(const Shape& s) {
  auto [it, made] = shape_bytes_.try_emplace(&s);
  if (made) {
    pb::ShapeProto proto;
    write_shape(s, &proto);
    proto_internal::WireWriter(it->second).append(proto);
  }
  return it->second;
}

std::string ProtoBuilder::unique_computation_name(std::string base) {
  std::string name = base;
  for (int k = 1; comp_names_.contains(name); ++k) name = str_cat(base, ".", k);
  comp_names_.insert(name);
  return name;
}

void ProtoBuilder::write_opcode_attributes(const Instruction& i, Opcode op,
                                           pb::HloInstructionProto* out) {
  CalledIds calls;
  pb::DotDimensionNumbers* dot = op == Opcode::kRaggedDot
                                     ? out->mutable_ragged_dot_dimension_numbers()
                                           ->mutable_dot_dimension_numbers()
                                     : nullptr;
  for (const Attribute& a : i.attributes()) {
    // The common attributes, and those the subset schema has no field for, are none of these.
    if (!write_field_attribute(a, op, out) && !write_structure_attribute(a, op, dot, out, calls)) {
      write_operation_attribute(a, op, out);
    }
  }
  std::stable_sort(calls.begin(), calls.end());
  for (const auto& [position, id] : calls) out->add_called_computation_ids(id);
  // XLA writes these defaults explicitly for the ops that have them.
  // XLA's reader requires a convolution's window: an empty one where the text has none (a
  // convolution without spatial dimensions, as TPU programs write their matrix products).
  if (op == Opcode::kConvolution) out->mutable_window();
  if (op == Opcode::kConvolution || op == Opcode::kCustomCall) {
    if (out->feature_group_count() == 0) out->set_feature_group_count(1);
    if (out->batch_group_count() == 0) out->set_batch_group_count(1);
  }
  if (op == Opcode::kCustomCall && out->custom_call_api_version() == 0 &&
      !i.has_attribute(AttrId::kApiVersion)) {
    out->set_custom_call_api_version(1);
  }
  if (op == Opcode::kCompare && out->comparison_type().empty() && i.operand_count() > 0) {
    PrimitiveType t = i.operand(0)->shape().element_type;
    out->set_comparison_type(is_floating_point(t) || is_complex(t) ? "FLOAT"
                             : is_signed_integral(t)                ? "SIGNED"
                                                                    : "UNSIGNED");
  }
}

bool ProtoBuilder::write_field_attribute(const Attribute& a, Opcode op,
                                         pb::HloInstructionProto* out) {
  switch (a.id) {
    case AttrId::kDimensions: ints(*a.get<IntList>(), out->mutable_dimensions()); break;
    case AttrId::kIndex: out->set_tuple_index(*a.get<int64_t>()); break;
    case AttrId::kIotaDimension: out->add_dimensions(*a.get<int64_t>()); break;
    case AttrId::kDynamicSliceSizes:
      ints(*a.get<IntList>(), out->mutable_dynamic_slice_sizes());
      break;
    case AttrId::kFeatureIndex: out->set_feature_index(*a.get<int64_t>()); break;
    case AttrId::kEpsilon: out->set_epsilon(static_cast<float>(*a.get<double>())); break;
    case AttrId::kExponentBits:
      out->set_exponent_bits(static_cast<int32_t>(*a.get<int64_t>()));
      break;
    case AttrId::kMantissaBits:
      out->set_mantissa_bits(static_cast<int32_t>(*a.get<int64_t>()));
      break;
    case AttrId::kDelta: out->set_delta(*a.get<int64_t>()); break;
    case AttrId::kK: out->set_k(*a.get<int64_t>()); break;
    case AttrId::kCrossProgramPrefetchIndex:
      out->set_cross_program_prefetch_index(static_cast<int32_t>(*a.get<int64_t>()));
      break;
    case AttrId::kChannelId: out->set_channel_id(*a.get<int64_t>()); break;
    case AttrId::kLargest: out->set_largest(*a.get<bool>()); break;
    case AttrId::kIsStable: out->set_is_stable(*a.get<bool>()); break;
    case AttrId::kIndicesAreSorted: out->set_indices_are_sorted(*a.get<bool>()); break;
    case AttrId::kUniqueIndices: out->set_unique_indices(*a.get<bool>()); break;
    case AttrId::kConstrainLayout: out->set_constrain_layout(*a.get<bool>()); break;
    case AttrId::kUseGlobalDeviceIds: out->set_use_global_device_ids(*a.get<bool>()); break;
    case AttrId::kIsHostTransfer: out->set_is_host_transfer(*a.get<bool>()); break;
    case AttrId::kIsComposite: out->set_is_composite(*a.get<bool>()); break;
    case AttrId::kCustomCallHasSideEffect:
      out->set_custom_call_has_side_effect(*a.get<bool>());
      break;
    case AttrId::kLeftSide:
      out->mutable_triangular_solve_options()->set_left_side(*a.get<bool>());
      break;
    case AttrId::kLower:
      if (op == Opcode::kCholesky) {
        out->mutable_cholesky_options()->set_lower(*a.get<bool>());
      } else {
        out->mutable_triangular_solve_options()->set_lower(*a.get<bool>());
      }
      break;
    case AttrId::kUnitDiagonal:
      out->mutable_triangular_solve_options()->set_unit_diagonal(*a.get<bool>());
      break;
    case AttrId::kTransposeA: {
      std::string_view w = *a.get<std::string_view>();
      out->mutable_triangular_solve_options()->set_transpose_a(
          w == "NO_TRANSPOSE" ? 1 : w == "TRANSPOSE" ? 2 : w == "ADJOINT" ? 3 : 0);
      break;
    }
    case AttrId::kSlice:
      for (const SliceDim& d : (*a.get<const Slice*>())->dims) {
        auto* p = out->add_slice_dimensions();
        p->set_start(d.start);
        p->set_limit(d.limit);
        p->set_stride(d.stride);
      }
      break;
    case AttrId::kWindow:
      for (const WindowDim& d : (*a.get<const Window*>())->dims) {
        auto* p = out->mutable_window()->add_dimensions();
        p->set_size(d.size);
        p->set_stride(d.stride);
        p->set_padding_low(d.pad_low);
        p->set_padding_high(d.pad_high);
        p->set_base_dilation(d.lhs_dilation);
        p->set_window_dilation(d.rhs_dilation);
        p->set_window_reversal(d.reversal);
      }
      break;
    case AttrId::kDimLabels: {
      const ConvDimLabels& l = **a.get<const ConvDimLabels*>();
      auto* p = out->mutable_convolution_dimension_numbers();
      p->set_input_batch_dimension(l.input_batch);
      p->set_input_feature_dimension(l.input_feature);
      for (int64_t d : l.input_spatial) p->add_input_spatial_dimensions(d);
      p->set_kernel_input_feature_dimension(l.kernel_input_feature);
      p->set_kernel_output_feature_dimension(l.kernel_output_feature);
      for (int64_t d : l.kernel_spatial) p->add_kernel_spatial_dimensions(d);
      p->set_output_batch_dimension(l.output_batch);
      p->set_output_feature_dimension(l.output_feature);
      for (int64_t d : l.output_spatial) p->add_output_spatial_dimensions(d);
      break;
    }
    case AttrId::kFeatureGroupCount: out->set_feature_group_count(*a.get<int64_t>()); break;
    case AttrId::kBatchGroupCount: out->set_batch_group_count(*a.get<int64_t>()); break;
    default:
      return false;
  }
  return true;
}

bool ProtoBuilder::write_structure_attribute(const Attribute& a, Opcode op,
                                             pb::DotDimensionNumbers* dot,
                                             pb::HloInstructionProto* out, CalledIds& calls) {
  auto dot_dims = [&]() -> pb::DotDimensionNumbers* {
    return dot != nullptr ? dot : out->mutable_dot_dimension_numbers();
  };
  switch (a.id) {
    case AttrId::kLhsBatchDims:
      ints(*a.get<IntList>(), dot_dims()->mutable_lhs_batch_dimensions());
      break;
    case AttrId::kLhsContractingDims:
      ints(*a.get<IntList>(), dot_dims()->mutable_lhs_contracting_dimensions());
      break;
    case AttrId::kRhsBatchDims:
      ints(*a.get<IntList>(), dot_dims()->mutable_rhs_batch_dimensions());
      break;
    case AttrId::kRhsContractingDims:
      ints(*a.get<IntList>(), dot_dims()->mutable_rhs_contracting_dimensions());
      break;
    case AttrId::kLhsRaggedDims:
      ints(*a.get<IntList>(),
           out->mutable_ragged_dot_dimension_numbers()->mutable_lhs_ragged_dimensions());
      break;
    case AttrId::kRhsGroupDims:
      ints(*a.get<IntList>(),
           out->mutable_ragged_dot_dimension_numbers()->mutable_rhs_group_dimensions());
      break;
    case AttrId::kOperandPrecision:
      for (std::string_view w : **a.get<const WordList*>()) {
        out->mutable_precision_config()->add_operand_precision(precision_number(w));
      }
      break;
    case AttrId::kAlgorithm: {
      std::string_view w = *a.get<std::string_view>();
      if (op == Opcode::kRngBitGenerator) {
        out->set_rng_algorithm(w == "rng_three_fry" ? 1 : w == "rng_philox" ? 2 : 0);
      } else {
        out->mutable_precision_config()->set_algorithm(proto_internal::dot_algorithm_number(w));
      }
      break;
    }
    case AttrId::kPadding:
      for (const PaddingDim& d : (*a.get<const Padding*>())->dims) {
        auto* p = out->mutable_padding_config()->add_dimensions();
        p->set_edge_padding_low(d.low);
        p->set_edge_padding_high(d.high);
        p->set_interior_padding(d.interior);
      }
      break;
    // Called computations, at XLA's index of each role.
    case AttrId::kToApply:
    case AttrId::kCalls:
    case AttrId::kBody:
    case AttrId::kTrueComputation:
    case AttrId::kSelectComputation:
      calls.push_back({0, comp_id(*a.get<Computation*>())});
      break;
    case AttrId::kCondition:
    case AttrId::kFalseComputation:
    case AttrId::kScatterComputation:
      calls.push_back({1, comp_id(*a.get<Computation*>())});
      break;
    case AttrId::kBranchComputations:
    case AttrId::kCalledComputations: {
      int k = 0;
      for (Computation* c : *a.get<ComputationList>()) calls.push_back({k++, comp_id(c)});
      break;
    }
    case AttrId::kFusionKind:
      out->set_fusion_kind(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kOutputToOperandAliasing: {
      IntScanner s{a.text()};
      if (!s.take('{')) break;
      while (s.at('{')) {
        auto* p = out->add_output_operand_aliasing();
        int64_t operand = 0;
        if (!s.index(p->mutable_output_shape_index()) || !s.integer(&operand) ||
            !s.index(p->mutable_operand_shape_index())) {
          break;
        }
        p->set_operand_index(operand);
      }
      break;
    }
    case AttrId::kReplicaGroups: {
      const ReplicaGroups& g = **a.get<const ReplicaGroups*>();
      auto* list = out->mutable_collective_device_list();
      // Mesh groups over the mesh's own order are iota groups; over devices of their own, a
      // list (a mesh holds 2^20 devices at most).
      if (g.form == ReplicaGroups::Form::kIota ||
          (g.form == ReplicaGroups::Form::kMesh && g.mesh_devices.empty())) {
        auto* iota = list->mutable_iota_replica_group_list();
        iota->set_num_replica_groups(g.num_groups);
        iota->set_num_devices_per_group(g.group_size);
        for (int64_t d : g.iota_dims) iota->add_iota_reshape_dims(d);
        if (g.iota_transpose.empty()) {
          for (size_t k = 0; k < g.iota_dims.size(); ++k) {
            iota->add_iota_transpose_perm(static_cast<int32_t>(k));
          }
        }
        for (int64_t d : g.iota_transpose) iota->add_iota_transpose_perm(static_cast<int32_t>(d));
      } else {
        for (int64_t k = 0; k < g.group_count(); ++k) {
          auto* p = list->add_replica_groups();
          for (int64_t d : g.group(k)) p->add_replica_ids(d);
        }
      }
      break;
    }
    case AttrId::kSourceTargetPairs:
      for (const std::vector<int64_t>& pair : **a.get<const IntListList*>()) {
        if (pair.size() != 2) continue;
        auto* p = out->add_source_target_pairs();
        p->set_source(pair[0]);
        p->set_target(pair[1]);
      }
      break;
    default:
      return false;
  }
  return true;
}

bool ProtoBuilder::write_operation_attribute(const Attribute& a, Opcode op,
                                             pb::HloInstructionProto* out) {
  switch (a.id) {
    case AttrId::kSliceSizes:
      if (const IntList* list = a.get<IntList>()) {
        ints(*list, op == Opcode::kGather ? out->mutable_gather_slice_sizes()
                                          : out->mutable_dynamic_slice_sizes());
      }
      break;
    case AttrId::kDirection:
      out->set_comparison_direction(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kComparisonType:
      out->set_comparison_type(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kDistribution:
      out->set_distribution(*a.get<std::string_view>() == "rng_normal" ? 2 : 1);
      break;
    case AttrId::kFftType: {
      std::string_view w = *a.get<std::string_view>();
      out->set_fft_type(w == "IFFT" ? 1 : w == "RFFT" ? 2 : w == "IRFFT" ? 3 : 0);
      break;
    }
    case AttrId::kFftLength: ints(*a.get<IntList>(), out->mutable_fft_length()); break;
    case AttrId::kOffsetDims:
      ints(*a.get<IntList>(), out->mutable_gather_dimension_numbers()->mutable_offset_dims());
      break;
    case AttrId::kCollapsedSliceDims:
      ints(*a.get<IntList>(),
           out->mutable_gather_dimension_numbers()->mutable_collapsed_slice_dims());
      break;
    case AttrId::kStartIndexMap:
      ints(*a.get<IntList>(),
           out->mutable_gather_dimension_numbers()->mutable_start_index_map());
      break;
    case AttrId::kOperandBatchingDims:
      ints(*a.get<IntList>(),
           out->mutable_gather_dimension_numbers()->mutable_operand_batching_dims());
      break;
    case AttrId::kStartIndicesBatchingDims:
      ints(*a.get<IntList>(),
           out->mutable_gather_dimension_numbers()->mutable_start_indices_batching_dims());
      break;
    case AttrId::kIndexVectorDim:
      if (op == Opcode::kScatter) {
        out->mutable_scatter_dimension_numbers()->set_index_vector_dim(*a.get<int64_t>());
      } else {
        out->mutable_gather_dimension_numbers()->set_index_vector_dim(*a.get<int64_t>());
      }
      break;
    case AttrId::kUpdateWindowDims:
      ints(*a.get<IntList>(),
           out->mutable_scatter_dimension_numbers()->mutable_update_window_dims());
      break;
    case AttrId::kInsertedWindowDims:
      ints(*a.get<IntList>(),
           out->mutable_scatter_dimension_numbers()->mutable_inserted_window_dims());
      break;
    case AttrId::kScatterDimsToOperandDims:
      ints(*a.get<IntList>(),
           out->mutable_scatter_dimension_numbers()->mutable_scatter_dims_to_operand_dims());
      break;
    case AttrId::kInputBatchingDims:
      ints(*a.get<IntList>(),
           out->mutable_scatter_dimension_numbers()->mutable_input_batching_dims());
      break;
    case AttrId::kScatterIndicesBatchingDims:
      ints(*a.get<IntList>(),
           out->mutable_scatter_dimension_numbers()->mutable_scatter_indices_batching_dims());
      break;
    case AttrId::kCustomCallTarget:
      out->set_custom_call_target(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kApiVersion: {
      std::string_view w = *a.get<std::string_view>();
      out->set_custom_call_api_version(w == "API_VERSION_STATUS_RETURNING"           ? 2
                                       : w == "API_VERSION_STATUS_RETURNING_UNIFIED" ? 3
                                       : w == "API_VERSION_TYPED_FFI"                ? 4
                                       : w == "API_VERSION_UNSPECIFIED"              ? 0
                                                                                     : 1);
      break;
    }
    case AttrId::kSchedule: {
      std::string_view w = *a.get<std::string_view>();
      out->set_custom_call_schedule(w == "SCHEDULE_LATEST"     ? 1
                                    : w == "SCHEDULE_EARLIEST" ? 2
                                                               : 0);
      break;
    }
    case AttrId::kOperandLayoutConstraints: {
      // `{f32[2]{0}, s32[]}`: split at the commas outside brackets.
      out->set_constrain_layout(true);
      std::string_view t = a.text();
      if (t.size() < 2) break;
      t = t.substr(1, t.size() - 2);
      int depth = 0;
      size_t start = 0;
      for (size_t k = 0; k <= t.size(); ++k) {
        char c = k < t.size() ? t[k] : ',';
        if (c == '{' || c == '[' || c == '(') ++depth;
        if (c == '}' || c == ']' || c == ')') --depth;
        if (c == ',' && depth == 0) {
          absl::StatusOr<Shape> s = parse_shape(t.substr(start, k - start));
          if (s.ok()) write_shape(*s, out->add_operand_shapes_with_layout());
          start = k + 1;
        }
      }
      break;
    }
    case AttrId::kPaddingType: {
      std::string_view w = *a.get<std::string_view>();
      out->set_padding_type(w == "PADDING_VALID" ? 1 : w == "PADDING_SAME" ? 2 : 0);
      break;
    }
    case AttrId::kAsyncExecutionThread:
      out->set_async_execution_thread(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kInfeedConfig:
      out->set_infeed_config(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kOutfeedConfig:
      out->set_outfeed_config(std::string(*a.get<std::string_view>()));
      break;
    case AttrId::kOutfeedShape:
      write_shape(**a.get<const Shape*>(), out->mutable_outfeed_shape());
      break;
    case AttrId::kParameterReplication:
      for (std::string_view tok : literal_tokens(a.text())) {
        out->mutable_parameter_replication()->add_replicated_at_leaf_buffers(tok == "true");
      }
      break;
    default:
      return false;
  }
  return true;
}

void ProtoBuilder::write_common_attributes(const Instruction& i, pb::HloInstructionProto* out) {
  for (const Attribute& a : i.attributes()) {
    switch (a.id) {
      case AttrId::kSharding:
        write_sharding(**a.get<const Sharding*>(), out->mutable_sharding());
        break;
      case AttrId::kFrontendAttributes:
        for (const FrontendAttribute& e : (*a.get<const FrontendAttributes*>())->entries) {
          pb::FrontendAttributes::Entry* x = out->mutable_frontend_attributes()->add_map();
          x->set_key(std::string(e.key));
          x->set_value(std::string(e.value));
        }
        break;
      case AttrId::kControlPredecessors:
        for (Instruction* p : *a.get<InstructionList>()) {
          out->add_control_predecessor_ids(inst_id(p));
        }
        break;
      case AttrId::kBackendConfig:
        out->set_backend_config(std::string(*a.get<std::string_view>()));
        break;
      default:
        break;
    }
  }
}

void ProtoBuilder::write_instruction(const Instruction& i, pb::HloInstructionProto* out) {
  out->set_id(inst_id(&i));
  for (Instruction* o : i.operands()) out->add_operand_ids(inst_id(o));
  if (i.uses_async_sugar()) {
    if (i.opcode() == Opcode::kAsyncStart) {
      out->add_called_computation_ids(wrapped_of_.at(&i));
      if (const Attribute* t = i.attribute(AttrId::kAsyncExecutionThread)) {
        out->set_async_execution_thread(std::string(*t->get<std::string_view>()));
      }
    }
    write_common_attributes(i, out);
    return;
  }
  if (i.opcode() == Opcode::kParameter) out->set_parameter_number(i.parameter_number());
  if (i.opcode() == Opcode::kConstant) {
    write_literal(i.shape(), i.literal_text(), out->mutable_literal());
  }
  write_opcode_attributes(i, i.opcode(), out);
  write_common_attributes(i, out);
}

bool ProtoBuilder::write_plain_instruction(const Instruction& i, std::string& out) {
  // Opcodes whose fields write_opcode_attributes sets without an attribute (defaults XLA
  // writes, a literal, a wrapped computation), and attributes other than these three.
  switch (i.opcode()) {
    case Opcode::kConstant:
    case Opcode::kConvolution:
    case Opcode::kCustomCall:
    case Opcode::kCompare:
    case Opcode::kRaggedDot:
      return false;
    default:
      break;
  }
  if (i.uses_async_sugar()) return false;
  const Attribute* config = nullptr;
  const Attribute* predecessors = nullptr;
  for (const Attribute& a : i.attributes()) {
    if (a.id == AttrId::kMetadata) continue;  // written by build
    const Attribute** held = a.id == AttrId::kBackendConfig          ? &config
                             : a.id == AttrId::kControlPredecessors ? &predecessors
                                                                    : nullptr;
    if (held == nullptr || *held != nullptr) return false;
    *held = &a;
  }
  proto_internal::WireWriter w(out);
  if (i.opcode() == Opcode::kParameter) w.integer(9, i.parameter_number());
  w.integer(35, inst_id(&i));
  absl::InlinedVector<int64_t, 8> ids;
  for (const Instruction* o : i.operands()) ids.push_back(inst_id(o));
  w.packed(36, ids);
  if (predecessors != nullptr) {
    ids.clear();
    for (const Instruction* p : *predecessors->get<InstructionList>()) ids.push_back(inst_id(p));
    w.packed(37, ids);
  }
  if (config != nullptr) w.bytes(43, *config->get<std::string_view>());
  return true;
}

int64_t ProtoBuilder::write_wrapped(const Instruction& start, pb::HloComputationProto* c) {
  Opcode op = *start.async_wrapped_opcode();
  // Numbered after the module's own computations.
  int64_t id = static_cast<int64_t>(comp_ids_.size() + wrapped_of_.size()) + 1;
  c->set_name(unique_computation_name(str_cat("wrapped_", opcode_name(op), "_computation")));
  c->set_id(id);
  c->set_execution_thread(start.has_attribute(AttrId::kAsyncExecutionThread)
                              ? std::string(start.string_attribute(AttrId::kAsyncExecutionThread))
                              : std::string("main"));
  std::vector<int64_t> params;
  for (size_t k = 0; k < start.operand_count(); ++k) {
    pb::HloInstructionProto* p = c->add_instructions();
    p->set_name(str_cat("param_", k));
    p->set_opcode("parameter");
    p->set_parameter_number(static_cast<int64_t>(k));
    p->set_id(next_id_++);
    write_shape(start.operand(k)->shape(), p->mutable_shape());
    params.push_back(p->id());
    write_shape(start.operand(k)->shape(), c->mutable_program_shape()->add_parameters());
    c->mutable_program_shape()->add_parameter_names(p->name());
  }
  pb::HloInstructionProto* root = c->add_instructions();
  root->set_name(std::string(opcode_name(op)));
  root->set_opcode(std::string(opcode_name(op)));
  root->set_id(next_id_++);
  const Shape& shape = start.shape();
  if (shape.is_tuple() && shape.elements.size() >= 2) {
    write_shape(shape.elements[1], root->mutable_shape());
    write_shape(shape.elements[1], c->mutable_program_shape()->mutable_result());
  }
  for (int64_t p : params) root->add_operand_ids(p);
  write_opcode_attributes(start, op, root);
  c->set_root_id(root->id());
  return id;
}

void ProtoBuilder::build(proto_internal::WireWriter& w) {
  for (const Computation* c : m_.computations()) {
    comp_ids_[c] = static_cast<int64_t>(comp_ids_.size()) + 1;
    comp_names_.insert(std::string(c->name()));
  }
  inst_ids_.emplace(m_, next_id_);
  absl::flat_hash_set<const Computation*> fused;
  for (const Computation* c : m_.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kFusion || (i->uses_async_sugar() &&
                                             i->async_wrapped_opcode() == Opcode::kFusion)) {
        if (Computation* f = i->computation_attribute(AttrId::kCalls)) fused.insert(f);
      }
    }
  }
  // HloModuleProto: name (1) and entry_computation_name (2), the computations (3), then the
  // module's other fields (`out`, numbered from 4).
  const Computation* entry = m_.entry();  // one of the computations, null with none
  w.bytes(1, m_.name());
  if (entry != nullptr) w.bytes(2, entry->name());
  pb::HloModuleProto module;
  pb::HloModuleProto* out = &module;
  if (entry != nullptr) out->set_entry_computation_id(comp_id(entry));
  const ModuleAttributes& a = m_.attributes();
  // Each computation's messages made, written and let go in turn: HloComputationProto's name
  // (1), its instructions (2) one by one, then its other fields.
  proto_internal::ScratchMessages scratch;
  std::string metadata;  // an instruction's OpMetadata, serialized
  std::string plain;     // an instruction's fields from 8, written by hand
  for (const Computation* c : m_.computations()) {
    // Wrapped computations of this computation's sugared starts come first (callees first).
    for (const Instruction* i : c->instructions()) {
      if (i->uses_async_sugar() && i->opcode() == Opcode::kAsyncStart) {
        auto* wrapped = scratch.make<pb::HloComputationProto>();
        wrapped_of_[i] = write_wrapped(*i, wrapped);
        w.message(3, *wrapped);
      }
    }
    // (In pieces, a computation of many instructions spans several.)
    const proto_internal::WirePieces::Open start = proto_internal::open_field(w, pieces_, 3);
    w.bytes(1, c->name());
    for (const Instruction* i : c->instructions()) {
      // HloInstructionProto: its name (1), opcode (2), shape (3) and metadata (7) by hand (a
      // shape's bytes made once for all the instructions that share it), then the fields
      // numbered from 8: by hand where they are the few most instructions have, else a
      // message made, sized and serialized.
      plain.clear();
      pb::HloInstructionProto* instruction = nullptr;
      if (!write_plain_instruction(*i, plain)) {
        instruction = scratch.make<pb::HloInstructionProto>();
        write_instruction(*i, instruction);
      }
      const std::string_view name = i->name(), opcode = opcode_name(i->opcode());
      const std::string& shape = shape_bytes(i->shape());
      const std::optional<OpMetadata> m = i->metadata();
      metadata.clear();
      if (m) write_metadata(*m, metadata);
      const size_t rest = instruction != nullptr ? instruction->ByteSizeLong() : plain.size();
      using proto_internal::WireWriter;
      w.header(2, WireWriter::bytes_size(name) + WireWriter::bytes_size(opcode) +
                      WireWriter::field_size(shape.size()) +
                      (m ? WireWriter::field_size(metadata.size()) : 0) + rest);
      w.bytes(1, name);
      w.bytes(2, opcode);
      w.header(3, shape.size());
      w.raw(shape);
      if (m) {
        w.header(7, metadata.size());
        w.raw(metadata);
      }
      if (instruction != nullptr) {
        w.append(*instruction, rest);
      } else {
        w.raw(plain);
      }
      proto_internal::maybe_flush(pieces_);
    }
    auto* pc = scratch.make<pb::HloComputationProto>();
    pc->set_id(comp_id(c));
    pc->set_root_id(inst_id(c->root()));
    pc->set_is_fusion_computation(fused.contains(c));
    pc->set_execution_thread(std::string(c->execution_thread()));
    for (const Instruction* p : c->parameters()) {
      if (p == nullptr) continue;
      write_shape(p->shape(), pc->mutable_program_shape()->add_parameters());
      pc->mutable_program_shape()->add_parameter_names(std::string(p->name()));
    }
    write_shape(c->root()->shape(), pc->mutable_program_shape()->mutable_result());
    w.append(*pc);
    proto_internal::close_field(w, pieces_, start);
    if (a.is_scheduled && !fused.contains(c)) {
      auto& seq = (*out->mutable_schedule()->mutable_sequences())[comp_id(c)];
      for (const Instruction* i : c->instructions()) seq.add_instruction_ids(inst_id(i));
    }
  }
  write_module_fields(out);
  w.append(module);
}

void ProtoBuilder::write_module_fields(pb::HloModuleProto* out) {
  const ModuleAttributes& a = m_.attributes();
  if (a.is_scheduled) out->mutable_schedule();
  // The host program shape: the entry layout, when the header has one.
  if (a.has_entry_computation_layout) {
    pb::ProgramShapeProto* host = out->mutable_host_program_shape();
    for (const Shape* s : a.entry_parameter_layouts) write_shape(*s, host->add_parameters());
    if (a.entry_result_layout != nullptr) {
      write_shape(*a.entry_result_layout, host->mutable_result());
    }
  }
  if (a.has_entry_computation_layout && m_.entry() != nullptr) {
    pb::ProgramShapeProto* host = out->mutable_host_program_shape();
    for (const Instruction* p : m_.entry()->parameters()) {
      if (p != nullptr) host->add_parameter_names(std::string(p->name()));
    }
  }
  if (a.has_input_output_alias) {
    auto* alias = out->mutable_input_output_alias();
    for (const InputOutputAlias& x : a.input_output_alias) {
      auto* e = alias->add_entries();
      for (int64_t v : x.output_index) e->add_output_shape_index(v);
      e->set_parameter_number(x.parameter_number);
      for (int64_t v : x.parameter_index) e->add_parameter_shape_index(v);
      e->set_kind(x.must_alias ? 2 : 1);
    }
  }
  if (a.has_buffer_donor) {
    auto* donors = out->mutable_buffer_donor();
    for (const BufferDonor& x : a.buffer_donor) {
      auto* e = donors->add_entries();
      e->set_parameter_number(x.parameter_number);
      for (int64_t v : x.parameter_index) e->add_parameter_shape_index(v);
    }
  }
  if (a.replica_count > 1 || a.num_partitions > 1) {
    auto* d = out->mutable_device_assignment();
    d->set_replica_count(static_cast<int32_t>(a.replica_count));
    d->set_computation_count(static_cast<int32_t>(a.num_partitions));
    // Each device's id only for a module of at most kMaxDevices devices: a header's counts
    // (each up to 2^31) would otherwise ask for up to 2^62 ids. The counts are what a reader
    // takes back.
    const bool listed = saturating_mul(a.replica_count, a.num_partitions) <= kMaxDevices;
    for (int64_t c = 0; listed && c < a.num_partitions; ++c) {
      auto* devices = d->add_computation_devices();
      for (int64_t r = 0; r < a.replica_count; ++r) {
        devices->add_replica_device_ids(r * a.num_partitions + c);
      }
    }
  }
  for (const RawModuleAttribute& raw : a.others) {
    if (raw.name == "frontend_attributes") {
      parse_frontend_text(raw.text, out->mutable_frontend_attributes());
    }
  }
  const StackFrameTables& t = m_.stack_frames();
  if (t.present) {
    auto* p = out->mutable_stack_frame_index();
    for (std::string_view s : t.file_names) p->add_file_names(std::string(s));
    for (std::string_view s : t.function_names) p->add_function_names(std::string(s));
    for (const FileLocation& l : t.file_locations) {
      auto* x = p->add_file_locations();
      x->set_file_name_id(static_cast<int32_t>(l.file_name_id));
      x->set_function_name_id(static_cast<int32_t>(l.function_name_id));
      x->set_line(static_cast<int32_t>(l.line));
      x->set_column(static_cast<int32_t>(l.column));
      x->set_end_line(static_cast<int32_t>(l.end_line));
      x->set_end_column(static_cast<int32_t>(l.end_column));
    }
    for (const StackFrame& f : t.frames) {
      auto* x = p->add_stack_frames();
      x->set_file_location_id(static_cast<int32_t>(f.file_location_id));
      x->set_parent_frame_id(static_cast<int32_t>(f.parent_frame_id - 1));
    }
  }
}

}  // namespace

namespace {

// The bytes written, or none where they do not fit in a protobuf message. The room reserved
// (below) and left unwritten is kept: its pages were never touched, so they hold no memory,
// where giving it back would copy the bytes into a block of their size beside them (gemma3 4b:
// 2.9 MB made while the 3.8 MB reserved is still held).
std::string finished(const proto_internal::WireWriter& w, std::string& bytes) {
  if (!w.fits()) return {};
  return std::move(bytes);
}
// The same of bytes written in pieces.
std::vector<std::string> finished(const proto_internal::WireWriter& w,
                                  proto_internal::WirePieces& pieces) {
  std::vector<std::string> out = pieces.take();
  size_t total = 0;
  for (const std::string& piece : out) total += piece.size();
  if (!w.fits() || total > proto_internal::WireWriter::kMaxMessageBytes) return {};
  return out;
}

// Room for the bytes made at once, rather than by doubling a string of megabytes (each
// doubling copies them and leaves a hole the size of the last in the heap): a module's proto
// takes about as many bytes as its text (gemma3 4b: 2.9 MB for 3.8 MB of text), a described
// buffer about 100 (its logical buffer, assignment and two heap trace events).
size_t expected_bytes(size_t buffers) { return 100 * buffers; }
// The buffers a report's assignment is written from: its placements, else its largest.
size_t described_buffers(const MemoryReport& memory) {
  return memory.placements.empty() ? memory.largest_buffers.size() : memory.placements.size();
}
size_t expected_bytes(const Module& module, size_t buffers = 0) {
  return module.source().size() + expected_bytes(buffers);
}

}  // namespace

std::string write_hlo_module_proto(const Module& module) {
  std::string bytes;
  bytes.reserve(expected_bytes(module));
  proto_internal::WireWriter w(bytes);
  ProtoBuilder(module).build(w);
  return finished(w, bytes);
}

std::string write_hlo_proto(const Module& module) {
  // HloProto: hlo_module (1).
  std::string bytes;
  bytes.reserve(expected_bytes(module));
  proto_internal::WireWriter w(bytes);
  const size_t start = w.open(1);
  ProtoBuilder(module).build(w);
  w.close(start);
  return finished(w, bytes);
}

std::vector<std::string> proto_internal::write_hlo_proto_pieces(const Module& module) {
  std::string bytes;
  proto_internal::WireWriter w(bytes);
  proto_internal::WirePieces pieces(bytes);
  const proto_internal::WirePieces::Open start = pieces.open(w, 1);
  ProtoBuilder(module, &pieces).build(w);
  pieces.close(w, start);
  return finished(w, pieces);
}

std::string write_hlo_proto(const Module& module, const MemoryReport& memory) {
  // HloProto: hlo_module (1), buffer_assignment (3).
  std::string bytes;
  bytes.reserve(expected_bytes(module, described_buffers(memory)));
  proto_internal::WireWriter w(bytes);
  size_t start = w.open(1);
  ProtoBuilder builder(module);
  builder.build(w);
  w.close(start);
  start = w.open(3);
  proto_internal::write_buffer_assignment(memory, builder.instruction_ids(), module, w);
  w.close(start);
  return finished(w, bytes);
}

std::string write_hlo_proto_buffers(const Module& module, const MemoryReport& memory) {
  // HloProto: buffer_assignment (3), at the ids the module's part gives its instructions.
  std::string bytes;
  bytes.reserve(expected_bytes(described_buffers(memory)));
  proto_internal::WireWriter w(bytes);
  const size_t start = w.open(3);
  int64_t next_id = 1;
  proto_internal::write_buffer_assignment(memory, proto_internal::InstructionIds(module, next_id),
                                          module, w);
  w.close(start);
  return finished(w, bytes);
}

std::vector<std::string> proto_internal::write_hlo_proto_buffers_pieces(
    const Module& module, const MemoryReport& memory) {
  std::string bytes;
  proto_internal::WireWriter w(bytes);
  proto_internal::WirePieces pieces(bytes);
  const proto_internal::WirePieces::Open start = pieces.open(w, 3);
  int64_t next_id = 1;
  proto_internal::write_buffer_assignment(memory, proto_internal::InstructionIds(module, next_id),
                                          module, w, &pieces);
  pieces.close(w, start);
  return finished(w, pieces);
}

}  // namespace hloroof
