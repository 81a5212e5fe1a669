// Module header attributes (docs/hlo-text.md, "Module header"), in the order the printer writes
// them.
#ifndef HLOROOF_TEXT_MODULE_ATTRIBUTES_H_
#define HLOROOF_TEXT_MODULE_ATTRIBUTES_H_

#include <array>
#include <string_view>

namespace hloroof::text {

inline constexpr std::array<std::string_view, 12> kModuleAttributeOrder = {
    "is_scheduled",
    "input_output_alias",
    "buffer_donor",
    "alias_passthrough_params",
    "entry_computation_layout",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output",
    "replica_count",
    "num_partitions",
    "frontend_attributes",
    "origin_recovery_table",
    "debug_attributes",
};

// Index in kModuleAttributeOrder, or -1.
inline int module_attribute_rank(std::string_view name) {
  for (size_t i = 0; i < kModuleAttributeOrder.size(); ++i) {
    if (kModuleAttributeOrder[i] == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace hloroof::text

#endif  // HLOROOF_TEXT_MODULE_ATTRIBUTES_H_
