hloroof_add_test(util_test
  ${CMAKE_CURRENT_LIST_DIR}/input_file_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_file_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/number_text_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/heap_optional_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/huge_pages_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_pool_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/threads_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/make_emit_test.cc
)
target_include_directories(util_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
