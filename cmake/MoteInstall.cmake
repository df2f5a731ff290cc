# What `cmake --install` puts in the prefix: motec and mote-run (host builds),
# the runtime and this build's port as static libraries, the headers, the
# toolchain files, and the CMake package (find_package(Mote CONFIG)).
#
#   bin/motec, bin/mote-run
#   include/mote/*.h(pp), include/mote/ports/<port>/*.h
#   lib/mote/<variant>/libmote_*.a          one folder per target (MoteTarget.cmake)
#   lib/cmake/Mote/MoteConfig.cmake, MoteModel.cmake, MoteTarget.cmake
#   lib/cmake/Mote/<variant>/MoteRuntimeTargets.cmake
#   share/mote/toolchains/*.cmake, share/mote/ports/<port>/*.ld
#
# Installing builds for other targets into the same prefix (a Cortex-M4
# build configured with its toolchain file, say) adds their variants; the
# package picks the one for the consuming project's toolchain.
include(CMakePackageConfigHelpers)

if(NOT MOTE_RUNTIME_TRIPLE)
  message(STATUS "Mote: no Mote target for this toolchain; the runtime is not installed")
  return()
endif()
mote_runtime_variant(variant "${MOTE_RUNTIME_TRIPLE}" "${MOTE_RUNTIME_CPU}" "${MOTE_RUNTIME_FEATURES}")
set(cmake_dir "${MOTE_INSTALL_LIBDIR}/cmake/Mote")

get_property(port_targets GLOBAL PROPERTY MOTE_EXPORTED_TARGETS)
install(TARGETS mote_runtime_headers mote_runtime_core mote_runtime_package ${port_targets}
  EXPORT MoteRuntime ARCHIVE DESTINATION "${MOTE_INSTALL_LIBDIR}/mote/${variant}")
install(EXPORT MoteRuntime NAMESPACE mote:: DESTINATION "${cmake_dir}/${variant}"
  FILE MoteRuntimeTargets.cmake)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/mote" DESTINATION "${MOTE_INSTALL_INCLUDEDIR}")
foreach(program motec mote-run)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION bin)
  endif()
endforeach()

configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/MoteConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/MoteConfig.cmake" INSTALL_DESTINATION "${cmake_dir}")
# One configuration file serves every variant's libraries.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/MoteConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/MoteConfig.cmake" "${PROJECT_BINARY_DIR}/MoteConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/MoteModel.cmake" "${CMAKE_CURRENT_LIST_DIR}/MoteTarget.cmake"
  DESTINATION "${cmake_dir}")
install(DIRECTORY "${CMAKE_CURRENT_LIST_DIR}/toolchains/" DESTINATION "${MOTE_INSTALL_DATADIR}/toolchains")
