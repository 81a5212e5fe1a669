// parse_hlo_proto: an HloModuleProto becomes the text XLA prints for it (the dump profile of
// docs/hlo-text.md: `%` names, attributes in XLA's order, async sugar), which the text parser
// then reads, so that a module read from a proto gets every check, shape inference and decoded
// attribute a module read from text gets, and prints as XLA would print it. Writing the text is
// a small part of the work (each attribute keeps its text in the module anyway); the bytes are
// checked on the way (names, ids, element types), and a parse error is reported against the
// computation and instruction it came from.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/opcode.h"
#include "util/absl_compat.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"
#include "text/name_chars.h"
#include "util/wire_reader.h"

namespace hloroof {
namespace {

namespace pb = ::hloroof::xla_proto;
using proto_internal::kBufferType;
using proto_internal::kOpaqueType;
using proto_internal::kTokenType;
using proto_internal::kTupleType;
using proto_internal::primitive_name_of;

// Limits on what the bytes may ask the reader to write before the parser sees it: nesting of
// shapes and literals (protobuf itself stops messages nesting past 100 levels).
constexpr int kMaxShapeDepth = 64;
constexpr int64_t kMaxElidedConstantElements = 10;  // larger constants print as {...}

struct ReadError {
  std::string message;
};

// `s` in double quotes, escaped as absl::CEscape escapes it. Most names and paths need no
// escape: those are copied as they are.
void append_quoted(std::string* out, std::string_view s) {
  out->push_back('"');
  bool plain = true;
  for (char ch : s) {
    plain = plain && ch >= 0x20 && ch <= 0x7e && ch != '"' && ch != '\'' && ch != '\\';
  }
  if (plain) {
    out->append(s);
  } else {
    out->append(absl::CEscape(sv(s)));
  }
  out->push_back('"');
}

std::string quote_text(std::string_view s) {
  std::string out;
  append_quoted(&out, s);
  return out;
}

void append_int(std::string* out, int64_t v) {
  char digits[24];  // INT64_MIN takes 20
  const std::to_chars_result r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

void append_ints(std::string* out, const google::protobuf::RepeatedField<int64_t>& v) {
  out->push_back('{');
  for (int i = 0; i < v.size(); ++i) {
    if (i > 0) out->push_back(',');
    append_int(out, v[i]);
  }
  out->push_back('}');
}

// An iota list as XLA prints it after `<=`: `[d0,d1,...]`, then `T(p0,p1,...)` unless the
// permutation is the identity (tile assignments and replica groups alike).
template <typename Dims, typename Perm>
std::string iota_text(const Dims& dims, const Perm& perm) {
  std::string out = "[";
  for (int i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ",";
    str_append(&out, dims[i]);
  }
  out += "]";
  bool identity = true;
  for (int i = 0; i < perm.size(); ++i) identity = identity && perm[i] == i;
  if (!identity) {
    out += "T(";
    for (int i = 0; i < perm.size(); ++i) {
      if (i > 0) out += ",";
      str_append(&out, perm[i]);
    }
    out += ")";
  }
  return out;
}

std::string ints(const google::protobuf::RepeatedField<int64_t>& v) {
  std::string out;
  append_ints(&out, v);
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!text::is_name_char(c)) return false;
  }
  return true;
}

// ---- Shapes and layouts, as xla::Shape::ToString(print_layout=true) writes them.

bool append_shape(std::string* out, const pb::ShapeProto& s, int depth, std::string* error);

bool append_layout(std::string* out, const pb::ShapeProto& s, int depth, std::string* error) {
  const pb::LayoutProto& l = s.layout();
  // Written in place as `{m2m:props}`, then cut back: no `:` without properties, nothing for a
  // scalar without them.
  const size_t start = out->size();
  out->push_back('{');
  for (int i = 0; i < l.minor_to_major_size(); ++i) {
    if (i > 0) out->push_back(',');
    append_int(out, l.minor_to_major(i));
  }
  const size_t colon = out->size();
  out->push_back(':');
  const size_t props_start = out->size();
  std::string& props = *out;
  if (l.dim_level_types_size() > 0) {
    props += "D(";
    for (int i = 0; i < l.dim_level_types_size(); ++i) {
      if (i > 0) props += ",";
      static constexpr char kKinds[] = {'D', 'C', 'S', 'H'};
      int t = l.dim_level_types(i);
      if (t < 0 || t > 3) {
        *error = str_cat("unknown dimension level type ", t);
        return false;
      }
      props.push_back(kKinds[t]);
      if (i < l.dim_unique_size() && !l.dim_unique(i)) props += "+";
      if (i < l.dim_ordered_size() && !l.dim_ordered(i)) props += "~";
    }
    props += ")";
  }
  if (l.tiles_size() > 0) {
    props += "T";
    for (const pb::TileProto& t : l.tiles()) {
      props += "(";
      for (int i = 0; i < t.dimensions_size(); ++i) {
        if (i > 0) props += ",";
        // XLA's Tile::kCombineDimension (INT64_MIN) prints as `*`.
        if (t.dimensions(i) == std::numeric_limits<int64_t>::min()) {
          props += "*";
        } else {
          str_append(&props, t.dimensions(i));
        }
      }
      props += ")";
    }
  }
  if (l.tail_padding_alignment_in_elements() > 1) {
    str_append(&props, "L(", l.tail_padding_alignment_in_elements(), ")");
  }
  auto prim = [&](int type, std::string_view mark) {
    if (type == 0) return true;
    std::string_view name = primitive_name_of(type);
    if (name.empty()) {
      *error = str_cat("unknown element type ", type, " in a layout");
      return false;
    }
    str_append(&props, mark, "(", name, ")");
    return true;
  };
  if (!prim(l.index_primitive_type(), "#") || !prim(l.pointer_primitive_type(), "*")) {
    return false;
  }
  if (l.element_size_in_bits() != 0) str_append(&props, "E(", l.element_size_in_bits(), ")");
  if (l.memory_space() != 0) str_append(&props, "S(", l.memory_space(), ")");
  for (const pb::SplitConfigProto& sc : l.split_configs()) {
    str_append(&props, "SC(", sc.dimension(), ":");
    for (int i = 0; i < sc.split_indices_size(); ++i) {
      if (i > 0) props += ",";
      str_append(&props, sc.split_indices(i));
    }
    props += ")";
  }
  if (l.has_physical_shape()) {
    props += "P(";
    if (!append_shape(&props, l.physical_shape(), depth + 1, error)) return false;
    props += ")";
  }
  if (l.dynamic_shape_metadata_prefix_bytes() != 0) {
    str_append(&props, "M(", l.dynamic_shape_metadata_prefix_bytes(), ")");
  }
  const bool no_props = out->size() == props_start;
  // A scalar's empty layout is not printed.
  if (s.dimensions_size() == 0 && no_props) {
    out->resize(start);
    return true;
  }
  if (no_props) out->resize(colon);
  out->push_back('}');
  return true;
}

bool append_shape(std::string* out, const pb::ShapeProto& s, int depth, std::string* error) {
  if (depth > kMaxShapeDepth) {
    *error = str_cat("shapes nest more than ", kMaxShapeDepth, " deep");
    return false;
  }
  switch (s.element_type()) {
    case kTupleType:
      out->push_back('(');
      for (int i = 0; i < s.tuple_shapes_size(); ++i) {
        if (i > 0) out->append(", ");
        if (!append_shape(out, s.tuple_shapes(i), depth + 1, error)) return false;
      }
      out->push_back(')');
      return true;
    case kTokenType:
      out->append("token[]");
      return true;
    case kBufferType:
      if (s.tuple_shapes_size() != 1) {
        *error = "a buffer shape holds one array shape";
        return false;
      }
      out->append("b(");
      if (!append_shape(out, s.tuple_shapes(0), depth + 1, error)) return false;
      out->push_back(')');
      return true;
    default:
      break;
  }
  std::string_view name = primitive_name_of(s.element_type());
  if (name.empty() || s.element_type() == kOpaqueType) {
    if (s.element_type() == kOpaqueType) {
      out->append("opaque[]");
      return true;
    }
    *error = str_cat("unknown element type ", s.element_type());
    return false;
  }
  out->append(name);
  out->push_back('[');
  for (int i = 0; i < s.dimensions_size(); ++i) {
    if (i > 0) out->push_back(',');
    int64_t d = s.dimensions(i);
    bool dynamic = i < s.is_dynamic_dimension_size() && s.is_dynamic_dimension(i);
    if (d == std::numeric_limits<int64_t>::min()) {  // xla::Shape::kUnboundedSize
      out->push_back('?');
    } else {
      if (dynamic) out->append("<=");
      append_int(out, d);
    }
  }
  out->push_back(']');
  if (s.has_layout()) return append_layout(out, s, depth, error);
  return true;
}

// ---- Literals, as xla::LiteralBase::ToStringWithoutShape writes them.

template <typename T>
T load_le(const std::string& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// XLA's RoundTripFpToString: floats at 6 significant digits (9 when that would not read back),
// doubles likewise (17), the narrow types at their max_digits10.
std::string float_text(double v, int type) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (type == 11) {  // F32
    std::string t = absl::StrFormat("%g", v);
    if (static_cast<float>(std::strtod(t.c_str(), nullptr)) != static_cast<float>(v)) {
      t = absl::StrFormat("%.9g", v);
    }
    return t;
  }
  if (type == 12) {  // F64
    std::string t = absl::StrFormat("%g", v);
    if (std::strtod(t.c_str(), nullptr) != v) t = absl::StrFormat("%.17g", v);
    return t;
  }
  return absl::StrFormat("%.*g", proto_internal::max_digits10(type), v);
}

struct LiteralReader {
  const pb::LiteralProto& lit;
  int type;
  int64_t count = 0;
  std::string* error;

