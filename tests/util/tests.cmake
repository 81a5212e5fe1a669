hloroof_add_test(util_test
  ${CMAKE_CURRENT_LIST_DIR}/input_file_test.cc
)
