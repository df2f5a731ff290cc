#!/usr/bin/env python3
"""Differential tests: every case, compiled by `motec run` for a target and run
(natively or under QEMU), must match the reference evaluator (`motec eval`
with the same target flags, so dots and convolutions sum the way that target's
code does: fused multiply-adds where it has them).

Integers and predicates must be bit-exact. Floats must be bit-exact unless the
case states a bound with a `// ulp: N` comment (transcendentals, whose inline
approximations differ from the host libm the evaluator uses); NaN matches any
NaN. Complex results compare part by part; with a bound, each part's error
counts in ulps of the larger part's magnitude (normwise: a correctly rounded
result determines a tiny part only to the precision of the larger one), and
infinities and NaNs must sit in the same parts. s2/s4/u2/u4 travel as int8/
uint8 .npy files and compare exactly. Inputs mix random values with the edge cases that break code generators:
NaN, infinities, signed zeros, subnormals, halfway cases for rounding, and
INT_MIN/INT_MAX/-1 for integers; a tuple parameter gets one file per leaf.
A case with `// inputs: seed` uses motec's own seeded inputs instead (loop
counters). A case that
sums floats in a different order than the evaluator (which sums in double)
states `// sum-error: E`: an element also matches within E times the largest
magnitude in its result, the way a float sum's error bound scales.

On Cortex-M55 with MVE floating point, cases listed in SUBNORMAL_FLUSH_CASES
are expected failures as long as every element that differs is what flushing
f32 subnormals to zero gives (see SUBNORMAL_FLUSH): the evaluator is run again
on inputs and constants with their subnormals flushed, and an element matches
either result; any other difference fails.

Targets spelled `package:<triple>[:cpu[:features]]` go through a package
instead: `motec compile case.hlo --target=<triple> -o case.mote`, then
`[--runner ...] mote-run case.mote --input ... --output ...` (e.g. with
`--runner "qemu-riscv64 -cpu rv64,v=true"`), so the loader, the code
selection and the host port are tested on every architecture. Packages take
.npy inputs only, so seeded cases get inputs of motec's kind as files.

Usage: run_differential.py --motec build/bin/motec --target x86_64-linux-gnu
       [--target aarch64-linux-gnu] [--target riscv64-linux-gnu:generic-rv64:+v]
       [--mote-run bin/mote-run-aarch64-linux-gnu --runner "qemu-aarch64 -L /usr/aarch64-linux-gnu"
        --target package:aarch64-linux-gnu]
       [cases...]
Exit status: 0 when every case matches on every target, 1 otherwise.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# (case, target as given on the command line) -> reason, for combinations known
# not to work yet. An expected failure that passes is reported, so this list
# stays honest.
EXPECTED_FAILURES = {
    ("constant_bounds", "thumbv8.1m.main-none-eabihf:cortex-m55:+mve.fp"):
        "Helium compares a subnormal input (1e-40, -1e-40) as a zero of its sign and the "
        "select hands on its bits unflushed: max(-1e-40, 0) gives -1e-40, where the "
        "evaluator gives 0 and with flushed inputs -0",
    ("bf16_relu_fixups", "thumbv8.1m.main-none-eabihf:cortex-m55:+mve.fp"):
        "MVE floating point flushes the f32 products this case is about (-2^-134 and its "
        "neighbours, bf16 subnormals times 1) to zeros of their sign before the relu, from "
        "bit patterns the flushed evaluator cannot flush (s16 constants): -0 where the "
        "evaluator rounds -2^-134 * 1.0078 to -2^-133 and the relu gives +0",
    ("rng_normal", "riscv64-linux-gnu::+v"):
        "QEMU 7.2 aborts (an assertion in decode_save_opc) translating vfcvt.rtz.x.f.v, "
        "the RVV float -> integer conversion of the inline log's and cos's argument reduction "
        "once the Box-Muller loop is vectorised; the scalar build of the same case matches",
}

# A package target's prefix; an entry keyed (case, PACKAGE_PREFIX + "*") covers
# every package target, and a package target also inherits the entries of the
# target it wraps (the same code runs on the same emulator).
PACKAGE_PREFIX = "package:"


# Why Cortex-M55 code with MVE floating point (flushes_subnormals) loses f32
# subnormals. A case listed in SUBNORMAL_FLUSH_CASES is an expected failure
# there, but only while every element that differs from the evaluator matches
# the evaluator run on inputs and constants with their f32 subnormals flushed
# to zeros of the same sign, both results read the same way: any other
# difference still fails.
SUBNORMAL_FLUSH = (
    "MVE floating point flushes f32 subnormals to zero: QEMU 7.2 runs every MVE float "
    "instruction (arithmetic and compares) under the Standard FPSCR value (flush-to-zero, "
    "default NaN), its reading of the Armv8.1-M pseudocode, while the scalar FPU keeps "
    "FPSCR.FZ = 0, so f32 code LLVM vectorises for Helium drops the subnormals the evaluator "
    "keeps (LLVM 16's cost model takes MVE for IEEE-compliant; silicon would settle which)")


def flushes_subnormals(target):
    """Cortex-M55 with MVE floating point (its default features)."""
    if target.startswith(PACKAGE_PREFIX):
        target = target[len(PACKAGE_PREFIX):]
    triple, _, rest = target.partition(":")
    features = rest.partition(":")[2]
    return triple == "thumbv8.1m.main-none-eabihf" and "-mve.fp" not in features.split(",")


# Cases whose inputs (1e-40 and -1e-40 are among the specials) or constants
# hold f32 subnormals that reach vectorised arithmetic, and what the flushing
# does to them.
SUBNORMAL_FLUSH_CASES = {
    "bf16_deinterleaved_pairs": "a subnormal bf16 input or weight (1e-40) times an infinite one "
                                "is 0 * inf = NaN, not inf (and relu of NaN stays NaN)",
    "bf16_paired_epilogues": "a subnormal bf16 input or weight (1e-40) times an infinite one "
                             "is 0 * inf = NaN, not inf (and relu or relu6 of NaN stays NaN)",
    "complex_math_edges": "the constant (1e-40, -1e-40): log sees 0; sqrt and rsqrt scale it "
                          "up in part before the flush (see SUBNORMAL_FLUSH_UNMODELLED)",
    "convolution": "a 1e-40 input times an infinite weight is 0 * inf = NaN, not inf",
    "convolution_tiled": "0 * inf = NaN for 1e-40 * inf; 1e-40 * 3e38 = 0.03 lost from a sum",
    "dot": "the bf16 dot summed in f32 (tiled, so vectorised): 1e-40 * 3e38 = 0.03 lost "
           "(2016.024 for 2016.0516)",
    "dot_tiled": "1e-40 * 3e38 = 0.03 lost (-18385.441 for -18385.412); "
                 "1e-40 * inf = 0 * inf = NaN for inf",
    "elementwise_f32": "mul of 1e-40; sign, floor, ceil of +-1e-40 see a zero",
    "half_vectors": "bf16 maximum and compare of -1e-40 with 0 see -0; the bf16 product "
                    "reduce's 1e-40 * -inf is 0 * inf = NaN",
    "half_contractions": "a subnormal bf16 or f32 operand (1e-40) times an infinite one is "
                         "0 * inf = NaN, not inf",
    "half_depthwise": "a subnormal bf16 input or weight (1e-40) times an infinite one is "
                      "0 * inf = NaN, not inf (and relu of NaN stays NaN)",
    "half_staged_epilogues": "a subnormal bf16 input or weight (1e-40) of the strided depthwise "
                             "layer times an infinite one is 0 * inf = NaN, not inf (and relu6 "
                             "of NaN stays NaN)",
    "half_widened_weights": "bf16 weights of +-3.03e-39 (subnormal as f32) times an infinite "
                            "input are 0 * inf = NaN, not +-inf (and relu of NaN stays NaN)",
    "math_f32": "exp, logistic results below 2^-126 flushed; log, pow, cbrt, tanh, erf, atan2 "
                "of +-1e-40 see a zero",
    "math_inverse_hyperbolic": "asin, atan, sinh, atanh, asinh of 1e-40 flushed to 0",
    "output_fusion": "the dot under relu, relu6, swish: 1e-40 * inf = NaN",
    "packed_rhs": "1e-40 * inf = NaN in the product",
}


# (case, result) -> elements where a subnormal is flushed partway through,
# after integer steps (exponent scaling) that read its bits: the result is
# neither the evaluator's nor that of flushed operands, so it is not checked.
SUBNORMAL_FLUSH_UNMODELLED = {
    ("complex_math_edges", "sqrt"): [2],   # 9.999973e-21-0j: re scaled, im flushed
    ("complex_math_edges", "rsqrt"): [2],  # 1.0000027e+20+0j, the same way
}


def expected_failure(name, target):
    if name in SUBNORMAL_FLUSH_CASES and flushes_subnormals(target):
        return f"{SUBNORMAL_FLUSH} ({SUBNORMAL_FLUSH_CASES[name]})"
    keys = [target]
    if target.startswith(PACKAGE_PREFIX):
        keys += [target[len(PACKAGE_PREFIX):], PACKAGE_PREFIX + "*"]
    for key in keys:
        if (name, key) in EXPECTED_FAILURES:
            return EXPECTED_FAILURES[(name, key)]
    return None


NUMPY_TYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64,
    "c64": np.complex64, "c128": np.complex128,
    "s2": np.int8, "s4": np.int8, "u2": np.uint8, "u4": np.uint8,
}

# Element types held one a byte in a wider numpy type: (bits, signed).
SUB_BYTE = {"s2": (2, True), "s4": (4, True), "u2": (2, False), "u4": (4, False)}

# A complex type's part type.
COMPLEX_PARTS = {"c64": "f32", "c128": "f64"}

NPY_NAMES = {"b1": "pred", "i1": "s8", "i2": "s16", "i4": "s32", "i8": "s64", "u1": "u8",
             "u2": "u16", "u4": "u32", "u8": "u64", "f2": "f16", "f4": "f32", "f8": "f64",
             "c8": "c64", "c16": "c128"}

FLOAT_SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, -0.49999997,
                  np.inf, -np.inf, np.nan, 1e-40, -1e-40, 3e38, -3e38, 65504.0, 70000.0,
                  1e-8, 8388609.0, -8388607.5, 100.0, -88.5, 89.0, 710.0, 1e300, -1e-310]


def parse_entry(motec, case):
    """Parameters and results of the entry as listed by `motec check`."""
    out = subprocess.run([motec, "check", case], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"motec check failed:\n{out.stderr}")
    params, results, section = [], [], None
    for line in out.stdout.splitlines():
        if line.strip().startswith("parameters:"):
            section = params
            continue
        if line.strip().startswith("results:"):
            section = results
            continue
        more = re.match(r"\s+\.\.\. and (\d+) more", line)
        if more and section is not None:
            # Long lists are cut short: the rest take their dtype from the .npy.
            section.extend([(f"#{len(section) + i}", None, None)
                            for i in range(int(more.group(1)))])
            continue
        m = re.match(r"\s+\d+\s+%(\S+):\s+(\w+)\[([\d,]*)\]", line)
        if m and section is not None:
            dims = [int(d) for d in m.group(3).split(",") if d]
            section.append((m.group(1), m.group(2), dims))
        elif re.match(r"  \S", line):
            section = None
    if any(dtype is None for _, dtype, _ in params):
        params = entry_parameters_from_text(case, params)
    return params, results


def entry_parameters_from_text(case, params):
    """Fills in the array parameters `motec check` cut short, from the case's
    own ENTRY text (cases declare each parameter on its own line)."""
    text = open(case).read()
    entry = text[text.find("ENTRY"):]
    found = {}
    pattern = r"^\s*%?([\w.\-]+)\s*=\s*(\w+)\[([\d,]*)\](?:\{[^}]*\})?\s+parameter\((\d+)\)"
    for m in re.finditer(pattern, entry, re.MULTILINE):
        dims = [int(d) for d in m.group(3).split(",") if d]
        found[int(m.group(4))] = (m.group(1), m.group(2), dims)
    return [found.get(i, p) if p[1] is None else p for i, p in enumerate(params)]


def make_input(rng, dtype, dims):
    n = int(np.prod(dims)) if dims else 1
    if dtype == "pred":
        return rng.integers(0, 2, size=dims).astype(np.bool_)
    if dtype in COMPLEX_PARTS:  # parts drawn independently, specials included
        part = COMPLEX_PARTS[dtype]
        re, im = make_input(rng, part, dims), make_input(rng, part, dims)
        return combine_parts(re, im, NUMPY_TYPES[dtype])
    if dtype in SUB_BYTE:
        bits, signed = SUB_BYTE[dtype]
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        values = rng.integers(low, high, size=n, endpoint=True)
        specials = [low, high, 0, 1] + ([-1] if signed else [])
        for i in range(n):
            if rng.random() < 0.3:
                values[i] = specials[rng.integers(len(specials))]
        return values.astype(NUMPY_TYPES[dtype]).reshape(dims)
    if dtype.startswith(("s", "u")):
        info = np.iinfo(NUMPY_TYPES[dtype])
        if not dims:  # scalars are mostly indices: keep them near the valid range
            return np.array(rng.integers(-3, 11), dtype=NUMPY_TYPES[dtype]) if dtype[0] == "s" \
                else np.array(rng.integers(0, 11), dtype=NUMPY_TYPES[dtype])
        values = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np.int64
                              if dtype != "u64" else np.uint64)
        specials = [0, 1, info.max, info.min, 2, 3, 7, info.bits - 1, info.bits, info.bits + 1]
        if dtype[0] == "s":
            specials += [-1, -2, info.min + 1]
        for i in range(n):
            if rng.random() < 0.3:
                values[i] = specials[rng.integers(len(specials))]
        return values.astype(NUMPY_TYPES[dtype]).reshape(dims)
    scale = rng.choice([1e-3, 1.0, 10.0, 100.0], size=n)
    values = rng.standard_normal(n) * scale
    for i in range(n):
        if rng.random() < 0.25:
            values[i] = FLOAT_SPECIALS[rng.integers(len(FLOAT_SPECIALS))]
    with np.errstate(over="ignore"):
        return values.astype(NUMPY_TYPES[dtype]).reshape(dims)


def flush_subnormals(array):
    """f32 subnormals (c64 parts included) as zeros of the same sign, the way
    flush-to-zero arithmetic reads and writes them. bf16 travels as f32 with
    the same exponent range; f16 and f64 are left alone (MVE's FZ16 follows
    FPSCR, and MVE has no f64 lanes)."""
    if array.dtype == np.complex64:
        return combine_parts(flush_subnormals(array.real.copy()),
                             flush_subnormals(array.imag.copy()), np.complex64)
    if array.dtype != np.float32:
        return array
    # ascontiguousarray makes a scalar one-dimensional: the shape goes back.
    bits = np.ascontiguousarray(array).view(np.uint32)
    subnormal = (bits & 0x7F800000) == 0
    flushed = np.where(subnormal, bits & 0x80000000, bits).astype(np.uint32).view(np.float32)
    return flushed.reshape(array.shape)


FLUSHED_CONSTANT = re.compile(
    r"^(\s*%?[\w.\-]+\s*=\s*(?:f32|bf16|c64)\[[^\]]*\](?:\{[^}]*\})?\s+constant\()(.*)$",
    re.MULTILINE)
NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def flush_constants(text):
    """HLO text with the subnormal f32 values of f32, bf16 and c64 constants
    written as zeros of the same sign: constants are operands too."""
    def flush_number(match):
        value = np.float32(float(match.group(0)))
        if value != 0 and abs(value) < np.finfo(np.float32).tiny:
            return "-0" if value < 0 else "0"
        return match.group(0)
    return FLUSHED_CONSTANT.sub(lambda m: m.group(1) + NUMBER.sub(flush_number, m.group(2)), text)


def combine_parts(re, im, numpy_type):
    """A complex array from its parts, bit for bit (re + 1j * im would turn an
    infinite part into NaNs)."""
    out = np.empty(np.shape(re), dtype=numpy_type)
    out.real = re
    out.imag = im
    return out


def make_seeded_input(rng, dtype, dims):
    """Inputs of the kind `motec --seed` generates: floats uniform in [-1, 1),
    integers uniform in [0, 8), pred random (loop counters stay small)."""
    if dtype == "pred":
        return rng.integers(0, 2, size=dims).astype(np.bool_)
    if dtype in COMPLEX_PARTS:
        return combine_parts(rng.uniform(-1.0, 1.0, size=dims), rng.uniform(-1.0, 1.0, size=dims),
                             NUMPY_TYPES[dtype])
    if dtype.startswith(("s", "u")):
        bound = {"s2": 2, "u2": 4}.get(dtype, 8)
        return rng.integers(0, bound, size=dims).astype(NUMPY_TYPES[dtype])
    return rng.uniform(-1.0, 1.0, size=dims).astype(NUMPY_TYPES[dtype])


def ordered_keys(array, dtype):
    """Integers whose differences count ULPs between floats of `dtype`."""
    if dtype == "bf16":
        bits = (np.asarray(array, np.float32).view(np.int32) >> 16).astype(np.int64)
        width = 16
    else:
        width = np.dtype(NUMPY_TYPES[dtype]).itemsize * 8
        bits = array.view({16: np.int16, 32: np.int32, 64: np.int64}[width]).astype(np.int64)
    magnitude = bits & ((1 << (width - 1)) - 1)
    return np.where(bits < 0, -magnitude, magnitude)


FLOAT_TYPES = ("f16", "bf16", "f32", "f64")


def compare(expected, actual, dtype, ulp, sum_error=0.0):
    """None if they match, else a description of the first mismatch.

    sum_error > 0 also accepts |actual - expected| <= sum_error * max|expected|
    over the result: the error bound of a float sum, which scales with the
    largest term rather than with each (possibly cancelled) result."""
    if expected.shape != actual.shape:
        return f"shape {actual.shape} != {expected.shape}"
    if dtype in COMPLEX_PARTS and ulp == 0:
        for name in ("real", "imag"):
            problem = compare(getattr(expected, name).copy(), getattr(actual, name).copy(),
                              COMPLEX_PARTS[dtype], 0)
            if problem:
                return f"{name} part: {problem}"
        return None
    same = element_matches(expected, actual, dtype, ulp, sum_error)
    e, a = expected.reshape(-1), actual.reshape(-1)
    if dtype in COMPLEX_PARTS:
        return first_mismatch(same, a, e, f"bound {ulp} ulp of the larger part")
    if dtype not in FLOAT_TYPES:
        bad = np.flatnonzero(~same)
        if bad.size:
            i = bad[0]
            return f"element {i}: {a[i]} != {e[i]}"
        return None
    return first_mismatch(same, a, e, f"bound {ulp} ulp")


def element_matches(expected, actual, dtype, ulp, sum_error=0.0):
    """Which elements of `actual` match `expected` (same shapes), flattened, by
    the rules `compare` states."""
    e = expected.reshape(-1)
    a = actual.reshape(-1)
    if dtype in COMPLEX_PARTS:
        return complex_matches(e, a, COMPLEX_PARTS[dtype], ulp)
    if dtype not in FLOAT_TYPES:
        return e == a
    both_nan = np.isnan(e.astype(np.float64)) & np.isnan(a.astype(np.float64))
    if ulp == 0:
        width = {"f16": np.int16, "bf16": np.int32, "f32": np.int32, "f64": np.int64}[dtype]
        return (e.view(width) == a.view(width)) | both_nan
    ke, ka = ordered_keys(e, dtype), ordered_keys(a, dtype)
    inf_e, inf_a = np.isinf(e.astype(np.float64)), np.isinf(a.astype(np.float64))
    close = (np.abs(ke - ka) <= ulp) & (inf_e == inf_a) & \
        (np.isnan(e.astype(np.float64)) == np.isnan(a.astype(np.float64)))
    same = close | both_nan
    if sum_error > 0:
        e64, a64 = e.astype(np.float64), a.astype(np.float64)
        finite = np.isfinite(e64)
        scale = np.max(np.abs(e64[finite])) if finite.any() else 0.0
        same |= finite & (np.abs(e64 - a64) <= sum_error * scale)
    return same


def first_mismatch(same, actual, expected, bound):
    """None when every element is the same, else the count and the first."""
    bad = np.flatnonzero(~same)
    if bad.size:
        i = bad[0]
        return (f"{bad.size} elements differ ({bound}), first at {i}: "
                f"{actual[i]!r} != {expected[i]!r}")
    return None


def complex_matches(e, a, part, ulp):
    """Complex elements part by part: bit-exact without a bound, else each part
    within `ulp` ulps of the larger part's magnitude."""
    if ulp == 0:
        return element_matches(e.real.copy(), a.real.copy(), part, 0) & \
            element_matches(e.imag.copy(), a.imag.copy(), part, 0)
    width = np.finfo(NUMPY_TYPES[part])
    with np.errstate(invalid="ignore", over="ignore"):
        # The larger finite part sets the scale (an infinite part has none).
        magnitudes = [np.where(np.isfinite(p), np.abs(p), 0).astype(np.float64)
                      for p in (e.real, e.imag)]
        scale = np.maximum(*magnitudes)
        spacing = np.spacing(np.maximum(scale, width.tiny).astype(NUMPY_TYPES[part])).astype(np.float64)
        ok = np.ones(e.shape, dtype=bool)
        for name in ("real", "imag"):
            ep = getattr(e, name).astype(np.float64)
            ap = getattr(a, name).astype(np.float64)
            same_kind = (np.isnan(ep) == np.isnan(ap)) & (np.isinf(ep) == np.isinf(ap))
            finite = np.isfinite(ep) & np.isfinite(ap)
            close = np.where(finite, np.abs(ap - ep) <= ulp * spacing, (ep == ap) | np.isnan(ep))
            ok &= same_kind & close
    return ok


