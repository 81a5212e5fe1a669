# hloroof against XLA's own compiler: pytest over the stored corpus of tests/data/xla. Needs only
# pytest and the command-line tool; no JAX.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest"
                RESULT_VARIABLE hloroof_no_pytest_oracle OUTPUT_QUIET ERROR_QUIET)
if(NOT hloroof_no_pytest_oracle AND TARGET hloroof_cli)
  add_test(NAME oracle_test
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR}/test_against_xla.py)
  set_tests_properties(oracle_test PROPERTIES ENVIRONMENT
                       "PYTHONDONTWRITEBYTECODE=1;HLOROOF_SOURCE_DIR=${PROJECT_SOURCE_DIR};\
HLOROOF_CLI=$<TARGET_FILE:hloroof_cli>")
endif()

# XLA's parser beside hloroof's, and programs compiled now: the Python of tools/venv.sh (jax,
# jaxlib, libtpu), where it exists ($HLOROOF_VENV, else .venv in the source tree).
set(hloroof_oracle_venv "$ENV{HLOROOF_VENV}")
if(NOT hloroof_oracle_venv)
  set(hloroof_oracle_venv "${PROJECT_SOURCE_DIR}/.venv")
endif()
if(EXISTS "${hloroof_oracle_venv}/bin/python" AND TARGET hloroof_cli)
  add_test(NAME oracle_xla_test
           COMMAND "${hloroof_oracle_venv}/bin/python" -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR}/test_xla_parser.py
                   ${CMAKE_CURRENT_LIST_DIR}/test_compile_now.py)
  set_tests_properties(oracle_xla_test PROPERTIES TIMEOUT 600 ENVIRONMENT
                       "PYTHONDONTWRITEBYTECODE=1;HLOROOF_SOURCE_DIR=${PROJECT_SOURCE_DIR};\
HLOROOF_CLI=$<TARGET_FILE:hloroof_cli>")
endif()
