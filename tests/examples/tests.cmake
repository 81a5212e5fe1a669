# The compiler passes of examples/, built against the library and run on small modules: each
# prints what it changed and the predicted saving, after verify passed and the printed module
# parsed back (the program fails otherwise).
add_executable(remove_copies ${PROJECT_SOURCE_DIR}/examples/remove_copies.cc)
target_link_libraries(remove_copies PRIVATE hloroof hloroof_warnings)
add_test(NAME example_remove_copies
         COMMAND remove_copies ${PROJECT_SOURCE_DIR}/examples/copies.hlo h100)
# examples/copies.hlo: of its two copies, the one that keeps f32[1024,1024]{1,0} goes (the
# transposing one stays). It read and wrote 4 MiB: 2 x 1024 x 1024 x 4 = 8,388,608 bytes.
set_tests_properties(example_remove_copies PROPERTIES PASS_REGULAR_EXPRESSION
  "removed 1 copies; verify: ok\nHBM traffic: [0-9]+ -> [0-9]+ bytes \\(saved 8388608 bytes\\)")

add_executable(async_collectives ${PROJECT_SOURCE_DIR}/examples/async_collectives.cc)
target_link_libraries(async_collectives PRIVATE hloroof hloroof_warnings)
add_executable(fuse_elementwise ${PROJECT_SOURCE_DIR}/examples/fuse_elementwise.cc)
target_link_libraries(fuse_elementwise PRIVATE hloroof hloroof_warnings)

# Each pass run on its example module (--print), its report checked and the module it printed
# read back, checked for structure and predicted again: tests/examples/passes_test.cc.
hloroof_add_test(example_passes_test ${CMAKE_CURRENT_LIST_DIR}/passes_test.cc)
target_compile_definitions(example_passes_test PRIVATE
  ASYNC_COLLECTIVES="$<TARGET_FILE:async_collectives>"
  FUSE_ELEMENTWISE="$<TARGET_FILE:fuse_elementwise>")
add_dependencies(example_passes_test async_collectives fuse_elementwise)
