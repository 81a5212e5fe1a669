hloroof_add_test(memory_test
  ${CMAKE_CURRENT_LIST_DIR}/memory_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_corpus_test.cc
)
