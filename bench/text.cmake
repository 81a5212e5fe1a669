# parse_bench: parse throughput and memory per input byte (see bench/parse_bench.cc).
add_executable(parse_bench ${CMAKE_CURRENT_LIST_DIR}/parse_bench.cc)
target_link_libraries(parse_bench PRIVATE hloroof hloroof_warnings)
target_compile_definitions(parse_bench PRIVATE
  HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")

# parse_command_bench: `hloroof parse FILES` as a whole command beside the in-process parse.
if(TARGET hloroof_cli)
  add_executable(parse_command_bench ${CMAKE_CURRENT_LIST_DIR}/parse_command_bench.cc)
  target_link_libraries(parse_command_bench PRIVATE hloroof hloroof_warnings)
  target_compile_definitions(parse_command_bench PRIVATE
    HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>"
    HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")
  add_dependencies(parse_command_bench hloroof_cli)
endif()

# module_memory_bench: bytes per instruction of a parsed module, by kind of object.
add_executable(module_memory_bench ${CMAKE_CURRENT_LIST_DIR}/module_memory_bench.cc)
target_link_libraries(module_memory_bench PRIVATE hloroof hloroof_warnings)
target_include_directories(module_memory_bench PRIVATE ${PROJECT_SOURCE_DIR}/lib)
target_compile_definitions(module_memory_bench PRIVATE
  HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")

# page_cost_bench: what making a 4 KiB page usable costs this machine (the floor under parsing).
add_executable(page_cost_bench ${CMAKE_CURRENT_LIST_DIR}/page_cost_bench.cc)
target_link_libraries(page_cost_bench PRIVATE hloroof hloroof_warnings)
target_compile_definitions(page_cost_bench PRIVATE
  HLOROOF_DEFAULT_CORPUS="${PROJECT_SOURCE_DIR}/../shared/corpus")
