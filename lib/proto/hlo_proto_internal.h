// What the HLO proto reader and writer share: XLA's element type numbers (xla_data.proto's
// PrimitiveType), the narrow float formats, and telling HloProto from HloModuleProto.
#ifndef HLOROOF_PROTO_HLO_PROTO_INTERNAL_H_
#define HLOROOF_PROTO_HLO_PROTO_INTERNAL_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "google/protobuf/arena.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/module.h"
#include "proto/hlo.pb.h"

namespace hloroof::proto_internal {

inline constexpr int kTupleType = 13;
inline constexpr int kOpaqueType = 14;
inline constexpr int kTokenType = 17;
inline constexpr int kBufferType = 34;

struct PrimitiveNumber {
  int number;
  std::string_view name;
};
// xla.PrimitiveType numbers of the array element types, with their text spelling.
inline constexpr PrimitiveNumber kPrimitiveNumbers[] = {
    {1, "pred"},         {30, "s1"},      {26, "s2"},          {21, "s4"},
    {2, "s8"},           {3, "s16"},      {4, "s32"},          {5, "s64"},
    {31, "u1"},          {27, "u2"},      {22, "u4"},          {6, "u8"},
    {7, "u16"},          {8, "u32"},      {9, "u64"},          {10, "f16"},
    {11, "f32"},         {16, "bf16"},    {12, "f64"},         {19, "f8e5m2"},
    {28, "f8e4m3"},      {20, "f8e4m3fn"}, {23, "f8e4m3b11fnuz"}, {29, "f8e3m4"},
    {24, "f8e5m2fnuz"},  {25, "f8e4m3fnuz"}, {32, "f4e2m1fn"},  {33, "f8e8m0fnu"},
    {15, "c64"},         {18, "c128"},    {14, "opaque"},      {17, "token"},
};

// The text spelling of an array element type number; "" for tuples, buffers and unknown numbers.
inline std::string_view primitive_name_of(int number) {
  for (const PrimitiveNumber& p : kPrimitiveNumbers) {
    if (p.number == number) return p.name;
  }
  return {};
}
// The number of a spelling; 0 when XLA has none.
inline int primitive_number_of(std::string_view name) {
  for (const PrimitiveNumber& p : kPrimitiveNumbers) {
    if (p.name == name) return p.number;
  }
  return 0;
}

inline bool is_float_type(int t) {
  switch (t) {
    case 10: case 11: case 12: case 16: case 19: case 20: case 23: case 24: case 25: case 28:
    case 29: case 32: case 33: case 15: case 18:
      return true;
    default:
      return false;
  }
}

// Exponent and mantissa bits, bias, and NaN/infinity convention of the 8- and 4-bit floats.
struct Minifloat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  enum Kind { kIeee, kFn, kFnuz, kNoNan } kind;
};
inline bool minifloat_format(int t, Minifloat* f) {
  switch (t) {
    case 19: *f = {5, 2, 15, Minifloat::kIeee}; return true;   // f8e5m2
    case 28: *f = {4, 3, 7, Minifloat::kIeee}; return true;    // f8e4m3
    case 29: *f = {3, 4, 3, Minifloat::kIeee}; return true;    // f8e3m4
    case 20: *f = {4, 3, 7, Minifloat::kFn}; return true;      // f8e4m3fn
    case 23: *f = {4, 3, 11, Minifloat::kFnuz}; return true;   // f8e4m3b11fnuz
    case 24: *f = {5, 2, 16, Minifloat::kFnuz}; return true;   // f8e5m2fnuz
    case 25: *f = {4, 3, 8, Minifloat::kFnuz}; return true;    // f8e4m3fnuz
    case 32: *f = {2, 1, 1, Minifloat::kNoNan}; return true;   // f4e2m1fn
    default: return false;
  }
}

inline double minifloat_to_double(uint8_t bits, int t) {
  if (t == 33) {  // f8e8m0fnu: an exponent only, 0xff is NaN
    return bits == 0xff ? std::nan("") : std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  Minifloat f{};
  if (!minifloat_format(t, &f)) return std::nan("");
  const int width = 1 + f.exponent_bits + f.mantissa_bits;
  const uint32_t sign = (bits >> (width - 1)) & 1u;
  const uint32_t exponent = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  const uint32_t mantissa = bits & ((1u << f.mantissa_bits) - 1);
  const uint32_t max_exponent = (1u << f.exponent_bits) - 1;
  if (f.kind == Minifloat::kFnuz && sign == 1 && exponent == 0 && mantissa == 0) {
    return std::nan("");
  }
  if (f.kind == Minifloat::kIeee && exponent == max_exponent) {
    return mantissa == 0 ? (sign ? -INFINITY : INFINITY) : std::nan("");
  }
  if (f.kind == Minifloat::kFn && exponent == max_exponent &&
      mantissa == (1u << f.mantissa_bits) - 1) {
    return std::nan("");
  }
  double value = exponent == 0
                     ? std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits)
                     : std::ldexp(static_cast<double>(mantissa + (1u << f.mantissa_bits)),
                                  static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  return sign ? -value : value;
}

inline double half_to_double(uint16_t h) {
  const uint32_t sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0x1f) {
    v = mantissa == 0 ? INFINITY : std::nan("");
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    v = std::ldexp(static_cast<double>(mantissa + 1024), static_cast<int>(exponent) - 25);
  }
  return sign ? -v : v;
}

