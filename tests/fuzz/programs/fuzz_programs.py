#!/usr/bin/env python3
"""Random-program differential fuzzing of motec.

For each seed, generate.py makes a module of several independent random
programs; each target compiles and runs it once (`motec run`: natively, under
qemu-user or qemu-system), and every program's result is compared with the
evaluator's for that target. A program that differs, or a module that fails
to compile or run, is isolated (the program alone in a module) and reduced
by delta debugging; the reproducer (module, inputs, what failed) is saved
under --findings.

  fuzz_programs.py --motec build/bin/motec --target x86_64-linux-gnu \\
      [--target aarch64-linux-gnu] [--target riscv64-linux-gnu::+v] \\
      [--target thumbv7em-none-eabihf:cortex-m4] --seeds 1:100 [--programs 12] \\
      [--max-seconds S] [--findings DIR] [--no-reduce]

Targets are spelled as for run_differential.py (triple[:cpu[:features]]).
Prints one line per module and target, then counts per target: programs
compared, mismatches, programs the code generator declines (exit 3), and
programs QEMU cannot run (its known RVV conversion bug). Exits 1 when any
program failed in a way no KNOWN_ISSUES entry explains.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np

from cases import Case, evaluate_and_run, make_inputs, mismatches
from generate import generate_programs, module_text
from reduce_case import reduce

# (target prefix, program family prefix, reason): failures that are known and
# belong to another part of Mote. Each keeps its reduced reproducer as an
# expected failure in tests/fuzz/programs/regressions.
KNOWN_ISSUES = []


def case_of(seed, programs, computations, inputs, keep=None):
    """The module of `programs` (those whose indices are in `keep`)."""
    chosen = [p for k, p in enumerate(programs) if keep is None or k in keep]
    params = [(value.name, value.dtype, value.dims) for p in chosen for value, _ in p.params]
    text = module_text(f"fuzz_{seed}", chosen, computations)
    return Case(text, params, {name: inputs[name] for name, _, _ in params},
                [p.ulp for p in chosen], [p.result.dtype for p in chosen])


def known_issue(target, program):
    for prefix, family, reason in KNOWN_ISSUES:
        if target.startswith(prefix) and program.family.startswith(family):
            return reason
    return None


class Tally:
    def __init__(self):
        self.compared = self.mismatched = self.declined = self.emulator = self.known = 0
        self.modules = 0


def investigate(args, seed, k, program, programs, computations, inputs, target, work, why):
    """Program k alone: what it does on `target`, reduced and saved if it fails."""
    case = case_of(seed, programs, computations, inputs, keep={k})
    expected, actual = evaluate_and_run(args.motec, case, target, work, f"s{seed}p{k}")
    if expected.failed():
        return "eval-failed", expected.message
    if actual.failed():
        if actual.emulator_failed():
            return "emulator", actual.message
        if actual.code == 3:
            return "declined", actual.message
        problem = f"motec run exit {actual.code}: {actual.message}"
    else:
        problems = mismatches(case, expected, actual)
        if not problems:
            return "passed-alone", why
        problem = problems[0]
    reason = known_issue(target, program)
    if reason:
        return "known", reason
    save_finding(args, seed, k, program, case, target, problem, work)
    return "failed", problem


def save_finding(args, seed, k, program, case, target, problem, work, reduce_it=True):
    tag = "".join(c if c.isalnum() else "_" for c in target)
    directory = os.path.join(args.findings, f"seed{seed}-program{k}-{tag}")
    os.makedirs(directory, exist_ok=True)
    reduced = None
    if reduce_it and not args.no_reduce:
        print(f"  reducing seed {seed} program {k} ({program.family}) on {target}")
        reduced = reduce(args.motec, case.text, case.inputs, target, work,
                         log=lambda line: print(line, flush=True))
    final = reduced[0] if reduced else case
    final.write(directory, "reduced" if reduced else "program")
    with open(os.path.join(directory, "README.json"), "w") as out:
        json.dump({"seed": seed, "program": k, "family": program.family, "target": target,
                   "problem": problem, "kind": reduced[1] if reduced else None,
                   "bound_ulp": final.bounds[0]}, out, indent=1)
    print(f"  saved {directory}")


def suspects_in(args, seed, keep, programs, computations, inputs, target, work, known=None):
    """{program index: why} for the programs among `keep` that differ, or that
    make the module fail to evaluate or run (found by halving the module: a
    few runs find one culprit among many). `known` is the whole set's outcome
    when it was already run."""
    if known is None:
        case = case_of(seed, programs, computations, inputs, keep=set(keep))
        known = evaluate_and_run(args.motec, case, target, work, f"s{seed}")
    expected, actual = known
    failure = f"eval exit {expected.code}" if expected.failed() else \
        f"run exit {actual.code}" if actual.failed() else None
    if failure is None:
        case = case_of(seed, programs, computations, inputs, keep=set(keep))
        return {keep[leaf]: why for leaf, why in mismatches(case, expected, actual).items()}
    if len(keep) == 1:
        return {keep[0]: failure}
    half = len(keep) // 2
    found = {}
    for part in (keep[:half], keep[half:]):
        found.update(suspects_in(args, seed, part, programs, computations, inputs, target, work))
    # Each half ran and matched: they fail only together. QEMU's translator
    # bug depends on the code around the instruction it trips on, so when it
    # is what failed, every program here has been compared (in its half).
    if found or (actual is not None and actual.emulator_failed()):
        return found
    return {k: f"only in the module: {failure}" for k in keep}


def fuzz_seed(args, seed, tallies, work):
    programs, computations = generate_programs(seed, args.programs)
    inputs = make_inputs(np.random.default_rng(seed), [
        (v.name, v.dtype, v.dims) for p in programs for v, _ in p.params])
    case = case_of(seed, programs, computations, inputs)
    failed = False
    for target in args.target:
        tally = tallies[target]
        tally.modules += 1
        outcome = evaluate_and_run(args.motec, case, target, work, f"s{seed}")
        suspects = suspects_in(args, seed, list(range(len(programs))), programs, computations,
                               inputs, target, work, known=outcome)
        verdicts = {}
        for k in suspects:
            verdicts[k] = investigate(args, seed, k, programs[k], programs, computations,
                                      inputs, target, work, suspects[k])
        alone = [k for k, (kind, _) in verdicts.items() if kind == "passed-alone"]
        if alone:
            # Independent programs that fail only side by side: the whole
            # module is the reproducer (an interaction in passes or buffers).
            save_finding(args, seed, alone[0], programs[alone[0]], case, target,
                         f"only in the module: {suspects[alone[0]]}", work, reduce_it=False)
            for k in alone:
                verdicts[k] = ("failed", f"fails only next to the other programs: {suspects[k]}")
        counts = {"failed": 0, "declined": 0, "emulator": 0, "known": 0, "eval-failed": 0}
        for k, (kind, detail) in verdicts.items():
            if kind in counts:
                counts[kind] += 1
            if kind in ("failed", "eval-failed"):
                print(f"FAIL seed {seed} program {k} ({programs[k].family}) [{target}]: "
                      f"{detail[:400]}")
        compared = len(programs) - sum(counts.values())
        tally.compared += compared
        tally.mismatched += counts["failed"] + counts["eval-failed"]
        tally.declined += counts["declined"]
        tally.emulator += counts["emulator"]
        tally.known += counts["known"]
        failed |= bool(counts["failed"] or counts["eval-failed"])
        note = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
        print(f"seed {seed} [{target}]: {compared}/{len(programs)} programs match"
              + (f" ({note})" if note else ""), flush=True)
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--motec", required=True)
    parser.add_argument("--target", action="append", required=True)
    parser.add_argument("--seeds", default="1:20", help="FIRST:COUNT")
    parser.add_argument("--programs", type=int, default=12, help="programs per module")
    parser.add_argument("--max-seconds", type=float, default=0,
                        help="stop starting new seeds after this long (0: no limit)")
    parser.add_argument("--findings", default="fuzz-findings")
    parser.add_argument("--no-reduce", action="store_true")
    args = parser.parse_args()
    first, count = (int(x) for x in args.seeds.split(":"))
    tallies = {target: Tally() for target in args.target}
    start = time.monotonic()
    any_failed = False
    work = tempfile.mkdtemp(prefix="mote-fuzz-")
    try:
        for seed in range(first, first + count):
            if args.max_seconds and time.monotonic() - start > args.max_seconds:
                print(f"time budget reached after {seed - first} seeds")
                break
            any_failed |= fuzz_seed(args, seed, tallies, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for target, t in tallies.items():
        print(f"{target}: {t.modules} modules, {t.compared} programs matched, "
              f"{t.mismatched} failed, {t.declined} declined by code generation, "
              f"{t.emulator} not run (QEMU), {t.known} known issues")
    print(f"{time.monotonic() - start:.0f} s")
    return 1 if any_failed else 0


if __name__ == "__main__":
    sys.exit(main())
