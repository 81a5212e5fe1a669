hloroof_add_test(text_test
  ${CMAKE_CURRENT_LIST_DIR}/lexer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_text_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tricky_valid_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/invalid_input_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/instruction_storage_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/instruction_fast_path_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/metadata_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/module_graph_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/printer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_inference_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/wide_tuple_test.cc
)
# The lexer and parser internals are tested directly.
target_include_directories(text_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)

# Conformance over the shared corpus; SKIPPED when the corpus is absent.
hloroof_add_corpus_test(text_conformance_test ${CMAKE_CURRENT_LIST_DIR}/conformance_test.cc)

# The `hloroof parse` command, run as a user would.
if(TARGET hloroof_cli)
  hloroof_add_test(parse_cli_test ${CMAKE_CURRENT_LIST_DIR}/parse_cli_test.cc)
  target_compile_definitions(parse_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
  add_dependencies(parse_cli_test hloroof_cli)
endif()
