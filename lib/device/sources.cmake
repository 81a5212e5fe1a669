target_sources(hloroof_device PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/device_registry.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_spec.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_spec_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_target.cc
  ${CMAKE_CURRENT_LIST_DIR}/platform.cc
  ${CMAKE_CURRENT_LIST_DIR}/topology.cc
  ${CMAKE_CURRENT_LIST_DIR}/group_placement.cc
  ${CMAKE_CURRENT_LIST_DIR}/spec_units.cc
)

# The built-in device specs are compiled in, so `device("tpu_v5e")` needs no file on disk.
include(${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake)
file(GLOB hloroof_device_specs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/data/hardware/*.json)
hloroof_embed_files(TARGET hloroof_device OUTPUT builtin_device_files.cc
                    FUNCTION builtin_device_files HEADER device/embedded_files.h
                    FILES ${hloroof_device_specs})
target_link_libraries(hloroof_device PRIVATE nlohmann_json::nlohmann_json)
# The private headers the layers above include (hloroof_share_headers): the built-in device
# files and spec units, which the prediction and the profile layer read.
hloroof_share_headers(device embedded_files.h spec_units.h)
