#!/usr/bin/env bash
# Builds everything and runs the whole test suite (unit, lit, fuzz smoke runs,
# differential code generation tests on the host and under QEMU, and the
# corpus conformance tests when ../shared/hlo-corpus exists).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" build test cross
# Tests on, also in a build folder demo.sh configured without them.
"$root/scripts/build.sh" -DMOTE_BUILD_TESTS=ON
cd "${MOTE_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${MOTE_JOBS:-2}" "$@"
