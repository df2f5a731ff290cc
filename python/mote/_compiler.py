"""mote.compile: a model to a Package through motec."""
import os
import shutil
import subprocess
import tempfile

from ._errors import MoteError
from ._package import Package

try:
    from . import _location
except ImportError:  # a source checkout without a build
    _location = None


def _motec():
    """The motec to run: $MOTE_MOTEC, the one installed with this package,
    or motec on PATH."""
    candidates = [os.environ.get("MOTE_MOTEC"), getattr(_location, "MOTEC", None),
                  shutil.which("motec")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise MoteError("motec not found: set MOTE_MOTEC, or install Mote (cmake --install)")


def _model_text(model):
    """(text, suffix) of `model`: a path, HLO or StableHLO text, or an object
    with .as_text() (JAX's Lowered)."""
    if hasattr(model, "as_text"):
        text = model.as_text()
    elif isinstance(model, os.PathLike) or (isinstance(model, str) and "\n" not in model
                                              and os.path.isfile(model)):
        with open(model, encoding="utf-8") as f:
            text = f.read()
    elif isinstance(model, str):
        if "\n" not in model and "HloModule" not in model and "func.func" not in model:
            raise MoteError(f"{model}: no such file, and not HLO or StableHLO text")
        text = model
    else:
        raise TypeError("model must be a path, HLO or StableHLO text, or have .as_text(); got "
                        + type(model).__name__)
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    stablehlo = "HloModule" not in text[:4096] and ("func.func" in text or "module" in text[:4096])
    return text, ".mlir" if stablehlo else ".hlo"


def compile(model, target=None, params=None, outputs=None, cpu=None, features=None, name=None):
    """Compiles `model` into a Package.

    model:    a path, HLO or StableHLO text, or an object with .as_text()
    target:   triple(s), comma-separated or a list; default: this machine's
    params:   {parameter name: ndarray} bound into the model as weights
              (motec --params)
    outputs:  which results to keep, by index (motec --outputs)
    cpu, features, name: as motec compile's --cpu, --features, --name
    """
    from ._runtime import machine_triple  # the runtime knows this machine's triple
    text, suffix = _model_text(model)
    if target is None:
        target = machine_triple()
    if not isinstance(target, str):
        target = ",".join(target)
    with tempfile.TemporaryDirectory(prefix="mote-") as work:
        source = os.path.join(work, "model" + suffix)
        with open(source, "w", encoding="utf-8") as f:
            f.write(text)
        output = os.path.join(work, "model.mote")
        command = [_motec(), "compile", source, "--target=" + target, "-o", output]
        if cpu:
            command.append("--cpu=" + cpu)
        if features:
            command.append("--features=" + features)
        if name:
            command += ["--name", name]
        if params:
            import numpy
            weights = os.path.join(work, "params.npz")
            numpy.savez(weights, **{key: numpy.asarray(value) for key, value in params.items()})
            command += ["--params", weights]
        if outputs is not None:
            command.append("--outputs=" + ",".join(str(int(i)) for i in outputs))
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            # motec names the temporary file; the user gave no file name.
            message = (result.stderr or result.stdout).strip().replace(source, "<model>")
            raise MoteError(message or f"motec failed with status {result.returncode}")
        with open(output, "rb") as f:
            return Package(f.read())
