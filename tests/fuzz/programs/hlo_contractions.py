"""Random dots and convolutions: shapes, dimension orders, layouts, strides,
padding (negative too), dilations, reversal and groups, in every element
type, with an elementwise chain before and after (so output fusion and
operand fusion get exercised). Sums are compared bit for bit: the evaluator
adds in the order and with the fused multiply-adds the target's code uses
(motec eval --target)."""
from hlo_elementwise import chain, finish
from hlo_movement import permutation
from hlo_values import FLOATS, INTS

# Operand types and the result types a dot or convolution may name for them.
RESULT_TYPES = {"s8": ["s8", "s32"], "u8": ["u8", "u32", "s32"], "s16": ["s16", "s32"],
                "u16": ["u16"], "s32": ["s32"], "u32": ["u32"], "s64": ["s64"], "u64": ["u64"],
                "f16": ["f16", "f32"], "bf16": ["bf16", "f32"], "f32": ["f32"], "f64": ["f64"]}
OPERAND_TYPES = list(RESULT_TYPES)


def random_layout(rng, rank):
    """Row-major most of the time, else any permutation (minor to major)."""
    if rank < 2 or rng.random() < 0.6:
        return None
    return permutation(rng, rank)


def operand(b, dtype, dims):
    """A parameter (maybe in a column-major or odd layout) or a short chain on one."""
    value = b.param(dtype, dims, random_layout(b.rng, len(dims)))
    if b.rng.random() < 0.3:
        value = chain(b, value, 1)
        if value.dtype != dtype:
            value = b.op(dtype, dims, f"convert({value.name})")
    return value


def dot(b):
    rng = b.rng
    dtype = OPERAND_TYPES[rng.integers(len(OPERAND_TYPES))]
    result = RESULT_TYPES[dtype][rng.integers(len(RESULT_TYPES[dtype]))]
    batch = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    contracting = [int(rng.integers(1, 9)) for _ in range(int(rng.integers(1, 3)))]
    lhs_free = [int(rng.integers(1, 9)) for _ in range(int(rng.integers(0, 3)))]
    rhs_free = [int(rng.integers(1, 9)) for _ in range(int(rng.integers(0, 3)))]

    def arrange(free):
        """Dims of one operand in a random order; where each role landed."""
        roles = [("b", i) for i in range(len(batch))] + \
                [("c", i) for i in range(len(contracting))] + [("f", i) for i in range(len(free))]
        order = permutation(rng, len(roles))
        placed = [roles[o] for o in order]
        size = {"b": batch, "c": contracting, "f": free}
        dims = [size[kind][i] for kind, i in placed]
        where = {role: position for position, role in enumerate(placed)}
        return dims, where

    lhs_dims, lhs_at = arrange(lhs_free)
    rhs_dims, rhs_at = arrange(rhs_free)
    lhs, rhs = operand(b, dtype, lhs_dims), operand(b, dtype, rhs_dims)
    attrs = []
    for name, at in (("lhs", lhs_at), ("rhs", rhs_at)):
        if batch:
            attrs.append(f"{name}_batch_dims={{{','.join(str(at[('b', i)]) for i in range(len(batch)))}}}")
        attrs.append(f"{name}_contracting_dims="
                     f"{{{','.join(str(at[('c', i)]) for i in range(len(contracting)))}}}")
    # Free dims appear in the result in operand order.
    lhs_free_order = sorted(range(len(lhs_free)), key=lambda i: lhs_at[("f", i)])
    rhs_free_order = sorted(range(len(rhs_free)), key=lambda i: rhs_at[("f", i)])
    dims = batch + [lhs_free[i] for i in lhs_free_order] + [rhs_free[i] for i in rhs_free_order]
    value = b.op(result, dims, f"dot({lhs.name}, {rhs.name}), " + ", ".join(attrs))
    b.family = f"dot {dtype}->{result}"
    return finish(b, chain(b, value, int(rng.integers(0, 3))))


def convolution(b):
    rng = b.rng
    dtype = OPERAND_TYPES[rng.integers(len(OPERAND_TYPES))]
    result = RESULT_TYPES[dtype][rng.integers(len(RESULT_TYPES[dtype]))]
    spatial = int(rng.integers(1, 3))
    groups, batch_groups = 1, 1
    roll = rng.random()
    if roll < 0.25:
        groups = int(rng.integers(2, 4))
    elif roll < 0.35:
        batch_groups = int(rng.integers(2, 3))
    batch = batch_groups * int(rng.integers(1, 3))
    in_features = groups * int(rng.integers(1, 4))
    out_features = groups * batch_groups * int(rng.integers(1, 3))

    window, out_spatial, lhs_spatial, rhs_spatial = [], [], [], []
    for _ in range(spatial):
        size = int(rng.integers(1, 8))
        k = int(rng.integers(1, 4))
        stride = int(rng.integers(1, 3))
        lhs_dilate = int(rng.integers(1, 3)) if rng.random() < 0.2 else 1
        rhs_dilate = int(rng.integers(1, 3)) if rng.random() < 0.2 else 1
        base = (size - 1) * lhs_dilate + 1
        kernel = (k - 1) * rhs_dilate + 1
        low = int(rng.integers(-1, 3))
        high = int(rng.integers(-1, 3))
        padded = base + low + high
        if padded < kernel:  # keep at least one output position
            high += kernel - padded
            padded = kernel
        out = (padded - kernel) // stride + 1
        reverse = int(rng.random() < 0.15)
        window.append((k, stride, low, high, lhs_dilate, rhs_dilate, reverse))
        lhs_spatial.append(size)
        rhs_spatial.append(k)
        out_spatial.append(out)

    digits = [str(i) for i in range(spatial)]

    def labels(first, second):
        order = [first, second] + digits
        return [order[i] for i in permutation(rng, len(order))]

    lhs_labels, rhs_labels, out_labels = labels("b", "f"), labels("i", "o"), labels("b", "f")
    size_of = {"b": batch, "f": in_features, **dict(zip(digits, lhs_spatial))}
    lhs_dims = [size_of[c] for c in lhs_labels]
    size_of = {"i": in_features // groups, "o": out_features, **dict(zip(digits, rhs_spatial))}
    rhs_dims = [size_of[c] for c in rhs_labels]
    size_of = {"b": batch // batch_groups, "f": out_features, **dict(zip(digits, out_spatial))}
    out_dims = [size_of[c] for c in out_labels]

    lhs, rhs = operand(b, dtype, lhs_dims), operand(b, dtype, rhs_dims)
    fields = [("size", 0), ("stride", 1), ("pad", None), ("lhs_dilate", 4), ("rhs_dilate", 5),
              ("rhs_reversal", 6)]
    parts = []
    for field, index in fields:
        if field == "pad":
            parts.append("pad=" + "x".join(f"{w[2]}_{w[3]}" for w in window))
        elif field == "size" or any(w[index] != (0 if field == "rhs_reversal" else 1)
                                    for w in window):
            parts.append(f"{field}=" + "x".join(str(w[index]) for w in window))
    text = (f"convolution({lhs.name}, {rhs.name}), window={{{' '.join(parts)}}}, "
            f"dim_labels={''.join(lhs_labels)}_{''.join(rhs_labels)}->{''.join(out_labels)}")
    if groups > 1:
        text += f", feature_group_count={groups}"
    if batch_groups > 1:
        text += f", batch_group_count={batch_groups}"
    value = b.op(result, out_dims, text)
    b.family = f"convolution {dtype}->{result}"
    return finish(b, chain(b, value, int(rng.integers(0, 3))))


__all__ = ["dot", "convolution", "FLOATS", "INTS"]
