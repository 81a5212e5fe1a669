hloroof_add_test(hlo_proto_test ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_test.cc)
hloroof_add_test(xspace_equivalence_test ${CMAKE_CURRENT_LIST_DIR}/xspace_equivalence_test.cc)
# hlo_proto_buffers_test reads the written HloProto with the library's generated messages.
hloroof_add_test(hlo_proto_buffers_test ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_buffers_test.cc)
target_include_directories(hlo_proto_buffers_test PRIVATE
  $<TARGET_PROPERTY:hloroof_hlo_proto,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(hlo_proto_buffers_test PRIVATE protobuf::libprotobuf)
# ... and the HloProto in pieces (lib/export/hlo_proto_pieces.h).
target_include_directories(hlo_proto_buffers_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# hlo_proto_wide_tuple_test counts the heap bytes a wide tuple's proto takes to read, against
# the size of the generated ShapeProto each leaf would take decoded.
hloroof_add_test(hlo_proto_wide_tuple_test ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_wide_tuple_test.cc)
target_include_directories(hlo_proto_wide_tuple_test PRIVATE
  $<TARGET_PROPERTY:hloroof_hlo_proto,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(hlo_proto_wide_tuple_test PRIVATE protobuf::libprotobuf)
