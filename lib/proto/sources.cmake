# The proto layer: XLA's serialized HLO (HloModuleProto, HloProto with its buffer assignment),
# read into modules (the export layer writes them), and the modules an XSpace profile carries.
# The messages come from our own hlo.proto and xplane.proto (subsets of XLA's and XProf's, same
# field numbers), each compiled by protoc into an object library of its own: generated code is
# not held to our warning flags. The export layer writes XSpaces in the same messages, the
# profile layer reads their timelines.
set(HLOROOF_HLO_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/hlo_proto)
# protoc writes into its output folder but does not make it (Ninja makes it; Make does not).
file(MAKE_DIRECTORY ${HLOROOF_HLO_PROTO_OUT})
get_filename_component(HLOROOF_HLO_PROTO_ROOT ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)
add_library(hloroof_hlo_proto OBJECT ${CMAKE_CURRENT_LIST_DIR}/hlo.proto)
target_link_libraries(hloroof_hlo_proto PUBLIC protobuf::libprotobuf)
set_target_properties(hloroof_hlo_proto PROPERTIES POSITION_INDEPENDENT_CODE ON)
protobuf_generate(TARGET hloroof_hlo_proto LANGUAGE cpp
                  IMPORT_DIRS ${HLOROOF_HLO_PROTO_ROOT} PROTOC_OUT_DIR ${HLOROOF_HLO_PROTO_OUT})
target_include_directories(hloroof_hlo_proto PUBLIC
                           $<BUILD_INTERFACE:${HLOROOF_HLO_PROTO_OUT}>)

set(HLOROOF_XPLANE_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/xplane_proto)
file(MAKE_DIRECTORY ${HLOROOF_XPLANE_PROTO_OUT})
# Imported from lib/, so the generated header is "proto/xplane.pb.h".
add_library(hloroof_xplane_proto OBJECT ${CMAKE_CURRENT_LIST_DIR}/xplane.proto)
target_link_libraries(hloroof_xplane_proto PUBLIC protobuf::libprotobuf)
set_target_properties(hloroof_xplane_proto PROPERTIES POSITION_INDEPENDENT_CODE ON)
protobuf_generate(TARGET hloroof_xplane_proto LANGUAGE cpp
                  IMPORT_DIRS ${HLOROOF_HLO_PROTO_ROOT} PROTOC_OUT_DIR ${HLOROOF_XPLANE_PROTO_OUT})
target_include_directories(hloroof_xplane_proto PUBLIC
                           $<BUILD_INTERFACE:${HLOROOF_XPLANE_PROTO_OUT}>)

set(HLOROOF_HLO_PROTO_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_reader.cc
  ${CMAKE_CURRENT_LIST_DIR}/opcode_attributes.cc
  ${CMAKE_CURRENT_LIST_DIR}/proto_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_kind.cc
  ${CMAKE_CURRENT_LIST_DIR}/xla_buffer_assignment.cc
  ${CMAKE_CURRENT_LIST_DIR}/xspace_modules.cc
)
target_sources(hloroof_proto PRIVATE $<TARGET_OBJECTS:hloroof_hlo_proto>
                                     $<TARGET_OBJECTS:hloroof_xplane_proto>
                                     ${HLOROOF_HLO_PROTO_SOURCES})
add_dependencies(hloroof_proto hloroof_hlo_proto hloroof_xplane_proto)
set_source_files_properties(${HLOROOF_HLO_PROTO_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES "${HLOROOF_HLO_PROTO_OUT};${HLOROOF_XPLANE_PROTO_OUT}")
target_link_libraries(hloroof_proto PRIVATE protobuf::libprotobuf)
# The private headers the layers above include (hloroof_share_headers): what the HloProto
# writer (lib/export) shares with the reader, XLA's element types and narrow floats, the dot
# algorithms' names, and the XSpace's wire format, counted before it is decoded (the profile
# layer reads the timelines with it).
hloroof_share_headers(proto hlo_proto_internal.h dot_algorithms.h xspace_wire.h)
