# hloroof against XLA's own compiler: pytest over the stored corpus of tests/data/xla. Needs only
# pytest and the command-line tool; no JAX.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest"
                RESULT_VARIABLE hloroof_no_pytest_oracle OUTPUT_QUIET ERROR_QUIET)
if(NOT hloroof_no_pytest_oracle AND TARGET hloroof_cli)
  add_test(NAME oracle_test
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(oracle_test PROPERTIES ENVIRONMENT
                       "PYTHONDONTWRITEBYTECODE=1;HLOROOF_SOURCE_DIR=${PROJECT_SOURCE_DIR};\
HLOROOF_CLI=$<TARGET_FILE:hloroof_cli>")
endif()
