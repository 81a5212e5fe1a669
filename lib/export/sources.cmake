# The export layer: everything hloroof writes for other tools to read. HloModuleProto and
# HloProto (with XLA's buffer assignment) in the messages of lib/proto/hlo.proto, which the
# proto layer below compiles and reads; a predicted step as an XSpace in the messages of
# xplane.proto (here), which the profile layer above reads too. protoc compiles xplane.proto
# into an object library of its own, as the proto layer's hlo.proto: generated code is not
# held to our warning flags.
set(HLOROOF_XPLANE_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/xplane_proto)
file(MAKE_DIRECTORY ${HLOROOF_XPLANE_PROTO_OUT})  # protoc does not make it
# Imported from lib/, so the generated header is "export/xplane.pb.h".
get_filename_component(HLOROOF_XPLANE_PROTO_ROOT ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)
add_library(hloroof_xplane_proto OBJECT ${CMAKE_CURRENT_LIST_DIR}/xplane.proto)
target_link_libraries(hloroof_xplane_proto PUBLIC protobuf::libprotobuf)
set_target_properties(hloroof_xplane_proto PROPERTIES POSITION_INDEPENDENT_CODE ON)
protobuf_generate(TARGET hloroof_xplane_proto LANGUAGE cpp
                  IMPORT_DIRS ${HLOROOF_XPLANE_PROTO_ROOT} PROTOC_OUT_DIR ${HLOROOF_XPLANE_PROTO_OUT})
target_include_directories(hloroof_xplane_proto PUBLIC
                           $<BUILD_INTERFACE:${HLOROOF_XPLANE_PROTO_OUT}>)

set(HLOROOF_EXPORT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_buffers.cc
  ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/xspace.cc
)
target_sources(hloroof_export PRIVATE $<TARGET_OBJECTS:hloroof_xplane_proto>
                                      ${HLOROOF_EXPORT_SOURCES})
add_dependencies(hloroof_export hloroof_xplane_proto hloroof_hlo_proto)
set_source_files_properties(${HLOROOF_EXPORT_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES "${HLOROOF_HLO_PROTO_OUT};${HLOROOF_XPLANE_PROTO_OUT}")
target_link_libraries(hloroof_export PRIVATE protobuf::libprotobuf)
