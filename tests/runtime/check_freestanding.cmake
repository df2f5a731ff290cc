# Compiles each runtime core file for a bare-metal target (-Os, no exceptions,
# no RTTI; once as configured by default and once with the knobs of
# mote/config.h turned down) and fails when the objects need any symbol from
# outside other than memcpy and memset: no libgcc routines, no libc, no heap.
# Prints the code size. Also compiles HEADERS_CXX (C++17, mote/mote.hpp)
# and HEADERS_C (C99 -pedantic, mote/mote.h) the same way. Run with cmake -P;
# CXX, CC, NM, SIZE, FLAGS (a list), INCLUDE, OUT, SOURCES, HEADERS_CXX and
# HEADERS_C are given.
foreach(config default small)
  set(out "${OUT}/${config}")
  file(MAKE_DIRECTORY "${out}")
  set(knobs)
  if(config STREQUAL "small")
    set(knobs -DMOTE_STATUS_MESSAGES=0 -DMOTE_MAX_RANK=4)
  endif()
  set(objects)
  foreach(source ${SOURCES})
    get_filename_component(stem "${source}" NAME_WE)
    set(object "${out}/${stem}.o")
    execute_process(
      COMMAND "${CXX}" ${FLAGS} ${knobs} -Os -fno-exceptions -fno-rtti -std=c++17 -Wall -Wextra
              -Werror -I "${INCLUDE}" -c "${source}" -o "${object}"
      RESULT_VARIABLE result ERROR_VARIABLE errors)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "${source} does not build freestanding (${config}):\n${errors}")
    endif()
    list(APPEND objects "${object}")
  endforeach()
  execute_process(COMMAND "${NM}" -u ${objects} OUTPUT_VARIABLE undefined)
  string(REGEX MATCHALL "U [A-Za-z_0-9]+" symbols "${undefined}")
  set(outside)
  foreach(symbol ${symbols})
    string(SUBSTRING "${symbol}" 2 -1 name)
    if(NOT name MATCHES "^(memcpy|memset|mote_.*)$")
      list(APPEND outside "${name}")
    endif()
  endforeach()
  if(outside)
    list(REMOVE_DUPLICATES outside)
    message(FATAL_ERROR "runtime core (${config}) needs symbols beyond memcpy/memset: ${outside}")
  endif()
  execute_process(COMMAND "${SIZE}" -t ${objects} OUTPUT_VARIABLE sizes)
  string(REGEX MATCH "[^\n]*\\(TOTALS\\)" totals "${sizes}")
  message(STATUS "runtime core (${config}): needs only memcpy/memset; text data bss: ${totals}")
endforeach()

execute_process(
  COMMAND "${CXX}" ${FLAGS} -Os -fno-exceptions -fno-rtti -std=c++17 -Wall -Wextra -Werror
          -I "${INCLUDE}" -c "${HEADERS_CXX}" -o "${OUT}/headers_cxx.o"
  RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "mote/mote.hpp does not build freestanding:\n${errors}")
endif()
execute_process(
  COMMAND "${CC}" ${FLAGS} -Os -std=c99 -pedantic -Wall -Wextra -Werror
          -I "${INCLUDE}" -c "${HEADERS_C}" -o "${OUT}/headers_c.o"
  RESULT_VARIABLE result ERROR_VARIABLE errors)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "mote/mote.h is not C99:\n${errors}")
endif()
message(STATUS "mote/mote.hpp (C++17, no exceptions/RTTI) and mote/mote.h (C99) build")
