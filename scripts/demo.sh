#!/usr/bin/env bash
# The main job, end to end: install what is missing, build Mote, then build the
# digit classifier (examples/digits) for Linux on aarch64 and riscv64 and as
# Cortex-M4, Cortex-M55 and RV32 firmware, run each under QEMU, and print its
# predictions and accuracy next to the reference from examples/digits/train.py.
# It needs the compiler and the cross toolchains, not the test suite: a new
# build folder is configured without tests (doctest is the test group's), an
# existing one is built as it is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" build cross
build="${MOTE_BUILD_DIR:-$root/build}"
if [ -f "$build/build.ninja" ]; then
  "$root/scripts/build.sh"
else
  "$root/scripts/build.sh" -DMOTE_BUILD_TESTS=OFF
fi
motec="$build/bin/motec"
example="$root/examples/digits"
toolchains="$root/cmake/toolchains"

echo "== examples/digits/digits.hlo: a 64-32-10 perceptron trained on scikit-learn's 8x8 digits"
"$motec" check "$example/digits.hlo" | sed -n '1,4p'
echo "== reference: float32 numpy forward pass (examples/digits/expected_output.txt)"
cat "$example/expected_output.txt"

# name | cmake/toolchains file | size tool (firmware) | how to run the program
# (tests/scripts/check_install_deps.py reads this table: keep one entry a line)
targets=(
  "aarch64-linux|aarch64-linux-gnu||qemu-aarch64 -L /usr/aarch64-linux-gnu"
  "riscv64-linux|riscv64-linux-gnu||qemu-riscv64 -L /usr/riscv64-linux-gnu"
  "cortex-m4 (mps2-an386)|thumbv7em-none-eabihf|arm-none-eabi-size|qemu-system-arm -M mps2-an386 -nographic -semihosting -kernel"
  "cortex-m55 (mps3-an547)|thumbv8.1m.main-none-eabihf|arm-none-eabi-size|qemu-system-arm -M mps3-an547 -nographic -semihosting -kernel"
  "rv32imac (virt)|riscv32-unknown-elf|riscv64-unknown-elf-size|qemu-system-riscv32 -M virt -bios none -nographic -semihosting -kernel"
)
mkdir -p "$build/demo"
failed=0
for entry in "${targets[@]}"; do
  IFS='|' read -r name toolchain size runner <<<"$entry"
  dir="$build/demo/$toolchain"
  echo "== $name: cmake examples/digits with cmake/toolchains/$toolchain.cmake, run with ${runner%% *}"
  if ! { cmake -S "$example" -B "$dir" -G Ninja -DMOTE_MOTEC="$motec" \
           -DCMAKE_TOOLCHAIN_FILE="$toolchains/$toolchain.cmake" &&
         cmake --build "$dir" --target digits; } >"$dir.log" 2>&1; then
    echo "build failed: see $dir.log"; failed=1; continue
  fi
  program="$dir/digits"
  if [ -f "$program.elf" ]; then
    program="$program.elf"
    "$size" "$program" | awk 'NR==2 {printf "firmware: flash %d B (code, weights, 200 test images), RAM %d B (8.5 KB of it stacks)\n", $1 + $2, $2 + $3}'
  fi
  # QEMU prints semihosting output on stderr.
  if ! output="$($runner "$program" </dev/null 2>&1)"; then
    echo "$output"; echo "exit status non-zero"; failed=1; continue
  fi
  echo "$output"
  # Both lines of the reference (predictions, accuracy) must appear as they are.
  if [ "$(grep -cxF -f "$example/expected_output.txt" <<<"$output")" -eq 2 ]; then
    echo "matches the reference"
  else
    echo "DIFFERS from the reference"; failed=1
  fi
done
exit $failed
