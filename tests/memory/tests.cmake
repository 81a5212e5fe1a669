# The memory layer's own pieces, below the whole analysis (tests/predict holds those tests).
hloroof_add_test(memory_parts_test
  ${CMAKE_CURRENT_LIST_DIR}/max_tree_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/tree_paths_test.cc
)
target_include_directories(memory_parts_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