def target_flags(target):
    """motec's --target/--cpu/--features for `[package:]triple[:cpu[:features]]`."""
    if target.startswith(PACKAGE_PREFIX):
        target = target[len(PACKAGE_PREFIX):]
    triple, _, rest = target.partition(":")
    cpu, _, features = rest.partition(":")
    flags = [f"--target={triple}"]
    if cpu:
        flags.append(f"--cpu={cpu}")
    if features:
        flags.append(f"--features={features}")
    return flags


CHOSEN_CODE = re.compile(r"code object \d+: (\S+) (\S+) (\S*) \(machine")


def run_package(motec, mote_run, runner, case, target, input_args, actual_paths, path):
    """Compiles `case` into a package for a `package:` target and runs it with
    mote-run: (None, the code object mote-run chose as `triple:cpu:features`)
    on success, else (what failed, None). A package built without a CPU or
    features carries a code object a feature level, and mote-run runs the
    best the machine has: its sums are what eval gives for that one."""
    cmd = [motec, "compile", case, "-o", path] + target_flags(target)
    compiled = subprocess.run(cmd, capture_output=True, text=True)
    if compiled.returncode != 0:
        return (f"motec compile failed ({compiled.returncode}): "
                f"{compiled.stderr.strip()[-2000:]}", None)
    cmd = list(runner) + [mote_run, path, "--verbose"] + input_args
    for output in actual_paths:
        cmd += ["--output", output]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return f"mote-run failed ({run.returncode}): {run.stderr.strip()[-2000:]}", None
    chosen = CHOSEN_CODE.search(run.stderr)
    if not chosen:
        return f"mote-run --verbose did not name the code object: {run.stderr.strip()}", None
    return None, ":".join(chosen.groups())