  // The number of stored elements, or -1 (error set) when the field does not hold `count`.
  bool check_count() {
    int64_t have = -1;
    switch (type) {
      case 1: have = lit.preds_size(); break;
      case 2: have = static_cast<int64_t>(lit.s8s().size()); break;
      case 6: have = static_cast<int64_t>(lit.u8s().size()); break;
      case 30: have = static_cast<int64_t>(lit.s1s().size()); break;
      case 26: have = static_cast<int64_t>(lit.s2s().size()); break;
      case 21: have = static_cast<int64_t>(lit.s4s().size()); break;
      case 31: have = static_cast<int64_t>(lit.u1s().size()); break;
      case 27: have = static_cast<int64_t>(lit.u2s().size()); break;
      case 22: have = static_cast<int64_t>(lit.u4s().size()); break;
      case 3: have = static_cast<int64_t>(lit.s16s().size()) / 2; break;
      case 7: have = static_cast<int64_t>(lit.u16s().size()) / 2; break;
      case 10: have = static_cast<int64_t>(lit.f16s().size()) / 2; break;
      case 16: have = static_cast<int64_t>(lit.bf16s().size()) / 2; break;
      case 4: have = lit.s32s_size(); break;
      case 5: have = lit.s64s_size(); break;
      case 8: have = lit.u32s_size(); break;
      case 9: have = lit.u64s_size(); break;
      case 11: have = lit.f32s_size(); break;
      case 12: have = lit.f64s_size(); break;
      case 15: have = lit.c64s_size() / 2; break;
      case 18: have = lit.c128s_size() / 2; break;
      default: {
        const std::string* bytes = proto_internal::minifloat_bytes(lit, type);
        if (bytes != nullptr) have = static_cast<int64_t>(bytes->size());
        break;
      }
    }
    if (have < 0) {
      *error = str_cat("constants of element type ", primitive_name_of(type),
                       " cannot be read from a proto");
      return false;
    }
    if (have != count) {
      *error = str_cat("the literal holds ", have, " elements where its shape has ", count);
      return false;
    }
    return true;
  }

  std::string element(int64_t i) const {
    switch (type) {
      case 1: return lit.preds(static_cast<int>(i)) ? "true" : "false";
      case 2: return str_cat(static_cast<int8_t>(lit.s8s()[i]));
      case 6: return str_cat(static_cast<uint8_t>(lit.u8s()[i]));
      case 30: return str_cat(static_cast<int8_t>(lit.s1s()[i]));
      case 26: return str_cat(static_cast<int8_t>(lit.s2s()[i]));
      case 21: return str_cat(static_cast<int8_t>(lit.s4s()[i]));
      case 31: return str_cat(static_cast<uint8_t>(lit.u1s()[i]));
      case 27: return str_cat(static_cast<uint8_t>(lit.u2s()[i]));
      case 22: return str_cat(static_cast<uint8_t>(lit.u4s()[i]));
      case 3: return str_cat(load_le<int16_t>(lit.s16s(), i));
      case 7: return str_cat(load_le<uint16_t>(lit.u16s(), i));
      case 10:
        return float_text(proto_internal::half_to_double(load_le<uint16_t>(lit.f16s(), i)), 10);
      case 16: {
        uint32_t bits = static_cast<uint32_t>(load_le<uint16_t>(lit.bf16s(), i)) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return float_text(f, 16);
      }
      case 4: return str_cat(lit.s32s(static_cast<int>(i)));
      case 5: return str_cat(lit.s64s(static_cast<int>(i)));
      case 8: return str_cat(lit.u32s(static_cast<int>(i)));
      case 9: return str_cat(lit.u64s(static_cast<int>(i)));
      case 11: return float_text(lit.f32s(static_cast<int>(i)), 11);
      case 12: return float_text(lit.f64s(static_cast<int>(i)), 12);
      case 15:
        return str_cat("(", float_text(lit.c64s(static_cast<int>(2 * i)), 11), ", ",
                       float_text(lit.c64s(static_cast<int>(2 * i + 1)), 11), ")");
      case 18:
        return str_cat("(", float_text(lit.c128s(static_cast<int>(2 * i)), 12), ", ",
                       float_text(lit.c128s(static_cast<int>(2 * i + 1)), 12), ")");
      default: {
        const std::string* bytes = proto_internal::minifloat_bytes(lit, type);
        return float_text(proto_internal::minifloat_to_double(static_cast<uint8_t>((*bytes)[i]),
                                                              type),
                          type);
      }
    }
  }
};

void append_array_literal(std::string* out, const LiteralReader& r,
                          const google::protobuf::RepeatedField<int64_t>& dims, int dim,
                          int64_t* next) {
  bool innermost = dim + 1 == dims.size();
  out->append(innermost ? "{" : "{ ");
  for (int64_t k = 0; k < dims[dim]; ++k) {
    if (k > 0) out->append(", ");
    if (innermost) {
      out->append(r.element((*next)++));
    } else {
      append_array_literal(out, r, dims, dim + 1, next);
    }
  }
  out->append(innermost ? "}" : " }");
}

bool append_literal(std::string* out, const pb::LiteralProto& lit, const pb::ShapeProto& shape,
                    int depth, std::string* error) {
  if (depth > kMaxShapeDepth) {
    *error = "literals nest too deep";
    return false;
  }
  if (shape.element_type() == kTupleType) {
    if (lit.tuple_literals_size() != shape.tuple_shapes_size()) {
      *error = "a tuple literal's elements do not match its shape";
      return false;
    }
    out->append("( ");
    for (int i = 0; i < lit.tuple_literals_size(); ++i) {
      if (i > 0) out->append(", ");
      if (!append_literal(out, lit.tuple_literals(i), shape.tuple_shapes(i), depth + 1, error)) {
        return false;
      }
    }
    out->append(" )");
    return true;
  }
  if (shape.element_type() == kTokenType || shape.element_type() == kOpaqueType ||
      shape.element_type() == kBufferType) {
    *error = "a constant of this shape cannot be read from a proto";
    return false;
  }
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) {
      *error = "a constant has a negative dimension";
      return false;
    }
    count = d == 0 ? 0 : (count > std::numeric_limits<int64_t>::max() / d ? -1 : count * d);
    if (count < 0) {
      *error = "a constant's shape is too large";
      return false;
    }
  }
  if (shape.dimensions_size() > 0 && count > kMaxElidedConstantElements) {
    out->append("{...}");
    return true;
  }
  LiteralReader r{lit, shape.element_type(), count, error};
  if (!r.check_count()) return false;
  if (shape.dimensions_size() == 0) {
    out->append(r.element(0));
    return true;
  }
  int64_t next = 0;
  append_array_literal(out, r, shape.dimensions(), 0, &next);
  return true;
}

// ---- Attribute values.

// Appends `{key=value ...}`: `{}` when no field is set.
void append_metadata(std::string* out, const pb::OpMetadata& m) {
  out->push_back('{');
  const size_t start = out->size();
  auto sep = [&] {
    if (out->size() > start) out->push_back(' ');
  };
  auto str = [&](std::string_view key, const std::string& v) {
    if (v.empty()) return;
    sep();
    out->append(key);
    out->push_back('=');
    append_quoted(out, v);
  };
  auto num = [&](std::string_view key, int64_t v) {
    if (v == 0) return;
    sep();
    out->append(key);
    out->push_back('=');
    append_int(out, v);
  };
  str("op_type", m.op_type());
  str("op_name", m.op_name());
  str("source_file", m.source_file());
  num("source_line", m.source_line());
  num("source_end_line", m.source_end_line());
  num("source_column", m.source_column());
  num("source_end_column", m.source_end_column());
  if (m.profile_type_size() > 0) {
    sep();
    out->append("profile_type={");
    for (int i = 0; i < m.profile_type_size(); ++i) {
      if (i > 0) out->push_back(',');
      append_int(out, m.profile_type(i));
    }
    out->push_back('}');
  }
  str("deduplicated_name", m.deduplicated_name());
  str("scheduling_name", m.scheduling_name());
  num("stack_frame_id", m.stack_frame_id());
  out->push_back('}');
}

// True when `text` is one brace-balanced blob `{...}` (strings skipped): printed raw.
bool balanced_blob(std::string_view text) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
      if (i >= text.size()) return false;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0 && i + 1 != text.size()) return false;
    }
  }
  return depth == 0;
}

std::string frontend_attributes_text(const pb::FrontendAttributes& f) {
  // As a map: sorted by key, the last of equal keys kept.
  std::map<std::string, std::string> sorted;
  for (const auto& e : f.map()) sorted[e.key()] = e.value();
  std::vector<std::pair<std::string, std::string>> entries(sorted.begin(), sorted.end());
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ",";
    str_append(&out, entries[i].first, "=");
    out += balanced_blob(entries[i].second) ? entries[i].second : quote_text(entries[i].second);
  }
  out += "}";
  return out;
}

