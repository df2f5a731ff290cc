#!/usr/bin/env bash
# The runtime's footprint on a Cortex-M4 (-Os, arm-none-eabi-gcc): builds the
# programs of tests/firmware/programs with cmake/toolchains/thumbv7em-none-eabihf.cmake
# and prints .text/.rodata/.data/.bss of each (arm-none-eabi-size -A; the 8 KB
# stack is left out) and what each layer adds to the one before.
# Needs a motec for the tiny model: $MOTE_MOTEC, else build/bin/motec.
# Usage: scripts/footprint.sh [build dir]   (default build-footprint)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build-footprint}"
motec="${MOTE_MOTEC:-${MOTE_BUILD_DIR:-$root/build}/bin/motec}"
cmake -S "$root/tests/firmware/programs" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/thumbv7em-none-eabihf.cmake" \
  -DMOTE_MOTEC="$motec" >"$build.log" 2>&1 || { cat "$build.log"; exit 1; }
cmake --build "$build" >>"$build.log" 2>&1 || { tail -30 "$build.log"; exit 1; }
# The static path once more without status message strings.
cmake -S "$root/tests/firmware/programs" -B "$build-nomsg" -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/thumbv7em-none-eabihf.cmake" \
  -DMOTE_MOTEC="$motec" -DMOTE_FOOTPRINT_NO_MESSAGES=ON >>"$build.log" 2>&1 &&
  cmake --build "$build-nomsg" --target static_path >>"$build.log" 2>&1 || { tail -30 "$build.log"; exit 1; }

# name .text .rodata .data .bss of one ELF or object.
sections() {
  arm-none-eabi-size -A "$2" | awk -v name="$1" '
    $1 ~ /^\.text/ {t += $2} $1 ~ /^\.rodata/ {r += $2} $1 == ".data" {d += $2} $1 == ".bss" {b += $2}
    END {printf "%s %d %d %d %d\n", name, t, r, d, b}'
}
rows=("$(sections bare "$build/bare.elf")")
rows+=("$(sections static_path "$build/static_path.elf")")
nomsg="$(sections "static_path, no messages" "$build-nomsg/static_path.elf")"
if [ -f "$build/package_path.elf" ]; then
  # The embedded package is the program's data, not the loader's.
  package="$(arm-none-eabi-nm -S "$build/package_path.elf" | awk '$4 == "add_package" {print $2}')"
  package=$((16#${package:-0}))
  read -r name t r d b <<<"$(sections package_path "$build/package_path.elf")"
  rows+=("$name $t $((r - package)) $d $b")
fi
model="$(sections model "$build/mote_models/footprint_add/footprint_add.o")"

echo "Cortex-M4, -Os, bytes (arm-none-eabi-size -A; the stack is not counted, and .bss"
echo "is the programs' own buffers: runtime memory, package code memory, tensors;"
echo "package_path's .rodata leaves out the package it embeds)"
printf "%-34s %7s %7s %7s %7s %7s\n" program .text .rodata .data .bss flash
prev=""
for row in "${rows[@]}"; do
  read -r name t r d b <<<"$row"
  printf "%-34s %7d %7d %7d %7d %7d\n" "$name" "$t" "$r" "$d" "$b" $((t + r + d))
done
read -r _ _ _ nt nr nd nb <<<"$nomsg"
printf "%-34s %7d %7d %7d %7d %7d\n" "static_path, MOTE_STATUS_MESSAGES=0" "$nt" "$nr" "$nd" "$nb" \
  $((nt + nr + nd))
read -r _ mt mr md mb <<<"$model"
printf "%-34s %7d %7d %7d %7d %7d\n" "  of which the tiny model (.o)" "$mt" "$mr" "$md" "$mb" $((mt + mr + md))
echo
echo "what each layer adds (flash = .text + .rodata + .data):"
read -r _ bt br bd bb <<<"${rows[0]}"
read -r _ st sr sd sb <<<"${rows[1]}"
printf "%-34s %7d %7d %7d %7d %7d\n" "runtime static path (no model)" $((st - bt - mt)) $((sr - br - mr)) \
  $((sd - bd)) $((sb - bb)) $((st + sr + sd - bt - br - bd - mt - mr - md))
printf "%-34s %7d %7d %7d %7d %7d\n" "  the same, MOTE_STATUS_MESSAGES=0" $((nt - bt - mt)) $((nr - br - mr)) \
  $((nd - bd)) $((nb - bb)) $((nt + nr + nd - bt - br - bd - mt - mr - md))
if [ ${#rows[@]} -gt 2 ]; then
  read -r _ pt pr pd pb <<<"${rows[2]}"
  printf "%-34s %7d %7d %7d %7d %7d\n" "package loader (over static path)" $((pt - st + mt)) $((pr - sr + mr)) \
    $((pd - sd)) $((pb - sb)) $((pt + pr + pd - st - sr - sd + mt + mr + md))
fi
