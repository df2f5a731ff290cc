# Cortex-M55 bare metal with Helium (MVE, floating point) and hard float, with
# GNU Arm's arm-none-eabi-gcc and picolibc. Firmware runs on QEMU's mps3-an547.
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)

set(MOTE_TARGET_TRIPLE thumbv8.1m.main-none-eabihf)
set(MOTE_TARGET_CPU cortex-m55)
set(MOTE_TARGET_FEATURES "+mve.fp")
set(MOTE_BOARD mps3-an547 CACHE STRING "QEMU board the firmware is linked for")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-system-arm -M ${MOTE_BOARD} -nographic -semihosting -kernel)
# The C library multilib is armv8.1-m.main+mve/hard; the generated code uses
# MVE itself, the port's own code needs only the scalar FPU.
set(_mote_flags "-mcpu=cortex-m55 -mthumb -mfloat-abi=hard")

include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
