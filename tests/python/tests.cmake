# The Python module's tests: pytest under the Python the module was built for, importing the
# package from the build tree. The command-line tool's output is their reference.
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest"
                RESULT_VARIABLE hloroof_no_pytest OUTPUT_QUIET ERROR_QUIET)
if(hloroof_no_pytest)
  message(STATUS "pytest not found for ${Python3_EXECUTABLE} (Debian: python3-pytest): "
                 "the Python tests are not registered")
else()
  add_test(NAME python_test
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   --ignore=${CMAKE_CURRENT_LIST_DIR}/test_sweep.py
                   --ignore=${CMAKE_CURRENT_LIST_DIR}/test_sweep_design.py
                   --ignore=${CMAKE_CURRENT_LIST_DIR}/test_sweep_store.py ${CMAKE_CURRENT_LIST_DIR})
  # The sweep's tests compile about 40 small programs in worker processes (two at a time, on
  # the local engine and on a Ray cluster of 2 CPUs): a test of their own, run beside the rest.
  add_test(NAME python_sweep_test
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR}/test_sweep.py)
  # Design-space what-ifs, checks before compiling, budgeted search, GPU targets: a few small
  # compiles each.
  add_test(NAME python_sweep_design_test
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR}/test_sweep_design.py)
  # Hostile input to the sweep: specs, a corrupt or unwritable store, signals that end the
  # sweep (real processes), Ray addresses that answer nothing, outputs: a dozen small compiles.
  add_test(NAME python_sweep_store_test
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
                   ${CMAKE_CURRENT_LIST_DIR}/test_sweep_store.py)
  set(hloroof_python_env
      "PYTHONPATH=${PROJECT_BINARY_DIR}/python"
      "PYTHONDONTWRITEBYTECODE=1"
      "HLOROOF_SOURCE_DIR=${PROJECT_SOURCE_DIR}")
  if(TARGET hloroof_cli)
    list(APPEND hloroof_python_env "HLOROOF_CLI=$<TARGET_FILE:hloroof_cli>")
  endif()
  set_tests_properties(python_test python_sweep_test python_sweep_design_test
                       python_sweep_store_test PROPERTIES
                       ENVIRONMENT "${hloroof_python_env}")
endif()
