# mote_add_model(<target> HLO <file> | MLIR <file> [TARGET <triple>] [CPU <cpu>] [FEATURES <features>]
#                [PARAMS <weights.npz|.safetensors>...] [OUTPUTS <0,3>] [NAME <symbol prefix>] [PACKAGE])
#
# Compiles an HLO or StableHLO model with motec at build time into <target>.o and <target>.h
# and makes a static library <target> that holds the object and brings the
# header's folder and Mote's runtime (mote::runtime) with it, so
#   target_link_libraries(app PRIVATE <target>)   and   #include "<target>.h"
# are all an application needs. The C symbols are <NAME>_entry and
# <NAME>_model, the C++ class <NAME> (NAME defaults to <target>).
#
#   TARGET    the triple; by default the toolchain's (MoteTarget.cmake: Mote's
#             toolchain files, MOTE_TARGET_TRIPLE, or CMAKE_SYSTEM_PROCESSOR)
#   CPU, FEATURES  default to the toolchain's for its own triple
#   PARAMS    weight files bound to the model's parameters (motec --params)
#   OUTPUTS   the results to keep, e.g. 0,3 (motec --outputs)
#   PACKAGE   also write <target>.mote, a package for the same target, in the
#             current binary folder; the target property MOTE_PACKAGE names it
#
# motec is the `motec` target when the compiler is part of the build, else
# MOTE_MOTEC (a cache variable: an installed motec, found on PATH or next to
# the installed CMake package when not given).

include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/MoteTarget.cmake")

set(MOTE_MOTEC "" CACHE FILEPATH "The motec to compile models with when motec is not built here")

function(_mote_find_motec out)
  if(TARGET motec)
    set(${out} "$<TARGET_FILE:motec>" PARENT_SCOPE)
    return()
  endif()
  if(NOT MOTE_MOTEC)
    # A host program, also when cross compiling.
    find_program(_mote_motec_found motec HINTS ${MOTE_MOTEC_HINTS} NO_CMAKE_FIND_ROOT_PATH)
    if(_mote_motec_found)
      set(MOTE_MOTEC "${_mote_motec_found}" CACHE FILEPATH
          "The motec to compile models with when motec is not built here" FORCE)
    endif()
  endif()
  if(NOT MOTE_MOTEC)
    message(FATAL_ERROR "mote_add_model: no motec to compile models with. Install Mote "
      "(cmake --install), pass -DMOTE_MOTEC=/path/to/motec, or build the compiler here "
      "with -DMOTE_BUILD_COMPILER=ON")
  endif()
  set(${out} "${MOTE_MOTEC}" PARENT_SCOPE)
endfunction()

function(mote_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PACKAGE" "HLO;MLIR;TARGET;CPU;FEATURES;NAME;OUTPUTS" "PARAMS")
  # A StableHLO file goes by MLIR (motec tells the two apart by content anyway).
  if(ARG_MLIR AND NOT ARG_HLO)
    set(ARG_HLO "${ARG_MLIR}")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mote_add_model(${name}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_HLO)
    message(FATAL_ERROR "mote_add_model(${name}): HLO <file> or MLIR <file> is required")
  endif()
  get_filename_component(hlo "${ARG_HLO}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")

  # The toolchain's CPU and features apply only to the toolchain's own triple.
  mote_resolve_target(toolchain_triple toolchain_cpu toolchain_features OPTIONAL)
  if(NOT ARG_TARGET)
    if(NOT toolchain_triple)
      mote_resolve_target(toolchain_triple toolchain_cpu toolchain_features) # says what to set
    endif()
    set(ARG_TARGET "${toolchain_triple}")
  endif()
  if(ARG_TARGET STREQUAL toolchain_triple)
    if(NOT DEFINED ARG_CPU AND toolchain_cpu)
      set(ARG_CPU "${toolchain_cpu}")
    endif()
    if(NOT DEFINED ARG_FEATURES AND toolchain_features)
      set(ARG_FEATURES "${toolchain_features}")
    endif()
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME "${name}")
  endif()
  _mote_find_motec(motec)
  set(motec_depends "${MOTE_MOTEC}")
  if(TARGET motec)
    set(motec_depends motec)
  endif()

  set(flags "--target=${ARG_TARGET}")
  if(ARG_CPU)
    list(APPEND flags "--cpu=${ARG_CPU}")
  endif()
  if(ARG_FEATURES)
    list(APPEND flags "--features=${ARG_FEATURES}")
  endif()
  # PARAMS bind entry parameters to trained weights (motec --params): they
  # become constants in the object, flash on a microcontroller. OUTPUTS keeps
  # those results only (motec --outputs).
  set(params)
  foreach(file IN LISTS ARG_PARAMS)
    get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND flags "--params=${file}")
    list(APPEND params "${file}")
  endforeach()
  if(DEFINED ARG_OUTPUTS)
    list(APPEND flags "--outputs=${ARG_OUTPUTS}")
  endif()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/mote_models/${name}")
  set(package "${CMAKE_CURRENT_BINARY_DIR}/${name}.mote")
  set(outputs "${dir}/${name}.o" "${dir}/${name}.h")
  set(package_command)
  if(ARG_PACKAGE)
    list(APPEND outputs "${package}")
    set(package_command COMMAND "${motec}" compile "${hlo}" ${flags} -o "${package}" --name
                        "${ARG_NAME}")
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND "${motec}" compile "${hlo}" ${flags} -o "${dir}/${name}" --name "${ARG_NAME}"
    ${package_command}
    DEPENDS "${hlo}" ${params} ${motec_depends}
    COMMENT "motec: ${ARG_HLO} for ${ARG_TARGET} ${ARG_CPU} ${ARG_FEATURES}"
    VERBATIM)

  # A static library of the one object: consumers link it like any library.
  set_source_files_properties("${dir}/${name}.o" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${name} STATIC "${dir}/${name}.o" "${dir}/${name}.h")
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  target_include_directories(${name} INTERFACE "${dir}")
  # The header needs Mote's headers; the runtime comes along when this
  # toolchain has one (a model compiled for another target may be only a package).
  if(TARGET mote::runtime AND ARG_TARGET STREQUAL toolchain_triple)
    target_link_libraries(${name} INTERFACE mote::runtime)
  else()
    target_include_directories(${name} INTERFACE "${MOTE_INCLUDE_DIR}")
  endif()
  if(ARG_PACKAGE)
    # Written by the same command as the object, so building <target> writes it.
    set_target_properties(${name} PROPERTIES MOTE_PACKAGE "${package}")
  endif()
endfunction()
