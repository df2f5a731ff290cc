# Which Mote target a CMake toolchain builds for.
#
# Mote names a target by an LLVM triple, a CPU and CPU features (see
# `motec targets`). A toolchain says the same thing in its own words:
# Mote's toolchain files (cmake/toolchains) set MOTE_TARGET_TRIPLE,
# MOTE_TARGET_CPU and MOTE_TARGET_FEATURES; a vendor's file sets only
# CMAKE_SYSTEM_NAME, CMAKE_SYSTEM_PROCESSOR (cortex-m4, armv7e-m, arm,
# rv32imac, ...) and compiler flags (-mcpu=, -march=, -mfloat-abi=).
# mote_resolve_target() turns either into the triple, CPU and features, in
# this order of precedence:
#   1. MOTE_TARGET_TRIPLE / MOTE_CPU / MOTE_FEATURES given by the user
#      (MOTE_TARGET_CPU / MOTE_TARGET_FEATURES, as the toolchain files set
#      them, when MOTE_CPU / MOTE_FEATURES are not);
#   2. CMAKE_SYSTEM_PROCESSOR, refined by -mcpu=/-march= in the C flags;
#   3. nothing fits: a FATAL_ERROR that says which variables to set.

# The -mcpu= / -march= / -mfloat-abi= of the toolchain's C flags ("" if none).
function(_mote_flag out name)
  set(flags "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_INIT} ${CMAKE_C_COMPILER_ARG1}")
  if(flags MATCHES "(^| )-${name}=([^ ]+)")
    set(${out} "${CMAKE_MATCH_2}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# RISC-V 32 features from an ISA string such as rv32imac or rv32imafc_zicsr.
function(_mote_riscv32_features out isa)
  string(REGEX REPLACE "^rv32([a-z]*).*" "\\1" letters "${isa}")
  string(REPLACE "g" "imafd" letters "${letters}")
  set(features)
  foreach(letter m a f d c)
    string(FIND "${letters}" "${letter}" at)
    if(at GREATER_EQUAL 0)
      list(APPEND features "+${letter}")
    endif()
  endforeach()
  string(REPLACE ";" "," features "${features}")
  set(${out} "${features}" PARENT_SCOPE)
endfunction()

# mote_resolve_target(<triple var> <cpu var> <features var> [OPTIONAL])
# Sets the three variables in the caller's scope, or stops with an error
# (OPTIONAL: sets them empty instead).
function(mote_resolve_target out_triple out_cpu out_features)
  set(triple "${MOTE_TARGET_TRIPLE}")
  set(cpu "${MOTE_CPU}")
  if(NOT cpu)
    set(cpu "${MOTE_TARGET_CPU}")
  endif()
  set(features "${MOTE_FEATURES}")
  if(NOT features)
    set(features "${MOTE_TARGET_FEATURES}")
  endif()

  if(NOT triple)
    string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" processor)
    _mote_flag(mcpu mcpu)
    _mote_flag(march march)
    _mote_flag(float_abi mfloat-abi)
    if(CMAKE_SYSTEM_NAME MATCHES "^(Linux|Android)$")
      if(processor MATCHES "^(x86_64|amd64|x64)$")
        set(triple x86_64-linux-gnu)
      elseif(processor MATCHES "^(aarch64|arm64|armv8-a|armv8)")
        set(triple aarch64-linux-gnu)
        if(CMAKE_SYSTEM_NAME STREQUAL "Android")
          set(triple aarch64-linux-android)
        endif()
      elseif(processor MATCHES "^riscv64|^rv64")
        set(triple riscv64-linux-gnu)
      endif()
    elseif(CMAKE_SYSTEM_NAME MATCHES "^(Generic|Generic-ELF|none|)$" OR NOT CMAKE_SYSTEM_NAME)
      # Bare metal: the processor, else the compiler's -mcpu/-march.
      set(name "${processor}")
      if(mcpu)
        set(name "${mcpu}")
      elseif(march AND NOT processor MATCHES "^cortex-m")
        set(name "${march}")
      endif()
      string(REGEX REPLACE "\\+.*" "" name "${name}") # cortex-m4+nofp -> cortex-m4
      if(name MATCHES "^cortex-m55|^armv8\\.1-?m")
        set(triple thumbv8.1m.main-none-eabihf)
        set(default_cpu cortex-m55)
      elseif(name MATCHES "^cortex-m7")
        set(triple thumbv7em-none-eabihf)
        set(default_cpu cortex-m7)
      elseif(name MATCHES "^cortex-m4|^armv7e-?m|^arm$|^armv7|^thumb")
        set(triple thumbv7em-none-eabihf)
        set(default_cpu cortex-m4)
      elseif(name MATCHES "^(riscv32|rv32)")
        set(triple riscv32-unknown-elf)
        set(default_cpu generic-rv32)
        set(isa "${march}")
        if(NOT isa AND name MATCHES "^rv32")
          set(isa "${name}")
        endif()
        if(isa AND NOT features)
          _mote_riscv32_features(features "${isa}")
        endif()
      endif()
      if(triple MATCHES "^thumb" AND float_abi AND NOT float_abi STREQUAL "hard")
        message(FATAL_ERROR "Mote: Cortex-M code is compiled for the hard-float ABI "
          "(${triple}), but the toolchain uses -mfloat-abi=${float_abi}; build the firmware "
          "with -mfloat-abi=hard")
      endif()
      if(NOT cpu)
        set(cpu "${default_cpu}")
      endif()
    endif()
  endif()
  if(NOT triple AND "OPTIONAL" IN_LIST ARGN)
    set(cpu "")
    set(features "")
  elseif(NOT triple)
    message(FATAL_ERROR "Mote: no Mote target for CMAKE_SYSTEM_NAME='${CMAKE_SYSTEM_NAME}' "
      "CMAKE_SYSTEM_PROCESSOR='${CMAKE_SYSTEM_PROCESSOR}'. Set MOTE_TARGET_TRIPLE (and "
      "MOTE_CPU, MOTE_FEATURES) to one of 'motec targets', e.g. "
      "-DMOTE_TARGET_TRIPLE=thumbv7em-none-eabihf -DMOTE_CPU=cortex-m4")
  endif()
  set(${out_triple} "${triple}" PARENT_SCOPE)
  set(${out_cpu} "${cpu}" PARENT_SCOPE)
  set(${out_features} "${features}" PARENT_SCOPE)
endfunction()

# mote_runtime_variant(<var> <triple> <cpu> <features>)
# The name under which an installation keeps the runtime built for a target
# (lib/mote/<variant>): the triple on Linux; on bare metal also the CPU, or
# for RISC-V the ISA, since those change the code and the ABI of the libraries.
function(mote_runtime_variant out triple cpu features)
  if(triple MATCHES "linux")
    set(variant "${triple}")
  elseif(triple MATCHES "^riscv32")
    set(isa rv32i)
    foreach(letter m a f d c)
      if(features MATCHES "\\+${letter}(,|$)")
        string(APPEND isa "${letter}")
      endif()
    endforeach()
    set(variant "${triple}-${isa}")
  else()
    set(variant "${triple}-${cpu}")
  endif()
  set(${out} "${variant}" PARENT_SCOPE)
endfunction()

# mote_link_cxx_without_library()
# Bare-metal toolchains often come without a C++ standard library (Debian's
# arm-none-eabi-g++ has none unless libstdc++-arm-none-eabi-* is installed),
# and Mote's runtime needs none (no exceptions, RTTI or heap). The g++
# driver's -lstdc++ would then fail every link that has C++ in it, so, when
# the library is missing, C++ programs are linked with the C driver instead:
# sets CMAKE_CXX_LINK_EXECUTABLE in the caller's scope (a macro for that),
# and MOTE_CXX_LINKS_WITH_C_DRIVER to ON.
macro(mote_link_cxx_without_library)
  set(MOTE_CXX_LINKS_WITH_C_DRIVER OFF)
  if(CMAKE_SYSTEM_NAME STREQUAL "Generic" AND CMAKE_CXX_COMPILER AND CMAKE_C_COMPILER)
    separate_arguments(_mote_cxx_flags UNIX_COMMAND "${CMAKE_CXX_FLAGS}")
    execute_process(COMMAND "${CMAKE_CXX_COMPILER}" ${_mote_cxx_flags} -print-file-name=libstdc++.a
                    OUTPUT_VARIABLE _mote_libstdcxx OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT IS_ABSOLUTE "${_mote_libstdcxx}")
      set(CMAKE_CXX_LINK_EXECUTABLE
          "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
      set(MOTE_CXX_LINKS_WITH_C_DRIVER ON)
    endif()
  endif()
endmacro()
