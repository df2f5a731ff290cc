"""Random reductions, windows, gathers, scatters, sorts, while loops and
conditionals: the ops that call computations or index their operands.

Where XLA leaves an order unspecified and floats would make it visible
(scatter combining duplicate indices, sort of NaNs), the programs use
integers, so any difference is a bug, not a legitimate choice.
"""
from hlo_elementwise import chain, finish, interesting_scalar, numeric, step
from hlo_movement import list_text, permutation, random_dims
from hlo_values import FLOATS, INTS, SIGNED, is_float

REDUCERS = ["add", "maximum", "minimum", "multiply"]


def identity(dtype, reducer):
    if reducer == "add":
        return 0
    if reducer == "multiply":
        return 1
    if is_float(dtype):
        return "-inf" if reducer == "maximum" else "inf"
    return 0 if reducer == "maximum" and dtype not in SIGNED else interesting_scalar_bound(
        dtype, reducer)


def interesting_scalar_bound(dtype, reducer):
    bits = int(dtype[1:])
    if dtype in SIGNED:
        return -(1 << (bits - 1)) if reducer == "maximum" else (1 << (bits - 1)) - 1
    return (1 << bits) - 1


def reducible(b, rank_low=1, rank_high=3):
    rng = b.rng
    dtypes = INTS + FLOATS
    dtype = dtypes[rng.integers(len(dtypes))]
    value = b.param(dtype, random_dims(rng, int(rng.integers(rank_low, rank_high + 1)), 1, 7))
    if rng.random() < 0.5:
        value = numeric(b, chain(b, value, int(rng.integers(1, 3))), [dtype])
    return value


def reduce(b):
    rng = b.rng
    value = reducible(b)
    reducer = REDUCERS[rng.integers(len(REDUCERS))]
    dims = sorted(int(d) for d in rng.choice(len(value.dims),
                                            size=int(rng.integers(1, len(value.dims) + 1)),
                                            replace=False))
    start = identity(value.dtype, reducer) if rng.random() < 0.7 else \
        interesting_scalar(rng, value.dtype)
    init = b.constant(value.dtype, start)
    kept = [d for i, d in enumerate(value.dims) if i not in dims]
    computation = b.binary_computation(reducer, value.dtype)
    result = b.op(value.dtype, kept, f"reduce({value.name}, {init.name}), "
                                     f"dimensions={{{list_text(dims)}}}, to_apply={computation}")
    b.family = f"reduce {reducer} {value.dtype}"
    return finish(b, chain(b, result, int(rng.integers(0, 2))))


