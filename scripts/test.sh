#!/usr/bin/env bash
# Builds everything and runs the whole test suite (unit, lit, fuzz smoke runs,
# and the corpus conformance tests when ../shared/hlo-corpus exists).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" build test
"$root/scripts/build.sh"
cd "${MOTE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${MOTE_JOBS:-2}" "$@"
