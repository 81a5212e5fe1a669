// Name look-up by compile-time perfect hash: every name of a set is found with its own value,
// and nothing else is found, however close to a name it is.
#include "ir/name_table.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hloroof/attributes.h"
#include "hloroof/opcode.h"

namespace hloroof::detail {
namespace {

// Strings one edit away from `name`: each byte changed, one byte dropped or added at either
// end, the first letter's case flipped.
std::vector<std::string> near_misses(std::string_view name) {
  std::vector<std::string> out;
  for (size_t i = 0; i < name.size(); ++i) {
    std::string s(name);
    s[i] = s[i] == 'x' ? 'y' : 'x';
    out.push_back(s);
  }
  out.push_back(std::string(name) + "x");
  out.push_back(std::string(name) + ".");
  out.push_back("x" + std::string(name));
  out.push_back(std::string(name.substr(1)));
  out.push_back(std::string(name.substr(0, name.size() - 1)));
  std::string flipped(name);
  flipped[0] = static_cast<char>(flipped[0] ^ 0x20);
  out.push_back(flipped);
  return out;
}

constexpr NameEntry<int> kSmallList[] = {
    {"a", 1},
    {"ab", 2},
    {"abc", 3},
    {"abcd", 4},
    {"abcdefg", 7},
    {"abcdefgh", 8},
    {"abcdefghijklmnop", 16},
    {"aaaaaaaa_middle_1_zzzzzzzz", 26},
};
constexpr auto kSmall = make_name_table(kSmallList);

TEST_CASE("a name table finds each name at every length, and only those names") {
  for (const NameEntry<int>& e : kSmallList) {
    const int* v = kSmall.find(e.name);
    REQUIRE(v != nullptr);
    CHECK(*v == e.value);
  }
  CHECK(kSmall.find("") == nullptr);
  CHECK(kSmall.find("b") == nullptr);
  CHECK(kSmall.find("abce") == nullptr);
  CHECK(kSmall.find("abcdefghijklmnoq") == nullptr);
  // Same length and same first and last 8 bytes: only the middle tells them apart.
  CHECK(kSmall.find("aaaaaaaa_middle_2_zzzzzzzz") == nullptr);
  CHECK(kSmall.find("aaaaaaaa_mIddle_1_zzzzzzzz") == nullptr);
  // Look-ups read only the bytes of the name, here the first 3 of a longer buffer.
  std::string_view buffer = "abcdefgh";
  CHECK(*kSmall.find(buffer.substr(0, 3)) == 3);
}

TEST_CASE("every opcode is found by its spelling, and near misses are not") {
  std::set<std::string_view> names;
  for (int i = 0; i < kOpcodeCount; ++i) names.insert(opcode_name(static_cast<Opcode>(i)));
  REQUIRE(names.size() == static_cast<size_t>(kOpcodeCount));
  for (int i = 0; i < kOpcodeCount; ++i) {
    Opcode op = static_cast<Opcode>(i);
    std::optional<Opcode> found = opcode_from_name(opcode_name(op));
    REQUIRE(found.has_value());
    CHECK(*found == op);
    for (const std::string& miss : near_misses(opcode_name(op))) {
      if (names.count(miss) != 0) continue;  // e.g. "add" -> "and" is itself an opcode
      INFO(miss);
      CHECK_FALSE(opcode_from_name(miss).has_value());
    }
  }
  CHECK_FALSE(opcode_from_name("").has_value());
  CHECK_FALSE(opcode_from_name("Add").has_value());
}

TEST_CASE("every attribute is found by its name, and near misses are not") {
  constexpr AttrId kAll[] = {
#define HLOROOF_ATTRIBUTE(e, text, kind, group) AttrId::e,
#include "hloroof/attributes.def"
#undef HLOROOF_ATTRIBUTE
  };
  std::set<std::string_view> names;
  for (AttrId id : kAll) names.insert(attribute_name(id));
  REQUIRE(names.size() == std::size(kAll));
  for (AttrId id : kAll) {
    std::optional<AttrId> found = attribute_from_name(attribute_name(id));
    REQUIRE(found.has_value());
    CHECK(*found == id);
    for (const std::string& miss : near_misses(attribute_name(id))) {
      if (names.count(miss) != 0) continue;
      INFO(miss);
      CHECK_FALSE(attribute_from_name(miss).has_value());
    }
  }
  CHECK_FALSE(attribute_from_name("").has_value());
}

}  // namespace
}  // namespace hloroof::detail
