# parse_bench: parse throughput and memory per input byte (see bench/parse_bench.cc).
add_executable(parse_bench ${CMAKE_CURRENT_LIST_DIR}/parse_bench.cc)
target_link_libraries(parse_bench PRIVATE hloroof hloroof_warnings)
target_compile_definitions(parse_bench PRIVATE
  HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")
