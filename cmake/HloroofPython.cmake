# HLOROOF_PYTHON: the `hloroof` Python module (pybind11). On by default when Python 3 with its
# development files and pybind11 are found, off otherwise; the library builds without them.
#
# The interpreter is the system one (/usr/bin/python3, where Debian installs python3-dev,
# python3-pytest and python3-pandas) unless Python3_EXECUTABLE says otherwise, so that a
# version manager's `python3` on PATH does not pick another Python's headers.
# Sanitizer and fuzzer builds leave it off by default: an instrumented extension cannot be loaded
# by an uninstrumented interpreter.
if(NOT DEFINED HLOROOF_PYTHON OR HLOROOF_PYTHON)
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python for the hloroof module")
  endif()
  find_package(Python3 3.8 QUIET COMPONENTS Interpreter Development.Module)
  if(Python3_FOUND)
    find_package(pybind11 2.6 CONFIG QUIET)
  endif()
endif()

set(hloroof_python_default OFF)
if(Python3_FOUND AND pybind11_FOUND AND NOT HLOROOF_SANITIZE AND NOT HLOROOF_FUZZ)
  set(hloroof_python_default ON)
endif()
option(HLOROOF_PYTHON "Build the hloroof Python module (needs python3-dev and pybind11-dev)"
       ${hloroof_python_default})

if(HLOROOF_PYTHON)
  if(NOT Python3_FOUND OR NOT pybind11_FOUND)
    message(FATAL_ERROR "HLOROOF_PYTHON=ON needs Python 3 development files and pybind11 "
                        "(Debian: python3-dev pybind11-dev); configure with -DHLOROOF_PYTHON=OFF "
                        "to build without the Python module")
  endif()
  message(STATUS "hloroof Python module: on (${Python3_EXECUTABLE}, Python ${Python3_VERSION}, "
                 "pybind11 ${pybind11_VERSION})")
else()
  message(STATUS "hloroof Python module: off")
endif()
