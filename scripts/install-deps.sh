#!/usr/bin/env bash
# Installs the Debian 12 packages Mote's build and tests need, skipping those
# already present. Usage: scripts/install-deps.sh [--list] [group...]
#   build   compiler build: LLVM 16, clang-16, lld-16 and their development files, libzip
#   test    test tools: doctest, lit's python3 and NumPy, libFuzzer runtime,
#           Graphviz (motec report --graph)
#   cross   cross toolchains and QEMU (code generation and runtime tests)
#   bench   peers measured by bench/ (XNNPACK, Eigen, OpenBLAS, PyTorch), and arm64 as a
#           dpkg architecture so bench --qemu can download Debian's arm64 XNNPACK
# With no group: build and test. --list prints the groups' packages, one a
# line, and installs nothing (tests check them against what configuring needs).
set -euo pipefail

list=0
if [ "${1:-}" = "--list" ]; then
  list=1
  shift
fi
groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=(build test)

packages=()
for group in "${groups[@]}"; do
  case "$group" in
    build) packages+=(cmake ninja-build g++ llvm-16-dev libllvm16 llvm-16-tools clang-16 lld-16
                      liblld-16-dev zlib1g-dev libzstd-dev libtinfo-dev libxml2-dev
                      libflatbuffers-dev flatbuffers-compiler libzip-dev) ;;
    test) packages+=(doctest-dev python3 python3-numpy libclang-rt-16-dev graphviz) ;;
    cross) packages+=(qemu-user qemu-system-arm qemu-system-misc g++-aarch64-linux-gnu
                      g++-riscv64-linux-gnu gcc-arm-none-eabi picolibc-arm-none-eabi
                      libnewlib-arm-none-eabi gcc-riscv64-unknown-elf
                      picolibc-riscv64-unknown-elf) ;;
    bench) packages+=(libxnnpack-dev libpthreadpool-dev libeigen3-dev libopenblas-dev
                      python3-torch python3-numpy python3-sklearn) ;;
    *) echo "install-deps: unknown group '$group' (build, test, cross, bench)" >&2; exit 2 ;;
  esac
done

if [ $list -eq 1 ]; then
  printf '%s\n' "${packages[@]}" | sort -u
  exit 0
fi

# bench --qemu downloads Debian's arm64 XNNPACK (never installs it): apt must know arm64.
for group in "${groups[@]}"; do
  if [ "$group" = bench ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo dpkg --add-architecture arm64
    $sudo apt-get update -qq
  fi
done

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