bool valid_frontend_keys(const pb::FrontendAttributes& f) {
  for (const auto& e : f.map()) {
    if (!valid_name(e.key())) return false;
  }
  return true;
}

std::string_view sharding_type_word(int type) {
  switch (type) {
    case 0: return "replicated";
    case 4: return "manual";
    case 5: return "unknown";
    case 6: return "unreduced";
    default: return "";
  }
}

bool sharding_text(const pb::OpSharding& s, std::string* out, bool nested, std::string* error) {
  std::string body;
  switch (s.type()) {
    case 0:
    case 4:
    case 5:
    case 6:
      body = std::string(sharding_type_word(s.type()));
      break;
    case 1:
      if (s.tile_assignment_devices_size() != 1) {
        *error = "a maximal sharding names one device";
        return false;
      }
      body = str_cat("maximal device=", s.tile_assignment_devices(0));
      break;
    case 2: {
      if (nested) {
        *error = "a tuple sharding inside a tuple sharding";
        return false;
      }
      out->push_back('{');
      for (int i = 0; i < s.tuple_shardings_size(); ++i) {
        if (i > 0) out->append(", ");
        if (!sharding_text(s.tuple_shardings(i), out, true, error)) return false;
      }
      out->push_back('}');
      return true;
    }
    case 3: {
      body = "devices=[";
      for (int i = 0; i < s.tile_assignment_dimensions_size(); ++i) {
        if (i > 0) body += ",";
        str_append(&body, s.tile_assignment_dimensions(i));
      }
      body += "]";
      if (s.iota_reshape_dims_size() > 0) {
        body += "<=" + iota_text(s.iota_reshape_dims(), s.iota_transpose_perm());
      } else {
        for (int i = 0; i < s.tile_assignment_devices_size(); ++i) {
          if (i > 0) body += ",";
          str_append(&body, s.tile_assignment_devices(i));
        }
      }
      if (s.replicate_on_last_tile_dim()) {
        body += " last_tile_dim_replicate";
      } else if (s.last_tile_dims_size() > 0) {
        body += " last_tile_dims={";
        for (int i = 0; i < s.last_tile_dims_size(); ++i) {
          if (i > 0) body += ", ";
          std::string_view w = sharding_type_word(s.last_tile_dims(i));
          if (w.empty()) {
            *error = str_cat("unknown subgroup type ", s.last_tile_dims(i), " in a sharding");
            return false;
          }
          body += std::string(w);
        }
        body += "}";
      }
      break;
    }
    default:
      *error = str_cat("unknown sharding type ", s.type());
      return false;
  }
  if (s.is_shard_group()) {
    str_append(&body, s.shard_group_type() == 0 ? " shard_as " : " shard_like ",
               s.shard_group_id());
  }
  str_append(out, "{", body, "}");
  return true;
}

std::string window_text(const pb::Window& w) {
  std::string out = "{";
  auto field = [&](std::string_view name, auto get, auto is_default) {
    bool any = name == "size";
    for (const pb::WindowDimension& d : w.dimensions()) any = any || !is_default(d);
    if (!any) return;
    if (name != "size") out.push_back(' ');
    str_append(&out, name, "=");
    for (int i = 0; i < w.dimensions_size(); ++i) {
      if (i > 0) out.push_back('x');
      out += get(w.dimensions(i));
    }
  };
  using D = pb::WindowDimension;
  field("size", [](const D& d) { return str_cat(d.size()); }, [](const D&) { return false; });
  field("stride", [](const D& d) { return str_cat(d.stride()); },
        [](const D& d) { return d.stride() == 1; });
  field("pad", [](const D& d) { return str_cat(d.padding_low(), "_", d.padding_high()); },
        [](const D& d) { return d.padding_low() == 0 && d.padding_high() == 0; });
  field("lhs_dilate", [](const D& d) { return str_cat(d.base_dilation()); },
        [](const D& d) { return d.base_dilation() == 1; });
  field("rhs_dilate", [](const D& d) { return str_cat(d.window_dilation()); },
        [](const D& d) { return d.window_dilation() == 1; });
  field("rhs_reversal", [](const D& d) { return str_cat(d.window_reversal() ? 1 : 0); },
        [](const D& d) { return !d.window_reversal(); });
  out.push_back('}');
  return out;
}

// `b01f_01io->b01f` (xla::ConvolutionDimensionNumbersToString).
bool dim_labels_text(const pb::ConvolutionDimensionNumbers& d, std::string* out,
                     std::string* error) {
  auto side = [&](int64_t batch, char b, int64_t feature, char f,
                  const google::protobuf::RepeatedField<int64_t>& spatial) {
    int64_t rank = static_cast<int64_t>(spatial.size()) + 2;
    std::string s(static_cast<size_t>(rank), '?');
    auto put = [&](int64_t at, char c) {
      if (at < 0 || at >= rank || s[static_cast<size_t>(at)] != '?') return false;
      s[static_cast<size_t>(at)] = c;
      return true;
    };
    bool ok = put(batch, b) && put(feature, f);
    for (int i = 0; i < spatial.size() && ok; ++i) {
      ok = i < 10 ? put(spatial[i], static_cast<char>('0' + i)) : false;
    }
    if (!ok) {
      *error = "convolution dimension numbers that are not a permutation of the dimensions";
      return std::string();
    }
    return s;
  };
  std::string in = side(d.input_batch_dimension(), 'b', d.input_feature_dimension(), 'f',
                        d.input_spatial_dimensions());
  if (in.empty()) return false;
  std::string k = side(d.kernel_input_feature_dimension(), 'i', d.kernel_output_feature_dimension(),
                       'o', d.kernel_spatial_dimensions());
  if (k.empty()) return false;
  std::string o = side(d.output_batch_dimension(), 'b', d.output_feature_dimension(), 'f',
                       d.output_spatial_dimensions());
  if (o.empty()) return false;
  *out = str_cat(in, "_", k, "->", o);
  return true;
}

std::string_view precision_word(int p) {
  switch (p) {
    case 0: return "default";
    case 1: return "high";
    case 2: return "highest";
    default: return "";
  }
}

std::string_view algorithm_word(int a) {
  static constexpr std::string_view kNames[] = {
      "",
      "dot_any_f8_any_f8_f32",
      "dot_any_f8_any_f8_f32_fast_accum",
      "dot_f16_f16_f16",
      "dot_f16_f16_f32",
      "dot_bf16_bf16_bf16",
      "dot_bf16_bf16_f32",
      "dot_bf16_bf16_f32_x3",
      "dot_bf16_bf16_f32_x6",
      "dot_tf32_tf32_f32",
      "dot_tf32_tf32_f32_x3",
      "dot_f32_f32_f32",
      "dot_f64_f64_f64",
      "dot_bf16_bf16_f32_x9",
  };
  if (a < 0 || a >= static_cast<int>(std::size(kNames))) return "";
  return kNames[a];
}

// The JSON text of a backend config with the keys of every object sorted, values kept as
// written (XLA's dumps sort them: xla/sort_json.cc). Empty when `text` is not JSON this reads.
class JsonSorter {
 public:
  explicit JsonSorter(std::string_view text) : s_(text) {}
  bool run(std::string* out) {
    skip();
    if (!value(out, 0)) return false;
    skip();
    return i_ == s_.size();
  }

 private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' ||
                              s_[i_] == '\r')) {
      ++i_;
    }
  }
  bool string(std::string* out) {
    size_t start = i_;
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
      if (s_[i_] == '\\') ++i_;
    }
    if (i_ >= s_.size()) return false;
    ++i_;
    out->append(s_.substr(start, i_ - start));
    return true;
  }
  bool value(std::string* out, int depth) {
    if (depth > 64 || i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '"') return string(out);
    if (c == '{') {
      ++i_;
      std::vector<std::pair<std::string, std::string>> members;
      skip();
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        out->append("{}");
        return true;
      }
      while (true) {
        skip();
        std::string key, v;
        if (!string(&key)) return false;
        skip();
        if (i_ >= s_.size() || s_[i_] != ':') return false;
        ++i_;
        skip();
        if (!value(&v, depth + 1)) return false;
        members.emplace_back(std::move(key), std::move(v));
        skip();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (i_ < s_.size() && s_[i_] == '}') {
          ++i_;
          break;
        }
        return false;
      }
      std::stable_sort(members.begin(), members.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      out->push_back('{');
      for (size_t k = 0; k < members.size(); ++k) {
        if (k > 0) out->push_back(',');
        str_append(out, members[k].first, ":", members[k].second);
      }
      out->push_back('}');
      return true;
    }
    if (c == '[') {
      ++i_;
      out->push_back('[');
      skip();
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        out->push_back(']');
        return true;
      }
      while (true) {
        skip();
        if (!value(out, depth + 1)) return false;
        skip();
        if (i_ < s_.size() && s_[i_] == ',') {
          ++i_;
          out->push_back(',');
          continue;
        }
        if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          out->push_back(']');
          return true;
        }
        return false;
      }
    }
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ' &&
           s_[i_] != '\n' && s_[i_] != '"' && s_[i_] != '{' && s_[i_] != '[') {
      ++i_;
    }
    if (i_ == start) return false;
    out->append(s_.substr(start, i_ - start));
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

