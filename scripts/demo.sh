#!/usr/bin/env bash
# The main job, end to end: install what is missing, build, and run the shipped
# example model, printing its result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" build
"$root/scripts/build.sh"
motec="${MOTE_BUILD_DIR:-$root/build}/bin/motec"
model="$root/examples/mlp/mlp.hlo"
echo "== motec check $model"
"$motec" check "$model"
echo "== motec eval $model --input examples/mlp/input.npy"
"$motec" eval "$model" --input "$root/examples/mlp/input.npy"
