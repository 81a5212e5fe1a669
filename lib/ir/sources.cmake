target_sources(hloroof_ir PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/arena.cc
  ${CMAKE_CURRENT_LIST_DIR}/attributes.cc
  ${CMAKE_CURRENT_LIST_DIR}/backend_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/computation.cc
  ${CMAKE_CURRENT_LIST_DIR}/edge_list.cc
  ${CMAKE_CURRENT_LIST_DIR}/edit.cc
  ${CMAKE_CURRENT_LIST_DIR}/graph.cc
  ${CMAKE_CURRENT_LIST_DIR}/instruction.cc
  ${CMAKE_CURRENT_LIST_DIR}/instruction_rules.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_breakdown.cc
  ${CMAKE_CURRENT_LIST_DIR}/mapped_memory.cc
  ${CMAKE_CURRENT_LIST_DIR}/metadata.cc
  ${CMAKE_CURRENT_LIST_DIR}/module.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_compare.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_notes.cc
  ${CMAKE_CURRENT_LIST_DIR}/opcode.cc
  ${CMAKE_CURRENT_LIST_DIR}/replica_groups.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_kind.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_inference.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_printer.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_size.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_table.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/sharding.cc
  ${CMAKE_CURRENT_LIST_DIR}/verify.cc
)
target_link_libraries(hloroof_ir PRIVATE nlohmann_json::nlohmann_json)
# The private headers the layers above include (hloroof_share_headers): what the text parser
# builds modules with (module_state.h and what it holds), and the shape helpers the layers
# above print and infer shapes with.
hloroof_share_headers(ir arena.h arena_allocator.h byte_scan.h edge_list.h instruction_rules.h
                         memory_breakdown.h metadata_scan.h module_state.h name_table.h op_notes.h
                         shape_inference.h shape_printer.h shape_table.h shape_util.h)
