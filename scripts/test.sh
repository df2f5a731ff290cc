#!/usr/bin/env bash
# Builds everything and runs the whole test suite (unit, lit, fuzz smoke runs,
# differential code generation tests on the host and under QEMU, and the
# corpus conformance tests when ../shared/hlo-corpus exists), then the
# sanitizer lane: a second build with AddressSanitizer and UBSan running the
# unit tests, the host random programs and the host differential tests.
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
  # Leaks are reported by the fuzz targets (main lane); the compiler keeps
  # LLVM's global state alive until exit, which LeakSanitizer would list.
  # No alternate signal stack of ASan's own: LLVM installs one of its own
  # (from malloc) in the compiler's threads, and ASan unmaps whatever stack
  # is installed when a thread exits, which fails on some machines ("unable
  # to unmap") and aborted motec as the build wrote its test packages.
  # Set before the build, which runs the sanitized motec.
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:use_sigaltstack=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # Only what the lane runs: the unit test programs, motec and mote-run (the
  # host differential tests and random programs). Cross-built mote-runs,
  # firmware and bench stay in the main lane, and so do the libFuzzer smoke
  # runs (their targets have ASan and UBSan in any build). -O1 with line
  # tables (asserts on) compiles in less time than -O2 -g and still names
  # every line.
  MOTE_BUILD_DIR="$sanitize_build" \
  MOTE_BUILD_TARGETS="hlo_tests eval_tests tools_tests passes_tests target_tests codegen_tests \
mote_runtime_tests package_unit run_package motec mote-run" \
    "$root/scripts/build.sh" -DMOTE_SANITIZE=address,undefined -DMOTE_CROSS_MOTE_RUN=OFF \
      -DCMAKE_BUILD_TYPE=Sanitize -DCMAKE_C_FLAGS_SANITIZE="-O1 -gline-tables-only" \
      -DCMAKE_CXX_FLAGS_SANITIZE="-O1 -gline-tables-only"
  cd "$sanitize_build"
  # One ctest run, so the long host tests share the two cores with the unit
  # tests instead of running alone at the end. The host differential cases
  # through packages stay in the main lane: the package loader is fuzzed with
  # ASan, and mote_run.host runs mote-run here.
  ctest --output-on-failure -j "${MOTE_JOBS:-2}" -L "unit|host" -LE "qemu" \
    -E "^differential\.package\.host$" || status=$?
  echo "test.sh: sanitizer lane $((SECONDS - lane_start)) s"
fi
exit $status
