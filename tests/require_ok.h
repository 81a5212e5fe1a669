// REQUIRE_OK(expr): requires that an absl::Status or absl::StatusOr (or anything else with ok())
// is ok, and on failure says the expression and its status ("m: INVALID_ARGUMENT: 3:7: expected
// ..."), which a bare REQUIRE(x.ok()) does not. `expr` is evaluated once. Test-only.
#ifndef HLOROOF_TESTS_REQUIRE_OK_H_
#define HLOROOF_TESTS_REQUIRE_OK_H_

#include <catch2/catch.hpp>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace hloroof::testing {

// What REQUIRE_OK prints of a value that is not ok: its status.
template <typename T>
std::string status_text(const T& value) {
  if constexpr (requires { value.status().ToString(); }) {
    return std::string(value.status().ToString());
  } else if constexpr (requires { value.ToString(); }) {
    return std::string(value.ToString());
  } else {
    return "not ok";
  }
}

}  // namespace hloroof::testing

#define REQUIRE_OK(expr)                                                                  \
  do {                                                                                    \
    const auto& hloroof_require_ok_value = (expr);                                        \
    INFO(#expr << ": " << ::hloroof::testing::status_text(hloroof_require_ok_value));     \
    REQUIRE(hloroof_require_ok_value.ok());                                               \
  } while (false)

#endif  // HLOROOF_TESTS_REQUIRE_OK_H_
