hloroof_add_test(ir_test
  ${CMAKE_CURRENT_LIST_DIR}/arena_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/attribute_record_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/backend_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/byte_scan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_kind_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/edit_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/entry_layout_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_breakdown_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/name_table_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_notes_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_size_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_hash_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/verify_test.cc
)
target_include_directories(ir_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
