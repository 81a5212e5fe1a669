// The attribute record: 32 bytes, and every AttrValue alternative stored in it reads back as set,
// through get<T>() and value(), after copies and after being replaced by another alternative.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

#include "hloroof/attributes.h"
#include "hloroof/hlo_text.h"
#include "hloroof/instruction.h"
#include "require_ok.h"

namespace hloroof {
namespace {

// A text pointer and a 32-bit length (12 bytes), a 16-byte value, the id and the value's index:
// 30 bytes, 32 with alignment, where std::string_view text and a std::variant value take 48.
static_assert(sizeof(Attribute) == 32);
static_assert(std::is_trivially_copyable_v<Attribute>);

// Sets `v` and checks that get<T> and value() give it back, and that other types read as null.
template <typename T>
void check_round_trip(const T& v) {
  Attribute a(AttrId::kDimensions, "{1}");
  CHECK(a.get<std::monostate>() != nullptr);
  a.set_value(v);
  const Attribute copy = a;  // byte-wise copy
  REQUIRE(copy.get<T>() != nullptr);
  CHECK(*copy.get<T>() == v);
  const AttrValue value = copy.value();
  REQUIRE(std::holds_alternative<T>(value));
  CHECK(std::get<T>(value) == v);
  CHECK(copy.value_index() == value.index());
  if constexpr (!std::is_same_v<T, bool>) CHECK(copy.get<bool>() == nullptr);
  if constexpr (!std::is_same_v<T, int64_t>) CHECK(copy.get<int64_t>() == nullptr);
  CHECK(copy.get<std::monostate>() == nullptr);
  CHECK(copy.text() == "{1}");
  CHECK(copy.id == AttrId::kDimensions);
}

TEST_CASE("an attribute record keeps each kind of value it is given") {
  const int64_t ints[] = {3, -1, int64_t{1} << 40};
  const Shape shape = Shape::Array(PrimitiveType::kF32, {4, 8});
  const Slice slice{{{0, 2, 1}, {1, 8, 2}}};
  check_round_trip(true);
  check_round_trip(false);
  check_round_trip(int64_t{-7});
  check_round_trip(int64_t{1} << 62);
  check_round_trip(0.25);
  check_round_trip(std::string_view("kLoop"));
  // Spans compare by identity of their data here: the record keeps the pointer and the size.
  Attribute a(AttrId::kDimensions, "{3,-1,1099511627776}", IntList(ints, 3));
  REQUIRE(a.get<IntList>() != nullptr);
  CHECK(a.get<IntList>()->data() == ints);
  CHECK(a.get<IntList>()->size() == 3);
  CHECK((*a.get<IntList>())[2] == int64_t{1} << 40);
  check_round_trip(&shape);
  check_round_trip(&slice);
  CHECK((*Attribute(AttrId::kSlice, "", &slice).get<const Slice*>())->dims[1].stride == 2);
}

TEST_CASE("an attribute record's value can be replaced by one of another type") {
  Attribute a(AttrId::kChannelId, "5", int64_t{5});
  a.set_value(std::string_view("x"));
  CHECK(a.get<int64_t>() == nullptr);
  REQUIRE(a.get<std::string_view>() != nullptr);
  CHECK(*a.get<std::string_view>() == "x");
  a.set_value(AttrValue());
  CHECK(a.get<std::string_view>() == nullptr);
  CHECK(a.get<std::monostate>() != nullptr);
  CHECK(std::holds_alternative<std::monostate>(a.value()));
}

TEST_CASE("an attribute record's text may be longer than 64 KiB") {
  // 100,000 bytes needs more than 16 bits of length; the record keeps 32.
  const std::string long_text(100000, 'x');
  Attribute a(AttrId::kBackendConfig, long_text);
  CHECK(a.text().size() == 100000);
  CHECK(a.text().data() == long_text.data());
  a.set_text("{}");
  CHECK(a.text() == "{}");
}

TEST_CASE("parsed attributes read back their text and values from 32-byte records") {
  absl::StatusOr<Module> m = parse_module(R"(HloModule m
ENTRY %e (p: f32[4,8]) -> f32[8,4] {
  %p = f32[4,8] parameter(0)
  ROOT %t = f32[8,4] transpose(%p), dimensions={1,0}, metadata={op_name="t"}
}
)");
  REQUIRE_OK(m);
  const Instruction* t = m->entry()->root();
  const Attribute* dims = t->attribute(AttrId::kDimensions);
  REQUIRE(dims != nullptr);
  CHECK(dims->text() == "{1,0}");
  REQUIRE(dims->get<IntList>() != nullptr);
  CHECK(std::vector<int64_t>(dims->get<IntList>()->begin(), dims->get<IntList>()->end()) ==
        std::vector<int64_t>{1, 0});
  CHECK(t->attribute(AttrId::kMetadata)->text() == R"({op_name="t"})");
  CHECK(t->metadata()->op_name == "t");
}

}  // namespace
}  // namespace hloroof
