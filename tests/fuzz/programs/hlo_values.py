"""Values, types and the text of one random program's instructions.

A program is a list of HLO instruction lines in the entry computation (its
own parameters, then the ops that compute its one array result), plus the
computations its ops call. ProgramBuilder hands out names, writes each line
with its shape, and keeps the called computations shared across programs of
a module (one `add` per element type, for instance).
"""
import math

FLOATS = ["f16", "bf16", "f32", "f64"]
SIGNED = ["s8", "s16", "s32", "s64"]
UNSIGNED = ["u8", "u16", "u32", "u64"]
INTS = SIGNED + UNSIGNED
ALL_TYPES = ["pred"] + INTS + FLOATS
BITS = {"pred": 8, "s8": 8, "u8": 8, "s16": 16, "u16": 16, "f16": 16, "bf16": 16,
        "s32": 32, "u32": 32, "f32": 32, "s64": 64, "u64": 64, "f64": 64}


def is_float(dtype):
    return dtype in FLOATS


def is_int(dtype):
    return dtype in INTS


class Value:
    """An instruction's result: its name, element type and dimensions."""

    def __init__(self, name, dtype, dims):
        self.name, self.dtype, self.dims = name, dtype, tuple(dims)

    def shape(self):
        return shape_text(self.dtype, self.dims)

    def count(self):
        return math.prod(self.dims)


def shape_text(dtype, dims, layout=None):
    text = f"{dtype}[{','.join(str(d) for d in dims)}]"
    if layout is not None:
        text += "{" + ",".join(str(d) for d in layout) + "}"
    return text


def scalar_text(dtype, value):
    """A literal of `dtype` for constant(): pred true/false, floats with inf/nan."""
    if dtype == "pred":
        return "true" if value else "false"
    if is_float(dtype):
        if isinstance(value, str):
            return value
        return repr(float(value))
    return str(int(value))


class ProgramBuilder:
    """Builds one program: `tag` prefixes every name it makes."""

    def __init__(self, rng, tag, computations):
        self.rng = rng
        self.tag = tag
        self.computations = computations  # name -> text, shared by the module
        self.params = []  # (Value, layout or None)
        self.lines = []
        self.counter = 0
        self.ulp = 0  # bound for the result (0: bit-exact)
        self.family = ""
        # Inside a called computation operands come from its parameters and
        # constants only: ops then make no entry parameters.
        self.allow_params = True

    def fresh(self, stem="v"):
        self.counter += 1
        return f"{self.tag}_{stem}{self.counter}"

    def param(self, dtype, dims, layout=None):
        assert self.allow_params, "a called computation cannot add entry parameters"
        value = Value(self.fresh("p"), dtype, dims)
        self.params.append((value, layout))
        return value

    def is_input(self, value):
        """Whether `value` is one of this program's parameters, unchanged."""
        return any(value is param for param, _ in self.params)

    def op(self, dtype, dims, text, layout=None):
        value = Value(self.fresh(), dtype, dims)
        self.lines.append(f"  {value.name} = {shape_text(dtype, dims, layout)} {text}")
        return value

    def constant(self, dtype, value, dims=()):
        if dims:
            flat = ", ".join(scalar_text(dtype, v) for v in value)
            return self.op(dtype, dims, "constant({" + flat + "})") if len(dims) == 1 else \
                self.op(dtype, dims, "constant(" + nested(dtype, value, dims) + ")")
        return self.op(dtype, (), f"constant({scalar_text(dtype, value)})")

    def computation(self, name, text):
        """Registers a called computation once; returns its name."""
        self.computations.setdefault(name, text)
        return name

    # Scalar computations ops apply, one per kind and element type.
    def binary_computation(self, opcode, dtype):
        name = f"{opcode.replace('-', '_')}_{dtype}"
        return self.computation(name, f"""{name} {{
  a = {dtype}[] parameter(0)
  b = {dtype}[] parameter(1)
  ROOT r = {dtype}[] {opcode}(a, b)
}}""")

    def compare_computation(self, direction, dtype, total=False):
        kind = ", type=TOTALORDER" if total else ""
        name = f"cmp_{direction.lower()}_{dtype}{'_total' if total else ''}"
        return self.computation(name, f"""{name} {{
  a = {dtype}[] parameter(0)
  b = {dtype}[] parameter(1)
  ROOT r = pred[] compare(a, b), direction={direction}{kind}
}}""")


def nested(dtype, values, dims):
    """A constant's {{...}, ...} text for a row-major list of values."""
    if len(dims) == 1:
        return "{" + ", ".join(scalar_text(dtype, v) for v in values) + "}"
    step = len(values) // dims[0]
    return "{" + ", ".join(nested(dtype, values[i * step:(i + 1) * step], dims[1:])
                           for i in range(dims[0])) + "}"
