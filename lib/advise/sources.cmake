target_sources(hloroof_advise PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/advise.cc
  ${CMAKE_CURRENT_LIST_DIR}/advice_render.cc
  ${CMAKE_CURRENT_LIST_DIR}/rules_common.cc
  ${CMAKE_CURRENT_LIST_DIR}/rules_compute.cc
  ${CMAKE_CURRENT_LIST_DIR}/rules_memory.cc
  ${CMAKE_CURRENT_LIST_DIR}/rules_transfer.cc
)
target_link_libraries(hloroof_advise PRIVATE nlohmann_json::nlohmann_json)