def run_case(motec, case, targets, work, mote_run=None, runner=()):
    text = open(case).read()
    ulp_match = re.search(r"//\s*ulp:\s*(\d+)", text)
    ulp = int(ulp_match.group(1)) if ulp_match else 0
    sum_match = re.search(r"//\s*sum-error:\s*([0-9.eE+-]+)", text)
    sum_error = float(sum_match.group(1)) if sum_match else 0.0
    seeded = re.search(r"//\s*inputs:\s*seed", text) is not None
    params, results = parse_entry(motec, case)
    name = os.path.splitext(os.path.basename(case))[0]
    # Parameters `motec check` could not list (long tuple parameters) take
    # motec's seeded inputs, which need no file per leaf.
    unlisted_params = any(p[1] is None for p in params)
    input_args = []
    if seeded or unlisted_params:
        input_args = ["--seed", "7"]
    else:
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        for i, (pname, dtype, dims) in enumerate(params):
            path = os.path.join(work, f"{name}.in{i}.npy")
            np.save(path, make_input(rng, dtype, dims))
            input_args += ["--input", path]

    def outputs(tag):
        return [os.path.join(work, f"{name}.{tag}.out{i}.npy") for i in range(len(results))]

    evaluated = {}

    def evaluate(args, target, label="", module=case):
        """Expected result paths for `target` (eval sums dots and convolutions
        the way its code does), and an error message when eval failed.
        `label` tells apart the files of other inputs or another `module`."""
        flags = target_flags(target)
        key = (tuple(args), tuple(flags), module)
        if key not in evaluated:
            tag = "eval" + label + re.sub(r"[^A-Za-z0-9]", "_", "".join(flags + args[:1]))
            if len(tag) > 120:  # a feature list: keep the file name short
                tag = f"eval{label}{zlib.crc32(tag.encode()):08x}"
            paths = outputs(tag)
            cmd = [motec, "eval", module] + args + flags
            for path in paths:
                cmd += ["--output", path]
            ref = subprocess.run(cmd, capture_output=True, text=True)
            evaluated[key] = paths, (f"motec eval failed: {ref.stderr.strip()}"
                                     if ref.returncode else None)
        return evaluated[key]

    def mismatches(expected_paths, actual_paths):
        problems = []
        for (rname, dtype, _), e_path, a_path in zip(results, expected_paths, actual_paths):
            expected = np.load(e_path)
            dtype = dtype or NPY_NAMES.get(expected.dtype.str[1:], "?")
            problem = compare(expected, np.load(a_path), dtype, ulp, sum_error)
            if problem:
                problems.append(f"result {rname} ({dtype}): {problem}")
        return "; ".join(problems) or None

    def explained_by_flushing(target, expected_paths, actual_paths):
        """Whether every element that differs matches the evaluator on inputs
        and constants with f32 subnormals flushed, its results flushed too
        (SUBNORMAL_FLUSH). Results are compared as flushing code reads them:
        a subnormal that a select or a copy carried through counts as its zero."""
        flushed_args = input_args  # seeded inputs are uniform in [-1, 1)
        if input_args[:1] == ["--input"]:
            flushed_args = []
            for path in input_args[1::2]:
                flushed = path[:-len(".npy")] + ".flushed.npy"
                np.save(flushed, flush_subnormals(np.load(path)))
                flushed_args += ["--input", flushed]
        module = os.path.join(work, f"{name}.flushed.hlo")
        with open(module, "w") as out:
            out.write(flush_constants(text))
        flushed_paths, error = evaluate(flushed_args, target, label="flushed", module=module)
        if error:
            return False
        for (rname, dtype, _), e_path, f_path, a_path in zip(results, expected_paths,
                                                             flushed_paths, actual_paths):
            expected, actual = np.load(e_path), np.load(a_path)
            flushed = flush_subnormals(np.load(f_path))
            if not expected.shape == flushed.shape == actual.shape:
                return False
            dtype = dtype or NPY_NAMES.get(expected.dtype.str[1:], "?")
            same = element_matches(expected, actual, dtype, ulp, sum_error) | \
                element_matches(flushed, flush_subnormals(actual), dtype, ulp, sum_error)
            same[SUBNORMAL_FLUSH_UNMODELLED.get((name, rname), [])] = True
            if not same.all():
                return False
        return True

    # Packages take .npy files only: seeded cases get seeded-style files.
    package_args = input_args
    if input_args[:1] == ["--seed"] and not unlisted_params and \
            any(t.startswith(PACKAGE_PREFIX) for t in targets):
        rng = np.random.default_rng(7)
        package_args = []
        for i, (pname, dtype, dims) in enumerate(params):
            path = os.path.join(work, f"{name}.seeded.in{i}.npy")
            np.save(path, make_seeded_input(rng, dtype, dims))
            package_args += ["--input", path]

    failures = {}
    for target in targets:
        tag = re.sub(r"[^A-Za-z0-9]", "_", target)
        actual_paths = outputs(tag)
        if target.startswith(PACKAGE_PREFIX):
            if unlisted_params:
                failures[target] = "parameters motec check does not list cannot be given as files"
                continue
            if not mote_run:
                failures[target] = "package targets need --mote-run"
                continue
            problem, chosen = run_package(motec, mote_run, runner, case, target, package_args,
                                          actual_paths, os.path.join(work, f"{name}.{tag}.mote"))
            if not problem:
                package_expected, problem = evaluate(package_args, chosen)
                problem = problem or mismatches(package_expected, actual_paths)
            if problem:
                failures[target] = problem
            continue
        expected_paths, eval_error = evaluate(input_args, target)
        if eval_error:
            failures[target] = eval_error
            continue
        cmd = [motec, "run", case] + input_args + target_flags(target)
        for path in actual_paths:
            cmd += ["--output", path]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            failures[target] = f"motec run failed ({run.returncode}): {run.stderr.strip()[-2000:]}"
            continue
        problem = mismatches(expected_paths, actual_paths)
        if problem:
            failures[target] = Failure(problem)
            failures[target].flush_explained = flushes_subnormals(target) and \
                explained_by_flushing(target, expected_paths, actual_paths)
    return failures


