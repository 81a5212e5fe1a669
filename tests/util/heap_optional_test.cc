// HeapOptional reads as std::optional does, and its copies are copies of the value.
#include "hloroof/heap_optional.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

namespace {

using hloroof::HeapOptional;

TEST_CASE("HeapOptional is empty until given a value, and empty again when reset") {
  HeapOptional<std::string> a;
  CHECK_FALSE(a);
  CHECK_FALSE(a.has_value());
  CHECK(a.get() == nullptr);
  a = std::string("all-gather");
  REQUIRE(a);
  CHECK(*a == "all-gather");
  CHECK(a->size() == 10);
  a = std::nullopt;
  CHECK_FALSE(a);
  a.emplace(3, 'x');
  CHECK(*a == "xxx");
  a.reset();
  CHECK(a.get() == nullptr);
}

TEST_CASE("HeapOptional copies the value; a move takes it") {
  HeapOptional<std::string> a = std::string("ring: V (N-1) / (N W_bi)");
  HeapOptional<std::string> b = a;
  REQUIRE(b);
  CHECK(b.get() != a.get());  // a value of its own
  b->append(" + latency");
  CHECK(*a == "ring: V (N-1) / (N W_bi)");
  CHECK(*b == "ring: V (N-1) / (N W_bi) + latency");
  a = b;
  CHECK(*a == *b);
  CHECK(a.get() != b.get());
  const std::string* held = b.get();
  HeapOptional<std::string> c = std::move(b);
  CHECK(c.get() == held);  // moved, not copied
  HeapOptional<std::string> empty;
  c = empty;
  CHECK_FALSE(c);
}

}  // namespace
