# Finds LLVM 16 and defines mote_add_compiler_library() for the compiler's parts.
find_package(LLVM 16 REQUIRED CONFIG PATHS /usr/lib/llvm-16/lib/cmake/llvm NO_DEFAULT_PATH)
message(STATUS "Mote: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# Everything links the one shared libLLVM: links take a second, not minutes.
set(MOTE_LLVM_LIBS LLVM)
set(MOTE_LLVM_TOOLS_DIR "${LLVM_TOOLS_BINARY_DIR}")

# mote_add_compiler_library(name SOURCES ... DEPS ...)
function(mote_add_compiler_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_compile_features(${name} PUBLIC cxx_std_20)
  set_target_properties(${name} PROPERTIES CXX_EXTENSIONS OFF)
  target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}/compiler")
  target_include_directories(${name} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(${name} PUBLIC ${LLVM_DEFINITIONS})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${name} PUBLIC -fno-rtti)
  endif()
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} ${MOTE_LLVM_LIBS})
endfunction()
