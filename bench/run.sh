#!/usr/bin/env bash
# Benchmarks Mote against XNNPACK, Eigen, PyTorch and OpenBLAS on this machine.
# Builds motec and mote-run (and the cross mote-runs for --qemu) in $MOTE_BUILD_DIR
# (default build/), the peers in <build>/bench/bin, then runs bench/harness.py.
#   bench/run.sh [--models mlp,gemm] [--threads 1,2] [--seconds 2] [--rounds 3] [--qemu]
# Tables on standard output, progress on standard error; see bench/README.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MOTE_BUILD_DIR:-$root/build}"

targets=(motec mote-run)
for arg in "$@"; do
  case "$arg" in
    --qemu|--qemu-only) targets+=(mote-run-aarch64-linux-gnu mote-run-riscv64-linux-gnu) ;;
  esac
done
if [ ! -f "$build/build.ninja" ]; then
  MOTE_BUILD_DIR="$build" "$root/scripts/build.sh"
fi
cmake --build "$build" -j "${MOTE_JOBS:-2}" --target "${targets[@]}" >&2

python=/usr/bin/python3
[ -x "$python" ] || python=python3
exec "$python" -B "$root/bench/harness.py" --build-dir "$build" "$@"
