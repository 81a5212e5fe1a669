# The profile layer: measured profiles (XSpace protobuf, trace-event JSON), the join with a
# prediction, calibration. The XSpace messages (lib/proto/xplane.proto) and their wire format
# are the proto layer's (proto/sources.cmake).
set(HLOROOF_PROFILE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/calibrate.cc
  ${CMAKE_CURRENT_LIST_DIR}/calibrate_nccl_tests.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_resolver.cc
  ${CMAKE_CURRENT_LIST_DIR}/measure.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_tests.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_metadata.cc
  ${CMAKE_CURRENT_LIST_DIR}/read_profile.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
)
target_sources(hloroof_profile PRIVATE ${HLOROOF_PROFILE_SOURCES})
add_dependencies(hloroof_profile hloroof_xplane_proto)
# The generated headers and Eigen (header-only; a system include, so its own warnings stay
# quiet) for these files only.
get_target_property(HLOROOF_EIGEN_INCLUDE Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
set_source_files_properties(${HLOROOF_PROFILE_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES ${HLOROOF_XPLANE_PROTO_OUT}
  COMPILE_OPTIONS "-isystem;${HLOROOF_EIGEN_INCLUDE}")
target_link_libraries(hloroof_profile PRIVATE protobuf::libprotobuf ZLIB::ZLIB
                                              nlohmann_json::nlohmann_json)
