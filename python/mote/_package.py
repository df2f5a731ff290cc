"""Package: a compiled model's bytes, saved, loaded and run."""
import os

from ._errors import MoteError


class Package:
    """A .mote package: the model compiled for one or more targets. run()
    loads the code object for this machine through the C runtime, once."""

    def __init__(self, data):
        self._bytes = bytes(data)
        self._model = None

    @property
    def bytes(self):
        return self._bytes

    def save(self, path):
        with open(os.fspath(path), "wb") as f:
            f.write(self._bytes)

    def _loaded(self):
        if self._model is None:
            from ._runtime import LoadedModel
            self._model = LoadedModel(self._bytes)
        return self._model

    @property
    def inputs(self):
        """(name, dtype, shape) of each argument, in order."""
        return [(t.name, t.dtype, t.shape) for t in self._loaded().args]

    @property
    def outputs(self):
        """(name, dtype, shape) of each result, in order."""
        return [(t.name, t.dtype, t.shape) for t in self._loaded().results]

    def run(self, *arrays):
        """Runs the model on NumPy arrays (one per argument, of its dtype and
        shape) and returns a list of NumPy arrays, one per result."""
        return self._loaded().run(arrays)


def load(path):
    """The package saved at `path`."""
    try:
        with open(os.fspath(path), "rb") as f:
            return Package(f.read())
    except OSError as error:
        raise MoteError(f"{path}: {error.strerror}") from error
