# RISC-V 64 Linux (rv64gc) with Debian's riscv64-linux-gnu-gcc; programs run
# under qemu-riscv64. -DMOTE_RISCV64_VECTOR=ON compiles models with +v and runs
# them on a QEMU CPU with the vector extension (vlen 128).
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(_mote_gnu riscv64-linux-gnu)
set(MOTE_TARGET_TRIPLE riscv64-linux-gnu)
set(MOTE_TARGET_CPU generic-rv64)
set(MOTE_RISCV64_VECTOR OFF CACHE BOOL "Compile models with the vector extension (+v)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES MOTE_RISCV64_VECTOR)
if(MOTE_RISCV64_VECTOR)
  set(MOTE_TARGET_FEATURES "+m,+a,+f,+d,+c,+v")
  set(_mote_qemu qemu-riscv64 -cpu rv64,v=true,vext_spec=v1.0,vlen=128)
else()
  set(MOTE_TARGET_FEATURES "+m,+a,+f,+d,+c")
  set(_mote_qemu qemu-riscv64)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/linux-gnu-cross.cmake)
