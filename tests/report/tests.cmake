hloroof_add_test(report_test
  ${CMAKE_CURRENT_LIST_DIR}/units_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/diff_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline_svg_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_table_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_stats_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_report_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_view_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline_view_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/comparison_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_json_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/summary_json_test.cc
)
# Rendered charts go under the build tree.
target_compile_definitions(report_test PRIVATE HLOROOF_TEST_OUT="${CMAKE_CURRENT_BINARY_DIR}"
  HLOROOF_SHARED_PROFILES="${PROJECT_SOURCE_DIR}/../shared/profiles")
# The JSON writer the commands stream their reports with (lib/report/json_writer.h).
hloroof_add_test(json_writer_test ${CMAKE_CURRENT_LIST_DIR}/json_writer_test.cc
                                  ${CMAKE_CURRENT_LIST_DIR}/csv_text_test.cc)
target_include_directories(json_writer_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
target_link_libraries(json_writer_test PRIVATE nlohmann_json::nlohmann_json)
