#!/usr/bin/env python3
"""Conformance run of motec over a folder of real HLO modules.

For every CORPUS/files/*.hlo:
  check      `motec check FILE` exits 0
  roundtrip  P1 = `motec print FILE`, P2 = `motec print P1`, and P1 == P2
  eval       `motec eval FILE` on seeded inputs exits 0; exit 3 means Mote does
             not support the module (counted apart, with motec's reason)
  run        with --run-target T: `motec run FILE --target=T` on the same inputs
             matches eval (integers exactly; floats within the bound below; for
             targets other than plain x86-64, `motec eval --target=T`, whose dot
             sums are the target's: fused multiply-adds or not);
             exit 3 means code generation does not support the module yet.
             A target `package:T` instead compiles FILE into a .mote package for
             T and runs it with --mote-run (under --runner, e.g. qemu-aarch64),
             on the inputs `motec eval --save-inputs` wrote

Prints a table and a summary line, writes a TSV report if asked, and exits 1 if
anything supported failed. Exits 77 (ctest's skip code) when the corpus folder
does not exist. Standard library only, except --run-target, which compares
results with NumPy.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

EXIT_UNSUPPORTED = 3
# Compiled models use inline approximations of exp, log, tanh... (a few ulp from
# the host libm the evaluator calls) and networks carry those differences
# forward, so a corpus result matches when each float is within this many ulp
# of the evaluator's or within RELATIVE_TOLERANCE of the array's largest
# magnitude. The differential tests hold single ops to tighter, per-op bounds.
FLOAT_ULP_BOUND = 64
RELATIVE_TOLERANCE = 1e-5
SKIP = 77
PACKAGE_PREFIX = "package:"

# Files in the corpus that are not valid HLO (XLA's verifier rejects them too):
# motec check must refuse each with this located error, and nothing more is run.
EXPECTED_INVALID = {
    # Rebuilt from FileCheck lines: the call declares a u64[4] state but the
    # computation it calls returns u64[2] (u64[6] vs u64[3] for Philox).
    "xla__hlo__transforms__tests__rng_bit_generator_expander__recon1_TestThreeFryAlgorithm.hlo":
        ":254:3: error: in %call: shape (u64[4], u32[]) does not match",
    "xla__hlo__transforms__tests__rng_bit_generator_expander__recon4_TestPhiloxAlgorithm.hlo":
        ":360:3: error: in %call: shape (u64[6], u32[]) does not match",
    # A FileCheck pattern, constant({{.*}}), was left in the text.
    "xla__hlo__transforms__tests__rng_expander__recon3_TestNormalDistribution.hlo":
        ":395:30: error: expected an integer for an element of type u64",
}


def first_error(text):
    """The first line that says what went wrong, for the table."""
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0] if lines else ""


def run(command, timeout):
    """(exit code or 'timeout', stdout, stderr, seconds)."""
    start = time.monotonic()
    # A session of its own, so a timeout also stops what motec started (an
    # emulator running a compiled model).
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
        code, err = process.returncode, err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        code, out, err = "timeout", b"", f"timed out after {timeout} s"
    return code, out, err, time.monotonic() - start


def check_file(motec, path, args):
    result = {"file": os.path.basename(path)}
    code, check_out, err, seconds = run([motec, "check", path], args.check_timeout)
    expected_error = EXPECTED_INVALID.get(result["file"])
    if expected_error is not None:
        # Must be refused with exactly the expected diagnostic.
        ok = code == 1 and expected_error in err
        result.update(check="rejected" if ok else "FAIL", check_s=seconds,
                      check_detail="" if ok else f"expected '{expected_error}', got exit {code}: "
                                                 f"{first_error(err)}",
                      roundtrip="-", roundtrip_detail="", roundtrip_s=0.0,
                      eval="-", eval_detail="", eval_s=0.0, **skipped_runs(args))
        return result
    result["check"] = "ok" if code == 0 else "FAIL"
    result["check_detail"] = "" if code == 0 else f"exit {code}: {first_error(err)}"
    result["check_s"] = seconds

    code, first, err, seconds = run([motec, "print", path], args.check_timeout)
    detail = ""
    if code != 0:
        detail = f"print exit {code}: {first_error(err)}"
    else:
        with tempfile.NamedTemporaryFile(suffix=".hlo", delete=False) as printed:
            printed.write(first)
        try:
            code, second, err, more = run([motec, "print", printed.name], args.check_timeout)
            seconds += more
            if code != 0:
                detail = f"reprint exit {code}: {first_error(err)}"
            elif first != second:
                a, b = first.decode(errors="replace").splitlines(), second.decode(
                    errors="replace").splitlines()
                line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                detail = f"prints differ at line {line + 1}"
        finally:
            os.unlink(printed.name)
    result["roundtrip"] = "ok" if not detail else "FAIL"
    result["roundtrip_detail"] = detail
    result["roundtrip_s"] = seconds

    result.update(skipped_runs(args))
    if args.no_eval:
        result["eval"], result["eval_detail"], result["eval_s"] = "-", "", 0.0
        return result
    work = tempfile.mkdtemp(prefix="mote-corpus-")
    results = result_count(check_out.decode("utf-8", "replace")) if code == 0 else 0
    outputs = [os.path.join(work, f"eval{i}.npy") for i in range(results)]
    eval_command = [motec, "eval", path, "--seed", str(args.seed)]
    if any(t.startswith(PACKAGE_PREFIX) for t in args.run_target):
        eval_command += ["--save-inputs", work]
    if args.run_target:
        for output in outputs:
            eval_command += ["--output", output]
    code, _, err, seconds = run(eval_command, args.eval_timeout)
    if code == 0:
        result["eval"], result["eval_detail"] = "ok", ""
    elif code == EXIT_UNSUPPORTED:
        result["eval"], result["eval_detail"] = "unsupported", first_error(err)
    else:
        result["eval"] = "TIMEOUT" if code == "timeout" else "FAIL"
        result["eval_detail"] = f"exit {code}: {first_error(err)}"
    result["eval_s"] = seconds
    if code == 0:
        for target in args.run_target:
            run_on_target(motec, path, target, outputs, work, args, result)
    shutil.rmtree(work, ignore_errors=True)
    return result


def skipped_runs(args):
    fields = {}
    for target in args.run_target:
        fields[f"run:{target}"], fields[f"run:{target}_detail"] = "-", ""
        fields[f"run:{target}_s"] = 0.0
    return fields


def result_count(check_output):
    """How many arrays the entry returns, from `motec check`'s summary."""
    for line in check_output.splitlines():
        if line.strip().startswith("results:"):
            return int(line.split(":")[1])
    return 0


