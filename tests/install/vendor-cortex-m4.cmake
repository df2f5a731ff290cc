# A Cortex-M4 toolchain file as a board vendor writes one: a processor name,
# GNU Arm's compilers and their flags, nothing of Mote's (no MOTE_*
# variables, no link rule without the C++ library). Mote must work out the
# target (thumbv7em-none-eabihf, cortex-m4) from it.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m4)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(flags "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=picolibc.specs")
set(CMAKE_C_FLAGS_INIT "${flags} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${flags} -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")
