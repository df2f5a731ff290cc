"""What the benchmark runs: Mote through mote-run, and the peers, all with one interface.

Every engine is a command that takes `--threads K --bench N --output y.npy` and prints
`latency_ms min=<x> median=<y> runs=<N>` after one warm-up and N timed inferences.
"""

import os
import re
import shlex
import subprocess

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.path.join(ROOT, "bench", "peers")
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"

# The C++ peers: sources beside the shared ones, extra flags, libraries.
COMMON_SOURCES = [os.path.join(PEERS, "peer_main.cc"),
                  os.path.join(ROOT, "runtime", "tools", "npy.cc"),
                  os.path.join(ROOT, "runtime", "tools", "npy_header.cc"),
                  os.path.join(ROOT, "runtime", "tools", "file_io.cc"),
                  os.path.join(ROOT, "runtime", "core", "layout.cc")]
CXX_PEERS = {
    "xnnpack": (["xnnpack_peer.cc", "xnnpack_quantized.cc"], [],
                ["-lXNNPACK", "-lpthreadpool", "-lpthread", "-lm"]),
    "eigen": (["eigen_peer.cc"], ["-fopenmp", "-isystem", "/usr/include/eigen3"], []),
    "openblas": (["openblas_peer.cc"], [], ["-lopenblas"]),
}
CXX_FLAGS = ["-O3", "-march=native", "-std=c++17", "-Wall", "-Wno-maybe-uninitialized",
             "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "runtime", "tools")]

LATENCY = re.compile(r"latency_ms min=([0-9.]+) median=([0-9.]+) runs=([0-9]+)")


class RunError(Exception):
    pass


def run(argv, env=None, timeout=600, cwd=None):
    """Runs a command and returns its standard output; RunError with its stderr if it fails."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout,
                              cwd=cwd)
    except subprocess.TimeoutExpired:
        raise RunError(f"timed out after {timeout} s: {shlex.join(argv)}")
    except OSError as error:
        raise RunError(f"{argv[0]}: {error}")
    if done.returncode != 0:
        raise RunError(f"exit {done.returncode}: {shlex.join(argv)}\n{done.stderr.strip()}")
    return done.stdout


def parse_latency(out):
    match = LATENCY.search(out)
    if not match:
        raise RunError(f"no latency line in: {out.strip()[:200]}")
    return float(match.group(1)), float(match.group(2)), int(match.group(3))


def relative_error(value, reference):
    """max |value - reference| / max |reference|: how far an output is from another."""
    if value.shape != reference.shape:
        return float("inf")
    scale = max(float(np.abs(reference).max()), 1e-30)
    return float(np.abs(value.astype(np.float64) - reference).max()) / scale


def compile_if_stale(output, argv, sources):
    """Recompiles `output` when a source is newer or the command changed."""
    stamp = output + ".cmd"
    command = shlex.join(argv)
    fresh = (os.path.exists(output) and os.path.exists(stamp)
             and open(stamp).read() == command
             and all(os.path.getmtime(s) <= os.path.getmtime(output) for s in sources))
    if fresh:
        return
    os.makedirs(os.path.dirname(output), exist_ok=True)
    run(argv, timeout=900)
    with open(stamp, "w") as f:
        f.write(command)


def build_tools(out_dir, log):
    """Builds the C++ peers and the clock tool; returns {name: binary} of those that built."""
    built = {}
    clock = os.path.join(out_dir, "cpu-clock")
    source = os.path.join(PEERS, "cpu_clock.cc")
    compile_if_stale(clock, ["g++", "-O2", source, "-o", clock], [source])
    built["cpu-clock"] = clock
    headers = [os.path.join(PEERS, h) for h in ("peer.h", "xnnpack_graph.h")]
    for name, (own, flags, libs) in CXX_PEERS.items():
        binary = os.path.join(out_dir, f"{name}-peer")
        sources = [os.path.join(PEERS, source) for source in own] + COMMON_SOURCES
        argv = ["g++"] + CXX_FLAGS + flags + sources + ["-o", binary] + libs
        try:
            compile_if_stale(binary, argv, sources + headers)
            built[name] = binary
        except RunError as error:
            log(f"note: the {name} peer did not build, so it is left out "
                f"(scripts/install-deps.sh bench installs the peers):\n  {error}")
    return built


class Engine:
    """One way of running the models: a label, the models it has, its command line."""

    def __init__(self, name, label, prefix, models=None, env=None):
        self.name, self.label, self.prefix = name, label, prefix
        self.models = models
        self.env = env or {}
        self.info = ""

    def supports(self, model):
        return self.models is None or model in self.models

    def command(self, model, threads, bench, output):
        raise NotImplementedError

    def environment(self, threads):
        env = dict(os.environ)
        env.update(self.env)
        # Libraries that size their own pools get the same thread count.
        env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = str(threads)
        return env

    def measure(self, model, threads, bench, output=None, timeout=600):
        argv = self.command(model, threads, bench, output)
        return parse_latency(run(argv, env=self.environment(threads), timeout=timeout))


class MoteEngine(Engine):
    def __init__(self, mote_run, packages, inputs):
        super().__init__("mote", "Mote", [mote_run])
        self.packages, self.inputs = packages, inputs

    def command(self, model, threads, bench, output):
        argv = self.prefix + [self.packages[model]]
        for path in self.inputs[model]:
            argv += ["--input", path]
        argv += ["--threads", str(threads), "--bench", str(bench)]
        return argv + (["--output", output] if output else [])


class PeerEngine(Engine):
    def __init__(self, name, label, prefix, model_dirs, env=None):
        super().__init__(name, label, prefix, env=env)
        self.model_dirs = model_dirs
        argv = prefix + ["--info"]
        out = run(argv, env=self.environment(1), timeout=300).strip()
        fields = dict(f.split("=", 1) for f in shlex.split(out) if "=" in f)
        self.models = set(fields.pop("models", "").split(","))
        self.info = " ".join(f"{k}={v}" for k, v in fields.items())

    def command(self, model, threads, bench, output):
        argv = self.prefix + ["--model", model, "--dir", self.model_dirs[model],
                              "--threads", str(threads), "--bench", str(bench)]
        return argv + (["--output", output] if output else [])


def peer_engines(binaries, model_dirs, openblas_coretype, log):
    """The peers that built and answer --info, in table order."""
    env = {"OPENBLAS_CORETYPE": openblas_coretype}
    wanted = [("xnnpack", "XNNPACK", binaries.get("xnnpack") and [binaries["xnnpack"]]),
              ("eigen", "Eigen", binaries.get("eigen") and [binaries["eigen"]]),
              ("torch", "PyTorch", [PYTHON, os.path.join(PEERS, "torch_peer.py")]),
              ("openblas", "OpenBLAS", binaries.get("openblas") and [binaries["openblas"]])]
    engines = []
    for name, label, prefix in wanted:
        if not prefix:
            continue
        try:
            engines.append(PeerEngine(name, label, prefix, model_dirs, env))
        except RunError as error:
            log(f"note: the {label} peer does not run, so it is left out:\n  {error}")
    return engines
