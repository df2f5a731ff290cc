# Cortex-M4 (default) or Cortex-M7 bare metal, hard float, with GNU Arm's
# arm-none-eabi-gcc and picolibc. Firmware runs on QEMU's mps2-an386 (M4) or
# mps2-an500 (M7). Pick the CPU with -DMOTE_CORTEX_M_CPU=cortex-m7.
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)

set(MOTE_CORTEX_M_CPU cortex-m4 CACHE STRING "Cortex-M CPU: cortex-m4 or cortex-m7")
set_property(CACHE MOTE_CORTEX_M_CPU PROPERTY STRINGS cortex-m4 cortex-m7)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MOTE_CORTEX_M_CPU)

set(MOTE_TARGET_TRIPLE thumbv7em-none-eabihf)
set(MOTE_TARGET_CPU ${MOTE_CORTEX_M_CPU})
set(MOTE_TARGET_FEATURES "")
if(MOTE_CORTEX_M_CPU STREQUAL "cortex-m7")
  set(_mote_flags "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16")
  set(_mote_board mps2-an500)
elseif(MOTE_CORTEX_M_CPU STREQUAL "cortex-m4")
  set(_mote_flags "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
  set(_mote_board mps2-an386)
else()
  message(FATAL_ERROR "MOTE_CORTEX_M_CPU must be cortex-m4 or cortex-m7, not '${MOTE_CORTEX_M_CPU}'")
endif()

set(MOTE_BOARD ${_mote_board} CACHE STRING "QEMU board the firmware is linked for")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-system-arm -M ${MOTE_BOARD} -nographic -semihosting -kernel)
include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
