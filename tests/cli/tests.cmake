hloroof_add_test(cli_test ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc
                          ${CMAKE_CURRENT_LIST_DIR}/cost_cli_test.cc
                          ${CMAKE_CURRENT_LIST_DIR}/predict_cli_test.cc)
target_compile_definitions(cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(cli_test hloroof_cli)

hloroof_add_test(memory_cli_test ${CMAKE_CURRENT_LIST_DIR}/memory_cli_test.cc)
target_compile_definitions(memory_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(memory_cli_test hloroof_cli)

hloroof_add_test(report_cli_test ${CMAKE_CURRENT_LIST_DIR}/report_cli_test.cc)
target_compile_definitions(report_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(report_cli_test hloroof_cli)

hloroof_add_test(advise_cli_test ${CMAKE_CURRENT_LIST_DIR}/advise_cli_test.cc)
target_compile_definitions(advise_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(advise_cli_test hloroof_cli)

hloroof_add_test(input_cli_test ${CMAKE_CURRENT_LIST_DIR}/input_cli_test.cc)
target_compile_definitions(input_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>"
                                                  HLOROOF_TEST_OUT="${CMAKE_CURRENT_BINARY_DIR}")
add_dependencies(input_cli_test hloroof_cli)

hloroof_add_test(output_cli_test ${CMAKE_CURRENT_LIST_DIR}/output_cli_test.cc)
target_compile_definitions(output_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(output_cli_test hloroof_cli)

# The sample outputs in the README and the docs are what the command and the example passes
# (tests/examples) print today (tools/regen_doc_outputs.py rewrites them).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME doc_outputs_test
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/regen_doc_outputs.py --check
                   --cli $<TARGET_FILE:hloroof_cli>
                   --program remove_copies=$<TARGET_FILE:remove_copies>
                   --program async_collectives=$<TARGET_FILE:async_collectives>
                   --program fuse_elementwise=$<TARGET_FILE:fuse_elementwise>
                   ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/reports.md
                   ${PROJECT_SOURCE_DIR}/docs/memory.md ${PROJECT_SOURCE_DIR}/docs/cli.md
                   ${PROJECT_SOURCE_DIR}/docs/library.md)
endif()

# The command's code is laid out by tools/link_order.txt (tools/CMakeLists.txt): the file must
# still name the code, and the functions `parse` runs must lie together.
get_property(link_ordered GLOBAL PROPERTY HLOROOF_CLI_LINK_ORDERED)
find_package(Python3 COMPONENTS Interpreter)
if(link_ordered AND Python3_Interpreter_FOUND)
  add_test(NAME link_order_test
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/link_order.py --check
                   $<TARGET_FILE:hloroof_cli>)
endif()

hloroof_add_test(first_run_cli_test ${CMAKE_CURRENT_LIST_DIR}/first_run_cli_test.cc)
target_compile_definitions(first_run_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>"
  HLOROOF_TEST_OUT="${CMAKE_CURRENT_BINARY_DIR}")
add_dependencies(first_run_cli_test hloroof_cli)

hloroof_add_test(proto_input_cli_test ${CMAKE_CURRENT_LIST_DIR}/proto_input_cli_test.cc)
target_compile_definitions(proto_input_cli_test PRIVATE
  HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>" HLOROOF_TEST_OUT="${CMAKE_CURRENT_BINARY_DIR}")
add_dependencies(proto_input_cli_test hloroof_cli)

# The same on real modules of the shared corpus; SKIPPED when it is absent.
hloroof_add_corpus_test(first_run_corpus_test ${CMAKE_CURRENT_LIST_DIR}/first_run_corpus_test.cc)
target_compile_definitions(first_run_corpus_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(first_run_corpus_test hloroof_cli)

hloroof_add_test(completion_cli_test ${CMAKE_CURRENT_LIST_DIR}/completion_cli_test.cc)
target_compile_definitions(completion_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>"
                                                       HLOROOF_TEST_OUT="${CMAKE_CURRENT_BINARY_DIR}")
add_dependencies(completion_cli_test hloroof_cli)
