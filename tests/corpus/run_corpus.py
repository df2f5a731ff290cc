#!/usr/bin/env python3
"""Conformance run of motec over a folder of real HLO modules.

For every CORPUS/files/*.hlo:
  check      `motec check FILE` exits 0
  roundtrip  P1 = `motec print FILE`, P2 = `motec print P1`, and P1 == P2
  eval       `motec eval FILE` on seeded inputs exits 0; exit 3 means Mote does
             not support the module (counted apart, with motec's reason)

Prints a table and a summary line, writes a TSV report if asked, and exits 1 if
anything supported failed. Exits 77 (ctest's skip code) when the corpus folder
does not exist. Standard library only.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

EXIT_UNSUPPORTED = 3
SKIP = 77

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
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout)
        code = done.returncode
        out, err = done.stdout, done.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        code, out, err = "timeout", b"", f"timed out after {timeout} s"
    return code, out, err, time.monotonic() - start


def check_file(motec, path, args):
    result = {"file": os.path.basename(path)}
    code, _, err, seconds = run([motec, "check", path], args.check_timeout)
    expected_error = EXPECTED_INVALID.get(result["file"])
    if expected_error is not None:
        # Must be refused with exactly the expected diagnostic.
        ok = code == 1 and expected_error in err
        result.update(check="rejected" if ok else "FAIL", check_s=seconds,
                      check_detail="" if ok else f"expected '{expected_error}', got exit {code}: "
                                                 f"{first_error(err)}",
                      roundtrip="-", roundtrip_detail="", roundtrip_s=0.0,
                      eval="-", eval_detail="", eval_s=0.0)
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

    if args.no_eval:
        result["eval"], result["eval_detail"], result["eval_s"] = "-", "", 0.0
        return result
    code, _, err, seconds = run([motec, "eval", path, "--seed", str(args.seed)], args.eval_timeout)
    if code == 0:
        result["eval"], result["eval_detail"] = "ok", ""
    elif code == EXIT_UNSUPPORTED:
        result["eval"], result["eval_detail"] = "unsupported", first_error(err)
    else:
        result["eval"] = "TIMEOUT" if code == "timeout" else "FAIL"
        result["eval_detail"] = f"exit {code}: {first_error(err)}"
    result["eval_s"] = seconds
    return result


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
    args = parser.parse_args()

    files_dir = os.path.join(args.corpus, "files")
    if not os.path.isdir(files_dir):
        print(f"corpus not found, skipped (no folder {files_dir})")
        return SKIP
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
            print(f"[{len(results):3}/{len(paths)}] {r['check']:4} {r['roundtrip']:4} "
                  f"{r['eval']:11} {total:8.1f}s  {r['file']}", flush=True)
    results.sort(key=lambda r: r["file"])

    width = min(90, max((len(r["file"]) for r in results), default=4))
    print(f"\n{'file':{width}}  check  roundtrip  {'eval':11}  seconds")
    for r in results:
        name = r["file"] if len(r["file"]) <= width else "..." + r["file"][-(width - 3):]
        total = r["check_s"] + r["roundtrip_s"] + r["eval_s"]
        print(f"{name:{width}}  {r['check']:5}  {r['roundtrip']:9}  {r['eval']:11}  {total:7.1f}")

    # A timeout is reported, not counted as a failure: it says the evaluator is
    # too slow for that module within the budget, not that it is wrong.
    problems = [(r["file"], step, r[step + "_detail"]) for r in results
                for step in ("check", "roundtrip", "eval")
                if r[step] not in ("ok", "-", "unsupported", "rejected", "TIMEOUT")]
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
    print("\nSlowest (eval seconds):")
    for r in sorted(results, key=lambda r: -r["eval_s"])[:10]:
        print(f"  {r['eval_s']:8.1f}  {r['file']}")

    if args.report:
        with open(args.report, "w") as report:
            report.write("file\tcheck\troundtrip\teval\tcheck_s\troundtrip_s\teval_s\tdetail\n")
            for r in results:
                detail = "; ".join(r[s + "_detail"] for s in ("check", "roundtrip", "eval")
                                   if r[s + "_detail"])
                report.write(f"{r['file']}\t{r['check']}\t{r['roundtrip']}\t{r['eval']}\t"
                             f"{r['check_s']:.2f}\t{r['roundtrip_s']:.2f}\t{r['eval_s']:.2f}\t"
                             f"{detail}\n")

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
    print(f"\ncorpus: check {checked}/{valid} valid ({rejected} invalid files rejected as "
          f"expected), roundtrip {roundtrip}/{valid}, {eval_text} "
          f"in {time.monotonic() - started:.0f} s")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
