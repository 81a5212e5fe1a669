target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/input_file.cc
)
