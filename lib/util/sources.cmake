target_sources(hloroof_util PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/huge_pages.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_pool.cc
  ${CMAKE_CURRENT_LIST_DIR}/text_safety.cc
  ${CMAKE_CURRENT_LIST_DIR}/threads.cc
  ${CMAKE_CURRENT_LIST_DIR}/units.cc
  ${CMAKE_CURRENT_LIST_DIR}/version.cc
)
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/version.cc APPEND PROPERTY COMPILE_DEFINITIONS
             HLOROOF_VERSION="${PROJECT_VERSION}")
# run_on_threads starts threads.
target_link_libraries(hloroof_util PRIVATE Threads::Threads)
# The private headers the layers above include (hloroof_share_headers): all of util's.
hloroof_share_headers(util checked_math.h fields.h number_text.h prefetch.h
                           string_view_hash.h wire_reader.h)
