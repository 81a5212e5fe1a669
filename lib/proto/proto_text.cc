// The text of the values of an HloModuleProto (proto/proto_text.h): shapes and layouts as
// xla::Shape::ToString(print_layout=true) writes them, literals as
// xla::LiteralBase::ToStringWithoutShape does, and the attribute values of XLA's
// ExtraAttributesToStringImpl.
#include "proto/proto_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <charconv>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "hloroof/absl_compat.h"
#include "proto/hlo.pb.h"
#include "proto/hlo_proto_internal.h"
#include "text/name_chars.h"
#include "text/printer.h"
#include "util/wire_reader.h"

namespace hloroof::proto_internal {
namespace {

// Limits on what the bytes may ask the reader to write before the parser sees it: nesting of
// shapes and literals (protobuf itself stops messages nesting past 100 levels).
constexpr int kMaxShapeDepth = 64;
constexpr int64_t kMaxElidedConstantElements = 10;  // larger constants print as {...}

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

}  // namespace

std::string quote_text(std::string_view s) {
  std::string out;
  append_quoted(&out, s);
  return out;
}

namespace {

void append_int(std::string* out, int64_t v) {
  char digits[24];  // INT64_MIN takes 20
  const std::to_chars_result r = std::to_chars(digits, digits + sizeof(digits), v);
  out->append(digits, r.ptr);
}

}  // namespace

void append_ints(std::string* out, const google::protobuf::RepeatedField<int64_t>& v) {
  out->push_back('{');
  for (int i = 0; i < v.size(); ++i) {
    if (i > 0) out->push_back(',');
    append_int(out, v[i]);
  }
  out->push_back('}');
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

namespace {

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

}  // namespace

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

bool append_shape_bytes(std::string* out, std::string_view bytes, int depth,
                        std::string* error) {
  if (depth > kMaxShapeDepth) {
    *error = str_cat("shapes nest more than ", kMaxShapeDepth, " deep");
    return false;
  }
  // The common leaf, an element type alone (`10 tt`): a scalar without a layout.
  if (bytes.size() == 2 && bytes[0] == 0x10 && static_cast<uint8_t>(bytes[1]) < 0x80) {
    const int t = bytes[1];
    std::string_view name = primitive_name_of(t);
    if (!name.empty() && t != kTupleType && t != kBufferType && t != kTokenType &&
        t != kOpaqueType) {
      str_append(out, name, "[]");
      return true;
    }
  }
  // As protobuf reads it: the last element type, the tuple elements in order; a field of
  // another wire type than its own is an unknown field.
  int32_t type = 0;
  int64_t elements = 0;
  if (!wire::for_each_field(bytes, [&](const wire::Field& f) {
        if (f.number == 2 && f.type == 0) type = static_cast<int32_t>(f.value);
        if (f.number == 4 && f.type == 2) ++elements;
        return true;
      })) {
    *error = "a shape's bytes are not a well-formed ShapeProto";
    return false;
  }
  if (type == kTupleType || type == kBufferType) {
    if (type == kBufferType && elements != 1) {
      *error = "a buffer shape holds one array shape";
      return false;
    }
    out->append(type == kTupleType ? "(" : "b(");
    bool first = true;
    bool ok = true;
    wire::for_each_field(bytes, [&](const wire::Field& f) {
      if (f.number != 4 || f.type != 2) return true;
      if (!first) out->append(", ");
      first = false;
      ok = append_shape_bytes(out, f.payload, depth + 1, error);
      return ok;
    });
    if (!ok) return false;
    out->push_back(')');
    return true;
  }
  // Not a tuple: the message decoded, but for the elements it does not print.
  // One message per thread, cleared for each shape (this path does not come back here).
  thread_local pb::ShapeProto s;
  s.Clear();
  bool parsed = false;
  if (elements == 0) {
    parsed = s.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  } else {
    std::string rest;
    wire::for_each_field(bytes, [&](const wire::Field& f) {
      if (f.number != 4 || f.type != 2) rest.append(f.raw);
      return true;
    });
    parsed = s.ParseFromString(rest);
  }
  if (!parsed) {
    *error = "a shape's bytes are not a well-formed ShapeProto";
    return false;
  }
  return append_shape(out, s, depth, error);
}

// ---- Literals, as xla::LiteralBase::ToStringWithoutShape writes them.

namespace {

template <typename T>
T load_le(const std::string& bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

}  // namespace

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
  return absl::StrFormat("%.*g", max_digits10(type), v);
}

namespace {

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
        const std::string* bytes = minifloat_bytes(lit, type);
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
        return float_text(half_to_double(load_le<uint16_t>(lit.f16s(), i)), 10);
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
        const std::string* bytes = minifloat_bytes(lit, type);
        return float_text(minifloat_to_double(static_cast<uint8_t>((*bytes)[i]),
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

}  // namespace

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

std::string frontend_attributes_text(const pb::FrontendAttributes& f) {
  // As a map: sorted by key, the last of equal keys kept.
  std::map<std::string, std::string> sorted;
  for (const auto& e : f.map()) sorted[e.key()] = e.value();
  std::vector<std::pair<std::string, std::string>> entries(sorted.begin(), sorted.end());
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0) out += ",";
    str_append(&out, entries[i].first, "=");
    const std::string& value = entries[i].second;
    out += text::is_balanced_blob(value) ? value : quote_text(value);
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

namespace {

std::string_view sharding_type_word(int type) {
  switch (type) {
    case 0: return "replicated";
    case 4: return "manual";
    case 5: return "unknown";
    case 6: return "unreduced";
    default: return "";
  }
}

}  // namespace

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

namespace {

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

}  // namespace

std::string backend_config_text(const std::string& config) {
  if (!config.empty() && config.front() == '{') {
    std::string sorted;
    if (JsonSorter(config).run(&sorted)) return sorted;
    if (text::is_balanced_blob(config)) return config;
  }
  return quote_text(config);
}

}  // namespace hloroof::proto_internal
