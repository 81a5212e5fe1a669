// Test helpers: parse a module, cost it, look instructions up by name.
#ifndef HLOROOF_TESTS_COST_COST_TEST_UTIL_H_
#define HLOROOF_TESTS_COST_COST_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <string>
#include <string_view>

#include "hloroof/cost.h"
#include "hloroof/hlo_text.h"
#include "require_ok.h"

namespace hloroof::testing {

struct Costed {
  Module module;
  ModuleCost cost;

  // The record of the instruction named `name`: the first match, callers' computations first
  // (so the entry's instructions win over callees' of the same name).
  const InstructionCost& operator[](std::string_view name) const {
    for (const InstructionCost& r : cost.instructions) {
      if (r.instruction->name() == name) return r;
    }
    FAIL("no instruction named " << std::string(name));
    return cost.instructions.front();
  }
  // The record of `name` inside computation `computation`.
  const InstructionCost& at(std::string_view computation, std::string_view name) const {
    for (const InstructionCost& r : cost.instructions) {
      if (r.computation->name() == computation && r.instruction->name() == name) return r;
    }
    FAIL("no instruction " << std::string(name) << " in " << std::string(computation));
    return cost.instructions.front();
  }
};

inline Costed analyze(std::string_view text, const CostOptions& options = {}) {
  absl::StatusOr<Module> module = parse_module(text);
  INFO(module.status().ToString());
  REQUIRE_OK(module);
  absl::StatusOr<ModuleCost> cost = analyze_cost(*module, options);
  INFO(cost.status().ToString());
  REQUIRE_OK(cost);
  return Costed{*std::move(module), *std::move(cost)};
}

}  // namespace hloroof::testing

#endif  // HLOROOF_TESTS_COST_COST_TEST_UTIL_H_
