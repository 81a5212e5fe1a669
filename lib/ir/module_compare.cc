// structurally_equal: two modules describe the same graph.
#include <algorithm>

#include "hloroof/module.h"
#include "hloroof/replica_groups.h"
#include "hloroof/sharding.h"
#include "ir/metadata_scan.h"
#include "hloroof/absl_compat.h"

namespace hloroof {
namespace {

// Equal decoded values; attributes kept only as text compare their text.
bool same_value(const Attribute& a, const Attribute& b) {
  // Metadata is kept as text or as a decoded record, depending on how it was spelled.
  if (a.id == AttrId::kMetadata) return detail::decode_metadata(&a) == detail::decode_metadata(&b);
  if (a.value_index() != b.value_index()) return false;
  const AttrValue b_value = b.value();
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b_value);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return a.text() == b.text();
        } else if constexpr (std::is_same_v<T, IntList>) {
          return std::equal(x.begin(), x.end(), y.begin(), y.end());
        } else if constexpr (std::is_same_v<T, Computation*>) {
          return x->name() == y->name();
        } else if constexpr (std::is_same_v<T, ComputationList>) {
          return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                            [](Computation* p, Computation* q) { return p->name() == q->name(); });
        } else if constexpr (std::is_same_v<T, InstructionList>) {
          return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                            [](Instruction* p, Instruction* q) { return p->name() == q->name(); });
        } else if constexpr (std::is_pointer_v<T>) {
          return *x == *y;
        } else {
          return x == y;
        }
      },
      a.value());
}

bool differ(std::string* difference, std::string message) {
  if (difference != nullptr) *difference = std::move(message);
  return false;
}

bool same_instruction(const Instruction& a, const Instruction& b, std::string* difference) {
  std::string where = str_cat("instruction ", a.name());
  if (a.name() != b.name()) return differ(difference, str_cat(where, " vs ", b.name()));
  if (a.opcode() != b.opcode() || a.uses_async_sugar() != b.uses_async_sugar() ||
      a.async_wrapped_opcode() != b.async_wrapped_opcode()) {
    return differ(difference, str_cat(where, ": opcodes differ"));
  }
  if (a.shape() != b.shape()) return differ(difference, str_cat(where, ": shapes differ"));
  if (a.is_root() != b.is_root()) return differ(difference, str_cat(where, ": root differs"));
  if (a.parameter_number() != b.parameter_number() || a.literal_text() != b.literal_text()) {
    return differ(difference, str_cat(where, ": parameter number or literal differs"));
  }
  if (a.operand_count() != b.operand_count()) {
    return differ(difference, str_cat(where, ": operand counts differ"));
  }
  for (size_t k = 0; k < a.operand_count(); ++k) {
    if (a.operand(k)->name() != b.operand(k)->name()) {
      return differ(difference, str_cat(where, ": operand ", k, " differs"));
    }
  }
  if (a.attributes().size() != b.attributes().size()) {
    return differ(difference, str_cat(where, ": attribute counts differ"));
  }
  for (size_t k = 0; k < a.attributes().size(); ++k) {
    const Attribute& x = a.attributes()[k];
    const Attribute& y = b.attributes()[k];
    if (x.id != y.id || !same_value(x, y)) {
      return differ(difference, str_cat(where, ": attribute ", x.name(), " differs"));
    }
  }
  return true;
}

// Both null, or both set to equal shapes.
bool same_shape(const Shape* a, const Shape* b) {
  return a == b || (a != nullptr && b != nullptr && *a == *b);
}

}  // namespace

bool operator==(const ModuleAttributes& a, const ModuleAttributes& b) {
  return a.is_scheduled == b.is_scheduled && a.replica_count == b.replica_count &&
         a.num_partitions == b.num_partitions &&
         a.has_entry_computation_layout == b.has_entry_computation_layout &&
         std::equal(a.entry_parameter_layouts.begin(), a.entry_parameter_layouts.end(),
                    b.entry_parameter_layouts.begin(), b.entry_parameter_layouts.end(),
                    same_shape) &&
         same_shape(a.entry_result_layout, b.entry_result_layout) &&
         a.has_input_output_alias == b.has_input_output_alias &&
         a.input_output_alias == b.input_output_alias && a.has_buffer_donor == b.has_buffer_donor &&
         a.buffer_donor == b.buffer_donor && a.others == b.others;
}

bool structurally_equal(const Module& a, const Module& b, std::string* difference) {
  if (a.name() != b.name()) return differ(difference, "module names differ");
  if (!(a.attributes() == b.attributes())) return differ(difference, "module headers differ");
  if (!(a.stack_frames() == b.stack_frames())) {
    return differ(difference, "stack-frame tables differ");
  }
  if (a.computations().size() != b.computations().size()) {
    return differ(difference, "computation counts differ");
  }
  for (size_t c = 0; c < a.computations().size(); ++c) {
    const Computation& x = *a.computations()[c];
    const Computation& y = *b.computations()[c];
    std::string where = str_cat("computation ", x.name());
    if (x.name() != y.name()) return differ(difference, str_cat(where, " vs ", y.name()));
    if (x.is_entry() != y.is_entry() || x.execution_thread() != y.execution_thread()) {
      return differ(difference, str_cat(where, ": entry or execution thread differs"));
    }
    if (x.instruction_count() != y.instruction_count()) {
      return differ(difference, str_cat(where, ": instruction counts differ"));
    }
    for (size_t i = 0; i < x.instruction_count(); ++i) {
      if (!same_instruction(*x.instructions()[i], *y.instructions()[i], difference)) return false;
    }
  }
  return true;
}

}  // namespace hloroof
