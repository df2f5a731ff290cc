# AArch64 Android with the NDK's clang: give the NDK's folder with
# -DANDROID_NDK=/path/to/ndk or the ANDROID_NDK environment variable. This file
# sets Mote's variables and hands everything else to the NDK's own toolchain
# file (ABI arm64-v8a; API level ANDROID_PLATFORM, default android-24).
if(NOT ANDROID_NDK AND DEFINED ENV{ANDROID_NDK})
  set(ANDROID_NDK "$ENV{ANDROID_NDK}")
endif()
if(NOT ANDROID_NDK)
  message(FATAL_ERROR
    "aarch64-linux-android needs the Android NDK: pass -DANDROID_NDK=/path/to/android-ndk "
    "or set the ANDROID_NDK environment variable")
endif()
if(NOT EXISTS "${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
  message(FATAL_ERROR "ANDROID_NDK=${ANDROID_NDK} has no build/cmake/android.toolchain.cmake: "
    "is it the NDK's top folder?")
endif()
# try_compile projects re-read this file; they must see the same NDK.
set(ENV{ANDROID_NDK} "${ANDROID_NDK}")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ANDROID_NDK)

set(ANDROID_ABI arm64-v8a)
if(NOT ANDROID_PLATFORM)
  set(ANDROID_PLATFORM android-24)
endif()
set(MOTE_TARGET_TRIPLE aarch64-linux-android)
set(MOTE_TARGET_CPU generic)
set(MOTE_TARGET_FEATURES "+neon")
include("${ANDROID_NDK}/build/cmake/android.toolchain.cmake")
