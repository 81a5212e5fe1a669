hloroof_add_test(hlo_proto_test ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_test.cc)
hloroof_add_test(xspace_equivalence_test ${CMAKE_CURRENT_LIST_DIR}/xspace_equivalence_test.cc)
