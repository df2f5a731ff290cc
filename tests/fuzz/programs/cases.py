"""A module with its inputs, evaluated and run the way the differential
tests do it: `motec eval` with the target's flags (so dots and convolutions
sum as that target's code does) against `motec run` on the target, natively
or under QEMU, compared leaf by leaf with run_differential's rules (bit for
bit, NaN matching any NaN, transcendentals within their stated bound)."""
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "differential"))
import run_differential  # noqa: E402  (compare, make_input, target_flags)

LINE = re.compile(r"^\s*(ROOT\s+)?([\w.\-]+)\s*=\s*(\([^=]*\)|[\w]+\[[^\]]*\](?:\{[^}]*\})?)"
                  r"\s+([\w\-]+)\((.*)$")
# What QEMU 7.2 cannot run (run_differential's expected failures): the RVV
# narrowing and float -> integer conversions abort the emulator.
EMULATOR_FAILURES = ("decode_save_opc",)


class Outcome:
    """What one command gave: result arrays, or a failure."""

    def __init__(self, arrays=None, code=0, message=""):
        self.arrays, self.code, self.message = arrays, code, message

    def failed(self):
        return self.arrays is None

    def emulator_failed(self):
        return self.failed() and any(m in self.message for m in EMULATOR_FAILURES)


class Case:
    """An HLO module, its parameters' values, and each result's ulp bound."""

    def __init__(self, text, params, inputs, bounds, dtypes):
        self.text = text
        self.params = params    # [(name, dtype, dims)] in parameter order
        self.inputs = inputs    # name -> numpy array
        self.bounds = bounds    # ulp bound per result leaf
        self.dtypes = dtypes    # element type per result leaf

    def write(self, directory, stem):
        os.makedirs(directory, exist_ok=True)
        module = os.path.join(directory, f"{stem}.hlo")
        with open(module, "w") as out:
            out.write(self.text)
        args = []
        for i, (name, _, _) in enumerate(self.params):
            path = os.path.join(directory, f"{stem}.in{i}.npy")
            np.save(path, self.inputs[name])
            args += ["--input", path]
        return module, args


def run_command(command, outputs, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(code="timeout", message=f"timed out after {timeout} s")
    if done.returncode != 0:
        return Outcome(code=done.returncode, message=done.stderr.strip()[-3000:])
    try:
        return Outcome([np.load(path) for path in outputs])
    except (OSError, ValueError) as error:
        return Outcome(code="output", message=f"unreadable output: {error}")


def evaluate_and_run(motec, case, target, work, stem, timeout=300):
    """(expected, actual): the evaluator's Outcome and the target's."""
    module, args = case.write(work, stem)
    flags = run_differential.target_flags(target)
    tag = re.sub(r"[^A-Za-z0-9]", "_", target)
    expected_paths = [os.path.join(work, f"{stem}.eval.{tag}.{i}.npy")
                      for i in range(len(case.bounds))]
    actual_paths = [os.path.join(work, f"{stem}.run.{tag}.{i}.npy")
                    for i in range(len(case.bounds))]
    outputs = lambda paths: [x for p in paths for x in ("--output", p)]  # noqa: E731
    expected = run_command([motec, "eval", module] + args + flags + outputs(expected_paths),
                           expected_paths, timeout)
    if expected.failed():
        return expected, None
    actual = run_command([motec, "run", module] + args + flags + outputs(actual_paths) +
                         ["--timeout", str(timeout)], actual_paths, timeout + 30)
    return expected, actual


def mismatches(case, expected, actual):
    """{result leaf: description} for the leaves that differ."""
    problems = {}
    for k, (e, a) in enumerate(zip(expected.arrays, actual.arrays)):
        problem = run_differential.compare(e, a, case.dtypes[k], case.bounds[k])
        if problem:
            problems[k] = problem
    return problems


def make_inputs(rng, params):
    """Random values with the edge cases of run_differential (NaN, infinities,
    signed zeros, subnormals, INT_MIN...) for each parameter."""
    return {name: run_differential.make_input(rng, dtype, list(dims))
            for name, dtype, dims in params}
