#!/usr/bin/env python3
"""Mote against XNNPACK, Eigen, PyTorch and OpenBLAS on this machine, in one run.

Run it through bench/run.sh, which builds motec and mote-run first. Progress goes to
standard error; the tables go to standard output. See bench/README.md.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

import numpy as np

import cortex_m
import engines
import machine
from arm64_peer import build as arm64_peer_build
import qemu_count
import tables
from engines import RunError, relative_error

MODEL_NAMES = ["mlp", "mlp-batch64", "ds-cnn", "mobilenet-block", "transformer", "gemm",
               "mlp-int8", "ds-cnn-int8", "mobilenet-block-int8", "gemm-int8"]
HALF_TYPES = ["f16", "bf16"]
# Half-precision outputs checked against the evaluator: one f16 ulp is 1e-3 of the value.
HALF_TOLERANCE = 1e-2


def is_half(name):
    return any(name.endswith("-" + t) for t in HALF_TYPES)


def half_variants(names):
    """The f16 and bf16 variants of the floating-point models among `names`."""
    return [f"{n}-{t}" for t in HALF_TYPES for n in names if not n.endswith("-int8")]


def log(message):
    print(message, file=sys.stderr, flush=True)


class BenchModel:
    """One generated model: its folder, HLO, inputs, FLOPs; and Mote's view of it."""

    def __init__(self, folder):
        with open(os.path.join(folder, "manifest.json")) as f:
            manifest = json.load(f)
        self.name = manifest["name"]
        self.dir = folder
        self.hlo = os.path.join(folder, "model.hlo")
        self.inputs = [os.path.join(folder, name) for name in manifest["inputs"]]
        self.flops = manifest["flops"]
        # Integer outputs: how many units a peer may differ by (None: the relative tolerance).
        self.tolerance_units = manifest.get("peer_tolerance_units")
        self.tolerance = 1e-4  # relative, set from the command line
        self.reference = None  # motec eval's output
        self.package = None
        self.sizes = {}

    def output_matches(self, value, reference):
        """Whether a peer's output is close enough to Mote's (`reference`)."""
        if self.tolerance_units is not None:
            return value.shape == reference.shape and bool(
                np.abs(value.astype(np.float64) - reference).max() <= self.tolerance_units)
        return relative_error(value, reference) <= self.tolerance


def generate_models(out_dir, names):
    generator = os.path.join(engines.ROOT, "bench", "models", "generate_models.py")
    stale = [n for n in names
             if not os.path.exists(os.path.join(out_dir, n, "manifest.json"))
             or os.path.getmtime(os.path.join(out_dir, n, "manifest.json"))
             < os.path.getmtime(generator)]
    if stale:
        log(f"generating models: {', '.join(stale)}")
        engines.run([engines.PYTHON, generator, out_dir, "--models", ",".join(stale)])
    return [BenchModel(os.path.join(out_dir, n)) for n in names]


def prepare_mote(motec, model, features, work):
    """check, eval (the reference), compile for the host, report sizes."""
    engines.run([motec, "check", model.hlo])
    target = ["--target=x86_64-linux-gnu"] + ([f"--features={features}"] if features else [])
    # Evaluated for the same target, whose dot sums may fuse multiply-adds.
    reference = os.path.join(work, f"{model.name}-reference.npy")
    argv = [motec, "eval", model.hlo, "--output", reference] + target
    for path in model.inputs:
        argv += ["--input", path]
    engines.run(argv)
    model.reference = np.load(reference).astype(np.float64)
    model.package = os.path.join(work, f"{model.name}.mote")
    engines.run([motec, "compile", model.hlo, "-o", model.package] + target)
    report = json.loads(engines.run([motec, "report", model.hlo, "--json"] + target))
    code = report["targets"][0]
    # The same plan with every value stored: what fusion saves.
    unfused = json.loads(engines.run([motec, "report", model.hlo, "--json", "--fusion=false"] +
                                     target))
    model.sizes = {"arena": code["arena_bytes"], "arena_bound": report["arena_lower_bound"],
                   "arena_unfused": unfused["targets"][0]["arena_bytes"],
                   "text": code["text"], "rodata": code["rodata"],
                   "package": os.path.getsize(model.package)}


