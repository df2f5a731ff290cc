#!/usr/bin/env python3
"""Tests of the mote-run command line: exit codes and messages for bad input,
the --bench line, thread-count independence, and code selection by CPU
features. Runs mote-run natively, or under an emulator with --runner.

Usage: mote_run_test.py --motec bin/motec --mote-run bin/mote-run --triple x86_64-linux-gnu
       [--runner "qemu-riscv64 -L /usr/riscv64-linux-gnu"]
       [--vector-runner "qemu-riscv64 -cpu rv64,v=true,vext_spec=v1.0,vlen=128 -L ..."]
Exit status: 0 when every check passes, 1 otherwise.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import numpy as np

# Two arguments of different types, so a wrong dtype has a name to report.
MODEL = """HloModule scaled_sum

ENTRY main {
  values = f32[4,8] parameter(0)
  counts = s32[8] parameter(1)
  widened = f32[8] convert(counts)
  scale = f32[4,8] broadcast(widened), dimensions={1}
  product = f32[4,8] multiply(values, scale)
  zero = f32[] constant(0)
  ROOT total = f32[4] reduce(product, zero), dimensions={1}, to_apply=add
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}
"""

# Sub-byte and complex tensors at the interface: s4 travels as int8, c64 as
# complex64.
TYPES_MODEL = """HloModule typed

ENTRY main {
  nibbles = s4[5] parameter(0)
  z = c64[3] parameter(1)
  doubled = s4[5] add(nibbles, nibbles)
  squared = c64[3] multiply(z, z)
  ROOT out = (s4[5], c64[3]) tuple(doubled, squared)
}
"""

# A scratch arena of 4 GiB (a sort's result) behind a scalar input: what a
# machine with little memory cannot give.
HUGE_ARENA_MODEL = """HloModule huge_arena

ENTRY main {
  p = f32[] parameter(0)
  b = f32[1073741824] broadcast(p), dimensions={}
  s = f32[1073741824] sort(b), dimensions={0}, to_apply=less
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(s, zero), dimensions={0}, to_apply=add
}

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}
"""

failures = []


def npy_with_dict(dict_text, data):
    """A version 1.0 .npy file whose header holds `dict_text` verbatim."""
    header = dict_text + " " * ((64 - (10 + len(dict_text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + data

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "mote",
                      "cpu_features.h")


def detectable_features(triple):
    """The feature list include/mote/cpu_features.h gives `triple`'s architecture."""
    macro = {"x86_64": "X86_64", "aarch64": "AARCH64", "riscv64": "RISCV64"}[triple.split("-")[0]]
    text = open(HEADER).read()
    body = re.search(r"#define MOTE_CPU_FEATURES_" + macro + r"\b((?:.*\\\n)*.*)", text).group(1)
    return "".join(re.findall(r'"([^"]*)"', body)).split(",")


