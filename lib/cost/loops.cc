// While-loop trip counts (docs/cost-conventions.md, "Where hloroof departs from XLA, and why"): the
// count XLA records in the backend config, else the count of a canonical counted loop, else an
// assumed count.
#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "cost/cost_internal.h"
#include "hloroof/absl_compat.h"

namespace hloroof::cost {
namespace {

// Products of two 64-bit sizes stay exact in 128 bits.
__extension__ typedef __int128 Wide;

enum class Compare { kLt, kLe, kGt, kGe, kNe };

std::optional<Compare> parse_direction(std::string_view d) {
  if (d == "LT") return Compare::kLt;
  if (d == "LE") return Compare::kLe;
  if (d == "GT") return Compare::kGt;
  if (d == "GE") return Compare::kGe;
  if (d == "NE") return Compare::kNe;
  return std::nullopt;
}

// `bound CMP i` read as `i CMP' bound`.
Compare mirrored(Compare c) {
  switch (c) {
    case Compare::kLt:
      return Compare::kGt;
    case Compare::kLe:
      return Compare::kGe;
    case Compare::kGt:
      return Compare::kLt;
    case Compare::kGe:
      return Compare::kLe;
    case Compare::kNe:
      return Compare::kNe;
  }
  return c;
}

// The value of an integer scalar constant.
// Past copies: XLA's TPU programs copy a loop's counter and its start into scalar memory
// (`u32[]{:T(128)S(6)} copy(...)`), a copy of a copy at times; the value is the same.
const Instruction* through_copies(const Instruction* i) {
  for (int depth = 0; i != nullptr && depth < 8 && i->opcode() == Opcode::kCopy &&
                      i->operand_count() == 1;
       ++depth) {
    i = i->operand(0);
  }
  return i;
}

std::optional<int64_t> integer_constant(const Instruction* i) {
  i = through_copies(i);
  if (i == nullptr || i->opcode() != Opcode::kConstant || !i->shape().is_array() ||
      i->shape().rank() != 0 ||
      !(is_signed_integral(i->shape().element_type) ||
        is_unsigned_integral(i->shape().element_type))) {
    return std::nullopt;
  }
  int64_t value;
  if (!absl::SimpleAtoi(sv(i->literal_text()), &value)) return std::nullopt;
  return value;
}

// Element `index` of the loop state read from `computation`'s parameter: a get-tuple-element
// of parameter 0.
std::optional<int64_t> state_index(const Instruction* i) {
  i = through_copies(i);
  if (i == nullptr || i->opcode() != Opcode::kGetTupleElement || i->operand_count() != 1 ||
      i->operand(0)->opcode() != Opcode::kParameter) {
    return std::nullopt;
  }
  return i->int_attribute(AttrId::kIndex);
}

struct Condition {
  int64_t index;  // the induction variable's place in the loop state
  Compare compare;
  int64_t bound;
};

// `i CMP bound` at the condition's root, directly or inside a fusion that computes it.
std::optional<Condition> read_condition(const Computation& condition) {
  const Instruction* root = condition.root();
  if (root == nullptr) return std::nullopt;
  const Instruction* compare = root;
  const Instruction* outer = nullptr;  // the fusion whose operands the compare's parameters are
  if (root->opcode() == Opcode::kFusion) {
    const Computation* fused = root->computation_attribute(AttrId::kCalls);
    if (fused == nullptr || fused->root() == nullptr) return std::nullopt;
    compare = fused->root();
    outer = root;
  }
  if (compare->opcode() != Opcode::kCompare || compare->operand_count() != 2) return std::nullopt;
  std::optional<Compare> direction = parse_direction(compare->comparison_direction());
  if (!direction) return std::nullopt;
  auto resolve = [&](const Instruction* x) -> const Instruction* {
    if (outer != nullptr && x->opcode() == Opcode::kParameter) {
      const int64_t n = x->parameter_number();
      return n >= 0 && n < static_cast<int64_t>(outer->operand_count())
                 ? outer->operand(static_cast<size_t>(n))
                 : nullptr;
    }
    return x;
  };
  const Instruction* lhs = resolve(compare->operand(0));
  const Instruction* rhs = resolve(compare->operand(1));
  if (std::optional<int64_t> index = state_index(lhs)) {
    if (std::optional<int64_t> bound = integer_constant(rhs)) {
      return Condition{*index, *direction, *bound};
    }
  }
  if (std::optional<int64_t> index = state_index(rhs)) {
    if (std::optional<int64_t> bound = integer_constant(lhs)) {
      return Condition{*index, mirrored(*direction), *bound};
    }
  }
  return std::nullopt;
}

// The constant the body adds to element `index` of the state each iteration.
std::optional<int64_t> read_step(const Computation& body, int64_t index) {
  const Instruction* root = body.root();
  if (root == nullptr || root->opcode() != Opcode::kTuple || index < 0 ||
      index >= static_cast<int64_t>(root->operand_count())) {
    return std::nullopt;
  }
  // The next value, past the copy into scalar memory XLA's TPU programs may make of it.
  const Instruction* next = through_copies(root->operand(static_cast<size_t>(index)));
  if (next == nullptr || next->operand_count() != 2) return std::nullopt;
  const Instruction* a = next->operand(0);
  const Instruction* b = next->operand(1);
  if (next->opcode() == Opcode::kAdd) {
    if (state_index(a) == index) return integer_constant(b);
    if (state_index(b) == index) return integer_constant(a);
  } else if (next->opcode() == Opcode::kSubtract && state_index(a) == index) {
    if (std::optional<int64_t> step = integer_constant(b); step && *step != INT64_MIN) {
      return -*step;
    }
  }
  return std::nullopt;
}

// Iterations of `for (i = start; i CMP bound; i += step)`; nullopt if it never ends.
std::optional<int64_t> count_iterations(Wide start, Compare compare, Wide bound, Wide step) {
  auto holds = [&](Wide i) {
    switch (compare) {
      case Compare::kLt:
        return i < bound;
      case Compare::kLe:
        return i <= bound;
      case Compare::kGt:
        return i > bound;
      case Compare::kGe:
        return i >= bound;
      case Compare::kNe:
        return i != bound;
    }
    return false;
  };
  if (!holds(start)) return 0;
  Wide n = 0;
  switch (compare) {
    case Compare::kLt:  // ceil((bound - start) / step)
      if (step <= 0) return std::nullopt;
      n = (bound - start + step - 1) / step;
      break;
    case Compare::kLe:
      if (step <= 0) return std::nullopt;
      n = (bound - start) / step + 1;
      break;
    case Compare::kGt:
      if (step >= 0) return std::nullopt;
      n = (start - bound - step - 1) / -step;
      break;
    case Compare::kGe:
      if (step >= 0) return std::nullopt;
      n = (start - bound) / -step + 1;
      break;
    case Compare::kNe:
      if (step == 0 || (bound - start) % step != 0 || (bound - start) / step <= 0) {
        return std::nullopt;
      }
      n = (bound - start) / step;
      break;
  }
  if (n > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(n);
}

}  // namespace

std::optional<int64_t> derive_trip_count(const Instruction& while_op) {
  const Computation* condition = while_op.computation_attribute(AttrId::kCondition);
  const Computation* body = while_op.computation_attribute(AttrId::kBody);
  if (condition == nullptr || body == nullptr || while_op.operand_count() != 1) {
    return std::nullopt;
  }
  std::optional<Condition> cond = read_condition(*condition);
  if (!cond) return std::nullopt;
  std::optional<int64_t> step = read_step(*body, cond->index);
  if (!step) return std::nullopt;
  const Instruction* init = while_op.operand(0);
  if (init->opcode() != Opcode::kTuple ||
      cond->index >= static_cast<int64_t>(init->operand_count())) {
    return std::nullopt;
  }
  std::optional<int64_t> start = integer_constant(init->operand(static_cast<size_t>(cond->index)));
  if (!start) return std::nullopt;
  return count_iterations(*start, cond->compare, cond->bound, *step);
}

TripCount while_trip_count(const Instruction& while_op, int64_t default_count) {
  const int64_t known = while_op.backend_config().find_int("/known_trip_count/n").value_or(-1);
  if (known >= 0) return {known, TripCountSource::kBackendConfig};
  if (std::optional<int64_t> n = derive_trip_count(while_op)) {
    return {*n, TripCountSource::kDerived};
  }
  return {std::max<int64_t>(0, default_count), TripCountSource::kAssumed};
}

}  // namespace hloroof::cost
