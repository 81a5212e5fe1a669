# Installs the library, its headers and a CMake package so that other projects can
# `find_package(hloroof)` and link `hloroof::hloroof`.
include(CMakePackageConfigHelpers)

# What a user links, runs or imports carries no debug information unless asked: in the default
# build (RelWithDebInfo) DWARF is nearly all of the archives, the command and the Python module
# (README, "Using the library", has the sizes), and it ends up in every program linked against the
# library. `strip --strip-debug` keeps the symbol tables (the archive links, a backtrace names
# its functions). On by default in a Debug build, whose point is stepping into the library.
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(hloroof_install_debug_default ON)
else()
  set(hloroof_install_debug_default OFF)
endif()
option(HLOROOF_INSTALL_DEBUG_INFO "Install the library, command and Python module with debug info"
       ${hloroof_install_debug_default})
# Strips the debug information of an installed file (a path relative to the prefix, generator
# expressions allowed) after it is installed, in the same install component.
function(hloroof_install_without_debug_info path component)
  if(HLOROOF_INSTALL_DEBUG_INFO OR NOT CMAKE_STRIP)
    return()
  endif()
  install(CODE "
    set(installed \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${path}\")
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug \"\${installed}\"
                    RESULT_VARIABLE strip_result)
    if(NOT strip_result EQUAL 0)
      message(FATAL_ERROR \"strip --strip-debug \${installed} failed: \${strip_result}\")
    endif()"
    COMPONENT ${component})
endfunction()

# One archive per layer (hloroof::ir, hloroof::predict, ...: find_package(hloroof COMPONENTS
# predict)) and hloroof::hloroof, all of them; every layer's headers in one include/hloroof/.
list(TRANSFORM HLOROOF_LAYERS PREPEND hloroof_ OUTPUT_VARIABLE hloroof_layer_targets)
install(TARGETS hloroof ${hloroof_layer_targets} hloroof_warnings EXPORT hloroofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(layer IN LISTS HLOROOF_LAYERS ITEMS all)
  install(DIRECTORY include/${layer}/hloroof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
# pkg-config: `pkg-config --cflags --libs hloroof`. The libraries are static archives, so what
# they use (abseil, re2, protobuf, zlib, threads) is public: a plain call links a consumer.
list(REVERSE hloroof_layer_targets)
list(TRANSFORM hloroof_layer_targets PREPEND -l OUTPUT_VARIABLE HLOROOF_PC_LIBS)
string(JOIN " " HLOROOF_PC_LIBS ${HLOROOF_PC_LIBS})
# Relocatable: the prefix is found from the file's own folder, wherever the tree is installed.
file(RELATIVE_PATH HLOROOF_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" HLOROOF_PC_TO_PREFIX "${HLOROOF_PC_TO_PREFIX}")
configure_file(cmake/hloroof.pc.in ${CMAKE_CURRENT_BINARY_DIR}/hloroof.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hloroof.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
foreach(target IN LISTS hloroof_layer_targets)
  hloroof_install_without_debug_info("${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${target}>"
                                     Unspecified)
endforeach()
# The built-in device specs as files (also compiled into the library): a start for a device
# JSON of one's own, which every command and Python take as --device PATH.
install(DIRECTORY data/hardware/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hloroof/devices
        FILES_MATCHING PATTERN "*.json" PATTERN "README.md")
if(TARGET hloroof_cli)
  install(TARGETS hloroof_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  hloroof_install_without_debug_info("${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:hloroof_cli>"
                                     Unspecified)
  # pip install . (pyproject.toml): the command into the environment's bin/, with the package.
  if(SKBUILD)
    install(TARGETS hloroof_cli RUNTIME DESTINATION ${SKBUILD_SCRIPTS_DIR} COMPONENT python)
  endif()
endif()

set(HLOROOF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hloroof)
install(EXPORT hloroofTargets NAMESPACE hloroof:: DESTINATION ${HLOROOF_CMAKE_DIR})
# Per component, the packages that its archive and those of the layers below it link, as
# set(_hloroof_packages_LAYER ...) lines of the package's config.
set(HLOROOF_COMPONENT_PACKAGES "")
foreach(layer IN LISTS HLOROOF_LAYERS)
  set(packages absl)
  set(pending hloroof_${layer})
  set(seen "")
  while(pending)
    list(POP_FRONT pending target)
    if(target IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${target})
    get_target_property(libraries ${target} LINK_LIBRARIES)
    foreach(library IN LISTS libraries)
      if(library MATCHES "^hloroof_" AND NOT library STREQUAL "hloroof_warnings")
        list(APPEND pending ${library})
      elseif(library STREQUAL "Threads::Threads")
        list(APPEND packages Threads)
      elseif(library MATCHES "^nlohmann_json::")
        list(APPEND packages nlohmann_json)
      elseif(library MATCHES "^protobuf::")
        list(APPEND packages Protobuf)
      elseif(library MATCHES "^ZLIB::")
        list(APPEND packages ZLIB)
      elseif(library STREQUAL "PkgConfig::RE2")
        list(APPEND packages RE2)
      endif()
    endforeach()
  endwhile()
  list(REMOVE_DUPLICATES packages)
  string(APPEND HLOROOF_COMPONENT_PACKAGES "set(_hloroof_packages_${layer} ${packages})\n")
endforeach()
configure_package_config_file(cmake/hloroofConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/hloroofConfig.cmake
                              INSTALL_DESTINATION ${HLOROOF_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hloroofConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hloroofConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/hloroofConfigVersion.cmake
        DESTINATION ${HLOROOF_CMAKE_DIR})

# The same package from the build tree, without installing: find_package(hloroof) with
# hloroof_DIR (or CMAKE_PREFIX_PATH) set to this build directory.
export(EXPORT hloroofTargets NAMESPACE hloroof::
       FILE ${CMAKE_CURRENT_BINARY_DIR}/hloroofTargets.cmake)

# The Python module, installed by python/CMakeLists.txt (its rules run before these).
if(TARGET _hloroof)
  hloroof_install_without_debug_info(
    "${HLOROOF_PYTHON_INSTALL_DIR}/hloroof/$<TARGET_FILE_NAME:_hloroof>" python)
endif()
