target_sources(hloroof_text PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/attribute_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/diagnostic.cc
  ${CMAKE_CURRENT_LIST_DIR}/instruction_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/instruction_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/lexer.cc
  ${CMAKE_CURRENT_LIST_DIR}/literal_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/metadata_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_printer.cc
  ${CMAKE_CURRENT_LIST_DIR}/parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_parser.cc
  ${CMAKE_CURRENT_LIST_DIR}/sharding_parser.cc
)
# The private headers the layers above include (hloroof_share_headers): the characters of a
# name (the proto reader checks names) and the instruction printer (the XSpace writer's).
hloroof_share_headers(text name_chars.h printer.h)
