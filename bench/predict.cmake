# predict_bench: milliseconds per step prediction of the largest corpus module, parse included
# (see bench/predict_bench.cc).
add_executable(predict_bench ${CMAKE_CURRENT_LIST_DIR}/predict_bench.cc)
target_link_libraries(predict_bench PRIVATE hloroof hloroof_warnings)
target_compile_definitions(predict_bench PRIVATE
  HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")

# accuracy_bench: the roofline and the expected time against the measured GPU tables, on the
# half of the rows the shipped model was not fitted on (see bench/accuracy_bench.cc).
add_executable(accuracy_bench ${CMAKE_CURRENT_LIST_DIR}/accuracy_bench.cc)
target_include_directories(accuracy_bench PRIVATE ${PROJECT_SOURCE_DIR}/lib)
target_link_libraries(accuracy_bench PRIVATE hloroof hloroof_warnings)
target_compile_definitions(accuracy_bench PRIVATE HLOROOF_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
