# The export layer: everything hloroof writes for other tools to read. HloModuleProto and
# HloProto (with XLA's buffer assignment) in the messages of lib/proto/hlo.proto, and a
# predicted step as an XSpace in those of lib/proto/xplane.proto, which the proto layer below
# compiles and reads.
set(HLOROOF_EXPORT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_buffers.cc
  ${CMAKE_CURRENT_LIST_DIR}/hlo_proto_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/xspace.cc
)
target_sources(hloroof_export PRIVATE ${HLOROOF_EXPORT_SOURCES})
add_dependencies(hloroof_export hloroof_xplane_proto hloroof_hlo_proto)
set_source_files_properties(${HLOROOF_EXPORT_SOURCES} PROPERTIES
  INCLUDE_DIRECTORIES "${HLOROOF_HLO_PROTO_OUT};${HLOROOF_XPLANE_PROTO_OUT}")
target_link_libraries(hloroof_export PRIVATE protobuf::libprotobuf)
