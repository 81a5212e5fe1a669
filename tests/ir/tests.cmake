hloroof_add_test(ir_test
  ${CMAKE_CURRENT_LIST_DIR}/shape_size_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_test.cc
)
