# Installs this build into a temporary prefix and builds the out-of-tree
# project in consumer/ against it, as a user would:
#   1. cmake --install <build> --prefix <work>/prefix   (motec, mote-run, the
#      host runtime and port, headers, toolchain files, the CMake package)
#   2. with ARM: the runtime for Cortex-M4, configured with Mote's toolchain
#      file and installed into the same prefix
#   3. the consumer for this machine: find_package(Mote), run it
#   4. with ARM: the consumer with a vendor-style toolchain file (processor
#      cortex-m4, nothing of Mote's), run under qemu-system-arm; it must link
#      without -lstdc++
#   5. the consumer through FetchContent of the source tree: no LLVM, no
#      tests, the consumer's CMAKE_BUILD_TYPE untouched; for this machine and,
#      with ARM, the vendor toolchain
#   6. with PYTHON: the installed mote package compiles and runs the model
# Each program must print "consumer ok" and exit 0; each configuration must
# have written the model's package, scale_model.mote.
# cmake -DBUILD=<mote build> -DSOURCE=<mote source> -DWORK=<dir> -DCC=<host C
#       compiler> -DARM=ON|OFF [-DPYTHON=<python3 with NumPy>] -P run_install_test.cmake
cmake_minimum_required(VERSION 3.25)
set(consumer "${SOURCE}/tests/install/consumer")
set(prefix "${WORK}/prefix")
file(REMOVE_RECURSE "${WORK}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${out}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

# consumer(<name> <runner...> ARGS <cmake arguments...>)
function(consumer name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "RUNNER;ARGS")
  set(build "${WORK}/${name}")
  run("configuring the consumer (${name})" "${CMAKE_COMMAND}" -S "${consumer}" -B "${build}"
    -G Ninja ${ARG_ARGS})
  run("building the consumer (${name})" "${CMAKE_COMMAND}" --build "${build}")
  file(GLOB program "${build}/consumer" "${build}/consumer.elf")
  execute_process(COMMAND ${ARG_RUNNER} ${program} INPUT_FILE /dev/null TIMEOUT 60
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${name}: ${out}")
  if(NOT status EQUAL 0 OR NOT out MATCHES "consumer ok")
    message(FATAL_ERROR "${name}: the consumer exited with ${status}")
  endif()
  if(NOT EXISTS "${build}/scale_model.mote")
    message(FATAL_ERROR "${name}: mote_add_model(... PACKAGE) wrote no scale_model.mote")
  endif()
  file(READ "${build}/build.ninja" ninja)
  if(ninja MATCHES "-lstdc\\+\\+")
    message(FATAL_ERROR "${name}: the consumer links -lstdc++")
  endif()
  file(READ "${build}/CMakeCache.txt" cache)
  set(cache "${cache}" PARENT_SCOPE)
endfunction()

run("installing ${BUILD}" "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${prefix}")
foreach(file bin/motec bin/mote-run include/mote/mote.h include/mote/ports/host/mote_port.h
        lib/cmake/Mote/MoteConfig.cmake share/mote/toolchains/thumbv7em-none-eabihf.cmake)
  if(NOT EXISTS "${prefix}/${file}")
    message(FATAL_ERROR "cmake --install did not install ${file}")
  endif()
endforeach()

set(vendor "-DCMAKE_TOOLCHAIN_FILE=${SOURCE}/tests/install/vendor-cortex-m4.cmake")
set(qemu qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel)
if(ARM)
  set(build "${WORK}/runtime-cortex-m4")
  run("configuring the Cortex-M4 runtime" "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${build}" -G Ninja
    "-DCMAKE_TOOLCHAIN_FILE=${SOURCE}/cmake/toolchains/thumbv7em-none-eabihf.cmake"
    "-DMOTE_MOTEC=${prefix}/bin/motec")
  run("building the Cortex-M4 runtime" "${CMAKE_COMMAND}" --build "${build}")
  run("installing the Cortex-M4 runtime" "${CMAKE_COMMAND}" --install "${build}" --prefix "${prefix}")
endif()

consumer(installed-host ARGS "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${CC}")
if(ARM)
  consumer(installed-cortex-m4 RUNNER ${qemu} ARGS "-DCMAKE_PREFIX_PATH=${prefix}" "${vendor}")
endif()

# Through FetchContent: the runtime is built with the consumer's toolchain.
set(fetch "-DCONSUMER_MOTE_SOURCE=${SOURCE}" "-DMOTE_MOTEC=${prefix}/bin/motec")
consumer(fetched-host ARGS ${fetch} "-DCMAKE_C_COMPILER=${CC}")
foreach(entry "LLVM_DIR:" "MOTE_BUILD_TESTS:BOOL=ON" "MOTE_BUILD_COMPILER:BOOL=ON"
        "CMAKE_BUILD_TYPE:STRING=Rel")
  string(FIND "${cache}" "\n${entry}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "fetched-host: Mote as a subproject left '${entry}' in the cache")
  endif()
endforeach()
if(ARM)
  consumer(fetched-cortex-m4 RUNNER ${qemu} ARGS ${fetch} "${vendor}")
endif()

if(PYTHON)
  string(CONCAT script "import numpy, mote\n"
    "package = mote.compile('${consumer}/scale.hlo')\n"
    "y, = package.run(numpy.arange(8, dtype=numpy.float32), numpy.float32(2.5))\n"
    "assert (y == numpy.arange(8) * 2.5).all(), y\n"
    "print('python ok', mote.__file__)\n")
  run("the installed Python package" "${CMAKE_COMMAND}" -E env
    "PYTHONPATH=${prefix}/lib/python3/dist-packages" --unset=MOTE_MOTEC "${PYTHON}" -c "${script}")
  if(NOT output MATCHES "python ok ${prefix}/lib/python3/dist-packages/mote/__init__.py")
    message(FATAL_ERROR "the installed mote package did not run: ${output}")
  endif()
endif()
message("install.consumer: all consumers ran")