VECTOR_CPU = "rv64,v=true,vext_spec=v1.0,vlen=128"


def mote_run_command(triple, features, args):
    """How to start mote-run for `triple`: --mote-run/--runner when given,
    else <--mote-run-dir>/mote-run-<triple> under qemu-user (the host's own
    mote-run for x86_64), with the vector CPU when the features ask for V."""
    if args.mote_run:
        return shlex.split(args.runner) + [args.mote_run]
    if triple == "x86_64-linux-gnu":
        return [os.path.join(args.mote_run_dir, "mote-run")]
    arch = triple.split("-")[0]
    runner = [f"qemu-{arch}"]
    if arch == "riscv64" and "+v" in features:
        runner += ["-cpu", VECTOR_CPU]
    return runner + ["-L", f"/usr/{triple}", os.path.join(args.mote_run_dir, f"mote-run-{triple}")]


def package_run(motec, path, target, outputs, work, args):
    """Compiles `path` into a package for `target` (package:T[:cpu[:features]])
    and runs it with mote-run on the saved inputs; returns run()'s tuple."""
    triple, _, rest = target[len(PACKAGE_PREFIX):].partition(":")
    features = rest.partition(":")[2]
    package = os.path.join(work, re.sub(r"[^A-Za-z0-9]", "_", target) + ".mote")
    command = [motec, "compile", path, "-o", package] + target_flags(target)
    code, out, err, seconds = run(command, args.run_timeout)
    if code != 0:
        return code, out, err, seconds
    inputs = sorted((name for name in os.listdir(work) if re.fullmatch(r"input\d+\.npy", name)),
                    key=lambda name: int(name[5:-4]))
    # mote-run detects the machine's features itself (the vector CPU has V).
    command = mote_run_command(triple, features, args) + [package]
    for name in inputs:
        command += ["--input", os.path.join(work, name)]
    for output in outputs:
        command += ["--output", output]
    code, out, err, more = run(command, max(1.0, args.run_timeout - seconds))
    if code == 3:  # no code object for this machine: a setup problem, not "unsupported"
        code = 1
    return code, out, err, seconds + more


