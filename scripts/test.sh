#!/usr/bin/env bash
# Builds everything and runs the whole test suite (unit, lit, fuzz smoke runs,
# differential code generation tests on the host and under QEMU, and the
# corpus conformance tests when ../shared/hlo-corpus exists), then the
# sanitizer lane: a second build with AddressSanitizer and UBSan running the
# unit tests, the host differential tests and the host fuzz smoke runs.
#   MOTE_BUILD_DIR            the main build (default build/)
#   MOTE_SANITIZE_BUILD_DIR   the sanitizer lane's build (default build-sanitize/)
#   MOTE_SANITIZER_LANE=0     skip the sanitizer lane
# Extra arguments go to the main lane's ctest.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" build test cross
lane_start=$SECONDS
# Tests on, also in a build folder demo.sh configured without them.
"$root/scripts/build.sh" -DMOTE_BUILD_TESTS=ON
cd "${MOTE_BUILD_DIR:-$root/build}"
status=0
ctest --output-on-failure -j "${MOTE_JOBS:-2}" "$@" || status=$?
echo "test.sh: main lane $((SECONDS - lane_start)) s"

if [ "${MOTE_SANITIZER_LANE:-1}" != 0 ]; then
  lane_start=$SECONDS
  sanitize_build="${MOTE_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
  # Only what the lane runs: the unit test programs, motec and mote-run (the
  # host differential tests), and the fuzz targets. Cross-built mote-runs,
  # firmware and bench stay in the main lane. -O1 with line tables (asserts
  # on) compiles in less time than -O2 -g and still names every line.
  MOTE_BUILD_DIR="$sanitize_build" \
  MOTE_BUILD_TARGETS="hlo_tests eval_tests tools_tests passes_tests target_tests codegen_tests \
mote_runtime_tests package_unit run_package motec mote-run parser_fuzz package_fuzz" \
    "$root/scripts/build.sh" -DMOTE_SANITIZE=address,undefined -DMOTE_CROSS_MOTE_RUN=OFF \
      -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" \
      -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only"
  cd "$sanitize_build"
  # Leaks are reported by the fuzz targets themselves; the compiler keeps
  # LLVM's global state alive until exit, which LeakSanitizer would list.
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  ctest --output-on-failure -j "${MOTE_JOBS:-2}" -L "unit|fuzz" -LE "qemu" ||
    status=$?
  ctest --output-on-failure -j "${MOTE_JOBS:-2}" -R "^(differential\.host|differential\.package\.host|mote_run\.host)$" ||
    status=$?
  echo "test.sh: sanitizer lane $((SECONDS - lane_start)) s"
fi
exit $status
