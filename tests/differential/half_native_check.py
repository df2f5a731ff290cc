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

Usage: half_native_check.py --motec build/bin/motec --target T [--target T]...
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


def exact_and_scale(a, b, img, k):
    """Exact sums and sum |a*b| per element (f64 is exact for these products)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    dot, dot_abs = a64 @ b64, np.abs(a64) @ np.abs(b64)
    img64, k64 = img.astype(np.float64)[0], k.astype(np.float64)
    conv = np.zeros((7, 8, 24))
    conv_abs = np.zeros((7, 8, 24))
    for y in range(7):
        for x in range(8):
            patch = img64[y:y + 3, x:x + 3, :]
            conv[y, x] = np.einsum("hwc,hwco->o", patch, k64)
            conv_abs[y, x] = np.einsum("hwc,hwco->o", np.abs(patch), np.abs(k64))
    return [(dot, dot_abs, 300), (conv[None], conv_abs[None], 144)]


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")


def check(motec, target, work):
    rng = np.random.default_rng(11)
    inputs = [halves(rng, (37, 300)), halves(rng, (300, 45)), halves(rng, (1, 9, 10, 16)),
              halves(rng, (3, 3, 16, 24))]
    module = os.path.join(work, "native_half_sums.hlo")
    with open(module, "w") as f:
        f.write(MODULE)
    args = []
    for i, array in enumerate(inputs):
        path = os.path.join(work, f"x{i}.npy")
        np.save(path, array)
        args += ["--input", path]
    flags = target_flags(target)
    run([motec, "eval", module] + args + flags[:1] + ["-o", f"{work}/e0.npy", "-o", f"{work}/e1.npy"])
    run([motec, "run", module, "--native-half-sums"] + args + flags +
        ["-o", f"{work}/r0.npy", "-o", f"{work}/r1.npy"])
    evaluated = [np.load(f"{work}/e{i}.npy") for i in range(2)]
    ran = [np.load(f"{work}/r{i}.npy") for i in range(2)]
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--motec", required=True)
    parser.add_argument("--target", action="append", required=True)
    args = parser.parse_args()
    failed = 0
    for target in args.target:
        with tempfile.TemporaryDirectory() as work:
            try:
                problems = check(args.motec, target, work)
            except RuntimeError as error:
                problems = [str(error)]
        print(("FAIL  " if problems else "ok    ") + target + ": " + "; ".join(problems))
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
