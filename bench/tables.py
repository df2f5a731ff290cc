"""The benchmark's tables: latency and ratios, GEMM throughput, sizes, checks, qemu counts."""

import os
import shlex
import subprocess

import qemu_count

# Shared libraries whose size stands for a peer's footprint (Eigen is header-only).
LIBRARIES = {"xnnpack": "libXNNPACK", "openblas": "libopenblas", "torch": "libtorch_cpu"}


def half_type(name):
    """"f16" or "bf16" for a model's half-precision variant, else None."""
    for t in ("f16", "bf16"):
        if name.endswith("-" + t):
            return t
    return None


def grid(header, rows):
    """Left-aligned first column, right-aligned others, two spaces apart."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    lines = []
    for row in [header] + rows:
        cells = [str(row[0]).ljust(widths[0])]
        cells += [str(c).rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    return lines


def ms(value):
    """Three significant digits or more, without an exponent: 0.0134, 1.52, 11.7, 250."""
    if value is None:
        return "-"
    for limit, digits in ((100, 0), (10, 1), (1, 2), (0.1, 3)):
        if value >= limit:
            return f"{value:.{digits}f}"
    return f"{value:.4f}" if value >= 0.001 else f"{value:.2g}"


def ratio(value):
    return f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"


def library_of(engine):
    """(file name, bytes) of the shared library a peer runs on, or None."""
    path = None
    if engine.name == "torch":
        path = dict(f.split("=", 1) for f in engine.info.split() if "=" in f).get("lib")
    elif engine.name in LIBRARIES:
        try:
            out = subprocess.run(["ldd", engine.prefix[0]], capture_output=True, text=True).stdout
        except OSError:
            out = ""
        for line in out.splitlines():
            if LIBRARIES[engine.name] in line and "=>" in line:
                path = line.split("=>")[1].split("(")[0].strip()
    if not path or not os.path.exists(path):
        return None
    return os.path.basename(path), os.path.getsize(os.path.realpath(path))


class Report:
    def __init__(self, models, engines, results, counts, context, cortex_m=None):
        self.models, self.engines, self.results = models, engines, results
        self.counts, self.context = counts, context
        self.cortex_m = cortex_m or {}
        self.threads = sorted({k[2] for k in results.cells})

    def render(self):
        lines = self.header()
        if self.engines:
            lines += self.latency("medians", "Median latency, ms, and in brackets the ratio "
                                  "Mote/peer (<= 1.00: Mote is faster)")
            lines += self.latency("minima", "Best (minimum) latency, ms: the same cells, less "
                                  "disturbed by other load on the machine")
            lines += self.half() + self.gemm() + self.sizes() + self.checks()
        if self.counts:
            lines += self.qemu()
        if self.cortex_m:
            lines += self.cortex_m_table()
        lines += ["", "Reproduce: " + self.reproduce()]
        return "\n".join(lines)

    def header(self):
        c = self.context
        host = c["machine"]
        lines = [f"Mote benchmark on {host.describe()}",
                 host.describe_peak(),
                 f"Mote: motec compile --target=x86_64-linux-gnu --features={c['features']} "
                 "(the features mote-run detects here)" if c["features"] else
                 "Mote: motec compile --target=x86_64-linux-gnu (the default package: a code "
                 "object per feature level, mote-run runs the best this machine has)"]
        if self.engines:
            lines.append(f"{c['rounds']} rounds alternating the engines, ~{c['seconds']:g} s per "
                         "engine, model and thread count")
        lines.append(f"Load average {c['load'][0]:.1f} at the start, {c['load'][1]:.1f} at the "
                     f"end; {c['minutes']:.1f} minutes")
        if self.engines and max(c["load"]) > 0.5:
            lines.append(f"Warning: other processes ran on these {host.cores} cores meanwhile. "
                         "Thread pools that spin while they wait (pthreadpool in XNNPACK, OpenMP in "
                         "Eigen and PyTorch, OpenBLAS) lose most when a core they wait for is "
                         "taken: read threads>1 medians with the minimum table beside them.")
        for engine in self.engines[1:]:
            if engine.info:
                lines.append(f"{engine.label}: {engine.info}")
        return lines

    def latency(self, kind, title):
        lines = ["", title]
        for threads in self.threads:
            header = ["threads=%d" % threads] + [e.label for e in self.engines]
            rows = []
            for model in self.models:
                if half_type(model.name):
                    continue
                mote = self.results.median("mote", model.name, threads, kind)
                row = [model.name]
                for engine in self.engines:
                    row.append(self.value(engine, model, threads, kind, mote))
                rows.append(row)
            lines += grid(header, rows)
        return lines

    def value(self, engine, model, threads, kind, mote):
        cell = self.results.cells.get((engine.name, model.name, threads))
        if cell is None:
            return "-"
        if cell["failed"]:
            return "failed"
        value = self.results.median(engine.name, model.name, threads, kind)
        mark = "" if cell["ok"] else " !"
        if engine.name == "mote" or value is None or mote is None:
            return ms(value) + mark
        return f"{ms(value)} ({ratio(mote / value)}){mark}"

    def half(self):
        """Mote's half-precision models against its f32 ones (the same weights, rounded), and
        against the peers that ran the f16 models (XNNPACK's f16 operators)."""
        names = {m.name for m in self.models}
        bases = [m.name for m in self.models if not half_type(m.name)
                 and any(f"{m.name}-{t}" in names for t in ("f16", "bf16"))]
        if not bases:
            return []
        by_name = {m.name: m for m in self.models}
        peers = [e for e in self.engines[1:]
                 if any(k[0] == e.name and half_type(k[1]) == "f16" for k in self.results.cells)]
        lines = []
        for kind, title in (("medians", "median"), ("minima", "best (minimum)")):
            lines += ["", f"Half precision: Mote's {title} latency, ms, for each model in f16 and "
                      "bf16 (every value of that type; dots, convolutions and reductions sum in "
                      "f32), and in brackets the ratio to its f32 latency"]
            if peers:
                lines.append("Peers in f16 (f16 storage and arithmetic), and in brackets the "
                             "ratio Mote f16/peer (<= 1.00: Mote is faster)")
            for threads in self.threads:
                rows = []
                for base in bases:
                    f32 = self.results.median("mote", base, threads, kind)
                    row = [base, ms(f32)]
                    for t in ("f16", "bf16"):
                        value = self.results.median("mote", f"{base}-{t}", threads, kind)
                        cell = self.results.cells.get(("mote", f"{base}-{t}", threads), {})
                        mark = "" if cell.get("ok", True) is not False else " !"
                        row.append("-" if value is None or f32 is None
                                   else f"{ms(value)} ({ratio(value / f32)}){mark}")
                    mote_f16 = self.results.median("mote", f"{base}-f16", threads, kind)
                    for engine in peers:
                        model = by_name.get(f"{base}-f16")
                        row.append("-" if model is None
                                   else self.value(engine, model, threads, kind, mote_f16))
                    rows.append(row)
                header = [f"threads={threads}", "f32", "f16", "bf16"]
                lines += grid(header + [f"{e.label} f16" for e in peers], rows)
        return lines

    def gemm(self):
        model = next((m for m in self.models if m.name == "gemm"), None)
        if model is None:
            return []
        peak = self.context["machine"].peak_gflops
        lines = ["", f"GEMM 512x512x512 f32 ({model.flops / 1e6:.0f} MFLOP): GFLOP/s from the "
                 f"median, and its share of the f32 peak of the cores used ({peak:.0f} GFLOP/s "
                 "a core)"]
        rows = []
        for engine in self.engines:
            if not engine.supports("gemm"):
                continue
            row = [engine.label]
            for threads in self.threads:
                value = self.results.median(engine.name, "gemm", threads)
                if value is None:
                    row.append("-")
                    continue
                gflops = model.flops / (value * 1e-3) / 1e9
                row.append(f"{gflops:.1f} ({100 * gflops / (peak * threads):.0f}%)")
            rows.append(row)
        return lines + grid(["engine"] + [f"threads={t}" for t in self.threads], rows)

    def sizes(self):
        lines = ["", "Size of Mote's code (x86_64, the features above): arena = scratch memory "
                 "planned at compile time, against the lower bound no plan can beat, and without "
                 "fusion (every value stored: motec --fusion=false)"]
        rows = [[m.name, m.sizes["arena"], m.sizes["arena_bound"], m.sizes["arena_unfused"],
                 m.sizes["text"], m.sizes["rodata"], m.sizes["package"]] for m in self.models]
        lines += grid(["model", "arena B", "lower bound B", "unfused arena B", ".text B",
                       ".rodata B", ".mote B"], rows)
        libs = []
        for engine in self.engines[1:]:
            lib = library_of(engine)
            if lib:
                libs.append(f"{engine.label} {lib[0]} {lib[1] / 1e6:.1f} MB")
            elif engine.name == "eigen":
                size = os.path.getsize(engine.prefix[0])
                libs.append(f"Eigen header-only (its peer program, all five models: "
                            f"{size / 1e3:.0f} kB)")
        if libs:
            lines.append("Peers' libraries (what an application links): " + "; ".join(libs))
        return lines

    def checks(self):
        tolerance = self.context["tolerance"]
        lines = ["", "Output checks: Mote against motec eval, each peer against Mote; the largest "
                 "difference relative to the output's largest magnitude (tolerance "
                 f"{tolerance:g}, at threads={self.threads[0]})"]
        rows = []
        for model in self.models:
            row = [model.name]
            for engine in self.engines:
                cell = self.results.cells.get((engine.name, model.name, self.threads[0]))
                if cell is None or cell["error"] is None:
                    row.append("failed" if cell and cell["failed"] else "-")
                    continue
                row.append(f"{cell['error']:.1e}" + ("" if cell["ok"] else " !"))
            rows.append(row)
        lines += grid(["model"] + [e.label for e in self.engines], rows)
        units = {m.tolerance_units for m in self.models if m.tolerance_units is not None}
        if units:
            lines.append(f"int8 models: a peer passes within {max(units)} unit(s) of Mote's s8 "
                         "output (Mote itself must match motec eval exactly)")
        halves = {m.tolerance for m in self.models if half_type(m.name)}
        if halves:
            lines.append(f"f16 and bf16 models: tolerance {max(halves):g} (ten f16 ulps), for "
                         "Mote and for a peer summing in f16")
        labels = {e.name: e.label for e in self.engines}
        failed = [(e, m, t) for (e, m, t), c in self.results.cells.items() if c["ok"] is False]
        if failed:
            lines.append("! output differs beyond the tolerance: " + ", ".join(
                f"{labels[e]} {m} threads={t}" for e, m, t in failed))
        return lines

    def qemu(self):
        labels = [t[0] for t in qemu_count.TARGETS]
        lines = ["", "Guest instructions per inference of Mote's code under qemu-user "
                 "(qemu-icount: --bench 2 minus --bench 1), and per FLOP in brackets"]
        rows = []
        for model in self.models:
            row = [model.name, f"{model.flops / 1e6:.2f} M"]
            for label in labels:
                value = self.counts.get(model.name, {}).get(label)
                if value is None:
                    row.append("-")
                    continue
                insns, ok, _ = value
                row.append(f"{insns:,} ({insns / model.flops:.2f})" + ("" if ok else " !"))
            rows.append(row)
        header = ["model", "FLOPs"] + [f"{l} ({qemu_count.TARGET_NOTES[l]})" for l in labels]
        lines += grid(header, rows)
        if any(v[1] is False for c in self.counts.values() for v in c.values()):
            lines.append("! the output under qemu differs from motec eval (or, for a peer, from "
                         "Mote) beyond the tolerance")
        return lines + self.arm64_peer()

    def arm64_peer(self):
        """Mote's AArch64 counts beside XNNPACK arm64's on the same emulated CPU."""
        pairs = [("aarch64", "cortex-a57"), ("aarch64+dotprod", "max")]
        rows = []
        for model in self.models:
            counts = self.counts.get(model.name, {})
            if not any(f"xnnpack {cpu}" in counts for _, cpu in pairs):
                continue
            row = [model.name]
            for label, cpu in pairs:
                mote, peer = counts.get(label), counts.get(f"xnnpack {cpu}")
                row += [f"{mote[0]:,}" if mote else "-",
                        f"{peer[0]:,}" + ("" if peer[1] else " !") if peer else "-",
                        ratio(mote[0] / peer[0]) if mote and peer else "-"]
            rows.append(row)
        if not rows:
            return []
        lines = ["", "AArch64 guest instructions per inference, Mote and XNNPACK arm64 (Debian's "
                 "2022 build, one thread) on the same CPU, and Mote/XNNPACK. Under qemu-user "
                 "XNNPACK cannot identify the core and takes its generic kernel choice for the "
                 "ISA: SDOT kernels on -cpu max, plain NEON on -cpu cortex-a57"]
        header = ["model"]
        for label, cpu in pairs:
            header += [f"Mote {cpu} ({qemu_count.TARGET_NOTES[label].split(',')[0]})",
                       f"XNNPACK {cpu}", "ratio"]
        return lines + grid(header, rows)

    def cortex_m_table(self):
        lines = ["", "DS-CNN on Cortex-M under qemu-system-arm: guest instructions per inference "
                 "(qemu-icount, an image running it twice minus one running it once) and RAM "
                 "besides the input and output: Mote's arena against CMSIS-NN's activation and "
                 "context buffers (cortex_m.py)"]
        rows = []
        for model, cpus in self.cortex_m.items():
            for cpu, r in cpus.items():
                mote, cmsis = r["mote"], r["cmsis-nn"]
                if r["result_f32"]:
                    flag = ""
                    difference = f"{r['mote_error']:.1e} / {r['cmsis_error']:.1e}"
                else:
                    flag = "" if r["mote_exact"] else " !"
                    difference = f"{r['cmsis_difference']}"
                rows.append([model, cpu, f"{mote[0]:,}" + flag, f"{cmsis[0]:,}",
                             ratio(mote[0] / cmsis[0]), f"{mote[1]:,}", f"{cmsis[1]:,}",
                             difference])
        lines += grid(["model", "cpu", "Mote", "CMSIS-NN", "ratio", "Mote arena B",
                       "CMSIS-NN buffers B", "outputs differ by"], rows)
        lines.append("int8: Mote's output equals motec eval's (! where not); CMSIS-NN "
                     "requantizes in fixed point and keeps the pool's scale, so its outputs "
                     "differ by a unit or two. f32: each engine's largest difference from "
                     "motec eval's output, relative to its largest magnitude (Mote / CMSIS-NN)")
        return lines

    def reproduce(self):
        build = self.context["build_dir"]
        default = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "build")
        prefix = "" if os.path.abspath(build) == default else f"MOTE_BUILD_DIR={shlex.quote(build)} "
        return prefix + self.context["command"]

    def as_json(self):
        cells = [{"engine": e, "model": m, "threads": t, **c}
                 for (e, m, t), c in self.results.cells.items()]
        host = self.context["machine"]
        return {"machine": host.describe(), "peak_gflops_per_core": host.peak_gflops,
                "mote_features": self.context["features"], "cells": cells,
                "sizes": {m.name: m.sizes for m in self.models},
                "qemu_instructions": {m: {k: v[0] for k, v in c.items()}
                                      for m, c in self.counts.items()},
                "peers": {e.name: e.info for e in self.engines[1:]},
                "cortex_m": self.cortex_m,
                "command": self.reproduce()}
