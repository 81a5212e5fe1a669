hloroof_add_test(analysis_test ${CMAKE_CURRENT_LIST_DIR}/analysis_test.cc
                              ${CMAKE_CURRENT_LIST_DIR}/devices_test.cc
                              ${CMAKE_CURRENT_LIST_DIR}/profile_join_test.cc)
