#!/usr/bin/env bash
# The main job, end to end: install what is missing, build, compile the shipped
# example model for aarch64, riscv64 and Cortex-M4, run each build under QEMU,
# and print the results next to the reference evaluator's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" build cross
"$root/scripts/build.sh"
motec="${MOTE_BUILD_DIR:-$root/build}/bin/motec"
model="$root/examples/mlp/mlp.hlo"
input="$root/examples/mlp/input.npy"
echo "== motec check examples/mlp/mlp.hlo"
"$motec" check "$model"
echo "== reference evaluator"
"$motec" eval "$model" --input "$input"
for target in aarch64-linux-gnu riscv64-linux-gnu thumbv7em-none-eabihf; do
  echo "== compiled for $target, run under QEMU"
  "$motec" run "$model" --target="$target" --input "$input"
done
echo "== memory plan and code size (Cortex-M4)"
"$motec" report "$model" --target=thumbv7em-none-eabihf | grep -E "arena:|constants:|thumbv7em"
