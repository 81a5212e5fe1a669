target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/shape.cc
  ${CMAKE_CURRENT_LIST_DIR}/shape_size.cc
)
