hloroof_add_test(cost_test
  ${CMAKE_CURRENT_LIST_DIR}/collectives_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/convolution_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/custom_calls_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/examples_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/fusion_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/golden_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/loops_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/ops_test.cc
)
# The convolution counting is tested directly.
target_include_directories(cost_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)

# The whole corpus, as its own test so that its time and output stand apart.
hloroof_add_corpus_test(cost_corpus_test ${CMAKE_CURRENT_LIST_DIR}/corpus_test.cc)
