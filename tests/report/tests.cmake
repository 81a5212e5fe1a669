hloroof_add_test(report_test
  ${CMAKE_CURRENT_LIST_DIR}/units_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline_svg_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/trace_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_table_test.cc
)
