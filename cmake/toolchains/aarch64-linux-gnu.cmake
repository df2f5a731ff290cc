# AArch64 Linux with Debian's aarch64-linux-gnu-gcc; programs run under
# qemu-aarch64 (ctest uses it as the emulator).
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(_mote_gnu aarch64-linux-gnu)
set(_mote_qemu qemu-aarch64)
set(MOTE_TARGET_TRIPLE aarch64-linux-gnu)
set(MOTE_TARGET_CPU generic)
set(MOTE_TARGET_FEATURES "+neon")
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
