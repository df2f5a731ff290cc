"""Mote from Python: compile a model ahead of time, save it, run it.

    import mote
    package = mote.compile("model.hlo")                 # for this machine
    package = mote.compile(jax.jit(f).lower(x))         # anything with .as_text()
    package = mote.compile(text, target="aarch64-linux-gnu,x86_64-linux-gnu")
    package.save("model.mote")
    y, = mote.load("model.mote").run(x)                 # NumPy in, NumPy out

`compile` runs motec (the one next to this package, $MOTE_MOTEC, or motec on
PATH); `run` goes through Mote's C runtime (libmote_python.so, next to this
file) with the code object for this machine. Every failure raises MoteError
with Mote's own diagnostic.
"""
from ._compiler import compile
from ._errors import MoteError
from ._package import Package, load
from ._runtime import machine_triple

__all__ = ["compile", "load", "Package", "MoteError", "machine_triple"]
