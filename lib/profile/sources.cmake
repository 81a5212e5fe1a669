# The profile layer: measured profiles (XSpace protobuf, trace-event JSON), the join with a
# prediction, calibration. The XSpace messages come from our own xplane.proto, compiled by
# protoc into an object library of its own: generated code is not held to our warning flags.
set(HLOROOF_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/proto)
# Imported from lib/, so the generated header is "profile/xplane.pb.h".
get_filename_component(HLOROOF_PROTO_ROOT ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)
add_library(hloroof_xplane_proto OBJECT ${CMAKE_CURRENT_LIST_DIR}/xplane.proto)
target_link_libraries(hloroof_xplane_proto PUBLIC protobuf::libprotobuf)
set_target_properties(hloroof_xplane_proto PROPERTIES POSITION_INDEPENDENT_CODE ON)
protobuf_generate(TARGET hloroof_xplane_proto LANGUAGE cpp
                  IMPORT_DIRS ${HLOROOF_PROTO_ROOT} PROTOC_OUT_DIR ${HLOROOF_PROTO_OUT})
target_include_directories(hloroof_xplane_proto PUBLIC $<BUILD_INTERFACE:${HLOROOF_PROTO_OUT}>)

set(HLOROOF_PROFILE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/calibrate.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_resolver.cc
  ${CMAKE_CURRENT_LIST_DIR}/measure.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_metadata.cc
  ${CMAKE_CURRENT_LIST_DIR}/read_profile.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
)
target_sources(hloroof PRIVATE $<TARGET_OBJECTS:hloroof_xplane_proto> ${HLOROOF_PROFILE_SOURCES})
add_dependencies(hloroof hloroof_xplane_proto)
# The generated headers and Eigen (header-only; a system include, so its own warnings stay
# quiet) for these files only.
get_target_property(HLOROOF_EIGEN_INCLUDE Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
set_source_files_properties(${HLOROOF_PROFILE_SOURCES} ${HLOROOF_XSPACE_WRITER_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES ${HLOROOF_PROTO_OUT}
  COMPILE_OPTIONS "-isystem;${HLOROOF_EIGEN_INCLUDE}")
target_link_libraries(hloroof PRIVATE protobuf::libprotobuf ZLIB::ZLIB)
