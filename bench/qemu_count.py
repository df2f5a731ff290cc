"""Guest instructions per inference of Mote's code for aarch64 and riscv64 under qemu-user,
and of XNNPACK's arm64 build (arm64_peer.py) beside Mote's aarch64 code.

QEMU's TCG plugin bench relies on is ../shared/tools/qemu-icount.c (Debian's QEMU 7.2 ships
none): it counts every guest instruction the process executes. mote-run loads the package's
code itself into memory it maps at run time, so no symbol range of the binary covers the
model; instead each package runs twice, with `--bench 1` (warm-up + 1 inference) and
`--bench 2` (warm-up + 2), and the difference of the two totals is one inference. What
differs besides the inference is one more pass of the timing loop (two clock_gettime
calls and a vector append: tens of instructions, noise next to any model here). Counts
are deterministic for a given binary, package and input.
"""

import os
import re
import shlex
import subprocess

import numpy as np

from engines import RunError, compile_if_stale, relative_error

VECTOR_CPU = ["-cpu", "rv64,v=true,vext_spec=v1.0,vlen=128"]

# (label, triple, extra motec features, emulator command, mote-run binary name). QEMU's
# default AArch64 CPU is `max`: each AArch64 row names its CPU.
TARGETS = [
    ("aarch64", "aarch64-linux-gnu", "",
     ["qemu-aarch64", "-cpu", "cortex-a57", "-L", "/usr/aarch64-linux-gnu"],
     "mote-run-aarch64-linux-gnu"),
    ("aarch64+dotprod", "aarch64-linux-gnu", "+dotprod,+i8mm",
     ["qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"],
     "mote-run-aarch64-linux-gnu"),
    ("riscv64", "riscv64-linux-gnu", "",
     ["qemu-riscv64", "-L", "/usr/riscv64-linux-gnu"], "mote-run-riscv64-linux-gnu"),
    ("riscv64+v", "riscv64-linux-gnu", "+v",
     ["qemu-riscv64"] + VECTOR_CPU + ["-L", "/usr/riscv64-linux-gnu"],
     "mote-run-riscv64-linux-gnu"),
    ("riscv64+v256", "riscv64-linux-gnu", "+v,+zvl256b",
     ["qemu-riscv64", "-cpu", "rv64,v=true,vext_spec=v1.0,vlen=256", "-L",
      "/usr/riscv64-linux-gnu"], "mote-run-riscv64-linux-gnu"),
]
TARGET_NOTES = {"aarch64": "NEON, -cpu cortex-a57",
                "aarch64+dotprod": "+dotprod,+i8mm, -cpu max",
                "riscv64": "rv64gc, scalar",
                "riscv64+v": "rv64gcv, VLEN=128",
                "riscv64+v256": "rv64gcv compiled for VLEN>=256 (+zvl256b), run at VLEN=256"}

# The CPUs XNNPACK arm64 runs on, each beside Mote's AArch64 row of its features.
PEER_CPUS = ["cortex-a57", "max"]

INSNS = re.compile(r"insns total=([0-9]+)")


def build_plugin(source, out_dir):
    plugin = os.path.join(out_dir, "libqemu-icount.so")
    compile_if_stale(plugin, ["gcc", "-O2", "-shared", "-fPIC", source, "-o", plugin], [source])
    return plugin


def count(argv, timeout):
    """Runs a command under the plugin; its total instruction count."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RunError(f"timed out after {timeout} s: {shlex.join(argv)}")
    match = INSNS.search(done.stderr + done.stdout)
    if done.returncode != 0 or not match:
        raise RunError(f"exit {done.returncode}: {shlex.join(argv)}\n{done.stderr.strip()[-400:]}")
    return int(match.group(1))


def per_inference(run, output, label, log, timeout):
    """Instructions of one inference of `run` (a command under the plugin taking --bench
    and --output): --bench 2 minus --bench 1, both writing the output, so only the
    inference differs. None, with a note, when it fails."""
    try:
        one = count(run + ["--bench", "1", "--output", output], timeout)
        two = count(run + ["--bench", "2", "--output", output + ".2.npy"], timeout)
    except RunError as error:
        log(f"note: {label} failed: {error}")
        return None
    return two - one


def count_peer(peer, libs, plugin, model, cpu, work, reference, log, timeout=1800):
    """(instructions per inference, output ok) of XNNPACK arm64 (arm64_peer.py) on `cpu`, or
    None when it has no such model or fails."""
    run = ["qemu-aarch64", "-cpu", cpu, "-L", "/usr/aarch64-linux-gnu", "-E",
           f"LD_LIBRARY_PATH={libs}", "-plugin", plugin, "-d", "plugin", peer,
           "--model", model.name, "--dir", model.dir]
    output = os.path.join(work, f"{model.name}-xnnpack-arm64-{cpu}.npy")
    log(f"  qemu XNNPACK arm64 {cpu}: {model.name}")
    insns = per_inference(run, output, f"XNNPACK arm64 {cpu} {model.name}", log, timeout)
    if insns is None:
        return None
    return insns, model.output_matches(np.load(output), reference)


def count_model(motec, bin_dir, plugin, model, work, reference, tolerance, log, timeout=1800):
    """{target label: (instructions per inference, output ok)} for one model."""
    results = {}
    for label, triple, features, emulator, runner in TARGETS:
        mote_run = os.path.join(bin_dir, runner)
        if not os.path.exists(mote_run):
            log(f"note: {mote_run} is missing (scripts/install-deps.sh cross, then build)")
            continue
        package = os.path.join(work, f"{model.name}-{label}.mote")
        argv = [motec, "compile", model.hlo, f"--target={triple}", "-o", package]
        if features:
            argv.append(f"--features={features}")
        subprocess.run(argv, check=True, capture_output=True)
        output = os.path.join(work, f"{model.name}-{label}.npy")
        run = emulator + ["-plugin", plugin, "-d", "plugin", mote_run, package]
        for path in model.inputs:
            run += ["--input", path]
        log(f"  qemu {label}: {model.name}")
        insns = per_inference(run, output, f"{label} {model.name}", log, timeout)
        if insns is None:
            continue
        error = relative_error(np.load(output), reference)
        results[label] = (insns, error <= tolerance, error)
    return results

