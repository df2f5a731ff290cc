#!/usr/bin/env python3
"""--native-half-sums: f16 dots and convolutions summed in f16, within the stated bound.

On a target that multiplies and adds f16 vectors (AArch64 with +fullfp16, Cortex-M55's
Helium), `motec run --native-half-sums` keeps each f16 sum in f16: K fused multiply-adds,
each rounding once, so the result is within

    gamma_K * sum_k |a_k * b_k|,   gamma_K = K u / (1 - K u),  u = 2^-11

of the exact sum of the K products (Higham, Accuracy and Stability of Numerical
Algorithms, 3.1), plus K * 2^-14 where f16 subnormals are flushed (Helium under QEMU runs
its vector floating point with flush-to-zero). This checks every element of a dot (K = 300)
and a 3x3 convolution (K = 144) against that bound, on inputs whose magnitudes lie in
[0.5, 2] (no overflow, no subnormal products), and that the sums really were f16 (some
element differs from `motec eval`'s f32 sums). On a target without f16 multiply-adds
(x86-64) the option changes nothing: the result is `motec eval`'s, bit for bit.

bf16 (--bf16-target): on AArch64 with +bf16 the option sums bf16 dots and convolutions by
bfdot, two products an instruction into f32 (compiler/codegen/Bf16Dots.h). The products
are exact; bfdot adds them, and their sum to the f32 sum, rounding to odd, so the sums are
within gamma_K * sum |a*b| with u = 2^-23 (a rounding to odd errs by less than an ulp; no
input or sum here is subnormal, which bfdot would flush). The dot's result is f32 (the sums
as they are, so some differ from `motec eval`'s fused multiply-adds); the convolution's is
bf16, within that bound plus half a bf16 ulp (2^-8 relative) of its rounding, and its
innermost contracting dimension (15 input channels) ends in an odd step. Elsewhere (no
+bf16) the option changes nothing.

Usage: half_native_check.py --motec build/bin/motec --target T [--target T]...
                            [--bf16-target T]...
Exit status 0 when every target passes.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

from run_differential import target_flags

MODULE = """HloModule native_half_sums

ENTRY main {
  a = f16[37,300] parameter(0)
  b = f16[300,45] parameter(1)
  img = f16[1,9,10,16] parameter(2)
  k = f16[3,3,16,24] parameter(3)
  dot = f16[37,45] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  conv = f16[1,7,8,24] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  ROOT out = (f16[37,45], f16[1,7,8,24]) tuple(dot, conv)
}
"""
U = 2.0 ** -11
# Targets that sum f16 natively with the option, and whether they flush f16 subnormals.
NATIVE = {"aarch64-linux-gnu::+fullfp16": False, "thumbv8.1m.main-none-eabihf:cortex-m55": True}


def halves(rng, shape):
    magnitude = rng.uniform(0.5, 2.0, size=shape)
    sign = rng.choice([-1.0, 1.0], size=shape)
    return (magnitude * sign).astype(np.float16)


def exact_conv(img, k):
    """A valid 3x3 convolution's exact sums and sums of |products| (f64 is exact)."""
    img64, k64 = img.astype(np.float64)[0], k.astype(np.float64)
    rows, cols = img64.shape[0] - 2, img64.shape[1] - 2
    conv = np.zeros((rows, cols, k64.shape[3]))
    conv_abs = np.zeros_like(conv)
    for y in range(rows):
        for x in range(cols):
            patch = img64[y:y + 3, x:x + 3, :]
            conv[y, x] = np.einsum("hwc,hwco->o", patch, k64)
            conv_abs[y, x] = np.einsum("hwc,hwco->o", np.abs(patch), np.abs(k64))
    return conv[None], conv_abs[None]


def exact_and_scale(a, b, img, k):
    """Exact sums and sum |a*b| per element (f64 is exact for these products)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return [(a64 @ b64, np.abs(a64) @ np.abs(b64), 300), (*exact_conv(img, k), 144)]


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")


def evaluate_and_run(motec, target, work, text, inputs, results):
    """`text` with `inputs` through `motec eval` and `motec run --native-half-sums` on
    `target`: each run's `results` arrays."""
    module = os.path.join(work, "module.hlo")
    with open(module, "w") as f:
        f.write(text)
    args = []
    for i, array in enumerate(inputs):
        path = os.path.join(work, f"x{i}.npy")
        np.save(path, array)
        args += ["--input", path]
    flags = target_flags(target)
    outputs = lambda prefix: sum((["-o", f"{work}/{prefix}{i}.npy"] for i in range(results)), [])
    run([motec, "eval", module] + args + flags[:1] + outputs("e"))
    run([motec, "run", module, "--native-half-sums"] + args + flags + outputs("r"))
    return ([np.load(f"{work}/e{i}.npy") for i in range(results)],
            [np.load(f"{work}/r{i}.npy") for i in range(results)])


