# Shared by the bare-metal toolchain files (included after they set the
# compiler and the MOTE_* variables): no operating system, so CMake checks
# compilers by building a static library instead of linking a program, and
# the compiler and the host test suite are off unless asked for.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

set(MOTE_BUILD_COMPILER OFF CACHE BOOL "Build motec and the compiler libraries (needs LLVM 16)")
set(MOTE_BUILD_TESTS OFF CACHE BOOL "Build the test suite")

# picolibc supplies the C headers and memcpy/memset; the port supplies startup
# (it links with -nostartfiles), so nothing else of the C library is pulled in.
# Sections per function let --gc-sections drop whatever the firmware never calls.
string(APPEND _mote_flags " --specs=picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_mote_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_mote_flags} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${_mote_flags}")
# -z noexecstack: GCC's bare-metal objects carry no .note.GNU-stack, which ld warns about.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections -Wl,-z,noexecstack")
unset(_mote_flags)
# No C++ standard library is installed for these targets and the runtime needs
# none (no exceptions, RTTI or heap): programs with C++ in them link with the C
# driver, which does not ask for -lstdc++.
set(CMAKE_CXX_LINK_EXECUTABLE
  "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
