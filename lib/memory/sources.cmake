# The memory layer: liveness, XLA's buffer assignment as hloroof models it, the peak and the
# fit verdict (hloroof/memory.h). Beside cost, below prediction: nothing in predict uses it.
target_sources(hloroof_memory PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/buffer_aliasing.cc
  ${CMAKE_CURRENT_LIST_DIR}/buffer_assignment.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_liveness.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_leaves.cc
  ${CMAKE_CURRENT_LIST_DIR}/temp_heap.cc
  ${CMAKE_CURRENT_LIST_DIR}/tuple_tables.cc
)
target_link_libraries(hloroof_memory PRIVATE PkgConfig::RE2)
