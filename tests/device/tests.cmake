hloroof_add_test(device_test
  ${CMAKE_CURRENT_LIST_DIR}/device_spec_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/topology_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/device_target_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/platform_test.cc
)

if(TARGET hloroof_cli)
  hloroof_add_test(devices_cli_test ${CMAKE_CURRENT_LIST_DIR}/devices_cli_test.cc)
  target_include_directories(devices_cli_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/cli)
  target_compile_definitions(devices_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>"
                                                      HLOROOF_TEST_OUT="${CMAKE_CURRENT_BINARY_DIR}")
  add_dependencies(devices_cli_test hloroof_cli)
endif()