def check(motec, target, work):
    rng = np.random.default_rng(11)
    inputs = [halves(rng, (37, 300)), halves(rng, (300, 45)), halves(rng, (1, 9, 10, 16)),
              halves(rng, (3, 3, 16, 24))]
    evaluated, ran = evaluate_and_run(motec, target, work, MODULE, inputs, 2)
    problems = []
    if target not in NATIVE:
        for name, e, r in zip(("dot", "conv"), evaluated, ran):
            if not np.array_equal(e.view(np.uint16), r.view(np.uint16)):
                problems.append(f"{name}: differs from motec eval without f16 multiply-adds")
        return problems
    differs = False
    for name, (exact, scale, k), e, r in zip(("dot", "conv"), exact_and_scale(*inputs), evaluated,
                                            ran):
        gamma = k * U / (1 - k * U)
        bound = gamma * scale + (k * 2.0 ** -14 if NATIVE[target] else 0.0)
        error = np.abs(r.astype(np.float64) - exact)
        worst = float(np.max(error / bound))
        print(f"  {name}: K={k}, largest error {float(np.max(error)):.4g}, "
              f"{worst:.3f} of the bound")
        if not np.all(error <= bound):
            problems.append(f"{name}: {int(np.sum(error > bound))} elements beyond the bound")
        differs |= not np.array_equal(e.view(np.uint16), r.view(np.uint16))
    if not differs:
        problems.append("every element equals motec eval's f32 sums: were the sums f16?")
    return problems


BF16_MODULE = """HloModule native_bf16_sums

ENTRY main {
  a = bf16[37,300] parameter(0)
  b = bf16[300,45] parameter(1)
  img = bf16[1,9,10,15] parameter(2)
  k = bf16[3,3,15,24] parameter(3)
  w = bf16[63,21] constant(WEIGHTS)
  dot = f32[37,45] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  conv = bf16[1,7,8,24] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  a63 = bf16[37,63] slice(a), slice={[0:37], [0:63]}
  weighted = f32[37,21] dot(a63, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT out = (f32[37,45], bf16[1,7,8,24], f32[37,21]) tuple(dot, conv, weighted)
}
"""
U_BF16 = 2.0 ** -23
# Targets that sum bf16 by bfdot with the option.
NATIVE_BF16 = {"aarch64-linux-gnu::+bf16"}


def bf16s(rng, shape):
    """Values in +-[2^-4, 2^4] that bf16 holds exactly, as float32 (how .npy carries bf16):
    their products' exact sums need more than f32's 24 bits, so sums differ by how they
    round."""
    values = 2.0 ** rng.uniform(-4.0, 4.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    bits = values.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)




def check_bf16(motec, target, work):
    rng = np.random.default_rng(12)
    inputs = [bf16s(rng, (37, 300)), bf16s(rng, (300, 45)), bf16s(rng, (1, 9, 10, 15)),
              bf16s(rng, (3, 3, 15, 24))]
    # Weights as a constant (laid out in panels at compile time), 63 deep: an odd last step.
    weights = bf16s(rng, (63, 21))
    literal = "{" + ", ".join("{" + ", ".join(repr(float(v)) for v in row) + "}"
                              for row in weights) + "}"
    evaluated, ran = evaluate_and_run(motec, target, work,
                                      BF16_MODULE.replace("WEIGHTS", literal), inputs, 3)
    problems = []
    if target not in NATIVE_BF16:
        for name, e, r in zip(("dot", "conv", "weighted"), evaluated, ran):
            if not np.array_equal(e.view(np.uint32), r.view(np.uint32)):
                problems.append(f"{name}: differs from motec eval without bfdot")
        return problems
    a64, b64 = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    a63, w64 = a64[:, :63], weights.astype(np.float64)
    cases = [("dot", a64 @ b64, np.abs(a64) @ np.abs(b64), 300, 0.0),
             ("conv", *exact_conv(inputs[2], inputs[3]), 135, 2.0 ** -8),
             ("weighted", a63 @ w64, np.abs(a63) @ np.abs(w64), 63, 0.0)]
    for (name, exact, scale, k, rounding), r in zip(cases, ran):
        gamma = k * U_BF16 / (1 - k * U_BF16)
        bound = gamma * scale + rounding * (np.abs(exact) + gamma * scale)
        error = np.abs(r.astype(np.float64) - exact)
        worst = float(np.max(error / bound))
        print(f"  bf16 {name}: K={k}, largest error {float(np.max(error)):.4g}, "
              f"{worst:.3f} of the bound")
        if not np.all(error <= bound):
            problems.append(f"bf16 {name}: {int(np.sum(error > bound))} elements beyond the bound")
    for i, name in ((0, "dot"), (2, "weighted")):
        if np.array_equal(evaluated[i].view(np.uint32), ran[i].view(np.uint32)):
            problems.append(f"the f32 {name} equals motec eval's fused multiply-adds: bfdot?")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--motec", required=True)
    parser.add_argument("--target", action="append", required=True)
    parser.add_argument("--bf16-target", action="append", default=[])
    args = parser.parse_args()
    failed = 0
    runs = [(check, t, "") for t in args.target] + [(check_bf16, t, " (bf16)")
                                                    for t in args.bf16_target]
    for checker, target, kind in runs:
        with tempfile.TemporaryDirectory() as work:
            try:
                problems = checker(args.motec, target, work)
            except RuntimeError as error:
                problems = [str(error)]
        print(("FAIL  " if problems else "ok    ") + target + kind + ": " + "; ".join(problems))
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
