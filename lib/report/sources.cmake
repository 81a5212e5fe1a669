target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/units.cc
)
target_sources(hloroof PRIVATE ${CMAKE_CURRENT_LIST_DIR}/roofline_svg.cc)
target_sources(hloroof PRIVATE ${CMAKE_CURRENT_LIST_DIR}/trace.cc)
target_sources(hloroof PRIVATE ${CMAKE_CURRENT_LIST_DIR}/text_table.cc)
target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/prediction_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/prediction_trace.cc
)
