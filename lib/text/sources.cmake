target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/diagnostic.cc
  ${CMAKE_CURRENT_LIST_DIR}/lexer.cc
  ${CMAKE_CURRENT_LIST_DIR}/parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_printer.cc
)
