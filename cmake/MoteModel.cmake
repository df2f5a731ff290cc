# mote_add_model(<name> HLO <file> [TARGET <triple>] [CPU <cpu>] [FEATURES <features>]
#                [NAME <symbol prefix>] [PARAMS <weights.npz|.safetensors>...]
#                [OUTPUTS <0,3>])
#
# Compiles an HLO model with motec at build time into <name>.o and <name>.h and
# makes a static library target <name> that holds the object and exposes the
# header's folder and Mote's include/ (mote/abi.h), so
#   target_link_libraries(app PRIVATE <name>)   and   #include "<name>.h"
# are all an application needs. The C symbols are <NAME>_entry and <NAME>_model
# (NAME defaults to <name>).
#
# TARGET defaults to MOTE_TARGET_TRIPLE, which the toolchain files in
# cmake/toolchains set (with MOTE_TARGET_CPU and MOTE_TARGET_FEATURES, the
# defaults for CPU and FEATURES); without one it is the build machine's Linux
# triple. motec is the in-tree `motec` target when the compiler is part of the
# build, else the program named by the MOTE_MOTEC cache variable.

set(MOTE_MOTEC "" CACHE FILEPATH "A motec program to compile models with when motec is not built here")

function(_mote_host_triple out)
  string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" arch)
  if(arch STREQUAL "amd64")
    set(arch x86_64)
  elseif(arch STREQUAL "arm64")
    set(arch aarch64)
  endif()
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux" OR NOT arch MATCHES "^(x86_64|aarch64|riscv64)$")
    message(FATAL_ERROR "mote_add_model: no Mote target for ${CMAKE_SYSTEM_NAME}/${CMAKE_SYSTEM_PROCESSOR}; "
      "pass TARGET <triple> or use a toolchain file from cmake/toolchains")
  endif()
  set(${out} "${arch}-linux-gnu" PARENT_SCOPE)
endfunction()

function(mote_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "HLO;TARGET;CPU;FEATURES;NAME;OUTPUTS" "PARAMS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mote_add_model(${name}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_HLO)
    message(FATAL_ERROR "mote_add_model(${name}): HLO <file> is required")
  endif()
  get_filename_component(hlo "${ARG_HLO}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")

  # The toolchain's CPU and features apply only to the toolchain's own triple.
  if(NOT ARG_TARGET)
    if(MOTE_TARGET_TRIPLE)
      set(ARG_TARGET "${MOTE_TARGET_TRIPLE}")
    else()
      _mote_host_triple(ARG_TARGET)
    endif()
  endif()
  if(ARG_TARGET STREQUAL "${MOTE_TARGET_TRIPLE}")
    if(NOT DEFINED ARG_CPU AND MOTE_TARGET_CPU)
      set(ARG_CPU "${MOTE_TARGET_CPU}")
    endif()
    if(NOT DEFINED ARG_FEATURES AND MOTE_TARGET_FEATURES)
      set(ARG_FEATURES "${MOTE_TARGET_FEATURES}")
    endif()
  endif()
  if(NOT ARG_NAME)
    set(ARG_NAME "${name}")
  endif()

  if(TARGET motec)
    set(motec "$<TARGET_FILE:motec>")
    set(motec_depends motec)
  elseif(MOTE_MOTEC)
    set(motec "${MOTE_MOTEC}")
    set(motec_depends "${MOTE_MOTEC}")
  else()
    message(FATAL_ERROR "mote_add_model(${name}): no motec to compile ${ARG_HLO} with. "
      "Build the compiler (MOTE_BUILD_COMPILER=ON) or pass -DMOTE_MOTEC=/path/to/motec")
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
  add_custom_command(
    OUTPUT "${dir}/${name}.o" "${dir}/${name}.h"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND "${motec}" compile "${hlo}" ${flags} -o "${dir}/${name}" --name "${ARG_NAME}"
    DEPENDS "${hlo}" ${params} ${motec_depends}
    COMMENT "motec: ${ARG_HLO} for ${ARG_TARGET} ${ARG_CPU} ${ARG_FEATURES}"
    VERBATIM)

  # A static library of the one object: consumers link it like any library.
  set_source_files_properties("${dir}/${name}.o" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_library(${name} STATIC "${dir}/${name}.o" "${dir}/${name}.h")
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  target_include_directories(${name} INTERFACE "${dir}" "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../include")
endfunction()
