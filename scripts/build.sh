#!/usr/bin/env bash
# Configures and builds Mote in build/ (or $MOTE_BUILD_DIR) with clang-16 and Ninja.
# Extra arguments are CMake options (-D...): they configure a new build folder,
# or are applied to an existing one before building. $MOTE_BUILD_TARGETS, when
# set, names the targets to build instead of all of them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MOTE_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 "$@"
elif [ $# -gt 0 ]; then
  cmake "$build" "$@"
fi
targets=()
for target in ${MOTE_BUILD_TARGETS:-}; do
  targets+=(--target "$target")
done
cmake --build "$build" -j "${MOTE_JOBS:-2}" "${targets[@]}"
