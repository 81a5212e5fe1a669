# Run by CTest (see tests.cmake) in script mode.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
# What a user links and runs is lean: no DWARF sections (HLOROOF_INSTALL_DEBUG_INFO off, the
# default outside Debug builds), whatever the build type of the tree installed.
file(GLOB installed_libraries ${prefix}/lib*/libhloroof_*.a)
if(NOT installed_libraries)
  message(FATAL_ERROR "no libhloroof_*.a under ${prefix}")
endif()
if(NOT DEBUG_INFO AND READELF)
  set(library_bytes 0)
  foreach(binary IN LISTS installed_libraries ITEMS ${prefix}/bin/hloroof)
    if(NOT EXISTS ${binary})
      continue()
    endif()
    run(${READELF} --section-headers --wide ${binary})
    if(last_output MATCHES "\\.debug_info")
      message(FATAL_ERROR "${binary} was installed with its debug information")
    endif()
    if(binary MATCHES "[.]a$")
      file(SIZE ${binary} bytes)
      math(EXPR library_bytes "${library_bytes} + ${bytes}")
    endif()
  endforeach()
  # The archives of every layer: 11 MB with GCC 12 on x86-64, 328 MB with their DWARF (README,
  # "Using the library"): 32 MiB leaves the code room to grow threefold and still fails a
  # library installed with debug information. Sanitizer instrumentation alone makes it over
  # 100 MB.
  if(NOT SANITIZE AND library_bytes GREATER 33554432)
    message(FATAL_ERROR "the installed archives are ${library_bytes} B, over 32 MiB")
  endif()
  message(STATUS "installed archives: ${library_bytes} B, no debug information")
endif()
# The built-in device specs are installed as files that load back as devices.
set(installed_h100 ${prefix}/share/hloroof/devices/h100.json)
if(NOT EXISTS ${installed_h100} OR NOT EXISTS ${prefix}/share/hloroof/devices/README.md)
  message(FATAL_ERROR "the device specs are not installed under ${prefix}/share/hloroof/devices")
endif()
if(EXISTS ${prefix}/bin/hloroof)
  run(${prefix}/bin/hloroof devices ${installed_h100} --json)
  if(NOT last_output MATCHES "\"name\": \"h100\"")
    message(FATAL_ERROR "the installed h100.json does not load as h100: ${last_output}")
  endif()
endif()
set(flags "")
if(SANITIZE)
  set(flags "-fsanitize=address,undefined")
