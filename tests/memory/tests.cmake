# The memory layer's own pieces, below the whole analysis.
hloroof_add_test(memory_parts_test
  ${CMAKE_CURRENT_LIST_DIR}/max_tree_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tree_paths_test.cc
)
target_include_directories(memory_parts_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# The whole analysis: liveness and buffer assignment, on hand-made modules and the corpus.
hloroof_add_test(memory_test
  ${CMAKE_CURRENT_LIST_DIR}/buffer_assignment_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_test.cc
)
hloroof_add_corpus_test(memory_corpus_test ${CMAKE_CURRENT_LIST_DIR}/memory_corpus_test.cc)
hloroof_add_test(buffer_assignment_work_test
  ${CMAKE_CURRENT_LIST_DIR}/buffer_assignment_work_test.cc)
target_include_directories(buffer_assignment_work_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# Buffer assignment against XLA's own on FFT programs it compiled (tests/data/xla_fft).
hloroof_add_test(xla_fft_memory_test ${CMAKE_CURRENT_LIST_DIR}/xla_fft_memory_test.cc)
# The heap the memory analysis holds per leaf of a wide tuple parameter (counted, not timed).
hloroof_add_test(memory_wide_tuple_test ${CMAKE_CURRENT_LIST_DIR}/memory_wide_tuple_test.cc)
target_include_directories(memory_wide_tuple_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
