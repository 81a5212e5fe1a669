# Installs the library into a scratch prefix, then builds examples/ out of tree against the
# installed package and runs the program: proof that find_package(hloroof) works.
add_test(NAME install_and_build_example
         COMMAND ${CMAKE_COMMAND}
                 -DBUILD_DIR=${PROJECT_BINARY_DIR}
                 -DEXAMPLES_DIR=${PROJECT_SOURCE_DIR}/examples
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install_test
                 -DGENERATOR=${CMAKE_GENERATOR}
                 -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -DSANITIZE=${HLOROOF_SANITIZE}
                 -DREADELF=${CMAKE_READELF}
                 -DDEBUG_INFO=${HLOROOF_INSTALL_DEBUG_INFO}
                 "-DPYTHON=$<$<BOOL:${HLOROOF_PYTHON}>:${Python3_EXECUTABLE}>"
                 -DPYTHON_DIR=${HLOROOF_PYTHON_INSTALL_DIR}
                 -P ${CMAKE_CURRENT_LIST_DIR}/install_test.cmake)

# The quick start builds the command before the tests, and pip builds out of the source tree.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME quickstart_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/quickstart_test.py)
endif()
if(Python3_Interpreter_FOUND)
  # Every file the README and docs/ name exists.
  add_test(NAME doc_links_test
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/doc_links_test.py)
endif()
