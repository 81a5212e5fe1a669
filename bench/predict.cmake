# predict_bench: milliseconds per step prediction of the largest corpus module, parse included
# (see bench/predict_bench.cc).
add_executable(predict_bench ${CMAKE_CURRENT_LIST_DIR}/predict_bench.cc)
target_link_libraries(predict_bench PRIVATE hloroof hloroof_warnings)
target_compile_definitions(predict_bench PRIVATE
  HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")