std::string backend_config_text(const std::string& config) {
  if (!config.empty() && config.front() == '{') {
    std::string sorted;
    if (JsonSorter(config).run(&sorted)) return sorted;
    if (balanced_blob(config)) return config;
  }
  return quote_text(config);
}

// ---- The module.

class TextBuilder {
 public:
  // `proto_bytes`: the size of the serialized module, which the text comes close to.
  TextBuilder(const pb::HloModuleProto& m, size_t proto_bytes) : m_(m), proto_bytes_(proto_bytes) {}

  // The text, or an error naming where in the proto it is.
  bool build(std::string* text, std::string* error);
  // The instruction (as "computation C, instruction I") that line `line` (1-based) holds.
  std::string where(int line) const {
    if (line <= 0 || static_cast<size_t>(line) > line_owner_.size()) return std::string();
    const Owner& o = line_owner_[static_cast<size_t>(line - 1)];
    if (o.instruction != nullptr) {
      return str_cat("computation %", o.computation->name(), ", instruction %",
                     o.instruction->name());
    }
    if (o.computation != nullptr) return str_cat("computation %", o.computation->name());
    return std::string(o.what);
  }

 private:
  // What a line of the text comes from, named only when a parse error points at it.
  struct Owner {
    std::string_view what;  // a literal, when neither of these
    const pb::HloComputationProto* computation = nullptr;
    const pb::HloInstructionProto* instruction = nullptr;
  };
  struct Comp {
    const pb::HloComputationProto* proto = nullptr;
    absl::flat_hash_map<int64_t, const pb::HloInstructionProto*> by_id;
    bool sugar_wrapped = false;  // printed as the async sugar of its caller: not printed
  };

  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  bool fail_at(const pb::HloComputationProto& c, const pb::HloInstructionProto& i,
               std::string message) {
    return fail(str_cat("computation %", c.name(), ", instruction %", i.name(), ": ",
                        message));
  }
  // The text a proto writes: names are written at every reference, which the proto holds as
  // ids, so a real module's text is a few times its proto; a long name referenced thousands of
  // times would write gigabytes. Past kTextPerProtoByte times the proto (and a floor for tiny
  // ones), the proto is refused.
  static constexpr size_t kTextPerProtoByte = 32;
  static constexpr size_t kTextFloorBytes = size_t{64} << 20;
  size_t text_limit() const { return kTextFloorBytes + kTextPerProtoByte * proto_bytes_; }
  bool fail_too_long(const pb::HloComputationProto& c, const pb::HloInstructionProto& i) {
    return fail_at(c, i,
                   str_cat("the module's text passes ", text_limit() >> 20, " MiB (",
                           kTextPerProtoByte, " times the proto's ", proto_bytes_,
                           " bytes, plus 64 MiB): names repeated at every reference write far "
                           "more than any real module"));
  }
  void line(std::string_view text, Owner owner) {
    out_.append(text);
    end_line(owner);
  }
  // Ends the line written into out_ since the last one.
  void end_line(Owner owner) {
    out_.push_back('\n');
    line_owner_.push_back(owner);
  }
  bool header();
  bool stack_frames();
  // The instructions of `c` in print order.
  std::vector<const pb::HloInstructionProto*> instruction_order(const Comp& c) const;
  bool computation(Comp& c, bool entry);
  bool instruction(const Comp& c, const pb::HloInstructionProto& i, bool root);
  // Writes `, name=value` on the line.
  void attr(std::string_view name, std::string_view value) {
    str_append(&out_, ", ", name, "=", value);
  }
  // Writes the attributes of the opcode (XLA's ExtraAttributesToStringImpl, then called
  // computations) on the line.
  bool opcode_attributes(const Comp& c, const pb::HloInstructionProto& i, Opcode op);
  bool called(const Comp& c, const pb::HloInstructionProto& i, int k, std::string* name);
  const pb::HloInstructionProto* operand(const Comp& c, const pb::HloInstructionProto& i,
                                         int k) const;
  // The called computation of an async-start when XLA would print it as sugar; else null.
  const Comp* sugar_target(const Comp& c, const pb::HloInstructionProto& i);

  const pb::HloModuleProto& m_;
  size_t proto_bytes_ = 0;
  std::vector<Comp> comps_;
  absl::flat_hash_map<int64_t, size_t> comp_by_id_;
  std::vector<int> called_by_;  // references to each computation, by index
  // The async-starts printed as sugar, by their message (names may repeat in a bad proto).
  absl::flat_hash_set<const pb::HloInstructionProto*> sugared_starts_;
  std::string out_;
  std::vector<Owner> line_owner_;
  std::string error_;
};

const pb::HloInstructionProto* TextBuilder::operand(const Comp& c,
                                                    const pb::HloInstructionProto& i,
                                                    int k) const {
  if (k >= i.operand_ids_size()) return nullptr;
  auto it = c.by_id.find(i.operand_ids(k));
  return it == c.by_id.end() ? nullptr : it->second;
}

bool TextBuilder::called(const Comp& c, const pb::HloInstructionProto& i, int k,
                         std::string* name) {
  if (k >= i.called_computation_ids_size()) {
    return fail_at(*c.proto, i, str_cat("calls ", i.called_computation_ids_size(),
                                        " computations; its opcode calls more"));
  }
  auto it = comp_by_id_.find(i.called_computation_ids(k));
  if (it == comp_by_id_.end()) {
    return fail_at(*c.proto, i,
                   str_cat("calls computation id ", i.called_computation_ids(k),
                           ", which the module does not hold"));
  }
  *name = str_cat("%", comps_[it->second].proto->name());
  return true;
}

const TextBuilder::Comp* TextBuilder::sugar_target(const Comp& c,
                                                   const pb::HloInstructionProto& i) {
  (void)c;
  if (i.opcode() != "async-start" || i.called_computation_ids_size() != 1) return nullptr;
  auto it = comp_by_id_.find(i.called_computation_ids(0));
  if (it == comp_by_id_.end()) return nullptr;
  const Comp& w = comps_[it->second];
  // Called only by this start (and its update/done, which do not count as callers here).
  if (called_by_[static_cast<size_t>(it->second)] != 1) return nullptr;
  auto root_it = w.by_id.find(w.proto->root_id());
  if (root_it == w.by_id.end()) return nullptr;
  const pb::HloInstructionProto& root = *root_it->second;
  std::optional<Opcode> op = opcode_from_name(root.opcode());
  if (!op || *op == Opcode::kParameter || has_native_async_forms(*op) ||
      opcode_category(*op) == OpCategory::kAsync || root.control_predecessor_ids_size() > 0) {
    return nullptr;
  }
  // XLA's CanExpandIntoSingleInstruction: the root and its parameters, in order.
  int params = 0;
  for (const pb::HloInstructionProto& x : w.proto->instructions()) {
    if (&x == &root) continue;
    if (x.opcode() != "parameter") return nullptr;
    ++params;
  }
  if (root.operand_ids_size() != params) return nullptr;
  for (int k = 0; k < root.operand_ids_size(); ++k) {
    auto p = w.by_id.find(root.operand_ids(k));
    if (p == w.by_id.end() || p->second->opcode() != "parameter" ||
        p->second->parameter_number() != k) {
      return nullptr;
    }
  }
  return &w;
}

