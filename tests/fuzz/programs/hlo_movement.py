"""Random data movement: slices, pads, concatenation, reversal, transposes,
reshapes, broadcasts, iota and dynamic slices (whose start indices come from
parameters, so out-of-range starts exercise XLA's clamping)."""
import math

from hlo_elementwise import interesting_scalar


def random_dims(rng, rank, low=1, high=6):
    return tuple(int(rng.integers(low, high + 1)) for _ in range(rank))


def permutation(rng, n):
    return [int(i) for i in rng.permutation(n)]


def transpose(b, value):
    perm = permutation(b.rng, len(value.dims))
    dims = [value.dims[p] for p in perm]
    return b.op(value.dtype, dims, f"transpose({value.name}), dimensions={{{list_text(perm)}}}")


def reshape(b, value):
    """Splits or merges dimensions (same element count)."""
    rng = b.rng
    count = value.count()
    divisors = [d for d in range(1, count + 1) if count % d == 0]
    dims = []
    rest = count
    while rest > 1 and len(dims) < 4:
        choices = [d for d in divisors if rest % d == 0 and d > 1]
        d = choices[rng.integers(len(choices))]
        dims.append(d)
        rest //= d
    if rest > 1:
        dims.append(rest)
    if rng.random() < 0.3:
        dims.insert(int(rng.integers(len(dims) + 1)), 1)
    return b.op(value.dtype, dims, f"reshape({value.name})")


def broadcast(b, value):
    """Adds one or two dimensions around `value`'s."""
    rng = b.rng
    rank = len(value.dims) + int(rng.integers(1, 3))
    kept = sorted(int(d) for d in rng.choice(rank, size=len(value.dims), replace=False))
    dims = list(random_dims(rng, rank, 1, 4))
    for source, target in enumerate(kept):
        dims[target] = value.dims[source]
    return b.op(value.dtype, dims,
                f"broadcast({value.name}), dimensions={{{list_text(kept)}}}")


def slice_(b, value):
    rng = b.rng
    parts, dims = [], []
    for d in value.dims:
        start = int(rng.integers(0, d))
        limit = int(rng.integers(start + 1, d + 1))
        stride = int(rng.integers(1, 4))
        parts.append(f"[{start}:{limit}:{stride}]")
        dims.append(-(-(limit - start) // stride))
    return b.op(value.dtype, dims, f"slice({value.name}), slice={{{','.join(parts)}}}")


def pad(b, value):
    """Edges may be negative (cropping) and interior padding spreads elements."""
    rng = b.rng
    fill = b.constant(value.dtype, interesting_scalar(rng, value.dtype))
    parts, dims = [], []
    for d in value.dims:
        interior = int(rng.integers(0, 3)) if rng.random() < 0.4 else 0
        spread = d + (d - 1) * interior
        low = int(rng.integers(-min(spread - 1, 2), 3))
        high = int(rng.integers(-min(spread - 1 + min(low, 0), 2), 3))
        parts.append(f"{low}_{high}" + (f"_{interior}" if interior else ""))
        dims.append(spread + low + high)
    return b.op(value.dtype, dims, f"pad({value.name}, {fill.name}), padding={'x'.join(parts)}")


def concatenate(b, value):
    rng = b.rng
    if not value.dims:
        return value
    axis = int(rng.integers(len(value.dims)))
    other_dims = list(value.dims)
    other_dims[axis] = int(rng.integers(1, 5))
    other = b.param(value.dtype, other_dims)
    parts = [value, other] if rng.random() < 0.5 else [other, value]
    dims = list(value.dims)
    dims[axis] += other_dims[axis]
    names = ", ".join(p.name for p in parts)
    return b.op(value.dtype, dims, f"concatenate({names}), dimensions={{{axis}}}")


def reverse(b, value):
    rng = b.rng
    if not value.dims:
        return value
    axes = sorted(int(a) for a in rng.choice(len(value.dims),
                                            size=int(rng.integers(1, len(value.dims) + 1)),
                                            replace=False))
    return b.op(value.dtype, value.dims, f"reverse({value.name}), dimensions={{{list_text(axes)}}}")


def iota(b, dtype, dims):
    axis = int(b.rng.integers(len(dims))) if dims else 0
    return b.op(dtype, dims, f"iota(), iota_dimension={axis}")


def start_indices(b, rank):
    """Scalar start indices: parameters (any s32, clamped by the op) or constants."""
    names = []
    for _ in range(rank):
        if b.rng.random() < 0.7:
            names.append(b.param("s32", ()).name)
        else:
            names.append(b.constant("s32", int(b.rng.integers(-3, 8))).name)
    return names


def dynamic_slice(b, value):
    rng = b.rng
    sizes = [int(rng.integers(1, d + 1)) for d in value.dims]
    starts = start_indices(b, len(value.dims))
    operands = ", ".join([value.name] + starts)
    return b.op(value.dtype, sizes,
                f"dynamic-slice({operands}), dynamic_slice_sizes={{{list_text(sizes)}}}")


def dynamic_update_slice(b, value):
    rng = b.rng
    sizes = [int(rng.integers(1, d + 1)) for d in value.dims]
    update = b.param(value.dtype, sizes)
    starts = start_indices(b, len(value.dims))
    operands = ", ".join([value.name, update.name] + starts)
    return b.op(value.dtype, value.dims, f"dynamic-update-slice({operands})")


MOVES = [transpose, reshape, broadcast, slice_, pad, concatenate, reverse, dynamic_slice,
         dynamic_update_slice]


def move(b, value):
    """One random data movement of `value` (kept small: at most 512 elements)."""
    if not value.dims:  # a scalar has nothing to slice, pad or permute
        return broadcast(b, value)
    for _ in range(4):
        candidate = MOVES[b.rng.integers(len(MOVES))]
        if candidate in (broadcast, pad, concatenate) and value.count() > 96:
            continue
        return candidate(b, value)
    return transpose(b, value)


def list_text(values):
    return ",".join(str(v) for v in values)


def element_count(dims):
    return math.prod(dims)