def target_flags(target):
    """motec's --target/--cpu/--features for `[package:]triple[:cpu[:features]]`."""
    if target.startswith(PACKAGE_PREFIX):
        target = target[len(PACKAGE_PREFIX):]
    triple, _, rest = target.partition(":")
    cpu, _, features = rest.partition(":")
    return [f"--target={triple}"] + ([f"--cpu={cpu}"] if cpu else []) + \
        ([f"--features={features}"] if features else [])


def run_on_target(motec, path, target, expected, work, args, result):
    """Compiles and runs the module for `target`; compares with the evaluator."""
    key = f"run:{target}"
    outputs = [os.path.join(work, re.sub(r"[^A-Za-z0-9]", "_", target) + f".{i}.npy")
               for i in range(len(expected))]
    if target.startswith(PACKAGE_PREFIX):
        code, _, err, seconds = package_run(motec, path, target, outputs, work, args)
    else:
        # motec stops the model itself a little before the runner gives up on motec.
        command = [motec, "run", path, f"--target={target}", "--seed", str(args.seed),
                   f"--timeout={max(1, int(args.run_timeout) - 10)}"]
        for output in outputs:
            command += ["--output", output]
        code, _, err, seconds = run(command, args.run_timeout)
    result[key + "_s"] = seconds
    if code == EXIT_UNSUPPORTED:
        result[key], result[key + "_detail"] = "unsupported", first_error(err)
        return
    if code == 0 and target not in ("x86_64-linux-gnu", PACKAGE_PREFIX + "x86_64-linux-gnu"):
        # Other targets may sum dots with fused multiply-adds: the evaluator
        # sums as their code does (same seed, so the same inputs).
        expected = [os.path.join(work, "eval-" + os.path.basename(o)) for o in outputs]
        command = [motec, "eval", path, "--seed", str(args.seed)] + target_flags(target)
        for output in expected:
            command += ["--output", output]
        eval_code, _, eval_err, eval_seconds = run(command, args.eval_timeout)
        result[key + "_s"] = seconds + eval_seconds
        if eval_code != 0:
            result[key] = "TIMEOUT" if eval_code == "timeout" else "FAIL"
            result[key + "_detail"] = f"eval for the target: exit {eval_code}: {first_error(eval_err)}"
            return
    if code != 0:
        slow = code == "timeout" or "did not finish within" in err
        result[key] = "TIMEOUT" if slow else "FAIL"
        result[key + "_detail"] = f"exit {code}: {first_error(err)}"
        return
    import numpy as np
    exact = True
    for i, (e_path, a_path) in enumerate(zip(expected, outputs)):
        e, a = np.load(e_path), np.load(a_path)
        if e.shape != a.shape or e.dtype != a.dtype:
            result[key], result[key + "_detail"] = "FAIL", f"result {i}: {a.dtype}{a.shape} != {e.dtype}{e.shape}"
            return
        if e.dtype.kind == "c":  # complex: its parts, as floats
            part = np.float32 if e.dtype == np.complex64 else np.float64
            e, a = e.reshape(-1).view(part), a.reshape(-1).view(part)
        if e.dtype.kind != "f":
            if not np.array_equal(e, a):
                bad = int(np.flatnonzero(e.reshape(-1) != a.reshape(-1))[0])
                result[key], result[key + "_detail"] = "FAIL", f"result {i} element {bad} differs"
                return
            continue
        e64, a64 = e.astype(np.float64).reshape(-1), a.astype(np.float64).reshape(-1)
        same_bits = (e.reshape(-1).tobytes() == a.reshape(-1).tobytes())
        exact = exact and same_bits
        if same_bits:
            continue
        width = e.dtype.itemsize * 8
        ints = {16: np.int16, 32: np.int32, 64: np.int64}[width]
        def keys(x):
            bits = x.reshape(-1).view(ints).astype(np.int64)
            magnitude = bits & ((1 << (width - 1)) - 1)
            return np.where(bits < 0, -magnitude, magnitude)
        nan_e, nan_a = np.isnan(e64), np.isnan(a64)
        finite = np.isfinite(e64)
        scale = np.max(np.abs(e64[finite])) if finite.any() else 0.0
        close = (np.abs(keys(e) - keys(a)) <= FLOAT_ULP_BOUND) | \
            (np.abs(e64 - a64) <= RELATIVE_TOLERANCE * scale)
        ok = (nan_e & nan_a) | (~nan_e & ~nan_a & (np.isinf(e64) == np.isinf(a64)) & close)
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            result[key] = "FAIL"
            result[key + "_detail"] = (f"result {i}: {int((~ok).sum())} elements differ, first "
                                       f"{bad}: {a64[bad]!r} != {e64[bad]!r}")
            return
    result[key], result[key + "_detail"] = ("exact" if exact else "ok"), ""


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--motec", required=True)
    parser.add_argument("--corpus", required=True, help="folder holding files/*.hlo")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--eval-timeout", type=float, default=900)
    parser.add_argument("--check-timeout", type=float, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--filter", default="", help="only files whose name contains this")
    parser.add_argument("--no-eval", action="store_true", help="only check and round trip")
    parser.add_argument("--report", help="write a TSV of the results here")
    parser.add_argument("--run-target", action="append", default=[],
                        help="also compile and run each evaluated module for this triple and "
                             "compare with the evaluator (repeatable)")
    parser.add_argument("--run-timeout", type=float, default=300,
                        help="seconds one compile-and-run may take")
    parser.add_argument("--mote-run", help="mote-run binary for package:T targets")
    parser.add_argument("--mote-run-dir",
                        help="folder with mote-run and mote-run-<triple> (cross builds, run "
                             "under qemu-user) for package:T targets")
    parser.add_argument("--runner", default="",
                        help="command prefix for --mote-run, e.g. 'qemu-aarch64 -L /usr/aarch64-linux-gnu'")
    args = parser.parse_args()

    files_dir = os.path.join(args.corpus, "files")
    if not os.path.isdir(files_dir):
        print(f"corpus not found, skipped (no folder {files_dir})")
        return SKIP
    if any(t.startswith(PACKAGE_PREFIX) for t in args.run_target) and not (
            args.mote_run or args.mote_run_dir):
        print("package:T run targets need --mote-run or --mote-run-dir")
        return 2
    if not os.access(args.motec, os.X_OK):
        print(f"motec not found at {args.motec}: build it first")
        return 1
    paths = sorted(os.path.join(files_dir, name) for name in os.listdir(files_dir)
                   if name.endswith(".hlo") and args.filter in name)

    results = []
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(check_file, args.motec, path, args): path for path in paths}
        for future in concurrent.futures.as_completed(futures):
            r = future.result()
            results.append(r)
            total = r["check_s"] + r["roundtrip_s"] + r["eval_s"]
            runs = " ".join(f"{r['run:' + t]:11}" for t in args.run_target)
            print(f"[{len(results):3}/{len(paths)}] {r['check']:4} {r['roundtrip']:4} "
                  f"{r['eval']:11} {runs} {total:8.1f}s  {r['file']}", flush=True)
    results.sort(key=lambda r: r["file"])

    width = min(90, max((len(r["file"]) for r in results), default=4))
    print(f"\n{'file':{width}}  check  roundtrip  {'eval':11}  seconds")
    for r in results:
        name = r["file"] if len(r["file"]) <= width else "..." + r["file"][-(width - 3):]
        total = r["check_s"] + r["roundtrip_s"] + r["eval_s"]
        print(f"{name:{width}}  {r['check']:5}  {r['roundtrip']:9}  {r['eval']:11}  {total:7.1f}")

    # A timeout is reported, not counted as a failure: it says the evaluator is
    # too slow for that module within the budget, not that it is wrong.
    steps = ["check", "roundtrip", "eval"] + [f"run:{t}" for t in args.run_target]
    problems = [(r["file"], step, r[step + "_detail"]) for r in results
                for step in steps
                if r[step] not in ("ok", "exact", "-", "unsupported", "rejected", "TIMEOUT")]
    timeouts = [r for r in results if r["eval"] == "TIMEOUT"]
    if timeouts:
        print(f"\nOver the {args.eval_timeout:.0f} s evaluation budget (not evaluated):")
        for r in timeouts:
            print(f"  {r['file']}")
    if problems:
        print("\nFailures:")
        for name, step, detail in problems:
            print(f"  {name}: {step}: {detail}")
    unsupported = [r for r in results if r["eval"] == "unsupported"]
    if unsupported:
        print("\nUnsupported (exit 3):")
        for r in unsupported:
            print(f"  {r['file']}: {r['eval_detail']}")
    for target in args.run_target:
        key = f"run:{target}"
        missing = [r for r in results if r[key] in ("unsupported", "TIMEOUT")]
        if missing:
            print(f"\nNot compiled and run for {target} (unsupported by code generation, or over "
                  f"the time budget):")
            for r in missing:
                print(f"  {r['file']}: {r[key]} {r[key + '_detail']}")
    print("\nSlowest (eval seconds):")
    for r in sorted(results, key=lambda r: -r["eval_s"])[:10]:
        print(f"  {r['eval_s']:8.1f}  {r['file']}")

    if args.report:
        with open(args.report, "w") as report:
            runs = "".join(f"\t{t}\t{t}_s" for t in args.run_target)
            report.write(f"file\tcheck\troundtrip\teval\tcheck_s\troundtrip_s\teval_s{runs}"
                         "\tdetail\n")
            for r in results:
                detail = "; ".join(f"{s}: {r[s + '_detail']}" for s in steps if r[s + "_detail"])
                runs = "".join(f"\t{r['run:' + t]}\t{r['run:' + t + '_s']:.2f}"
                               for t in args.run_target)
                report.write(f"{r['file']}\t{r['check']}\t{r['roundtrip']}\t{r['eval']}\t"
                             f"{r['check_s']:.2f}\t{r['roundtrip_s']:.2f}\t{r['eval_s']:.2f}"
                             f"{runs}\t{detail}\n")

    n = len(results)
    rejected = sum(r["check"] == "rejected" for r in results)
    valid = n - rejected
    checked = sum(r["check"] == "ok" for r in results)
    roundtrip = sum(r["roundtrip"] == "ok" for r in results)
    evaluated = sum(r["eval"] == "ok" for r in results)
    supported = valid - len(unsupported)
    eval_text = "eval skipped" if args.no_eval else (
        f"eval {evaluated}/{supported} supported ({len(unsupported)} unsupported, "
        f"{len(timeouts)} over the time budget)")
    run_texts = []
    for target in args.run_target:
        key = f"run:{target}"
        matched = sum(r[key] in ("ok", "exact") for r in results)
        exact = sum(r[key] == "exact" for r in results)
        not_run = sum(r[key] == "unsupported" for r in results)
        slow = sum(r[key] == "TIMEOUT" for r in results)
        run_texts.append(f"{target}: {matched}/{evaluated} evaluated modules match ({exact} "
                         f"bit-exact, {not_run} unsupported by code generation, {slow} over the "
                         f"time budget)")
    runs = "".join(f", {text}" for text in run_texts)
    print(f"\ncorpus: check {checked}/{valid} valid ({rejected} invalid files rejected as "
          f"expected), roundtrip {roundtrip}/{valid}, {eval_text}{runs} "
          f"in {time.monotonic() - started:.0f} s")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