bool TextBuilder::build(std::string* text, std::string* error) {
  // The text is about as long as the proto (1.1x for JAX's programs): room for a quarter more
  // up front spares the copies and fresh pages of growing it (room not written costs no page).
  out_.reserve(proto_bytes_ + proto_bytes_ / 4);
  comps_.resize(static_cast<size_t>(m_.computations_size()));
  absl::flat_hash_set<std::string_view> names;
  // One walk over the instructions (each is touched once before it is written, which is what
  // a large module's reading costs): their names and ids checked, and what the checks after it
  // need noted, the computations called (but by async updates and dones, which repeat their
  // start's) and the async starts, which may print as sugar.
  std::vector<int64_t> callee_ids;
  std::vector<std::pair<size_t, const pb::HloInstructionProto*>> starts;
  for (int k = 0; k < m_.computations_size(); ++k) {
    Comp& c = comps_[static_cast<size_t>(k)];
    c.proto = &m_.computations(k);
    if (!valid_name(c.proto->name())) {
      *error = str_cat("computation ", k, " has the name ", quote_text(c.proto->name()),
                       ", which is not an HLO name ([A-Za-z0-9_.-]+)");
      return false;
    }
    if (!names.insert(c.proto->name()).second) {
      *error = str_cat("two computations are named %", c.proto->name());
      return false;
    }
    if (!comp_by_id_.emplace(c.proto->id(), static_cast<size_t>(k)).second) {
      *error = str_cat("two computations have the id ", c.proto->id());
      return false;
    }
    for (const pb::HloInstructionProto& i : c.proto->instructions()) {
      if (!valid_name(i.name())) {
        *error = str_cat("computation %", c.proto->name(), " has an instruction named ",
                         quote_text(i.name()), ", which is not an HLO name ([A-Za-z0-9_.-]+)");
        return false;
      }
      if (!c.by_id.emplace(i.id(), &i).second) {
        *error = str_cat("computation %", c.proto->name(), ": two instructions have the id ",
                         i.id());
        return false;
      }
      if (i.called_computation_ids_size() == 0) continue;
      const std::string& opcode = i.opcode();
      if (opcode == "async-update" || opcode == "async-done") continue;
      callee_ids.insert(callee_ids.end(), i.called_computation_ids().begin(),
                        i.called_computation_ids().end());
      if (opcode == "async-start") starts.emplace_back(static_cast<size_t>(k), &i);
    }
  }
  called_by_.assign(comps_.size(), 0);
  for (int64_t id : callee_ids) {
    auto it = comp_by_id_.find(id);
    if (it != comp_by_id_.end()) ++called_by_[it->second];
  }
  for (const auto& [k, i] : starts) {
    if (const Comp* w = sugar_target(comps_[k], *i)) {
      comps_[comp_by_id_[w->proto->id()]].sugar_wrapped = true;
      sugared_starts_.insert(i);
    }
  }
  // The entry: by id, else by name, else (as XLA) the last computation.
  int64_t entry = -1;
  for (size_t k = 0; k < comps_.size(); ++k) {
    const pb::HloComputationProto& c = *comps_[k].proto;
    if ((m_.entry_computation_id() != 0 && c.id() == m_.entry_computation_id()) ||
        (m_.entry_computation_id() == 0 && c.name() == m_.entry_computation_name())) {
      entry = static_cast<int64_t>(k);
    }
  }
  if (entry < 0 && (m_.entry_computation_id() != 0 || !m_.entry_computation_name().empty())) {
    *error = str_cat("the entry computation (id ", m_.entry_computation_id(), ", name ",
                     quote_text(m_.entry_computation_name()), ") is not among the computations");
    return false;
  }
  if (!header() || !stack_frames()) {
    *error = error_;
    return false;
  }
  // Computations print in the proto's order (callees before callers). XLA's printer orders them
  // by a walk over each computation's instructions in their order in memory, which the proto
  // does not keep: a module whose computations were added out of that order (split-K GEMMs
  // and their reductions) prints them in another order than XLA's dump.
  bool first = true;
  for (size_t k = 0; k < comps_.size(); ++k) {
    if (comps_[k].sugar_wrapped) continue;
    if (!first) line("", Owner{});
    first = false;
    if (!computation(comps_[k], static_cast<int64_t>(k) == entry)) {
      *error = error_;
      return false;
    }
  }
  *text = std::move(out_);
  return true;
}

bool TextBuilder::header() {
  std::string h = "HloModule ";
  // Module names are free text in XLA (JAX writes `jit_f`, some tools `jit_<lambda>`): a name
  // the text cannot hold has its other bytes written `_`.
  std::string name = m_.name().empty() ? std::string("module") : m_.name();
  for (char& ch : name) {
    if (!text::is_name_char(ch)) ch = '_';
  }
  if (!text::is_name_start(name[0])) name.insert(name.begin(), '_');
  h += name;
  if (m_.has_schedule()) h += ", is_scheduled=true";
  if (m_.has_input_output_alias() && m_.input_output_alias().entries_size() > 0) {
    h += ", input_output_alias={";
    for (int k = 0; k < m_.input_output_alias().entries_size(); ++k) {
      const auto& e = m_.input_output_alias().entries(k);
      h += k > 0 ? ", " : " ";
      str_append(&h, ints(e.output_shape_index()), ": (", e.parameter_number(), ", ",
                 ints(e.parameter_shape_index()), ", ",
                 e.kind() == 2 ? "must-alias" : "may-alias", ")");
    }
    h += " }";
  }
  if (m_.has_buffer_donor() && m_.buffer_donor().entries_size() > 0) {
    h += ", buffer_donor={";
    for (int k = 0; k < m_.buffer_donor().entries_size(); ++k) {
      const auto& e = m_.buffer_donor().entries(k);
      h += k > 0 ? ", " : " ";
      str_append(&h, "(", e.parameter_number(), ", ", ints(e.parameter_shape_index()), ")");
    }
    h += " }";
  }
  if (m_.has_host_program_shape()) {
    const pb::ProgramShapeProto& p = m_.host_program_shape();
    h += ", entry_computation_layout={(";
    for (int k = 0; k < p.parameters_size(); ++k) {
      if (k > 0) h += ", ";
      if (k > 0 && k % 5 == 0) str_append(&h, "/*index=", k, "*/");
      if (!append_shape(&h, p.parameters(k), 0, &error_)) {
        return fail(str_cat("entry computation layout: ", error_));
      }
    }
    h += ")->";
    if (!append_shape(&h, p.result(), 0, &error_)) {
      return fail(str_cat("entry computation layout: ", error_));
    }
    h += "}";
  }
  if (m_.has_device_assignment()) {
    const pb::DeviceAssignmentProto& d = m_.device_assignment();
    if (d.replica_count() > 1) str_append(&h, ", replica_count=", d.replica_count());
    if (d.computation_count() > 1) str_append(&h, ", num_partitions=", d.computation_count());
  }
  if (m_.frontend_attributes().map_size() > 0) {
    if (!valid_frontend_keys(m_.frontend_attributes())) {
      return fail("a module frontend attribute's key is not an HLO name");
    }
    str_append(&h, ", frontend_attributes=", frontend_attributes_text(m_.frontend_attributes()));
  }
  line(h, Owner{"the module header"});
  line("", Owner{});
  return true;
}

bool TextBuilder::stack_frames() {
  if (!m_.has_stack_frame_index()) return true;
  const pb::StackFrameIndexProto& t = m_.stack_frame_index();
  const Owner owner{"the stack frame tables"};
  auto names = [&](std::string_view heading, const auto& table) {
    line(std::string(heading), owner);
    for (int k = 0; k < table.size(); ++k) line(str_cat(k + 1, " ", quote_text(table[k])), owner);
    line("", owner);
  };
  names("FileNames", t.file_names());
  names("FunctionNames", t.function_names());
  line("FileLocations", owner);
  for (int k = 0; k < t.file_locations_size(); ++k) {
    const auto& l = t.file_locations(k);
    line(str_cat(k + 1, " {file_name_id=", l.file_name_id(),
                 " function_name_id=", l.function_name_id(), " line=", l.line(),
                 " end_line=", l.end_line(), " column=", l.column(),
                 " end_column=", l.end_column(), "}"),
         owner);
  }
  line("", owner);
  line("StackFrames", owner);
  for (int k = 0; k < t.stack_frames_size(); ++k) {
    const auto& f = t.stack_frames(k);
    // The text writes a parent id one more than the proto's (0, no parent, is written 1).
    line(str_cat(k + 1, " {file_location_id=", f.file_location_id(),
                 " parent_frame_id=", static_cast<int64_t>(f.parent_frame_id()) + 1, "}"),
         owner);
  }
  line("", owner);
  return true;
}

std::vector<const pb::HloInstructionProto*> TextBuilder::instruction_order(const Comp& c) const {
  // A scheduled computation prints in its schedule's order, when the sequence holds each of
  // its instructions once; otherwise (fused computations) in the proto's order.
  const pb::HloComputationProto& p = *c.proto;
  std::vector<const pb::HloInstructionProto*> order;
  if (m_.has_schedule()) {
    auto seq = m_.schedule().sequences().find(p.id());
    if (seq != m_.schedule().sequences().end() &&
        seq->second.instruction_ids_size() == p.instructions_size()) {
      absl::flat_hash_set<int64_t> seen;
      for (int64_t id : seq->second.instruction_ids()) {
        auto it = c.by_id.find(id);
        if (it == c.by_id.end() || !seen.insert(id).second) {
          order.clear();
          break;
        }
        order.push_back(it->second);
      }
    }
  }
  if (order.empty()) {
    for (const pb::HloInstructionProto& i : p.instructions()) order.push_back(&i);
  }
  return order;
}

bool TextBuilder::computation(Comp& c, bool entry) {
  const pb::HloComputationProto& p = *c.proto;
  const Owner owner{{}, &p};
  line(str_cat(entry ? "ENTRY %" : "%", p.name(), " {"), owner);
  if (c.by_id.find(p.root_id()) == c.by_id.end()) {
    return fail(str_cat("computation %", p.name(), ": its root id ", p.root_id(),
                        " is not one of its instructions"));
  }
  const std::vector<const pb::HloInstructionProto*> order = instruction_order(c);
  for (const pb::HloInstructionProto* i : order) {
    if (!instruction(c, *i, i->id() == p.root_id())) return false;
  }
  std::string close = "}";
  if (!p.execution_thread().empty() && p.execution_thread() != "main") {
    str_append(&close, ", execution_thread=", quote_text(p.execution_thread()));
  }
  line(close, owner);
  return true;
}

