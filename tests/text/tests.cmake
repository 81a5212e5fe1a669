hloroof_add_test(text_test
  ${CMAKE_CURRENT_LIST_DIR}/lexer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_text_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tricky_valid_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/invalid_input_test.cc
)
# The lexer and parser internals are tested directly.
target_include_directories(text_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)

# Conformance over the shared corpus; skips (with a warning) when the corpus is absent.
hloroof_add_test(text_conformance_test ${CMAKE_CURRENT_LIST_DIR}/conformance_test.cc)
