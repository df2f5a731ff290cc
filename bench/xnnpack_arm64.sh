#!/usr/bin/env bash
# Builds XNNPACK's bench peer for aarch64 against Debian's arm64 XNNPACK, for the
# guest instruction counts under qemu-aarch64 (bench/run.sh --qemu).
#   bench/xnnpack_arm64.sh <out dir>     (default: $MOTE_BUILD_DIR or build/, + bench/arm64)
# The arm64 packages are downloaded with apt-get download and unpacked with dpkg-deb -x
# into <out dir>/sysroot: installing them (apt-get install libxnnpack-dev:arm64) would
# remove the amd64 XNNPACK and PyTorch. Needs aarch64-linux-gnu-g++ and the arm64
# architecture in dpkg (dpkg --add-architecture arm64 && apt-get update).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-${MOTE_BUILD_DIR:-$root/build}/bench/arm64}"
mkdir -p "$out/debs" "$out/sysroot"
cd "$out/debs"
packages=(libxnnpack0:arm64 libxnnpack-dev:arm64 libpthreadpool0:arm64 libpthreadpool-dev:arm64
          libcpuinfo0:arm64)
if ! ls ./*.deb > /dev/null 2>&1; then
  apt-get download "${packages[@]}" >&2
fi
for deb in ./*.deb; do
  dpkg-deb -x "$deb" "$out/sysroot"
done
lib="$out/sysroot/usr/lib/aarch64-linux-gnu"
aarch64-linux-gnu-g++ -O3 -std=c++17 -I"$root/include" -I"$root/runtime/tools" \
  -I"$out/sysroot/usr/include" "$root/bench/peers/xnnpack_peer.cc" "$root/bench/peers/peer_main.cc" \
  "$root/runtime/tools/npy.cc" "$root/runtime/core/layout.cc" -L"$lib" -Wl,-rpath-link,"$lib" \
  -lXNNPACK -lpthreadpool -lpthread -lm -o "$out/xnnpack-peer-aarch64"
echo "$out/xnnpack-peer-aarch64"
