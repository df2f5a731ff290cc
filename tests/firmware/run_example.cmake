# Builds a project (examples/digits unless PROJECT says otherwise) for one
# target, runs one of its programs, and checks what it prints.
# Run as a ctest script:  cmake -DNAME=... -DBUILD=<dir> -DMOTEC=<motec>
#   [-DPROJECT=<dir> -DPROGRAM=<name> -DEXPECT=<line> -DSTATUS=<n>] [-DTOOLCHAIN=<file>]
#   [-DCONFIGURE_ARGS=a|b] -DRUNNER=<program|args> [-DMAP=ON] [-DSIZE=<size tool>]
#   -P run_example.cmake
# Passes when the program exits with STATUS (default 0) and prints EXPECT, or
# by default every line of examples/digits/expected_output.txt (the predictions
# and accuracy of a float32 numpy forward pass of the same weights), and, with
# MAP=ON, when the firmware links no allocator.
cmake_minimum_required(VERSION 3.25)
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT PROJECT)
  set(PROJECT "${root}/examples/digits")
endif()
if(NOT PROGRAM)
  set(PROGRAM digits)
endif()
set(example "${PROJECT}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${NAME}: ${what} failed (${status}):\n${out}")
  endif()
endfunction()

# Lists arrive joined by "|" (see CMakeLists.txt).
string(REPLACE "|" ";" RUNNER "${RUNNER}")
string(REPLACE "|" ";" CONFIGURE_ARGS "${CONFIGURE_ARGS}")

set(configure "${CMAKE_COMMAND}" -S "${example}" -B "${BUILD}" -G Ninja
  "-DMOTE_MOTEC=${MOTEC}" ${CONFIGURE_ARGS})
if(TOOLCHAIN)
  list(APPEND configure "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}")
endif()
run("configuring ${PROJECT}" ${configure})
run("building ${PROGRAM}" "${CMAKE_COMMAND}" --build "${BUILD}" --target ${PROGRAM})

file(GLOB program "${BUILD}/${PROGRAM}" "${BUILD}/${PROGRAM}.elf")
# QEMU writes semihosting output to stderr: read both streams as one.
execute_process(COMMAND ${RUNNER} ${program} INPUT_FILE /dev/null TIMEOUT 120
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT STATUS)
  set(STATUS 0)
endif()
if(NOT status STREQUAL "${STATUS}")
  message(FATAL_ERROR "${NAME}: ${RUNNER} ${program} exited with '${status}', not ${STATUS}")
endif()

if(EXPECT)
  set(expected "${EXPECT}")
else()
  file(STRINGS "${example}/expected_output.txt" expected)
endif()
foreach(line IN LISTS expected)
  string(FIND "${out}" "${line}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${NAME}: expected the line\n  ${line}\nin the output above")
  endif()
endforeach()

if(MAP)
  # Only what was linked counts, not what --gc-sections discarded.
  file(READ "${BUILD}/${PROGRAM}.map" map)
  string(FIND "${map}" "Linker script and memory map" at)
  string(SUBSTRING "${map}" ${at} -1 linked)
  foreach(symbol malloc calloc realloc free _sbrk sbrk)
    if(linked MATCHES "[ \t\n]${symbol}[ \t\n]")
      message(FATAL_ERROR "${NAME}: the firmware links ${symbol} (see ${BUILD}/${PROGRAM}.map)")
    endif()
  endforeach()
  # The model's constants (its weights) stay in flash: its object puts no
  # byte in .data (copied to RAM at startup) or .bss, only in .text/.rodata.
  string(REGEX MATCHALL "\n \\.(data|bss)[^ \n]*[ \n]+0x[0-9a-f]+[ ]+0x[0-9a-f]+ [^\n]*_model\\.o"
         model_ram "${linked}")
  foreach(entry IN LISTS model_ram)
    if(NOT entry MATCHES "0x[0-9a-f]+[ ]+0x0+ ")
      message(FATAL_ERROR "${NAME}: the model puts data in RAM:${entry}")
    endif()
  endforeach()
  string(REGEX MATCHALL "\n \\.rodata[^ \n]*[ \n]+0x[0-9a-f]+[ ]+0x[0-9a-f]+ [^\n]*_model\\.o"
         model_flash "${linked}")
  # (Programs that load a model from a package link no model object.)
  if(linked MATCHES "_model\\.o" AND NOT model_flash)
    message(FATAL_ERROR "${NAME}: no read-only data of the model in the map")
  endif()
  if(SIZE)
    execute_process(COMMAND "${SIZE}" "${program}" OUTPUT_VARIABLE size_out)
    message("${size_out}")
  endif()
endif()
message("${NAME}: ok")