def reduce_window(b):
    rng = b.rng
    value = reducible(b)
    reducer = REDUCERS[rng.integers(3)]
    sizes, strides, pads, base, dilate, out = [], [], [], [], [], []
    for d in value.dims:
        size = int(rng.integers(1, min(d, 3) + 2))
        stride = int(rng.integers(1, 3))
        base_dilation = int(rng.integers(1, 3)) if rng.random() < 0.2 else 1
        window_dilation = int(rng.integers(1, 3)) if rng.random() < 0.2 else 1
        low, high = int(rng.integers(0, 2)), int(rng.integers(0, 2))
        padded = (d - 1) * base_dilation + 1 + low + high
        window = (size - 1) * window_dilation + 1
        if padded < window:
            high += window - padded
            padded = window
        sizes.append(size)
        strides.append(stride)
        pads.append(f"{low}_{high}")
        base.append(base_dilation)
        dilate.append(window_dilation)
        out.append((padded - window) // stride + 1)
    parts = ["size=" + "x".join(map(str, sizes)), "stride=" + "x".join(map(str, strides)),
             "pad=" + "x".join(pads)]
    if any(x != 1 for x in base):
        parts.append("lhs_dilate=" + "x".join(map(str, base)))
    if any(x != 1 for x in dilate):
        parts.append("rhs_dilate=" + "x".join(map(str, dilate)))
    init = b.constant(value.dtype, identity(value.dtype, reducer))
    computation = b.binary_computation(reducer, value.dtype)
    result = b.op(value.dtype, out, f"reduce-window({value.name}, {init.name}), "
                                    f"window={{{' '.join(parts)}}}, to_apply={computation}")
    b.family = f"reduce-window {reducer} {value.dtype}"
    return finish(b, chain(b, result, int(rng.integers(0, 2))))


def index_array(b, batch_dims, width, bound):
    """s32 start indices [batch..., width]: a parameter (any value, so
    out-of-range starts get clamped) or a constant within or near range."""
    rng = b.rng
    dims = list(batch_dims) + [width]
    if rng.random() < 0.5:
        return b.param("s32", dims)
    count = 1
    for d in dims:
        count *= d
    values = [int(rng.integers(-1, bound + 2)) for _ in range(count)]
    return b.constant("s32", values, dims)


class IndexedAccess:
    """What gather and scatter share: an operand, the operand dimensions its
    index vectors map to (in random order), some of them dropped from the
    window (collapsed or inserted), the window's sizes, and s32 indices of
    random batch dimensions."""

    def __init__(self, b, dtype):
        rng = b.rng
        rank = int(rng.integers(1, 4))
        self.operand = b.param(dtype, random_dims(rng, rank, 1, 6))
        mapped = sorted(int(d) for d in rng.choice(rank, size=int(rng.integers(1, rank + 1)),
                                                  replace=False))
        self.mapped = [mapped[i] for i in permutation(rng, len(mapped))]
        self.dropped = sorted(d for d in self.mapped if rng.random() < 0.5)
        self.sizes = [1 if d in self.dropped else int(rng.integers(1, self.operand.dims[d] + 1))
                      for d in range(rank)]
        self.batch = list(random_dims(rng, int(rng.integers(1, 3)), 1, 4))
        self.indices = index_array(b, self.batch, len(self.mapped), max(self.operand.dims))

    def window_layout(self, rng):
        """Where the window's dimensions go among the batch dimensions of the
        result (gather) or the updates (scatter), and the dimensions that gives."""
        window = [size for d, size in enumerate(self.sizes) if d not in self.dropped]
        rank = len(self.batch) + len(window)
        at = sorted(int(d) for d in rng.choice(rank, size=len(window), replace=False))
        windows, batches = iter(window), iter(self.batch)
        return at, [next(windows) if p in at else next(batches) for p in range(rank)]


def gather(b):
    rng = b.rng
    dtypes = ["pred"] + INTS + FLOATS
    dtype = dtypes[rng.integers(len(dtypes))]
    access = IndexedAccess(b, dtype)
    offset_dims, dims = access.window_layout(rng)
    text = (f"gather({access.operand.name}, {access.indices.name}), "
            f"offset_dims={{{list_text(offset_dims)}}}, "
            f"collapsed_slice_dims={{{list_text(access.dropped)}}}, "
            f"start_index_map={{{list_text(access.mapped)}}}, "
            f"index_vector_dim={len(access.batch)}, slice_sizes={{{list_text(access.sizes)}}}")
    b.family = f"gather {dtype}"
    return chain(b, b.op(dtype, dims, text), int(rng.integers(0, 2)))


def scatter(b):
    """Integer scatters: add, max or min combine duplicates, whatever the order."""
    rng = b.rng
    dtype = INTS[rng.integers(len(INTS))]
    access = IndexedAccess(b, dtype)
    window_dims, dims = access.window_layout(rng)
    updates = b.param(dtype, dims)
    combiner = ["add", "maximum", "minimum"][rng.integers(3)]
    computation = b.binary_computation(combiner, dtype)
    text = (f"scatter({access.operand.name}, {access.indices.name}, {updates.name}), "
            f"update_window_dims={{{list_text(window_dims)}}}, "
            f"inserted_window_dims={{{list_text(access.dropped)}}}, "
            f"scatter_dims_to_operand_dims={{{list_text(access.mapped)}}}, "
            f"index_vector_dim={len(access.batch)}, to_apply={computation}")
    b.family = f"scatter {combiner} {dtype}"
    return chain(b, b.op(dtype, access.operand.dims, text), int(rng.integers(0, 2)))


def sort(b):
    """A stable integer sort along one dimension, maybe carrying a second
    array along (a variadic sort)."""
    rng = b.rng
    dtype = INTS[rng.integers(len(INTS))]
    dims = random_dims(rng, int(rng.integers(1, 3)), 1, 8)
    keys = b.param(dtype, dims)
    axis = int(rng.integers(len(dims)))
    direction = ["LT", "GT"][rng.integers(2)]
    comparator = b.compare_computation(direction, dtype)
    b.family = f"sort {dtype}"
    return b.op(dtype, dims, f"sort({keys.name}), dimensions={{{axis}}}, is_stable=true, "
                             f"to_apply={comparator}")


def loop_state(b):
    """A numeric parameter of rank 0 to 2: what loops and branches carry."""
    rng = b.rng
    dtypes = INTS + FLOATS
    dtype = dtypes[rng.integers(len(dtypes))]
    return b.param(dtype, random_dims(rng, int(rng.integers(0, 3)), 1, 5))


def called_chain(b, name, x, first):
    """The lines of a called computation `name` that take `x`'s value (the
    instruction text `first`) through a short chain back to `x`'s type, and
    the name of the result."""
    inner = type(b)(b.rng, name, b.computations)
    inner.allow_params = False  # only the computation's own operands
    value = inner.op(x.dtype, x.dims, first)
    result = numeric(inner, chain(inner, value, int(b.rng.integers(1, 4))), [x.dtype])
    return "\n".join(inner.lines), result.name


def while_loop(b):
    """A counted loop whose body runs a short elementwise chain on its state."""
    x = loop_state(b)
    trips = int(b.rng.integers(0, 5))
    state = f"(s32[], {x.shape()})"
    cond, body = b.fresh("cond"), b.fresh("body")
    b.computation(cond, f"""{cond} {{
  s = {state} parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({trips})
  ROOT lt = pred[] compare(i, n), direction=LT
}}""")
    lines, updated = called_chain(b, body, x, "get-tuple-element(s), index=1")
    b.computation(body, f"""{body} {{
  s = {state} parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
{lines}
  ROOT out = {state} tuple(next, {updated})
}}""")
    zero = b.constant("s32", 0)
    start = b.fresh("init")
    b.lines.append(f"  {start} = {state} tuple({zero.name}, {x.name})")
    loop = b.fresh("loop")
    b.lines.append(f"  {loop} = {state} while({start}), condition={cond}, body={body}")
    b.family = f"while {x.dtype}"
    return b.op(x.dtype, x.dims, f"get-tuple-element({loop}), index=1")


def conditional(b):
    """An indexed conditional (out-of-range indices run the last branch)."""
    x = loop_state(b)
    branches = []
    for _ in range(int(b.rng.integers(1, 4))):
        name = b.fresh("branch")
        lines, out = called_chain(b, name, x, "parameter(0)")
        b.computation(name, f"{name} {{\n{lines}\n  ROOT {name}_r = {x.shape()} copy({out})\n}}")
        branches.append(name)
    index = b.param("s32", ())
    operands = ", ".join([index.name] + [x.name] * len(branches))
    b.family = f"conditional {x.dtype}"
    return b.op(x.dtype, x.dims, f"conditional({operands}), "
                                 f"branch_computations={{{', '.join(branches)}}}")


__all__ = ["reduce", "reduce_window", "gather", "scatter", "sort", "while_loop", "conditional",
           "step", "finish"]
