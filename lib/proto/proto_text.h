// The text XLA prints for the values an HloModuleProto holds (shapes and layouts, literals,
// attribute values), as the text parser reads them: what the HLO proto reader writes a module's
// text with (proto/text_builder.h).
#ifndef HLOROOF_PROTO_PROTO_TEXT_H_
#define HLOROOF_PROTO_PROTO_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "proto/hlo.pb.h"
#include "hloroof/absl_compat.h"

namespace hloroof::proto_internal {

namespace pb = ::hloroof::xla_proto;

// `s` in double quotes, escaped as absl::CEscape escapes it.
std::string quote_text(std::string_view s);
// Appends `{v0,v1,...}`.
void append_ints(std::string* out, const google::protobuf::RepeatedField<int64_t>& v);
// `{v0,v1,...}`.
std::string ints(const google::protobuf::RepeatedField<int64_t>& v);

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
  // Several dims are written with their permutation, identity or not (none given: identity),
  // as the text needs it; one dim never takes one.
  if (!identity || dims.size() > 1) {
    out += "T(";
    if (perm.empty()) {
      for (int i = 0; i < dims.size(); ++i) str_append(&out, i > 0 ? "," : "", i);
    }
    for (int i = 0; i < perm.size(); ++i) {
      if (i > 0) out += ",";
      str_append(&out, perm[i]);
    }
    out += ")";
  }
  return out;
}

// True when `name` is a non-empty run of the characters a text name may hold.
bool valid_name(std::string_view name);

// `s` with its layout, as xla::Shape::ToString(print_layout=true) writes it; false (and
// `error`) when it nests past a limit or holds an element type XLA has no name for.
bool append_shape(std::string* out, const pb::ShapeProto& s, int depth, std::string* error);
// The same for a serialized ShapeProto, read from its bytes: a tuple's elements are written
// one by one without a message each (decoded, a tuple of N scalars takes N messages).
bool append_shape_bytes(std::string* out, std::string_view bytes, int depth,
                        std::string* error);
// XLA's RoundTripFpToString: floats at 6 significant digits (9 when that would not read back),
// doubles likewise (17), the narrow types at their max_digits10.
std::string float_text(double v, int type);
// The elements of `lit`, of shape `shape`, as xla::LiteralBase::ToStringWithoutShape writes
// them (more than 10 elements: `{...}`); false (and `error`) on a malformed literal.
bool append_literal(std::string* out, const pb::LiteralProto& lit, const pb::ShapeProto& shape,
                    int depth, std::string* error);

// Appends `{key=value ...}`: `{}` when no field is set.
void append_metadata(std::string* out, const pb::OpMetadata& m);
// `{key=value,...}`, sorted by key (the last of equal keys kept), a value quoted unless it is
// one brace-balanced blob.
std::string frontend_attributes_text(const pb::FrontendAttributes& f);
// True when every key of `f` is a valid name.
bool valid_frontend_keys(const pb::FrontendAttributes& f);
// The sharding `s` (`{devices=...}`, `{replicated}`, a tuple's `{{...}, ...}`); false (and
// `error`) on one the text cannot hold.
bool sharding_text(const pb::OpSharding& s, std::string* out, bool nested, std::string* error);
// `{size=... stride=... pad=...}`, the fields that are not their default.
std::string window_text(const pb::Window& w);
// `b01f_01io->b01f` (xla::ConvolutionDimensionNumbersToString).
bool dim_labels_text(const pb::ConvolutionDimensionNumbers& d, std::string* out,
                     std::string* error);
// XLA's word for an operand precision; "" for unknown numbers (dot algorithms:
// dot_algorithm_word).
std::string_view precision_word(int p);
// A backend config as XLA's dumps print it: JSON with the keys of every object sorted, a
// brace-balanced blob as it is, anything else quoted.
std::string backend_config_text(const std::string& config);

}  // namespace hloroof::proto_internal

#endif  // HLOROOF_PROTO_PROTO_TEXT_H_
