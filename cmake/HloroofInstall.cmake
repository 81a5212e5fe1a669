# Installs the library, its headers and a CMake package so that other projects can
# `find_package(hloroof)` and link `hloroof::hloroof`.
include(CMakePackageConfigHelpers)

install(TARGETS hloroof hloroof_warnings EXPORT hloroofTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/hloroof DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The built-in device specs as files (also compiled into the library): a start for a device
# JSON of one's own, which every command and Python take as --device PATH.
install(DIRECTORY data/hardware/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hloroof/devices
        FILES_MATCHING PATTERN "*.json" PATTERN "README.md")
if(TARGET hloroof_cli)
  install(TARGETS hloroof_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # pip install . (pyproject.toml): the command into the environment's bin/, with the package.
  if(SKBUILD)
    install(TARGETS hloroof_cli RUNTIME DESTINATION ${SKBUILD_SCRIPTS_DIR} COMPONENT python)
  endif()
endif()

set(HLOROOF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hloroof)
install(EXPORT hloroofTargets NAMESPACE hloroof:: DESTINATION ${HLOROOF_CMAKE_DIR})
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