class Failure(str):
    """What failed, and whether subnormal flushing explains every differing
    element (set only for targets that flush)."""
    flush_explained = False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--motec", required=True)
    parser.add_argument("--target", action="append", required=True,
                        help="triple[:cpu[:features]], or package:triple[:cpu[:features]]")
    parser.add_argument("--mote-run", help="the mote-run program for package: targets")
    parser.add_argument("--runner", default="",
                        help="command that runs mote-run, e.g. 'qemu-aarch64 -L /usr/aarch64-linux-gnu'")
    parser.add_argument("cases", nargs="*")
    args = parser.parse_args()
    cases = args.cases or sorted(
        os.path.join(HERE, "cases", f) for f in os.listdir(os.path.join(HERE, "cases"))
        if f.endswith(".hlo"))
    unexpected = 0
    with tempfile.TemporaryDirectory(prefix="mote-diff-") as work:
        for case in cases:
            name = os.path.splitext(os.path.basename(case))[0]
            failures = run_case(args.motec, case, args.target, work, args.mote_run,
                                shlex.split(args.runner))
            for target in args.target:
                reason = expected_failure(name, target)
                failure = failures.get(target)
                flush_only = name in SUBNORMAL_FLUSH_CASES and flushes_subnormals(target)
                if failure and flush_only and not getattr(failure, "flush_explained", False):
                    unexpected += 1
                    print(f"FAIL  {name} [{target}]: differs beyond subnormal flushing: {failure}")
                elif failure and reason:
                    print(f"XFAIL {name} [{target}]: {reason}")
                elif failure:
                    unexpected += 1
                    print(f"FAIL  {name} [{target}]: {failure}")
                elif reason:
                    unexpected += 1
                    print(f"XPASS {name} [{target}]: expected to fail ({reason}) but matched")
                else:
                    print(f"ok    {name} [{target}]")
    print(f"{len(cases)} cases x {len(args.target)} targets, {unexpected} unexpected results")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
