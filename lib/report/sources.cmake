target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/units.cc
)
target_sources(hloroof PRIVATE ${CMAKE_CURRENT_LIST_DIR}/roofline_svg.cc)
target_sources(hloroof PRIVATE ${CMAKE_CURRENT_LIST_DIR}/trace.cc)
target_sources(hloroof PRIVATE ${CMAKE_CURRENT_LIST_DIR}/text_table.cc)
target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/json_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_text.cc
)
target_sources(hloroof PRIVATE
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
# The XSpace writer builds the messages of lib/profile/xplane.proto (generated in
# profile/sources.cmake, which gives this file their include folder).
set(HLOROOF_XSPACE_WRITER_SOURCES ${CMAKE_CURRENT_LIST_DIR}/xspace.cc)
target_sources(hloroof PRIVATE ${HLOROOF_XSPACE_WRITER_SOURCES})