class Measurements:
    """Every (engine, model, threads) cell: runs per round, median/min per run, output check."""

    def __init__(self):
        self.cells = {}

    def cell(self, engine, model, threads):
        return self.cells.setdefault((engine, model, threads), {
            "runs": 0, "medians": [], "minima": [], "error": None, "ok": None, "failed": None})

    def median(self, engine, model, threads, kind="medians"):
        cell = self.cells.get((engine, model, threads))
        if not cell or cell["failed"] or not cell[kind]:
            return None
        return statistics.median(cell[kind]) if kind == "medians" else min(cell[kind])


def probe(engine_list, models, threads_list, results, args, work):
    """One short run of each cell: its output is checked and its time sizes the real runs."""
    for threads in threads_list:
        for model in models:
            mote_output = None
            for engine in engine_list:
                if not engine.supports(model.name):
                    continue
                cell = results.cell(engine.name, model.name, threads)
                output = os.path.join(work, f"{model.name}-{engine.name}-t{threads}.npy")
                log(f"  probe {engine.label} {model.name} threads={threads}")
                try:
                    _, median, _ = engine.measure(model.name, threads, 3, output)
                except RunError as error:
                    cell["failed"] = str(error).splitlines()[0]
                    log(f"note: {engine.label} {model.name} threads={threads} failed: {error}")
                    continue
                value = np.load(output)
                # Mote is checked against the evaluator; each peer against Mote.
                reference = model.reference if engine.name == "mote" else mote_output
                if reference is None:
                    reference = model.reference
                cell["error"] = relative_error(value, reference)
                cell["ok"] = (cell["error"] <= model.tolerance if engine.name == "mote"
                              else model.output_matches(value, reference))
                if engine.name == "mote":
                    mote_output = value.astype(np.float64)
                per_round = args.seconds / args.rounds
                cell["runs"] = max(3, min(100000, int(per_round / max(median, 1e-6) * 1e3)))


def measure(engine_list, models, threads_list, results, args):
    """Rounds of every cell, the engines of each model in a rotating order."""
    for round_index in range(args.rounds):
        log(f"round {round_index + 1} of {args.rounds}")
        for threads in threads_list:
            for model in models:
                order = [e for e in engine_list if e.supports(model.name)]
                shift = round_index % len(order)
                for engine in order[shift:] + order[:shift]:
                    cell = results.cell(engine.name, model.name, threads)
                    if cell["failed"]:
                        continue
                    timeout = max(120, 20 * args.seconds)
                    try:
                        low, median, _ = engine.measure(model.name, threads, cell["runs"],
                                                        timeout=timeout)
                    except RunError as error:
                        cell["failed"] = str(error).splitlines()[0]
                        continue
                    cell["medians"].append(median)
                    cell["minima"].append(low)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", required=True, help="Mote's build folder (bin/motec)")
    parser.add_argument("--models", default=",".join(MODEL_NAMES),
                        help="comma-separated subset of " + ", ".join(MODEL_NAMES))
    parser.add_argument("--peers", default="xnnpack,eigen,torch,openblas",
                        help="comma-separated peers to run (default: all that build)")
    parser.add_argument("--threads", default="1,2", help="thread counts (default 1,2)")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="time each engine gets a model and thread count, all rounds together")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds that alternate the engines (default 3)")
    parser.add_argument("--tolerance", type=float, default=1e-4,
                        help="largest output difference allowed, relative to the output's "
                             "largest magnitude (default 1e-4)")
    parser.add_argument("--openblas-coretype",
                        help="OPENBLAS_CORETYPE for OpenBLAS and PyTorch (default: SkylakeX "
                             "on AVX-512 machines, else Haswell; the environment's is ignored)")
    parser.add_argument("--qemu", action="store_true",
                        help="also count guest instructions per inference under qemu-user")
    parser.add_argument("--qemu-only", action="store_true", help="only the qemu counts")
    parser.add_argument("--half", action="store_true",
                        help="also each model in f16 and bf16 (against Mote's f32, and XNNPACK's "
                             "f16 operators where the machine has them)")
    parser.add_argument("--default-packages", action="store_true",
                        help="compile Mote's packages as `motec compile model.hlo -o m.mote` "
                             "does by default (a code object per feature level, mote-run runs "
                             "the best this machine has) instead of one level of its features")
    parser.add_argument("--cortex-m", action="store_true",
                        help="also count DS-CNN (f32 and int8) on Cortex-M4 and M55 under "
                             "qemu-system-arm, "
                             "against CMSIS-NN (cortex_m.py)")
    parser.add_argument("--icount-source", default=os.path.join(
        os.path.dirname(engines.ROOT), "shared", "tools", "qemu-icount.c"),
        help="the qemu-icount plugin's source (default ../shared/tools/qemu-icount.c)")
    args = parser.parse_args(argv)
    for name in args.models.split(","):
        if name not in MODEL_NAMES:
            parser.error(f"unknown model '{name}'")
    return args


