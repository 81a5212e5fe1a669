target_sources(hloroof_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/analysis_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/summary_json.cc
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
target_link_libraries(hloroof_report PRIVATE nlohmann_json::nlohmann_json PkgConfig::RE2)