def check(condition, what, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {what}" + (f": {detail}" if detail and not condition
                                                        else ""))
    if not condition:
        failures.append(what)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--motec", required=True)
    parser.add_argument("--mote-run", required=True)
    parser.add_argument("--triple", required=True)
    parser.add_argument("--runner", default="")
    parser.add_argument("--vector-runner", default="")
    parser.add_argument("--sanitized", action="store_true",
                        help="mote-run is built with sanitizers: skip the memory-limit check "
                             "(AddressSanitizer reserves more address space than any limit)")
    args = parser.parse_args()
    runner = shlex.split(args.runner)

    def mote_run(*rest, via=None):
        cmd = (runner if via is None else via) + [args.mote_run] + list(rest)
        return subprocess.run(cmd, capture_output=True, text=True)

    with tempfile.TemporaryDirectory(prefix="mote-run-test-") as work:
        hlo = os.path.join(work, "scaled_sum.hlo")
        open(hlo, "w").write(MODEL)
        package = os.path.join(work, "scaled_sum.mote")
        subprocess.run([args.motec, "compile", hlo, f"--target={args.triple}", "-o", package],
                       check=True)
        rng = np.random.default_rng(3)
        values, counts = os.path.join(work, "values.npy"), os.path.join(work, "counts.npy")
        np.save(values, rng.standard_normal((4, 8)).astype(np.float32))
        np.save(counts, rng.integers(-5, 5, size=8).astype(np.int32))
        expected = os.path.join(work, "expected.npy")
        subprocess.run([args.motec, "eval", hlo, "--input", values, "--input", counts,
                        "--output", expected], check=True, capture_output=True)

        out1 = os.path.join(work, "out1.npy")
        run = mote_run(package, "--input", values, "--input", counts, "--output", out1,
                       "--threads", "1")
        check(run.returncode == 0, "runs and writes the result", run.stderr)
        if run.returncode == 0:
            same = np.array_equal(np.load(out1), np.load(expected))
            check(same, "result matches motec eval bit for bit")

        out2 = os.path.join(work, "out2.npy")
        run = mote_run(package, "--input", values, "--input", counts, "--output", out2,
                       "--threads", "2")
        check(run.returncode == 0 and open(out1, "rb").read() == open(out2, "rb").read(),
              "--threads 2 writes the same bytes as --threads 1", run.stderr)

        run = mote_run(package, "--input", values, "--input", counts)
        check(run.returncode == 0 and re.match(r"result 0 '[^']*': f32\[4\] = \[", run.stdout),
              "prints a summary without --output", run.stdout + run.stderr)

        run = mote_run(package, "--input", values, "--input", counts, "--bench", "5")
        check(run.returncode == 0 and re.fullmatch(
            r"latency_ms min=[0-9.]+ median=[0-9.]+ runs=5\n", run.stdout),
            "--bench prints exactly one latency line", repr(run.stdout) + run.stderr)

        wrong = os.path.join(work, "wrong.npy")
        np.save(wrong, np.zeros(8, np.float32))
        run = mote_run(package, "--input", values, "--input", wrong)
        check(run.returncode == 1 and "argument 1 ('counts', s32[8])" in run.stderr
              and "f4[8]" in run.stderr, "wrong dtype: exit 1 naming the argument", run.stderr)

        np.save(wrong, np.zeros((4, 9), np.float32))
        run = mote_run(package, "--input", wrong, "--input", counts)
        check(run.returncode == 1 and "argument 0 ('values', f32[4,8])" in run.stderr,
              "wrong shape: exit 1 naming the argument", run.stderr)

        run = mote_run(package, "--input", values)
        check(run.returncode == 1 and "takes 2 inputs, 1 given" in run.stderr,
              "missing input: exit 1", run.stderr)

        typed_hlo = os.path.join(work, "typed.hlo")
        open(typed_hlo, "w").write(TYPES_MODEL)
        typed = os.path.join(work, "typed.mote")
        subprocess.run([args.motec, "compile", typed_hlo, f"--target={args.triple}", "-o", typed],
                       check=True)
        nibbles, z = os.path.join(work, "nibbles.npy"), os.path.join(work, "z.npy")
        np.save(nibbles, np.array([-8, 7, -1, 3, 0], np.int8))
        np.save(z, np.array([1 + 2j, -0.5j, np.inf], np.complex64))
        want = [os.path.join(work, f"want{i}.npy") for i in range(2)]
        got = [os.path.join(work, f"got{i}.npy") for i in range(2)]
        subprocess.run([args.motec, "eval", typed_hlo, "--input", nibbles, "--input", z,
                        "--output", want[0], "--output", want[1]], check=True, capture_output=True)
        run = mote_run(typed, "--input", nibbles, "--input", z, "--output", got[0],
                       "--output", got[1])
        # inf * inf has a NaN part, whose sign bit the architecture picks.
        check(run.returncode == 0 and all(
            np.load(g).dtype == np.load(w).dtype and
            np.array_equal(np.load(g), np.load(w), equal_nan=True) for g, w in zip(got, want)),
            "s4 and c64 tensors read and written like motec eval", run.stderr)
        np.save(nibbles, np.array([-8, 7, 8, 3, 0], np.int8))
        run = mote_run(typed, "--input", nibbles, "--input", z)
        check(run.returncode == 1 and "holds 8, outside [-8, 7]" in run.stderr,
              "an s4 input out of range: exit 1", run.stderr)

        data = bytearray(open(package, "rb").read())
        data[len(data) // 2] ^= 0x55
        corrupt = os.path.join(work, "corrupt.mote")
        open(corrupt, "wb").write(data)
        run = mote_run(corrupt, "--input", values, "--input", counts)
        check(run.returncode == 1 and "digest" in run.stderr.lower(),
              "corrupt package: exit 1 with the status message", run.stderr)

        open(corrupt, "wb").write(bytes(data[:40]))
        run = mote_run(corrupt, "--input", values, "--input", counts)
        check(run.returncode == 1 and "mote-run: " + corrupt + ": " in run.stderr,
              "truncated package: exit 1 with the status message", run.stderr)

        run = mote_run(hlo, "--input", values, "--input", counts)
        check(run.returncode == 1 and "not a .mote package; compile it first" in run.stderr,
              "an HLO file given as the package: exit 1, named as HLO", run.stderr)

        # Files that are not one whole package: refused before anything is
        # loaded, with what is wrong (a device that never ends was once read
        # until memory ran out; trailing bytes were ignored).
        run = mote_run("/dev/zero", "--input", values, "--input", counts)
        check(run.returncode == 1 and "/dev/zero: cannot read: not a regular file" in run.stderr,
              "/dev/zero as a package: exit 1, not a regular file", run.stderr)
        empty = os.path.join(work, "empty.mote")
        open(empty, "wb").close()
        run = mote_run(empty, "--input", values, "--input", counts)
        check(run.returncode == 1 and "empty.mote: empty file" in run.stderr,
              "empty package: exit 1, empty file", run.stderr)
        trailing = os.path.join(work, "trailing.mote")
        open(trailing, "wb").write(open(package, "rb").read() + b"\0" * 16)
        run = mote_run(trailing, "--input", values, "--input", counts)
        check(run.returncode == 1 and "16 bytes after the end of the package" in run.stderr,
              "trailing bytes after a package: exit 1", run.stderr)
        oversized = os.path.join(work, "oversized.mote")
        with open(oversized, "wb") as f:
            f.truncate(3 << 30)  # sparse: nothing is written
        run = mote_run(oversized, "--input", values, "--input", counts)
        check(run.returncode == 1 and "more than a package can hold (2 GiB)" in run.stderr,
              "a file beyond the format's 2 GiB: exit 1", run.stderr)
        os.remove(oversized)

        # The .npy reader is motec's: a header dict numpy.save would not
        # write is an error, not skimmed for the keys it needs.
        garbage = os.path.join(work, "garbage.npy")
        open(garbage, "wb").write(npy_with_dict(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 8), 'junk': [}",
            bytes(4 * 8 * 4)))
        run = mote_run(package, "--input", garbage, "--input", counts)
        check(run.returncode == 1 and "bad .npy header: unexpected key 'junk'" in run.stderr,
              "a garbage .npy header dict: exit 1", run.stderr)
        run = mote_run(package, "--input", "/dev/zero", "--input", counts)
        check(run.returncode == 1 and "/dev/zero: cannot read: not a regular file" in run.stderr,
              "/dev/zero as an input: exit 1", run.stderr)

        if not runner and not args.sanitized:
            # An arena the machine cannot give (here: a 1 GiB address space
            # for a 4 GiB arena) is a clear error, not std::bad_alloc.
            huge_hlo = os.path.join(work, "huge.hlo")
            open(huge_hlo, "w").write(HUGE_ARENA_MODEL)
            huge = os.path.join(work, "huge.mote")
            subprocess.run([args.motec, "compile", huge_hlo, f"--target={args.triple}", "-o",
                            huge], check=True)
            scalar = os.path.join(work, "scalar.npy")
            np.save(scalar, np.float32(1))
            run = subprocess.run(["prlimit", f"--as={1 << 30}", args.mote_run, huge,
                                  "--input", scalar], capture_output=True, text=True)
            check(run.returncode == 3 and "not enough memory: the model needs" in run.stderr,
                  "an arena larger than the machine gives: exit 3", run.stderr)

        run = mote_run(package, "--bench", "x")
        check(run.returncode == 2, "bad command line: exit 2", run.stderr)

        other = "riscv64-linux-gnu" if not args.triple.startswith("riscv64") else "aarch64-linux-gnu"
        foreign = os.path.join(work, "foreign.mote")
        subprocess.run([args.motec, "compile", hlo, f"--target={other}", "-o", foreign], check=True)
        run = mote_run(foreign, "--input", values, "--input", counts)
        check(run.returncode == 3 and "no code for this machine" in run.stderr,
              "package without code for this machine: exit 3", run.stderr)

        # Code selection probes exactly the features a code object may record.
        run = mote_run("--cpu-features")
        lines = run.stdout.splitlines()
        probed = [line.split()[0] for line in lines[1:]]
        check(run.returncode == 0 and lines[:1] == [args.triple] and
              probed == detectable_features(args.triple) and
              all(line.split()[1] in ("yes", "no") for line in lines[1:]),
              "--cpu-features lists every feature of cpu_features.h", run.stdout + run.stderr)

        # A CPU's implied features are required too: code for x86-64-v4 or a
        # Cortex-A76 is refused on a machine said to have only the baseline.
        demanding = {"x86_64": ("--cpu=x86-64-v4", "+sse3"),
                     "aarch64": ("--cpu=cortex-a76", "+fp-armv8,+neon"),
                     "riscv64": ("--features=+v", "+m,+a,+f,+d,+c")}[args.triple.split("-")[0]]
        strict = os.path.join(work, "strict.mote")
        subprocess.run([args.motec, "compile", hlo, f"--target={args.triple}", demanding[0],
                        "-o", strict], check=True)
        run = mote_run(strict, "--input", values, "--input", counts, "--features", demanding[1])
        check(run.returncode == 3 and "no code for this machine" in run.stderr,
              f"code for {demanding[0]} refused on a baseline machine", run.stderr)

        # A package built without --cpu or --features carries a code object
        # a feature level, and mote-run runs the best one the machine has
        # (told here with --features, or by the emulated CPU).
        levels = {"x86_64": [("x86-64", ""), ("x86-64-v3", "+avx2,+fma,+f16c"),
                             ("x86-64-v4", "+avx512f,+avx512vnni")],
                  "aarch64": [("generic", ""), ("generic", "+fullfp16,+dotprod"),
                              ("generic", "+fullfp16,+dotprod,+i8mm,+bf16")],
                  "riscv64": [("generic-rv64", ""), ("generic-rv64", "+v"),
                              ("generic-rv64", "+v,+zvl256b")]}[args.triple.split("-")[0]]
        listing = subprocess.run([args.motec, "compile", hlo, f"--target={args.triple}",
                                  "--emit=package", "-o", package], capture_output=True, text=True)
        data = open(package, "rb").read()
        check(data.count(b"\x7fELF") == len(levels),
              f"a default package has {len(levels)} feature levels", listing.stderr)
        machine_levels = {"x86_64": ["+sse3", ",".join(
            "+" + f for f in detectable_features(args.triple) if not f.startswith("avx512")), None],
            "aarch64": [None, None, None], "riscv64": [None, None, None]}
        # On AArch64 the emulated CPU tells: a Cortex-A57 has none of the
        # levels' features, a Cortex-A76 dotprod and fullfp16 but neither i8mm
        # nor bf16, QEMU's max all four.
        aarch64_cpus = ["cortex-a57", "cortex-a76", "max"]
        for index, forced in enumerate(machine_levels[args.triple.split("-")[0]]):
            via = None
            if args.triple.startswith("riscv64"):
                if index and not args.vector_runner:
                    continue
                via = shlex.split(args.vector_runner.replace("vlen=128", f"vlen={128 * index}")
                                  if index else args.runner)
            elif args.triple.startswith("aarch64"):
                if not runner:
                    continue  # -cpu needs the emulator
                via = runner[:1] + ["-cpu", aarch64_cpus[index]] + runner[1:]
            elif forced is None and index + 1 < len(levels):
                continue  # the machine's own features pick the best, checked below
            extra = ["--features", forced] if forced else []
            run = mote_run(package, "--input", values, "--input", counts, "--verbose", *extra,
                           via=via)
            cpu, features = levels[index]
            chosen = re.search(r"code object (\d+): \S+ (\S+) (\S*)", run.stderr)
            check(run.returncode == 0 and chosen and int(chosen.group(1)) == index and
                  chosen.group(2) == cpu and all(f in chosen.group(3).split(",")
                                                 for f in features.split(",") if f),
                  f"mote-run picks level {index} ({cpu} {features or 'baseline'})"
                  f" on {' '.join(via) if via else 'a machine with ' + (forced or 'its features')}",
                  run.stderr)

        if args.triple.startswith("x86_64") and not runner:
            # Built for this very machine, the code must be accepted here.
            for flag in ("--cpu=native", "--features=host"):
                native = os.path.join(work, "native.mote")
                subprocess.run([args.motec, "compile", hlo, f"--target={args.triple}", flag,
                                "-o", native], check=True)
                out4 = os.path.join(work, "out4.npy")
                run = mote_run(native, "--input", values, "--input", counts, "--output", out4)
                check(run.returncode == 0 and np.array_equal(np.load(out4), np.load(expected)),
                      f"{flag} code runs on the machine that built it", run.stderr)

        if args.vector_runner:
            # Code that needs +v runs only where the CPU has V.
            vector = os.path.join(work, "vector.mote")
            subprocess.run([args.motec, "compile", hlo, f"--target={args.triple}",
                            "--features=+v", "-o", vector], check=True)
            run = mote_run(vector, "--input", values, "--input", counts)
            check(run.returncode == 3, "+v code refused on a CPU without V", run.stderr)
            out3 = os.path.join(work, "out3.npy")
            run = mote_run(vector, "--input", values, "--input", counts, "--output", out3,
                           "--verbose", via=shlex.split(args.vector_runner))
            check(run.returncode == 0 and "+v" in run.stderr and
                  np.array_equal(np.load(out3), np.load(expected)),
                  "+v code runs on a CPU with V and matches", run.stderr)
            # Code for registers of at least 256 bits needs them: refused
            # where V has 128-bit registers, run where they are 256 bits.
            wide = os.path.join(work, "wide.mote")
            subprocess.run([args.motec, "compile", hlo, f"--target={args.triple}",
                            "--features=+v,+zvl256b", "-o", wide], check=True)
            run = mote_run(wide, "--input", values, "--input", counts,
                           via=shlex.split(args.vector_runner))
            check(run.returncode == 3, "+zvl256b code refused with 128-bit vectors", run.stderr)
            out4 = os.path.join(work, "out4.npy")
            wide_runner = shlex.split(args.vector_runner.replace("vlen=128", "vlen=256"))
            run = mote_run(wide, "--input", values, "--input", counts, "--output", out4,
                           via=wide_runner)
            check(run.returncode == 0 and np.array_equal(np.load(out4), np.load(expected)),
                  "+zvl256b code runs with 256-bit vectors and matches", run.stderr)

    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