def main(argv):
    args = parse_args(argv)
    started = time.time()
    load_before = machine.load_average()
    bin_dir = os.path.join(args.build_dir, "bin")
    motec = os.path.join(bin_dir, "motec")
    work = os.path.join(args.build_dir, "bench")
    out_dir = os.path.join(work, "out")
    os.makedirs(out_dir, exist_ok=True)

    log("building the peers")
    binaries = engines.build_tools(os.path.join(work, "bin"), log)
    host = machine.Machine(binaries["cpu-clock"])
    features = "" if args.default_packages else host.mote_features()
    names = args.models.split(",")
    if args.half:
        names += half_variants(args.models.split(","))
    models = generate_models(os.path.join(work, "models"), names)
    for model in models:
        model.tolerance = max(args.tolerance, HALF_TOLERANCE) if is_half(model.name) \
            else args.tolerance
        log(f"Mote: check, eval, compile, report {model.name}")
        prepare_mote(motec, model, features, out_dir)

    results = Measurements()
    engine_list = []
    if not args.qemu_only:
        model_dirs = {m.name: m.dir for m in models}
        mote = engines.MoteEngine(os.path.join(bin_dir, "mote-run"),
                                  {m.name: m.package for m in models},
                                  {m.name: m.inputs for m in models})
        coretype = args.openblas_coretype or host.openblas_coretype()
        peers = [e for e in engines.peer_engines(binaries, model_dirs, coretype, log)
                 if e.name in args.peers.split(",")]
        engine_list = [mote] + peers
        threads_list = [int(t) for t in args.threads.split(",")]
        log("probing every engine once (outputs checked, run counts sized)")
        probe(engine_list, models, threads_list, results, args, out_dir)
        measure(engine_list, models, threads_list, results, args)

    counts = {}
    if args.qemu or args.qemu_only:
        plugin = qemu_count.build_plugin(args.icount_source, os.path.join(work, "bin"))
        try:
            arm64_peer = arm64_peer_build(work)
        except RunError as error:
            arm64_peer = None
            log(f"note: XNNPACK arm64 is left out of the qemu counts:\n  {error}")
        for model in models:
            counts[model.name] = qemu_count.count_model(motec, bin_dir, plugin, model, out_dir,
                                                        model.reference, args.tolerance, log)
            peer_counted = arm64_peer and "xnnpack" in args.peers and not is_half(model.name)
            for cpu in qemu_count.PEER_CPUS if peer_counted else []:
                counted = qemu_count.count_peer(*arm64_peer, plugin, model, cpu, out_dir,
                                                model.reference, log)
                if counted:
                    counts[model.name][f"xnnpack {cpu}"] = (*counted, None)

    cortex_m_counts = {}
    if args.cortex_m:
        measured = [m for m in models if m.name in cortex_m.VARIANTS]
        if not measured:
            log("note: --cortex-m measures " + " and ".join(cortex_m.VARIANTS) +
                ", which --models leaves out")
        else:
            plugin = qemu_count.build_plugin(args.icount_source, os.path.join(work, "bin"))
            try:
                cortex_m_counts = cortex_m.measure(motec, measured, plugin,
                                                   os.path.join(work, "cortex-m"), log)
            except RunError as error:
                log(f"note: the Cortex-M comparison failed:\n  {error}")

    command = "bench/run.sh " + shlex.join(argv[2:] if argv[:1] == ["--build-dir"] else argv)
    context = {"machine": host, "features": features, "load": (load_before, machine.load_average()),
               "minutes": (time.time() - started) / 60, "command": command,
               "build_dir": args.build_dir, "tolerance": args.tolerance,
               "seconds": args.seconds, "rounds": args.rounds}
    report = tables.Report(models, engine_list, results, counts, context, cortex_m_counts)
    print(report.render())
    with open(os.path.join(work, "results.json"), "w") as f:
        json.dump(report.as_json(), f, indent=1)
    log(f"results also in {os.path.join(work, 'results.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
