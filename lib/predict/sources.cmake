target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/buffer_aliasing.cc
  ${CMAKE_CURRENT_LIST_DIR}/buffer_assignment.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_gpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_tpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/collective_xla_gpu.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_liveness.cc
  ${CMAKE_CURRENT_LIST_DIR}/roofline.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule_clock.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_leaves.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_timing.cc
  ${CMAKE_CURRENT_LIST_DIR}/predict.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_walk.cc
  ${CMAKE_CURRENT_LIST_DIR}/timeline.cc
)
