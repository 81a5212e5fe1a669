hloroof_add_test(profile_test
  ${CMAKE_CURRENT_LIST_DIR}/calibrate_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/calibrate_nccl_tests_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/kernel_resolver_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/nccl_tests_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/profile_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_layout_test.cc
)
# The kernel resolver is tested directly (lib/profile/profile_internal.h).
target_include_directories(profile_test PRIVATE ${PROJECT_SOURCE_DIR}/lib)
# The test helpers write XSpace files with the library's generated messages, and gzip.
target_include_directories(profile_test PRIVATE
  $<TARGET_PROPERTY:hloroof_xplane_proto,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(profile_test PRIVATE protobuf::libprotobuf ZLIB::ZLIB)

hloroof_add_test(profile_cli_test ${CMAKE_CURRENT_LIST_DIR}/profile_cli_test.cc)
target_include_directories(profile_cli_test PRIVATE
  $<TARGET_PROPERTY:hloroof_xplane_proto,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(profile_cli_test PRIVATE protobuf::libprotobuf ZLIB::ZLIB)
target_compile_definitions(profile_cli_test PRIVATE HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>")
add_dependencies(profile_cli_test hloroof_cli)

# Real captures of JAX on an H100 (tests/data/h100), read from the source tree.
hloroof_add_test(real_capture_test ${CMAKE_CURRENT_LIST_DIR}/real_capture_test.cc)

# Real profiles written by others (../shared/profiles, or $HLOROOF_PROFILES), read through the
# command; SKIPPED when they are absent. The test has its own main, which skips.
add_executable(shared_profiles_test ${CMAKE_CURRENT_LIST_DIR}/shared_profiles_test.cc)
target_link_libraries(shared_profiles_test PRIVATE hloroof Catch2::Catch2 hloroof_warnings
                                                   nlohmann_json::nlohmann_json)
target_compile_definitions(shared_profiles_test PRIVATE
  HLOROOF_CLI="$<TARGET_FILE:hloroof_cli>"
  HLOROOF_SHARED_PROFILES="${PROJECT_SOURCE_DIR}/../shared/profiles")
add_dependencies(shared_profiles_test hloroof_cli)
add_test(NAME shared_profiles_test COMMAND shared_profiles_test)
set_tests_properties(shared_profiles_test PROPERTIES SKIP_RETURN_CODE 77)

# The measured op-family sweeps (../shared/measured, or $HLOROOF_MEASURED): every case predicted
# and joined with its profile; SKIPPED when they are absent.
add_executable(op_families_test ${CMAKE_CURRENT_LIST_DIR}/op_families_test.cc)
target_link_libraries(op_families_test PRIVATE hloroof Catch2::Catch2 hloroof_warnings ZLIB::ZLIB)
target_include_directories(op_families_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(op_families_test PRIVATE
  HLOROOF_SHARED_MEASURED="${PROJECT_SOURCE_DIR}/../shared/measured"
  HLOROOF_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME op_families_test COMMAND op_families_test)
set_tests_properties(op_families_test PROPERTIES SKIP_RETURN_CODE 77)

# The jaxdecomp FFTs measured on one and two A100 nodes (../shared/measured/a100_jaxdecomp, or
# $HLOROOF_MEASURED/a100_jaxdecomp), predicted on examples/a100_jean_zay.json; SKIPPED when absent.
add_executable(jaxdecomp_nodes_test ${CMAKE_CURRENT_LIST_DIR}/jaxdecomp_nodes_test.cc)
target_link_libraries(jaxdecomp_nodes_test PRIVATE hloroof Catch2::Catch2 hloroof_warnings)
target_include_directories(jaxdecomp_nodes_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(jaxdecomp_nodes_test PRIVATE
  HLOROOF_SHARED_MEASURED="${PROJECT_SOURCE_DIR}/../shared/measured"
  HLOROOF_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME jaxdecomp_nodes_test COMMAND jaxdecomp_nodes_test)
set_tests_properties(jaxdecomp_nodes_test PROPERTIES SKIP_RETURN_CODE 77)

# bench/opfamilies.py's k-fold over sizes keeps each size on one side of a fold.
# (Scripts over the command's output: the normal build's, not the sanitizer build's.)
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND AND NOT HLOROOF_SANITIZE)
  add_test(NAME opfamilies_folds_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/opfamilies_folds_test.py)
  # The accuracy ledger (bench/ledger.py): its check fails on a deliberate regression; its fast
  # part, predicted by this build, holds every whole-program set to the committed baseline.
  add_test(NAME ledger_check_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/ledger_check_test.py)
  add_test(NAME ledger_test
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/ledger.py --fast
                   --cli $<TARGET_FILE:hloroof_cli>
                   --accuracy-bench ${PROJECT_BINARY_DIR}/bench/accuracy_bench
                   --check ${PROJECT_SOURCE_DIR}/bench/ledger_baseline.json)
  set_tests_properties(ledger_test PROPERTIES TIMEOUT 1800)
endif()
