target_sources(hloroof_cost PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analyze.cc
  ${CMAKE_CURRENT_LIST_DIR}/byte_tally.cc
  ${CMAKE_CURRENT_LIST_DIR}/bytes.cc
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cc
  ${CMAKE_CURRENT_LIST_DIR}/convolution.cc
  ${CMAKE_CURRENT_LIST_DIR}/custom_calls.cc
  ${CMAKE_CURRENT_LIST_DIR}/flops.cc
  ${CMAKE_CURRENT_LIST_DIR}/fusion.cc
  ${CMAKE_CURRENT_LIST_DIR}/loops.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_cost.cc
  ${CMAKE_CURRENT_LIST_DIR}/op_view.cc
)
# The private headers the layers above include (hloroof_share_headers): the per-op costs the
# prediction times.
hloroof_share_headers(cost cost_internal.h)