// std::numeric_limits<T>::max_digits10 of the narrow float types: 2 + digits * log10(2).
inline int max_digits10(int t) {
  int digits = 24;
  switch (t) {
    case 10: digits = 11; break;  // f16
    case 16: digits = 8; break;   // bf16
    case 33: digits = 1; break;   // f8e8m0fnu
    default: {
      Minifloat f{};
      if (minifloat_format(t, &f)) digits = f.mantissa_bits + 1;
    }
  }
  return 2 + digits * 30103 / 100000;
}

// The bytes field of a literal that holds elements of a one-byte float type; null otherwise.
inline const std::string* minifloat_bytes(const xla_proto::LiteralProto& l, int t) {
  switch (t) {
    case 19: return &l.f8e5m2s();
    case 28: return &l.f8e4m3s();
    case 29: return &l.f8e3m4s();
    case 20: return &l.f8e4m3fns();
    case 23: return &l.f8e4m3b11fnuzs();
    case 24: return &l.f8e5m2fnuzs();
    case 25: return &l.f8e4m3fnuzs();
    case 32: return &l.f4e2m1fns();
    case 33: return &l.f8e8m0fnus();
    default: return nullptr;
  }
}

// The shapes of a module, taken out of its bytes before protobuf decodes the rest: decoded,
// each tuple element would be a message of its own (some 130 bytes for the 4 a scalar leaf
// takes on the wire), so the text is written from these bytes instead. Entry k (from 1) holds
// the fields one message had, as they were on the wire (tags included): an instruction's
// shape (3), outfeed_shape (29) and operand_shapes_with_layout (57), found through its
// hloroof_set_aside field, or the module's host_program_shape (4), through `module_entry`.
// Computations' program shapes (which the text does not write) are dropped.
struct SetAside {
  std::string bytes;
  std::vector<size_t> ends;  // entry k is bytes[ends[k - 2], ends[k - 1])
  uint64_t module_entry = 0;
  // The entry's fields; empty for 0 or an entry it does not hold.
  std::string_view entry(uint64_t k) const {
    if (k == 0 || k > ends.size()) return {};
    const size_t begin = k == 1 ? 0 : ends[k - 2];
    return std::string_view(bytes).substr(begin, ends[k - 1] - begin);
  }
  void clear() {
    bytes.clear();
    ends.clear();
    module_entry = 0;
  }
};

// The payloads of the length-delimited fields numbered `number` among `fields`, concatenated
// (as protobuf merges a message field that occurs more than once): a view of `fields` when
// there is one, else `*storage`. `count` (when not null) says how many there were.
std::string_view merged_payload(std::string_view fields, uint64_t number, std::string* storage,
                                int* count = nullptr);

// A module read from bytes: its messages live on `arena`, the caller's (one allocation per
// block instead of one per message and string, and nothing to free message by message).
struct ParsedModuleProto {
  const xla_proto::HloModuleProto* module = nullptr;
  // The HloProto's buffer assignment; empty (the default instance) for an HloModuleProto.
  const xla_proto::BufferAssignmentProto* assignment = nullptr;
  std::string_view kind;  // "HloProto" or "HloModuleProto"
  // Why the bytes were refused before decoding, when they were (no module then).
  std::string refused;
};
// An arena sized for a proto of `bytes` bytes: blocks grow to 1 MiB rather than protobuf's
// default 8 KiB, so a large module takes a few dozen blocks.
google::protobuf::ArenaOptions arena_options(size_t bytes);
// Parses `bytes` as an HloProto holding a module with computations, else as an HloModuleProto
// with computations, on `arena`. False when neither (what the arena holds is then garbage).
// The shapes are set aside in `aside`.
bool parse_module_proto(std::string_view bytes, google::protobuf::Arena* arena,
                        ParsedModuleProto* out, SetAside* aside);

}  // namespace hloroof::proto_internal

namespace hloroof {

// What a ParsedHloProto keeps: the messages on their arena, and how many bytes they came from.
struct ParsedHloProto::Messages {
  explicit Messages(size_t bytes) : arena(proto_internal::arena_options(bytes)), size(bytes) {}
  google::protobuf::Arena arena;
  proto_internal::ParsedModuleProto read;
  proto_internal::SetAside aside;
  size_t size = 0;
};

}  // namespace hloroof

#endif  // HLOROOF_PROTO_HLO_PROTO_INTERNAL_H_
