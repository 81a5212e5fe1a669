target_sources(hloroof_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/summary_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/units.cc
)
target_sources(hloroof_report PRIVATE ${CMAKE_CURRENT_LIST_DIR}/roofline_svg.cc)
target_sources(hloroof_report PRIVATE ${CMAKE_CURRENT_LIST_DIR}/trace.cc)
target_sources(hloroof_report PRIVATE ${CMAKE_CURRENT_LIST_DIR}/text_table.cc)
target_sources(hloroof_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/csv_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_text.cc
)
target_sources(hloroof_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/op_filter.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_stats_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/overview_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/collectives_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline_view.cc
  ${CMAKE_CURRENT_LIST_DIR}/comparison.cc
  ${CMAKE_CURRENT_LIST_DIR}/diff_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/unknown_work.cc
)
# The XSpace writer builds the messages of lib/profile/xplane.proto, compiled here by protoc
# into an object library of its own (generated code is not held to our warning flags); the
# profile layer, above, reads them.
set(HLOROOF_PROTO_OUT ${CMAKE_CURRENT_BINARY_DIR}/proto)
file(MAKE_DIRECTORY ${HLOROOF_PROTO_OUT})  # protoc does not make it
# Imported from lib/, so the generated header is "profile/xplane.pb.h".
get_filename_component(HLOROOF_PROTO_ROOT ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)
add_library(hloroof_xplane_proto OBJECT ${HLOROOF_PROTO_ROOT}/profile/xplane.proto)
target_link_libraries(hloroof_xplane_proto PUBLIC protobuf::libprotobuf)
set_target_properties(hloroof_xplane_proto PROPERTIES POSITION_INDEPENDENT_CODE ON)
protobuf_generate(TARGET hloroof_xplane_proto LANGUAGE cpp
                  IMPORT_DIRS ${HLOROOF_PROTO_ROOT} PROTOC_OUT_DIR ${HLOROOF_PROTO_OUT})
target_include_directories(hloroof_xplane_proto PUBLIC $<BUILD_INTERFACE:${HLOROOF_PROTO_OUT}>)

target_sources(hloroof_report PRIVATE $<TARGET_OBJECTS:hloroof_xplane_proto>
                                      ${CMAKE_CURRENT_LIST_DIR}/xspace.cc)
add_dependencies(hloroof_report hloroof_xplane_proto)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/xspace.cc PROPERTIES
  INCLUDE_DIRECTORIES ${HLOROOF_PROTO_OUT})
target_link_libraries(hloroof_report PRIVATE protobuf::libprotobuf nlohmann_json::nlohmann_json
                                             PkgConfig::RE2)
