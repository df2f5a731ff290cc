"""The C runtime through ctypes: libmote_python.so (python/native)."""
import ctypes
import os

import numpy

from ._errors import MoteError

MAX_RANK = 16

# mote_element_type -> NumPy dtype (include/mote/abi.h). Sub-byte integers
# take a byte each, as int8/uint8 in their range; bf16 has no NumPy type.
_DTYPES = {1: numpy.bool_, 2: numpy.int8, 3: numpy.int16, 4: numpy.int32, 5: numpy.int64,
           6: numpy.uint8, 7: numpy.uint16, 8: numpy.uint32, 9: numpy.uint64,
           10: numpy.float16, 12: numpy.float32, 13: numpy.float64, 14: numpy.complex64,
           15: numpy.complex128, 16: numpy.int8, 17: numpy.uint8, 18: numpy.int8, 19: numpy.uint8}
_TYPE_NAMES = {1: "pred", 2: "s8", 3: "s16", 4: "s32", 5: "s64", 6: "u8", 7: "u16", 8: "u32",
               9: "u64", 10: "f16", 11: "bf16", 12: "f32", 13: "f64", 14: "c64", 15: "c128",
               16: "s4", 17: "u4", 18: "s2", 19: "u2"}
_SUB_BYTE_RANGE = {16: (-8, 7), 17: (0, 15), 18: (-2, 1), 19: (0, 3)}


def _library():
    candidates = [os.environ.get("MOTE_PYTHON_LIBRARY"),
                  os.path.join(os.path.dirname(__file__), "libmote_python.so")]
    for path in candidates:
        if path and os.path.isfile(path):
            library = ctypes.CDLL(path)
            break
    else:
        raise MoteError("libmote_python.so not found next to the mote package; build Mote "
                        "(it is made with the runtime) or set MOTE_PYTHON_LIBRARY")
    library.mote_py_load.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]
    library.mote_py_load.restype = ctypes.c_int32
    library.mote_py_free.argtypes = [ctypes.c_void_p]
    library.mote_py_free.restype = None
    library.mote_py_count.argtypes = [ctypes.c_void_p, ctypes.c_int]
    library.mote_py_count.restype = ctypes.c_uint32
    library.mote_py_tensor.argtypes = [
        ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.POINTER(ctypes.c_char_p),
        ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
        ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_uint64)]
    library.mote_py_tensor.restype = ctypes.c_int32
    library.mote_py_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                    ctypes.POINTER(ctypes.c_void_p)]
    library.mote_py_run.restype = ctypes.c_int32
    library.mote_py_message.argtypes = [ctypes.c_int32]
    library.mote_py_message.restype = ctypes.c_char_p
    library.mote_py_machine_triple.argtypes = []
    library.mote_py_machine_triple.restype = ctypes.c_char_p
    return library


_lib = None


def _native():
    global _lib
    if _lib is None:
        _lib = _library()
    return _lib


def machine_triple():
    """The triple Mote's runtime runs code for here, e.g. x86_64-linux-gnu."""
    return _native().mote_py_machine_triple().decode()


def _check(status, what):
    if status != 0:
        message = _native().mote_py_message(status).decode()
        raise MoteError(f"{what}: {message}", status)


class Tensor:
    """One argument or result as the model describes it."""

    def __init__(self, name, element_type, shape, byte_size):
        self.name, self.element_type, self.shape, self.byte_size = name, element_type, shape, byte_size
        self.dtype = _DTYPES.get(element_type)

    def describe(self):
        return f"{self.name} {_TYPE_NAMES.get(self.element_type, '?')}{list(self.shape)}"


class LoadedModel:
    """A package's code for this machine, loaded, with a session to run it."""

    def __init__(self, data):
        lib = _native()
        handle = ctypes.c_void_p()
        _check(lib.mote_py_load(data, len(data), ctypes.byref(handle)), "loading the package")
        self._handle = handle
        self.args = [self._tensor(0, i) for i in range(lib.mote_py_count(handle, 0))]
        self.results = [self._tensor(1, i) for i in range(lib.mote_py_count(handle, 1))]

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _lib is not None:
            _lib.mote_py_free(handle)

    def _tensor(self, is_result, index):
        name = ctypes.c_char_p()
        element_type, rank, size = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint64()
        dims = (ctypes.c_int64 * MAX_RANK)()
        _check(_native().mote_py_tensor(self._handle, is_result, index, ctypes.byref(name),
                                        ctypes.byref(element_type), ctypes.byref(rank), dims,
                                        ctypes.byref(size)), "describing the model")
        return Tensor(name.value.decode(), element_type.value, tuple(dims[:rank.value]), size.value)

    def _input(self, index, tensor, array):
        if tensor.dtype is None:
            raise MoteError(f"argument {index} ({tensor.describe()}): bf16 has no NumPy type")
        array = numpy.asarray(array)
        if array.dtype != numpy.dtype(tensor.dtype) or tuple(array.shape) != tensor.shape:
            raise MoteError(f"argument {index} ({tensor.describe()}) does not take a "
                            f"{array.dtype}{list(array.shape)} array")
        if tensor.element_type in _SUB_BYTE_RANGE and array.size:
            low, high = _SUB_BYTE_RANGE[tensor.element_type]
            if array.min() < low or array.max() > high:
                raise MoteError(f"argument {index} ({tensor.describe()}) holds values outside "
                                f"[{low}, {high}]")
        return numpy.ascontiguousarray(array)

    def run(self, arrays):
        if len(arrays) != len(self.args):
            raise MoteError(f"the model takes {len(self.args)} inputs, {len(arrays)} given")
        inputs = [self._input(i, t, a) for i, (t, a) in enumerate(zip(self.args, arrays))]
        for index, tensor in enumerate(self.results):
            if tensor.dtype is None:
                raise MoteError(f"result {index} ({tensor.describe()}): bf16 has no NumPy type")
        outputs = [numpy.empty(t.shape, dtype=t.dtype) for t in self.results]
        pointers = lambda items: (ctypes.c_void_p * max(len(items), 1))(
            *[item.ctypes.data for item in items])
        _check(_native().mote_py_run(self._handle, pointers(inputs), pointers(outputs)),
               "running the model")
        return outputs
