hloroof_add_test(load_test ${CMAKE_CURRENT_LIST_DIR}/load_test.cc)
