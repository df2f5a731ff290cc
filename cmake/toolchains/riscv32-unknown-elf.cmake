# RISC-V 32 bare metal with Debian's riscv64-unknown-elf-gcc (it carries rv32
# multilibs) and picolibc. Firmware runs on QEMU's virt board. The default is
# rv32imac (soft float); -DMOTE_RISCV32_ARCH=rv32imafc uses the F extension.
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)

set(MOTE_RISCV32_ARCH rv32imac CACHE STRING "RISC-V ISA: rv32imac or rv32imafc")
set_property(CACHE MOTE_RISCV32_ARCH PROPERTY STRINGS rv32imac rv32imafc)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MOTE_RISCV32_ARCH)

set(MOTE_TARGET_TRIPLE riscv32-unknown-elf)
set(MOTE_TARGET_CPU generic-rv32)
set(MOTE_BOARD virt CACHE STRING "QEMU board the firmware is linked for")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-system-riscv32 -M ${MOTE_BOARD} -bios none -nographic -semihosting -kernel)
if(MOTE_RISCV32_ARCH STREQUAL "rv32imac")
  set(MOTE_TARGET_FEATURES "+m,+a,+c")
  set(_mote_flags "-march=rv32imac -mabi=ilp32 -mcmodel=medany")
elseif(MOTE_RISCV32_ARCH STREQUAL "rv32imafc")
  set(MOTE_TARGET_FEATURES "+m,+a,+c,+f")
  set(_mote_flags "-march=rv32imafc -mabi=ilp32f -mcmodel=medany")
else()
  message(FATAL_ERROR "MOTE_RISCV32_ARCH must be rv32imac or rv32imafc, not '${MOTE_RISCV32_ARCH}'")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/bare-metal.cmake)