bool TextBuilder::opcode_attributes(const Comp& c, const pb::HloInstructionProto& i,
                                    Opcode op) {
  auto add = [&](std::string_view name, std::string_view value) { attr(name, value); };
  auto comp = [&](std::string_view name, int k) {
    std::string callee;
    if (!called(c, i, k, &callee)) return false;
    add(name, callee);
    return true;
  };
  auto channel = [&] {
    if (i.channel_id() > 0) add("channel_id", str_cat(i.channel_id()));
  };
  auto replica_groups = [&] {
    std::string groups;
    if (i.has_collective_device_list() &&
        i.collective_device_list().has_iota_replica_group_list()) {
      const auto& g = i.collective_device_list().iota_replica_group_list();
      groups = str_cat("[", g.num_replica_groups(), ",", g.num_devices_per_group(), "]<=",
                       iota_text(g.iota_reshape_dims(), g.iota_transpose_perm()));
    } else {
      const auto& list = i.has_collective_device_list()
                             ? i.collective_device_list().replica_groups()
                             : i.replica_groups();
      groups = "{";
      for (int k = 0; k < list.size(); ++k) {
        if (k > 0) groups += ",";
        append_ints(&groups, list[k].replica_ids());
      }
      groups += "}";
    }
    add("replica_groups", groups);
  };
  auto precision = [&] {
    const pb::PrecisionConfig& p = i.precision_config();
    bool all_default = true;
    for (int x : p.operand_precision()) all_default = all_default && x == 0;
    if (!all_default) {
      std::string words = "{";
      for (int k = 0; k < p.operand_precision_size(); ++k) {
        std::string_view w = precision_word(p.operand_precision(k));
        if (w.empty()) return fail_at(*c.proto, i, "unknown operand precision");
        if (k > 0) words += ",";
        words += std::string(w);
      }
      add("operand_precision", words + "}");
    }
    if (p.algorithm() != 0) {
      std::string_view w = algorithm_word(p.algorithm());
      if (w.empty()) return fail_at(*c.proto, i, str_cat("unknown algorithm ", p.algorithm()));
      add("algorithm", std::string(w));
    }
    return true;
  };
  auto conv = [&] {
    if (i.has_window() && i.window().dimensions_size() > 0) add("window", window_text(i.window()));
    if (i.has_convolution_dimension_numbers()) {
      std::string labels, error;
      if (!dim_labels_text(i.convolution_dimension_numbers(), &labels, &error)) {
        return fail_at(*c.proto, i, error);
      }
      add("dim_labels", labels);
    }
    if (i.feature_group_count() > 1) add("feature_group_count", str_cat(i.feature_group_count()));
    if (i.batch_group_count() > 1) add("batch_group_count", str_cat(i.batch_group_count()));
    return true;
  };
  auto dot_dims = [&](const pb::DotDimensionNumbers& d) {
    if (d.lhs_batch_dimensions_size() > 0) add("lhs_batch_dims", ints(d.lhs_batch_dimensions()));
    add("lhs_contracting_dims", ints(d.lhs_contracting_dimensions()));
    if (d.rhs_batch_dimensions_size() > 0) add("rhs_batch_dims", ints(d.rhs_batch_dimensions()));
    add("rhs_contracting_dims", ints(d.rhs_contracting_dimensions()));
  };
  auto aliasing = [&] {
    if (i.output_operand_aliasing_size() == 0) return;
    std::string s = "{";
    for (int k = 0; k < i.output_operand_aliasing_size(); ++k) {
      const auto& x = i.output_operand_aliasing(k);
      if (k > 0) s += ", ";
      str_append(&s, ints(x.output_shape_index()), ": (", x.operand_index(), ", ",
                 ints(x.operand_shape_index()), ")");
    }
    add("output_to_operand_aliasing", s + "}");
  };
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kGetDimensionSize:
    case Opcode::kSetDimensionSize:
    case Opcode::kMap:
      add("dimensions", ints(i.dimensions()));
      if (op == Opcode::kMap && !comp("to_apply", 0)) return false;
      return true;
    case Opcode::kReduce:
      add("dimensions", ints(i.dimensions()));
      return comp("to_apply", 0);
    case Opcode::kSort:
      add("dimensions", ints(i.dimensions()));
      if (i.is_stable()) add("is_stable", "true");
      return comp("to_apply", 0);
    case Opcode::kTopK:
      add("k", str_cat(i.k()));
      if (i.largest()) add("largest", "true");
      return true;
    case Opcode::kIota:
      if (i.dimensions_size() != 1) return fail_at(*c.proto, i, "an iota has one dimension");
      add("iota_dimension", str_cat(i.dimensions(0)));
      return true;
    case Opcode::kGetTupleElement:
      add("index", str_cat(i.tuple_index()));
      return true;
    case Opcode::kSlice: {
      std::string s = "{";
      bool strides = false;
      for (const auto& d : i.slice_dimensions()) strides = strides || d.stride() != 1;
      for (int k = 0; k < i.slice_dimensions_size(); ++k) {
        const auto& d = i.slice_dimensions(k);
        if (k > 0) s += ", ";
        str_append(&s, "[", d.start(), ":", d.limit());
        if (strides) str_append(&s, ":", d.stride());
        s += "]";
      }
      add("slice", s + "}");
      return true;
    }
    case Opcode::kDynamicSlice:
      add("dynamic_slice_sizes", ints(i.dynamic_slice_sizes()));
      return true;
    case Opcode::kPad: {
      std::string s;
      bool interior = false;
      for (const auto& d : i.padding_config().dimensions()) {
        interior = interior || d.interior_padding() != 0;
      }
      for (int k = 0; k < i.padding_config().dimensions_size(); ++k) {
        const auto& d = i.padding_config().dimensions(k);
        if (k > 0) s += "x";
        str_append(&s, d.edge_padding_low(), "_", d.edge_padding_high());
        if (interior) str_append(&s, "_", d.interior_padding());
      }
      add("padding", s);
      return true;
    }
    case Opcode::kReducePrecision:
      add("exponent_bits", str_cat(i.exponent_bits()));
      add("mantissa_bits", str_cat(i.mantissa_bits()));
      return true;
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      add("epsilon", float_text(i.epsilon(), 11));
      add("feature_index", str_cat(i.feature_index()));
      return true;
    case Opcode::kRng:
      if (i.distribution() != 1 && i.distribution() != 2) {
        return fail_at(*c.proto, i, "unknown random distribution");
      }
      add("distribution", i.distribution() == 1 ? "rng_uniform" : "rng_normal");
      return true;
    case Opcode::kRngBitGenerator: {
      static constexpr std::string_view kAlgorithms[] = {"rng_default", "rng_three_fry",
                                                         "rng_philox"};
      if (i.rng_algorithm() < 0 || i.rng_algorithm() > 2) {
        return fail_at(*c.proto, i, "unknown random algorithm");
      }
      add("algorithm", std::string(kAlgorithms[i.rng_algorithm()]));
      return true;
    }
    case Opcode::kRngGetAndUpdateState:
      add("delta", str_cat(i.delta()));
      return true;
    case Opcode::kFft: {
      static constexpr std::string_view kTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
      if (i.fft_type() < 0 || i.fft_type() > 3) return fail_at(*c.proto, i, "unknown fft type");
      add("fft_type", std::string(kTypes[i.fft_type()]));
      add("fft_length", ints(i.fft_length()));
      return true;
    }
    case Opcode::kTriangularSolve: {
      const auto& t = i.triangular_solve_options();
      static constexpr std::string_view kTranspose[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE",
                                                        "TRANSPOSE", "ADJOINT"};
      if (t.transpose_a() < 0 || t.transpose_a() > 3) {
        return fail_at(*c.proto, i, "unknown transpose_a");
      }
      add("left_side", t.left_side() ? "true" : "false");
      add("lower", t.lower() ? "true" : "false");
      add("unit_diagonal", t.unit_diagonal() ? "true" : "false");
      add("transpose_a", std::string(kTranspose[t.transpose_a()]));
      return true;
    }
    case Opcode::kCholesky:
      add("lower", i.cholesky_options().lower() ? "true" : "false");
      return true;
    case Opcode::kCompare: {
      add("direction", i.comparison_direction());
      // The type prints when it is not the default of the operands' element type.
      const pb::HloInstructionProto* lhs = operand(c, i, 0);
      if (!i.comparison_type().empty() && lhs != nullptr) {
        int t = lhs->shape().element_type();
        std::string_view name = primitive_name_of(t);
        std::string_view def = proto_internal::is_float_type(t)          ? "FLOAT"
                               : (!name.empty() && name[0] == 's')      ? "SIGNED"
                                                                        : "UNSIGNED";
        if (i.comparison_type() != def) add("type", i.comparison_type());
      }
      return true;
    }
    case Opcode::kConvolution:
      if (!conv()) return false;
      return precision();
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
      if (op == Opcode::kRaggedDot) {
        const auto& r = i.ragged_dot_dimension_numbers();
        dot_dims(r.dot_dimension_numbers());
        if (r.lhs_ragged_dimensions_size() > 0) {
          add("lhs_ragged_dims", ints(r.lhs_ragged_dimensions()));
        }
        if (r.rhs_group_dimensions_size() > 0) {
          add("rhs_group_dims", ints(r.rhs_group_dimensions()));
        }
      } else {
        dot_dims(i.dot_dimension_numbers());
      }
      return precision();
    case Opcode::kGather: {
      const auto& g = i.gather_dimension_numbers();
      add("offset_dims", ints(g.offset_dims()));
      add("collapsed_slice_dims", ints(g.collapsed_slice_dims()));
      add("start_index_map", ints(g.start_index_map()));
      if (g.operand_batching_dims_size() > 0) {
        add("operand_batching_dims", ints(g.operand_batching_dims()));
      }
      if (g.start_indices_batching_dims_size() > 0) {
        add("start_indices_batching_dims", ints(g.start_indices_batching_dims()));
      }
      add("index_vector_dim", str_cat(g.index_vector_dim()));
      add("slice_sizes", ints(i.gather_slice_sizes()));
      if (i.indices_are_sorted()) add("indices_are_sorted", "true");
      return true;
    }
    case Opcode::kScatter: {
      const auto& s = i.scatter_dimension_numbers();
      add("update_window_dims", ints(s.update_window_dims()));
      add("inserted_window_dims", ints(s.inserted_window_dims()));
      add("scatter_dims_to_operand_dims", ints(s.scatter_dims_to_operand_dims()));
      if (s.input_batching_dims_size() > 0) {
        add("input_batching_dims", ints(s.input_batching_dims()));
      }
      if (s.scatter_indices_batching_dims_size() > 0) {
        add("scatter_indices_batching_dims", ints(s.scatter_indices_batching_dims()));
      }
      add("index_vector_dim", str_cat(s.index_vector_dim()));
      if (i.indices_are_sorted()) add("indices_are_sorted", "true");
      if (i.unique_indices()) add("unique_indices", "true");
      return comp("to_apply", 0);
    }
    case Opcode::kReduceWindow:
      add("window", window_text(i.window()));
      return comp("to_apply", 0);
    case Opcode::kSelectAndScatter:
      add("window", window_text(i.window()));
      return comp("select", 0) && comp("scatter", 1);
    case Opcode::kCall:
      if (!comp("to_apply", 0)) return false;
      if (i.is_composite()) add("is_composite", "true");
      return true;
    case Opcode::kWhile:
      // XLA keeps the body first and the condition second.
      return comp("condition", 1) && comp("body", 0);
    case Opcode::kConditional: {
      const pb::HloInstructionProto* pred = operand(c, i, 0);
      if (pred != nullptr && pred->shape().element_type() == 1 &&
          i.called_computation_ids_size() == 2) {
        return comp("true_computation", 0) && comp("false_computation", 1);
      }
      std::string list = "{";
      for (int k = 0; k < i.called_computation_ids_size(); ++k) {
        std::string name;
        if (!called(c, i, k, &name)) return false;
        if (k > 0) list += ", ";
        list += name;
        if (out_.size() + list.size() > text_limit()) return fail_too_long(*c.proto, i);
      }
      add("branch_computations", list + "}");
      return true;
    }
    case Opcode::kFusion:
      add("kind", i.fusion_kind());
      aliasing();
      return comp("calls", 0);
    case Opcode::kCustomCall: {
      if (!conv()) return false;
      if (!precision()) return false;
      add("custom_call_target", quote_text(i.custom_call_target()));
      if (i.constrain_layout()) {
        std::string s = "{";
        for (int k = 0; k < i.operand_shapes_with_layout_size(); ++k) {
          if (k > 0) s += ", ";
          if (!append_shape(&s, i.operand_shapes_with_layout(k), 0, &error_)) {
            return fail_at(*c.proto, i, error_);
          }
        }
        add("operand_layout_constraints", s + "}");
      }
      if (i.custom_call_has_side_effect()) add("custom_call_has_side_effect", "true");
      aliasing();
      if (i.custom_call_schedule() == 1) add("schedule", "SCHEDULE_LATEST");
      if (i.custom_call_schedule() == 2) add("schedule", "SCHEDULE_EARLIEST");
      if (i.padding_type() == 1) add("padding_type", "PADDING_VALID");
      if (i.padding_type() == 2) add("padding_type", "PADDING_SAME");
      static constexpr std::string_view kVersions[] = {
          "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
          "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};
      int v = i.custom_call_api_version();
      if (v < 0 || v > 4) return fail_at(*c.proto, i, str_cat("unknown api version ", v));
      if (v != 1 && v != 0) add("api_version", std::string(kVersions[v]));
      if (i.called_computation_ids_size() > 0) {
        std::string list = "{";
        for (int k = 0; k < i.called_computation_ids_size(); ++k) {
          std::string name;
          if (!called(c, i, k, &name)) return false;
          if (k > 0) list += ", ";
          list += name;
        }
        add("called_computations", list + "}");
      }
      return true;
    }
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kReduceScatter:
      channel();
      replica_groups();
      if (i.constrain_layout()) add("constrain_layout", "true");
      if (i.use_global_device_ids()) add("use_global_device_ids", "true");
      if (op == Opcode::kReduceScatter) add("dimensions", ints(i.dimensions()));
      return comp("to_apply", 0);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      channel();
      replica_groups();
      if (i.constrain_layout()) add("constrain_layout", "true");
      add("dimensions", ints(i.dimensions()));
      if (i.use_global_device_ids()) add("use_global_device_ids", "true");
      return true;
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
      channel();
      replica_groups();
      if (i.constrain_layout()) add("constrain_layout", "true");
      if (op == Opcode::kAllToAll && i.dimensions_size() > 0) {
        add("dimensions", ints(i.dimensions()));
      }
      return true;
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: {
      channel();
      std::string pairs = "{";
      for (int k = 0; k < i.source_target_pairs_size(); ++k) {
        if (k > 0) pairs += ",";
        str_append(&pairs, "{", i.source_target_pairs(k).source(), ",",
                   i.source_target_pairs(k).target(), "}");
      }
      add("source_target_pairs", pairs + "}");
      return true;
    }
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      channel();
      if (i.is_host_transfer()) add("is_host_transfer", "true");
      return true;
    case Opcode::kInfeed:
      if (!i.infeed_config().empty()) add("infeed_config", quote_text(i.infeed_config()));
      return true;
    case Opcode::kOutfeed:
      if (i.has_outfeed_shape()) {
        std::string s;
        if (!append_shape(&s, i.outfeed_shape(), 0, &error_)) {
          return fail_at(*c.proto, i, error_);
        }
        add("outfeed_shape", s);
      }
      if (!i.outfeed_config().empty()) add("outfeed_config", quote_text(i.outfeed_config()));
      return true;
    case Opcode::kCopyStart:
      if (i.has_cross_program_prefetch_index()) {
        add("cross_program_prefetch_index", str_cat(i.cross_program_prefetch_index()));
      }
      return true;
    case Opcode::kParameter:
      if (i.has_parameter_replication() &&
          i.parameter_replication().replicated_at_leaf_buffers_size() > 0) {
        std::string s = "{";
        const auto& leaves = i.parameter_replication().replicated_at_leaf_buffers();
        for (int k = 0; k < leaves.size(); ++k) {
          if (k > 0) s += ",";
          s += leaves[k] ? "true" : "false";
        }
        add("parameter_replication", s + "}");
      }
      return true;
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      if (i.called_computation_ids_size() > 0 && !comp("calls", 0)) return false;
      if (!i.async_execution_thread().empty() && i.async_execution_thread() != "main") {
        add("async_execution_thread", quote_text(i.async_execution_thread()));
      }
      return true;
    default:
      if (i.called_computation_ids_size() == 1) return comp("to_apply", 0);
      return true;
  }
}

