#!/usr/bin/env python3
"""StableHLO conformance run of motec over ../shared/stablehlo-corpus.

Every file of testdata/ and testdata/quantized/, and every piece of the
interpret/ files (split at `// -----`, as stablehlo-translate -split-input-file
does), goes through:
  eval  `motec eval PIECE`: the evaluator runs it and every check.* assertion
        must hold (motec exits 1 on a failed check, naming it)
  run   `motec run PIECE --lift-inputs --target=T`: compiled code for T, given
        what @inputs() returns as parameters so it computes instead of folding
        constants, must pass the same checks
Exit 3 from motec means Mote does not support the piece: allowed without
listing only by design, for multi-device ops ("not supported on a single
device") and for checks of the StableHLO interpreter's probe files
("Mote writes no probe files"); such pieces are counted apart.
Every other failure must be listed, with its reason, in expected_failures.txt
beside this script; a listed piece that passes is reported too, so the list
stays true. Prints pass counts per folder and each failure with its reason;
exits 1 on anything unexpected, 77 (ctest's skip) when the corpus is absent.
"""
import argparse
import concurrent.futures
import os
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
FOLDERS = ["testdata", "testdata/quantized", "interpret", "interpret/chlo"]
# Exit-3 messages that mark a piece unsupported by design, and what it needs.
BY_DESIGN = {
    "not supported on a single device": "need several devices",
    "Mote writes no probe files": "read back the StableHLO interpreter's probe files",
}


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[0] if lines else ""


def run(command, timeout):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        _, err = process.communicate(timeout=timeout)
        return process.returncode, err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "timeout", f"timed out after {timeout} s"


def pieces(corpus, folder):
    """(name, text) of each file of `folder`, interpret files split in pieces.
    A piece keeps its lines' numbers (blank lines stand for what precedes it)."""
    directory = os.path.join(corpus, folder)
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".mlir"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8") as handle:
            text = handle.read()
        relative = f"{folder}/{name}"
        if not folder.startswith("interpret") and "\n// -----" not in text:
            yield relative, text
            continue
        lines = text.split("\n")
        start, index = 0, 0
        for i, line in enumerate(lines + ["// -----"]):
            if line.strip() == "// -----":
                body = "\n" * start + "\n".join(lines[start:i])
                if "func.func" in body or "\"func.func\"" in body:
                    yield f"{relative}#{index}", body
                index += 1
                start = i + 1


def outcome(code, err):
    if code == 0:
        return "pass", ""
    if code == 3:
        for message, need in BY_DESIGN.items():
            if message in err:
                return "by-design", need
    return ("timeout" if code == "timeout" else f"exit {code}"), first_error(err)


def check_piece(args, name, text):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as handle:
        handle.write(text)
        path = handle.name
    try:
        result = {"name": name}
        code, err = run([args.motec, "eval", path], args.timeout)
        result["eval"], result["eval_detail"] = outcome(code, err)
        for target in args.target:
            if result["eval"] == "by-design":
                result[target], result[target + "_detail"] = "by-design", result["eval_detail"]
                continue
            code, err = run([args.motec, "run", path, "--lift-inputs", f"--target={target}",
                             f"--timeout={int(args.timeout)}"], args.timeout + 30)
            result[target], result[target + "_detail"] = outcome(code, err)
        return result
    finally:
        os.unlink(path)


def load_expected(path):
    """name -> (steps, reason) from lines `name step[,step] reason...`."""
    expected = {}
    if not os.path.exists(path):
        return expected
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, steps, reason = (line.split(None, 2) + ["", ""])[:3]
            expected[name] = (set(steps.split(",")), reason)
    return expected


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--motec", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--target", action="append", default=[],
                        help="also compile and run for this triple (repeatable)")
    parser.add_argument("--sample-target", action="append", default=[],
                        help="TRIPLE:N: also run every N-th piece for TRIPLE (under QEMU)")
    parser.add_argument("--filter", default="", help="only pieces whose name contains this")
    parser.add_argument("--expected", default=os.path.join(os.path.dirname(__file__),
                                                           "expected_failures.txt"))
    args = parser.parse_args()

    if not os.path.isdir(os.path.join(args.corpus, "testdata")):
        print(f"StableHLO corpus not found, skipped (no folder {args.corpus}/testdata)")
        return SKIP
    expected = load_expected(args.expected)
    work = [(name, text) for folder in FOLDERS if os.path.isdir(os.path.join(args.corpus, folder))
            for name, text in pieces(args.corpus, folder) if args.filter in name]
    samples = []
    for spec in args.sample_target:
        triple, _, every = spec.partition(":")
        samples.append((triple, max(1, int(every or 1))))

    started = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = []
        for i, (name, text) in enumerate(work):
            local = argparse.Namespace(**vars(args))
            local.target = list(args.target) + [t for t, every in samples if i % every == 0]
            futures.append(pool.submit(check_piece, local, name, text))
        for future in concurrent.futures.as_completed(futures):
            results.append(future.result())
    results.sort(key=lambda r: r["name"])

    steps = ["eval"] + list(args.target) + [t for t, _ in samples]
    unexpected, expected_failures, fixed = [], [], []
    counts = {}
    for r in results:
        folder = r["name"].split("#")[0].rsplit("/", 1)[0]
        # A piece may be listed by itself or by its whole file.
        listed_steps, reason = expected.get(r["name"],
                                            expected.get(r["name"].split("#")[0], (set(), "")))
        for step in steps:
            if step not in r:
                continue
            state = r[step]
            if state == "by-design":
                continue  # exit 3 as it should be; not counted either way
            counts.setdefault((folder, step), [0, 0])
            counts[(folder, step)][0] += 1
            if state == "pass":
                counts[(folder, step)][1] += 1
                if step in listed_steps or "all" in listed_steps:
                    fixed.append((r["name"], step))
                continue
            if step in listed_steps or "all" in listed_steps:
                expected_failures.append((r["name"], step, reason, r[step + "_detail"]))
            else:
                unexpected.append((r["name"], step, state, r[step + "_detail"]))

    apart = {}
    for r in results:
        if r["eval"] == "by-design":
            apart[r["eval_detail"]] = apart.get(r["eval_detail"], 0) + 1
    reasons = ", ".join(f"{count} {need}" for need, count in sorted(apart.items()))
    print(f"StableHLO conformance: {len(results)} pieces in {time.monotonic() - started:.0f} s"
          f" ({reasons or 'none unsupported by design'}: exit 3, not counted below)")
    for (folder, step), (total, passed) in sorted(counts.items()):
        print(f"  {folder:22} {step:22} {passed:5} / {total:5} pass ({100.0 * passed / max(total, 1):.1f}%)")
    if expected_failures:
        print(f"\nExpected failures ({len(expected_failures)}):")
        for name, step, reason, detail in expected_failures:
            print(f"  {name}: {step}: {reason}")
    if fixed:
        print(f"\nListed as failing but passed ({len(fixed)}): update expected_failures.txt")
        for name, step in fixed:
            print(f"  {name}: {step}")
    if unexpected:
        print(f"\nUnexpected failures ({len(unexpected)}):")
        for name, step, state, detail in unexpected:
            print(f"  {name}: {step}: {state}: {detail}")
    passed = sum(p for (_, _), (_, p) in counts.items())
    print(f"\n{passed} passed, {len(unexpected) + len(fixed)} failed, "
          f"{len(expected_failures)} expected failures")
    return 1 if unexpected or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
