# Shared by the Linux cross toolchain files (included after they set
# _mote_gnu, the GNU triple of Debian's cross compilers, and _mote_qemu): GCC
# cross compilers, the target's libraries from /usr/<triple>, and qemu-user as
# the emulator so ctest runs the programs it builds.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${_mote_gnu}-gcc)
set(CMAKE_CXX_COMPILER ${_mote_gnu}-g++)
set(CMAKE_ASM_COMPILER ${_mote_gnu}-gcc)
set(CMAKE_FIND_ROOT_PATH /usr/${_mote_gnu})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# BOTH: header-only packages such as doctest (the tests) are found on the build machine.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# -L points qemu-user at the target's dynamic loader and shared libraries.
set(CMAKE_CROSSCOMPILING_EMULATOR ${_mote_qemu} -L /usr/${_mote_gnu})
