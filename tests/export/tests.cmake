# The writers: the predicted XSpace, read back with the library's generated messages (the HloProto
# writer's round trips are in tests/proto, beside the reader).
hloroof_add_test(export_test ${CMAKE_CURRENT_LIST_DIR}/xspace_test.cc)
target_include_directories(export_test PRIVATE
  $<TARGET_PROPERTY:hloroof_xplane_proto,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(export_test PRIVATE protobuf::libprotobuf)
target_compile_definitions(export_test PRIVATE
  HLOROOF_SHARED_PROFILES="${PROJECT_SOURCE_DIR}/../shared/profiles")
