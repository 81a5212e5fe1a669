target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/buffer_aliasing.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_liveness.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_leaves.cc
)
