target_sources(hloroof PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/huge_pages.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_file.cc
)
