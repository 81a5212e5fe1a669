hloroof_add_test(analysis_test ${CMAKE_CURRENT_LIST_DIR}/analysis_test.cc)
