// collective_kind_from_name reads back what collective_kind_name writes, and nothing else.
#include <catch2/catch.hpp>

#include "hloroof/collective_kind.h"

namespace hloroof {
namespace {

TEST_CASE("a collective kind's name reads back as that kind") {
  int kinds = 0;
  for (int k = 0; k <= static_cast<int>(CollectiveKind::kRecv); ++k) {
    const auto kind = static_cast<CollectiveKind>(k);
    INFO(collective_kind_name(kind));
    CHECK(collective_kind_from_name(collective_kind_name(kind)) == kind);
    ++kinds;
  }
  CHECK(kinds == 9);  // all-reduce ... recv
  CHECK(collective_kind_from_name("all-reduce-start") == std::nullopt);
  CHECK(collective_kind_from_name("") == std::nullopt);
  CHECK(collective_kind_from_name("?") == std::nullopt);
}

}  // namespace
}  // namespace hloroof