endif()
run(${CMAKE_COMMAND} -S ${EXAMPLES_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# bf16 [4,512,512,64] with a 64-wide minor dim: 128 MiB logical, 256 MiB padded
# (worked example P3).
run(${WORK_DIR}/build/padded_bytes "bf16[4,512,512,64]{3,0,2,1:T(4,128)(2,1)}")
if(NOT last_output MATCHES "134217728 B logical, 268435456 B padded")
  message(FATAL_ERROR "unexpected output from the installed example: ${last_output}")
endif()
message(STATUS "installed package works: ${last_output}")
# The step of the v5e example: its summary names the device and the step time.
run(${WORK_DIR}/build/predict_step ${EXAMPLES_DIR}/tpu_v5e_train_step.hlo tpu_v5e:2x2)
if(NOT last_output MATCHES "device tpu_v5e, topology 2x2" OR NOT last_output MATCHES "step time")
  message(FATAL_ERROR "unexpected output from predict_step: ${last_output}")
endif()

# The package from the build tree (export()), without installing.
run(${CMAKE_COMMAND} -S ${EXAMPLES_DIR} -B ${WORK_DIR}/build_tree -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -Dhloroof_DIR=${BUILD_DIR}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build_tree --target padded_bytes)
run(${WORK_DIR}/build_tree/padded_bytes "bf16[4,512,512,64]{3,0,2,1:T(4,128)(2,1)}")
if(NOT last_output MATCHES "134217728 B logical, 268435456 B padded")
  message(FATAL_ERROR "unexpected output from the build-tree example: ${last_output}")
endif()
message(STATUS "build-tree package works: ${last_output}")

# The Python package, when it was built: imported from the prefix, it predicts the same step.
if(PYTHON)
  run(${CMAKE_COMMAND} -E env PYTHONPATH=${prefix}/${PYTHON_DIR} PYTHONDONTWRITEBYTECODE=1
      ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/installed_package.py ${prefix}
      ${EXAMPLES_DIR}/tpu_v5e_train_step.hlo)
  if(NOT last_output MATCHES "tpu_v5e 2x2 True")
    message(FATAL_ERROR "unexpected output from the installed Python package: ${last_output}")
  endif()
  message(STATUS "installed Python package works: ${last_output}")
endif()

# One layer as a component: a consumer of hloroof::text alone (the reader and the module, no
# prediction) links only the archives of text, ir and util.
set(consumer ${WORK_DIR}/component_consumer)
file(WRITE ${consumer}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(component_consumer LANGUAGES CXX)
find_package(hloroof REQUIRED COMPONENTS text)
# Only the packages its layers link are looked for.
if(DEFINED Protobuf_FOUND OR DEFINED ZLIB_FOUND OR TARGET PkgConfig::RE2)
  message(FATAL_ERROR \"COMPONENTS text looked for protobuf, zlib or RE2\")
endif()
add_executable(count_ops main.cc)
target_link_libraries(count_ops PRIVATE hloroof::text)
")
file(WRITE ${consumer}/main.cc [=[
#include <cstdio>
#include "hloroof/hlo_text.h"
int main() {
  auto m = hloroof::parse_module("HloModule m\nENTRY e { p = f32[8] parameter(0)\n"
                                 "ROOT n = f32[8] negate(p) }\n");
  if (!m.ok()) return 1;
  std::printf("%zu instructions\n", m->entry()->instruction_count());
  return 0;
}
]=])
run(${CMAKE_COMMAND} -S ${consumer} -B ${consumer}/build -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix}
    "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${flags}")
run(${CMAKE_COMMAND} --build ${consumer}/build)
run(${consumer}/build/count_ops)
if(NOT last_output MATCHES "^2 instructions")
  message(FATAL_ERROR "unexpected output from the component consumer: ${last_output}")
endif()
# Its link line names the layers it needs and not the others.
file(READ ${consumer}/build/build.ninja ninja_file)
if(NOT ninja_file MATCHES "libhloroof_text\\.a" OR ninja_file MATCHES "libhloroof_predict\\.a")
  message(FATAL_ERROR "hloroof::text does not link exactly its layers")
endif()
message(STATUS "component hloroof::text works: ${last_output}")

# A component that does not exist is refused by name.
file(WRITE ${consumer}/bad/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(bad LANGUAGES CXX)
find_package(hloroof REQUIRED COMPONENTS predikt)
")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${consumer}/bad -B ${consumer}/bad/build
                        -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "hloroof has no component 'predikt'; its components are util")
  message(FATAL_ERROR "an unknown component was not refused by name (${rc}): ${out}${err}")
endif()

# pkg-config: the same program built with nothing but the compiler and hloroof.pc. Not with
# the sanitizers (pkg-config names the archives; the sanitizer runtime would need its flags).
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG AND NOT SANITIZE)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig:${prefix}/lib64/pkgconfig)
  # The plain call, as a user types it (only --static worked: the archives' own needs were
  # private).
  run(${PKG_CONFIG} --cflags --libs hloroof)
  string(STRIP "${last_output}" pc_flags)
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  run(${CXX_COMPILER} -std=c++20 ${consumer}/main.cc -o ${consumer}/count_ops_pc ${pc_flags})
  run(${consumer}/count_ops_pc)
  if(NOT last_output MATCHES "^2 instructions")
    message(FATAL_ERROR "unexpected output from the pkg-config consumer: ${last_output}")
  endif()
  message(STATUS "pkg-config package works: ${last_output}")
  # The headline call, predict_step_time(hlo_text, "tpu_v5e"), built the same way
  # (examples/predict_step.cc): the slice inferred, named, and a GPU cluster's name.
  run(${CXX_COMPILER} -std=c++20 ${EXAMPLES_DIR}/predict_step.cc -o ${consumer}/predict_pc
      ${pc_flags})
  foreach(device_and_expected IN ITEMS "tpu_v5e|device tpu_v5e, topology 2x2"
                                       "tpu_v5e:2x2|device tpu_v5e, topology 2x2"
                                       "h100:2x8|device h100, topology 2x8")
    string(REPLACE "|" ";" device_and_expected "${device_and_expected}")
    list(GET device_and_expected 0 device)
    list(GET device_and_expected 1 expected)
    run(${consumer}/predict_pc ${EXAMPLES_DIR}/tpu_v5e_train_step.hlo ${device})
    if(NOT last_output MATCHES "${expected}" OR NOT last_output MATCHES "step time")
      message(FATAL_ERROR "predict_step_time(text, \"${device}\") built with pkg-config: "
                          "${last_output}")
    endif()
  endforeach()
  message(STATUS "predict_step_time(hlo_text, device) works from pkg-config")
endif()
