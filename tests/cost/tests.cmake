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

# XLA's own cost analysis of the measured GPU programs (../shared/measured, or
# $HLOROOF_MEASURED) against the XLA-compatible totals; SKIPPED when they are absent.
add_executable(xla_gpu_cost_test ${CMAKE_CURRENT_LIST_DIR}/xla_gpu_cost_test.cc)
target_link_libraries(xla_gpu_cost_test PRIVATE hloroof Catch2::Catch2 hloroof_warnings
                                                nlohmann_json::nlohmann_json)
target_compile_definitions(xla_gpu_cost_test PRIVATE
  HLOROOF_SHARED_MEASURED="${PROJECT_SOURCE_DIR}/../shared/measured")
add_test(NAME xla_gpu_cost_test COMMAND xla_gpu_cost_test)
set_tests_properties(xla_gpu_cost_test PROPERTIES SKIP_RETURN_CODE 77)
