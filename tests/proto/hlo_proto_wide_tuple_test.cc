// What reading an HloModuleProto holds for a parameter of many scalar leaves (issue 82, item
// 11: a tuple of 16M `f32[]` leaves, 64 MB on disk, took 2.2 GB to read). On the wire a leaf
// is 4 bytes (`22 02 10 0b`: tuple_shapes, length 2, element_type F32); decoded by protobuf,
// each leaf is a ShapeProto message of its own and a pointer to it. This program counts the
// heap bytes live at once (every operator new and delete of the process, protobuf's arena
// blocks included) while the proto is read, without timing anything.
#include <malloc.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "proto/hlo.pb.h"
#include "heap_counter.h"
#include "require_ok.h"

using hloroof::testing::live_bytes;
using hloroof::testing::peak_bytes;

namespace {

std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string field(int number, const std::string& payload) {
  return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(payload.size()) + payload;
}
std::string varint_field(int number, uint64_t value) {
  return varint(static_cast<uint64_t>(number) << 3) + varint(value);
}

// An HloModuleProto whose one instruction is a parameter of `leaves` f32[] leaves; with
// `host_layout`, the module's host program shape names the same tuple as the parameter and
// the result (entry_computation_layout).
std::string wide_parameter_proto(int leaves, bool host_layout) {
  std::string shape = varint_field(2, 13);  // TUPLE
  const std::string leaf = field(4, varint_field(2, 11));  // F32
  shape.reserve(shape.size() + leaf.size() * static_cast<size_t>(leaves));
  for (int k = 0; k < leaves; ++k) shape += leaf;
  const std::string parameter = field(2, field(1, "p") + field(2, "parameter") +
                                             field(3, shape) + varint_field(35, 1));
  std::string module = field(1, "m") + field(3, field(1, "main") + parameter +
                                                    varint_field(5, 1) + varint_field(6, 1)) +
                       varint_field(6, 1);
  if (host_layout) module += field(4, field(1, shape) + field(2, shape));
  return module;
}

struct Read {
  int64_t peak_bytes = 0;  // heap bytes above those live before the read
  int64_t leaves = 0;      // of the parameter read back
};

Read read(const std::string& proto) {
  const int64_t before = live_bytes.load();
  peak_bytes = before;
  absl::StatusOr<hloroof::Module> module = hloroof::parse_hlo_proto(proto);
  const int64_t peak = peak_bytes.load() - before;
  INFO(module.status().message());
  REQUIRE_OK(module);
  const hloroof::Shape& shape = module->entry()->root()->shape();
  REQUIRE(shape.is_tuple());
  return {peak, static_cast<int64_t>(shape.elements.size())};
}

TEST_CASE("a tuple of 1M leaves is read from its HloModuleProto in bytes linear in its own") {
  constexpr int kLeaves = 1 << 20;
  const std::string proto = wide_parameter_proto(kLeaves, false);
  // 4 bytes a leaf, and 49 for the rest: the shape's element type (2) and its field's tag and
  // length (5), the instruction's name (3), opcode (11), id (3), tag and length (5), the
  // computation's name (6), id (2), root id (2), tag and length (5), the module's name (3)
  // and entry id (2).
  REQUIRE(proto.size() == 4 * static_cast<size_t>(kLeaves) + 49);
  const Read r = read(proto);
  CHECK(r.leaves == kLeaves);
  // Decoded, each leaf would take a ShapeProto and the pointer to it: sizeof(ShapeProto) + 8
  // bytes at the least (96 + 8 with protobuf 3.21). Read from its bytes, a leaf takes its 4
  // bytes set aside, the 7 of `f32[], ` in the text the parser reads, and what the module
  // keeps of it: 20.0 bytes a leaf at the peak, measured over 1M leaves. 40 leaves room for
  // allocators.
  const double per_leaf = static_cast<double>(r.peak_bytes) / kLeaves;
  INFO("peak heap bytes per leaf: " << per_leaf << "; sizeof(ShapeProto): "
                                      << sizeof(hloroof::xla_proto::ShapeProto));
  CHECK(per_leaf <= 40);
  CHECK(sizeof(hloroof::xla_proto::ShapeProto) + 8 > 40);
}

TEST_CASE("a tuple of 1M leaves in the entry computation layout is read the same way") {
  constexpr int kLeaves = 1 << 20;
  const Read r = read(wide_parameter_proto(kLeaves, true));
  CHECK(r.leaves == kLeaves);
  // Three tuples of 1M leaves (the parameter, the layout's parameter and result): the bound
  // above three times.
  const double per_leaf = static_cast<double>(r.peak_bytes) / kLeaves;
  INFO("peak heap bytes per leaf of each tuple: " << per_leaf / 3);
  CHECK(per_leaf <= 3 * 40);
}

TEST_CASE("a tuple read from its bytes prints as the one decoded did") {
  // Leaves of every form the reader meets: a scalar alone, an array with a layout, a nested
  // tuple, a token; an element type given twice (the last counts, as protobuf reads it).
  const std::string f32 = varint_field(2, 11);
  const std::string array = varint_field(2, 11) + field(3, varint(4) + varint(8)) +
                            field(5, field(1, varint(0) + varint(1)));
  const std::string nested = varint_field(2, 13) + field(4, f32) + field(4, varint_field(2, 4));
  const std::string token = varint_field(2, 17);
  const std::string twice = varint_field(2, 11) + varint_field(2, 4);  // F32, then S32
  const std::string shape = varint_field(2, 13) + field(4, f32) + field(4, array) +
                            field(4, nested) + field(4, token) + field(4, twice);
  const std::string parameter = field(2, field(1, "p") + field(2, "parameter") +
                                             field(3, shape) + varint_field(35, 1));
  const std::string module =
      field(1, "m") +
      field(3, field(1, "main") + parameter + varint_field(5, 1) + varint_field(6, 1)) +
      varint_field(6, 1);
  absl::StatusOr<hloroof::Module> m = hloroof::parse_hlo_proto(module);
  INFO(m.status().message());
  REQUIRE_OK(m);
  CHECK(hloroof::to_string(m->entry()->root()->shape()) ==
        "(f32[], f32[4,8]{0,1}, (f32[], s32[]), token[], s32[])");
}

TEST_CASE("an HloModuleProto of tiny instructions is refused before decoding") {
  // 2^18 + 1 instructions, 4 bytes each (`12 02 48 01`: an instruction holding only
  // parameter_number 1): more than one per 16 bytes of the file plus 65,536. Decoded, each
  // would take a message of some 700 bytes.
  std::string instructions;
  for (int k = 0; k < (1 << 18); ++k) instructions += field(2, varint_field(9, 1));
  const std::string module =
      field(1, "m") +
      field(3, field(1, "main") + field(2, field(1, "x") + field(2, "parameter") +
                                               field(3, varint_field(2, 11)) +
                                               varint_field(35, 1)) +
                   instructions + varint_field(5, 1) + varint_field(6, 1)) +
      varint_field(6, 1);
  absl::StatusOr<hloroof::Module> m = hloroof::parse_hlo_proto(module);
  REQUIRE_FALSE(m.ok());
  CHECK(std::string(m.status().message()).find("262145 instructions in") != std::string::npos);
  CHECK(std::string(m.status().message()).find("refused before decoding") != std::string::npos);
}

}  // namespace