bool TextBuilder::instruction(const Comp& c, const pb::HloInstructionProto& i, bool root) {
  std::optional<Opcode> op = opcode_from_name(i.opcode());
  if (!op) return fail_at(*c.proto, i, str_cat("unknown opcode ", quote_text(i.opcode())));
  // The line is written in place (on an error the text is dropped whole).
  std::string& text = out_;
  str_append(&text, root ? "  ROOT %" : "  %", i.name(), " = ");
  if (!append_shape(&text, i.shape(), 0, &error_)) return fail_at(*c.proto, i, error_);

  // Async sugar: a start prints as its wrapped op (`fusion-start`), its update and done after it.
  const pb::HloInstructionProto* wrapped = nullptr;
  const Comp* wrapped_comp = nullptr;
  std::string sugar_opcode;
  std::string_view opcode_text = i.opcode();
  if (*op == Opcode::kAsyncStart && sugared_starts_.contains(&i)) {
    wrapped_comp = &comps_[comp_by_id_[i.called_computation_ids(0)]];
    wrapped = wrapped_comp->by_id.at(wrapped_comp->proto->root_id());
    sugar_opcode = str_cat(wrapped->opcode(), "-start");
    opcode_text = sugar_opcode;
  } else if (*op == Opcode::kAsyncUpdate || *op == Opcode::kAsyncDone) {
    // The start this update/done follows (through updates, at most one per instruction of the
    // computation: more is a loop).
    const pb::HloInstructionProto* start = operand(c, i, 0);
    for (int steps = 0; start != nullptr && start->opcode() == "async-update"; ++steps) {
      if (steps >= c.proto->instructions_size()) {
        return fail_at(*c.proto, i,
                       "its operands lead through async-updates in a loop, never to an "
                       "async-start");
      }
      start = operand(c, *start, 0);
    }
    if (start != nullptr && sugared_starts_.contains(start)) {
      const Comp& w = comps_[comp_by_id_[start->called_computation_ids(0)]];
      sugar_opcode = str_cat(w.by_id.at(w.proto->root_id())->opcode(),
                             *op == Opcode::kAsyncUpdate ? "-update" : "-done");
      opcode_text = sugar_opcode;
      wrapped = start;  // marks the sugar: no calls attribute
    }
  }
  str_append(&text, " ", opcode_text, "(");
  if (*op == Opcode::kParameter) {
    if (i.parameter_number() < 0) return fail_at(*c.proto, i, "a negative parameter number");
    str_append(&text, i.parameter_number());
  } else if (*op == Opcode::kConstant) {
    std::string error;
    if (!append_literal(&text, i.literal(), i.shape(), 0, &error)) {
      return fail_at(*c.proto, i, error);
    }
  } else {
    for (int k = 0; k < i.operand_ids_size(); ++k) {
      const pb::HloInstructionProto* o = operand(c, i, k);
      if (o == nullptr) {
        return fail_at(*c.proto, i,
                       str_cat("operand ", k, " has the id ", i.operand_ids(k),
                               ", which is not an instruction of this computation"));
      }
      if (k > 0) text += ", ";
      text.push_back('%');
      text.append(o->name());
      if (text.size() > text_limit()) return fail_too_long(*c.proto, i);
    }
  }
  text += ")";

  // The attributes, in XLA's order.
  if (wrapped != nullptr && *op == Opcode::kAsyncStart) {
    std::optional<Opcode> wop = opcode_from_name(wrapped->opcode());
    if (!opcode_attributes(*wrapped_comp, *wrapped, *wop)) return false;
    if (!i.async_execution_thread().empty() && i.async_execution_thread() != "main") {
      attr("async_execution_thread", quote_text(i.async_execution_thread()));
    }
  } else if (wrapped == nullptr) {
    if (!opcode_attributes(c, i, *op)) return false;
  }
  // Attributes any instruction may carry, in XLA's order.
  if (i.has_sharding()) {
    std::string s;
    if (!sharding_text(i.sharding(), &s, false, &error_)) return fail_at(*c.proto, i, error_);
    attr("sharding", s);
  }
  if (i.frontend_attributes().map_size() > 0) {
    if (!valid_frontend_keys(i.frontend_attributes())) {
      return fail_at(*c.proto, i, "a frontend attribute's key is not an HLO name");
    }
    attr("frontend_attributes", frontend_attributes_text(i.frontend_attributes()));
  }
  if (i.control_predecessor_ids_size() > 0) {
    std::string s = "{";
    for (int k = 0; k < i.control_predecessor_ids_size(); ++k) {
      auto it = c.by_id.find(i.control_predecessor_ids(k));
      if (it == c.by_id.end()) {
        return fail_at(*c.proto, i,
                       str_cat("control predecessor id ", i.control_predecessor_ids(k),
                               " is not an instruction of this computation"));
      }
      if (k > 0) s += ", ";
      str_append(&s, "%", it->second->name());
      if (out_.size() + s.size() > text_limit()) return fail_too_long(*c.proto, i);
    }
    attr("control-predecessors", s + "}");
  }
  if (i.has_result_accuracy()) {
    const pb::ResultAccuracy& r = i.result_accuracy();
    if (r.has_tolerance()) {
      attr("result_accuracy", str_cat("{tolerance={atol=", float_text(r.tolerance().atol(), 12),
                                      ",rtol=", float_text(r.tolerance().rtol(), 12),
                                      ",ulps=", r.tolerance().ulps(), "}}"));
    } else if (r.mode() == 1) {
      attr("result_accuracy", "{mode=highest}");
    }
  }
  if (i.has_metadata()) {
    const size_t mark = out_.size();
    out_.append(", metadata=");
    const size_t value = out_.size();
    append_metadata(&out_, i.metadata());
    if (out_.size() - value == 2) out_.resize(mark);  // `{}`: not printed
  }
  if (!i.backend_config().empty()) {
    attr("backend_config", backend_config_text(i.backend_config()));
  }
  if (out_.size() > text_limit()) return fail_too_long(*c.proto, i);
  end_line(Owner{{}, c.proto, &i});
  return true;
}

