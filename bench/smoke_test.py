#!/usr/bin/env python3
"""ctest bench.smoke: every benchmark model (the floating-point ones also in f16 and bf16)
passes motec check, compiles for this machine as bench/run.sh compiles it, and mote-run's
output matches motec eval's. Nothing is timed.

  smoke_test.py --motec build/bin/motec --mote-run build/bin/mote-run --work DIR
"""

import argparse
import os
import sys

import numpy as np

import engines
import harness
import machine


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--motec", required=True)
    parser.add_argument("--mote-run", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args = parser.parse_args()
    features = machine.Machine().mote_features()
    os.makedirs(args.work, exist_ok=True)
    failures = 0
    names = harness.MODEL_NAMES + harness.half_variants(harness.MODEL_NAMES)
    for model in harness.generate_models(os.path.join(args.work, "models"), names):
        try:
            harness.prepare_mote(args.motec, model, features, args.work)
            output = os.path.join(args.work, f"{model.name}-mote.npy")
            argv = [args.mote_run, model.package, "--output", output]
            for path in model.inputs:
                argv += ["--input", path]
            engines.run(argv)
            error = engines.relative_error(np.load(output), model.reference)
        except engines.RunError as problem:
            print(f"FAIL {model.name}: {problem}")
            failures += 1
            continue
        tolerance = max(args.tolerance, harness.HALF_TOLERANCE) if harness.is_half(model.name) \
            else args.tolerance
        verdict = "ok  " if error <= tolerance else "FAIL"
        failures += verdict == "FAIL"
        print(f"{verdict} {model.name}: largest difference from motec eval {error:.1e} of the "
              f"output's largest magnitude (tolerance {tolerance:g})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