// The line a parse error points at: "FILE:LINE:COLUMN: error: MESSAGE".
absl::Status proto_error(const ParseOptions& options, std::string_view kind,
                         std::string message) {
  std::string prefix = options.file_name.empty() ? std::string() : str_cat(options.file_name, ": ");
  return absl::InvalidArgumentError(
      str_cat(prefix, "error: ", kind, ": ", message));
}

}  // namespace

namespace proto_internal {

google::protobuf::ArenaOptions arena_options(size_t bytes) {
  google::protobuf::ArenaOptions options;
  // The messages take a few times the bytes they come from; the first block holds a small
  // proto whole, and no block is larger than 1 MiB whatever the bytes claim.
  constexpr size_t kMaxBlock = size_t{1} << 20;
  options.start_block_size =
      std::min(kMaxBlock, std::max<size_t>(4096, std::min(bytes, kMaxBlock) * 4));
  options.max_block_size = kMaxBlock;
  return options;
}

bool parse_module_proto(std::string_view bytes, google::protobuf::Arena* arena,
                        ParsedModuleProto* out) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return false;
  const int size = static_cast<int>(bytes.size());
  auto* whole = google::protobuf::Arena::CreateMessage<pb::HloProto>(arena);
  if (whole->ParseFromArray(bytes.data(), size) && whole->has_hlo_module() &&
      whole->hlo_module().computations_size() > 0) {
    out->module = &whole->hlo_module();
    out->assignment = &whole->buffer_assignment();
    out->kind = "HloProto";
    return true;
  }
  // Not an HloProto: what that attempt allocated goes before the second one.
  arena->Reset();
  auto* module = google::protobuf::Arena::CreateMessage<pb::HloModuleProto>(arena);
  if (module->ParseFromArray(bytes.data(), size) && module->computations_size() > 0) {
    out->module = module;
    out->assignment = &pb::BufferAssignmentProto::default_instance();
    out->kind = "HloModuleProto";
    return true;
  }
  return false;
}

}  // namespace proto_internal

ParsedHloProto::ParsedHloProto() = default;
ParsedHloProto::ParsedHloProto(ParsedHloProto&&) noexcept = default;
ParsedHloProto& ParsedHloProto::operator=(ParsedHloProto&&) noexcept = default;
ParsedHloProto::~ParsedHloProto() = default;

ParsedHloProto::ParsedHloProto(std::string_view bytes) : empty_input_(bytes.empty()) {
  if (bytes.empty()) return;  // no message with computations
  // Each length-delimited field decodes to an object or a string of some 30-500 bytes: real
  // HLO protos hold one per 7-9 bytes, and a message of empty messages one per 2 bytes (100
  // times its size once decoded). More than one per kBytesPerField bytes (past a floor) is
  // refused before anything is decoded.
  constexpr int64_t kBytesPerField = 4;
  constexpr int64_t kFloorFields = int64_t{1} << 16;
  const int64_t limit = kFloorFields + static_cast<int64_t>(bytes.size()) / kBytesPerField;
  if (wire::count_length_delimited(bytes, limit) > limit) {
    refused_ = str_cat("its ", bytes.size(), " bytes hold more than ", limit,
                       " messages and strings (one per ", kBytesPerField,
                       " bytes, plus 65536; real HLO protos hold one per 7-9 bytes): refused "
                       "before decoding, which would take many times the file");
    return;
  }
  auto messages = std::make_unique<Messages>(bytes.size());
  // What a failed attempt allocated goes with `messages`.
  if (proto_internal::parse_module_proto(bytes, &messages->arena, &messages->read)) {
    messages_ = std::move(messages);
  }
}

bool ParsedHloProto::ok() const { return messages_ != nullptr; }

absl::StatusOr<Module> ParsedHloProto::module(const ParseOptions& options) const {
  if (empty_input_) return proto_error(options, "HloModuleProto", "the input is empty");
  if (!refused_.empty()) return proto_error(options, "HloModuleProto", refused_);
  if (messages_ == nullptr) {
    return proto_error(options, "HloModuleProto",
                       "the bytes are neither an xla.HloProto nor an xla.HloModuleProto with "
                       "computations (truncated or another message?)");
  }
  const proto_internal::ParsedModuleProto& read = messages_->read;
  const std::string_view kind = read.kind;
  TextBuilder builder(*read.module, messages_->size);
  std::string text, error;
  if (!builder.build(&text, &error)) return proto_error(options, kind, error);
  ParseOptions text_options;
  text_options.show_source_line = false;
  absl::StatusOr<Module> parsed = parse_module(std::move(text), text_options);
  if (parsed.ok()) return parsed;
  std::optional<ParseErrorLocation> at = parse_error_location(parsed.status());
  if (!at) return proto_error(options, kind, std::string(parsed.status().message()));
  std::string where = builder.where(at->line);
  return proto_error(options, kind,
                     where.empty() ? at->message : str_cat(where, ": ", at->message));
}

bool is_hlo_proto(std::string_view bytes) { return ParsedHloProto(bytes).ok(); }

absl::StatusOr<Module> parse_hlo_proto(std::string_view bytes, const ParseOptions& options) {
  return ParsedHloProto(bytes).module(options);
}

}  // namespace hloroof
