"""Random elementwise chains: the ops fusion merges into one loop.

Every op here is exact in both the evaluator and compiled code (IEEE
arithmetic, integer wrap-around, XLA's rules for division by zero and
oversized shifts), so results compare bit for bit. Transcendentals, whose
inline approximations differ from libm by a stated bound, only end a
program (`finish`): a later op could turn a 1-ulp difference into anything.
"""
from hlo_values import BITS, FLOATS, INTS, SIGNED, UNSIGNED, is_float, is_int

BINARY_NUMERIC = ["add", "subtract", "multiply", "maximum", "minimum", "divide", "remainder"]
BINARY_INT = ["and", "or", "xor", "shift-left", "shift-right-logical", "shift-right-arithmetic",
              "power"]
BINARY_PRED = ["and", "or", "xor"]
UNARY_FLOAT = ["negate", "abs", "sign", "floor", "ceil", "round-nearest-afz",
               "round-nearest-even", "sqrt"]
UNARY_SIGNED = ["negate", "abs", "sign", "not", "popcnt", "count-leading-zeros"]
UNARY_UNSIGNED = ["negate", "not", "popcnt", "count-leading-zeros"]
DIRECTIONS = ["EQ", "NE", "LT", "LE", "GT", "GE"]

# Transcendentals and their bounds in ulps of the result type (as the
# differential cases state them: 6 for f32/f64, 1 for f16/bf16, computed in
# f32 and rounded).
TRANSCENDENTAL = ["exponential", "exponential-minus-one", "log", "log-plus-one", "logistic",
                  "tanh", "sine", "cosine", "rsqrt", "cbrt", "erf"]
ULP_BOUND = {"f32": 6, "f64": 6, "f16": 1, "bf16": 1}

# Same-width types bitcast-convert may move between.
SAME_WIDTH = {16: ["s16", "u16", "f16", "bf16"], 32: ["s32", "u32", "f32"],
              64: ["s64", "u64", "f64"], 8: ["s8", "u8"]}


def second_operand(b, value):
    """Another operand of `value`'s shape: a parameter, the value itself, or
    a broadcast scalar (a constant or a parameter)."""
    rng = b.rng
    choice = rng.random() if b.allow_params else 0.5 + 0.5 * rng.random()
    if choice < 0.5:
        return b.param(value.dtype, value.dims)
    if choice < 0.6:
        return value
    if choice < 0.8 and b.allow_params:
        scalar = b.param(value.dtype, ())
    else:
        scalar = b.constant(value.dtype, interesting_scalar(rng, value.dtype))
    if not value.dims:
        return scalar
    return b.op(value.dtype, value.dims, f"broadcast({scalar.name}), dimensions={{}}")


def interesting_scalar(rng, dtype):
    if dtype == "pred":
        return bool(rng.integers(2))
    if is_float(dtype):
        return [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -7.25, 1e-3, 100.0, "inf", "-inf",
                "nan"][rng.integers(13)]
    bits = BITS[dtype]
    if dtype in UNSIGNED:
        return [0, 1, 2, 3, 7, bits - 1, bits, (1 << bits) - 1][rng.integers(8)]
    return [0, 1, -1, 2, 3, -7, bits - 1, bits, (1 << (bits - 1)) - 1,
            -(1 << (bits - 1))][rng.integers(10)]


def step(b, value):
    """One random exact op on `value`; returns the new value (its type may change)."""
    rng = b.rng
    dtype, dims = value.dtype, value.dims
    roll = rng.random()
    if roll < 0.12:  # a type change
        target = ["pred"] + INTS + FLOATS
        to = target[rng.integers(len(target))]
        return b.op(to, dims, f"convert({value.name})")
    # The sign and payload of a NaN that arithmetic makes are the machine's
    # (x86-64 makes -NaN, AArch64 +NaN): only bit casts and total-order
    # compares see them, so those take floats straight from the inputs.
    if roll < 0.17 and dtype != "pred" and (not is_float(dtype) or b.is_input(value)):
        to = SAME_WIDTH[BITS[dtype]][rng.integers(len(SAME_WIDTH[BITS[dtype]]))]
        return b.op(to, dims, f"bitcast-convert({value.name})")
    if roll < 0.30:  # compare, then maybe select between two values
        other = second_operand(b, value)
        direction = DIRECTIONS[rng.integers(len(DIRECTIONS))]
        total = ", type=TOTALORDER" if is_float(dtype) and rng.random() < 0.3 and \
            b.is_input(value) and b.is_input(other) else ""
        mask = b.op("pred", dims, f"compare({value.name}, {other.name}), "
                                  f"direction={direction}{total}")
        if rng.random() < 0.6:
            return b.op(dtype, dims, f"select({mask.name}, {value.name}, {other.name})")
        return mask
    if roll < 0.36 and dtype != "pred":
        lo = b.constant(dtype, interesting_scalar(rng, dtype))
        hi = b.constant(dtype, interesting_scalar(rng, dtype))
        return b.op(dtype, dims, f"clamp({lo.name}, {value.name}, {hi.name})")
    if roll < 0.55:  # unary
        if dtype == "pred":
            ops = ["not"]
        elif is_float(dtype):
            ops = UNARY_FLOAT + (["is-finite"] if rng.random() < 0.2 else [])
        else:
            ops = UNARY_SIGNED if dtype in SIGNED else UNARY_UNSIGNED
        opcode = ops[rng.integers(len(ops))]
        result = "pred" if opcode == "is-finite" else dtype
        return b.op(result, dims, f"{opcode}({value.name})")
    # binary
    if dtype == "pred":
        ops = BINARY_PRED
    elif is_int(dtype):
        ops = BINARY_NUMERIC + BINARY_INT
    else:
        ops = BINARY_NUMERIC
    opcode = ops[rng.integers(len(ops))]
    other = second_operand(b, value)
    if rng.random() < 0.5:
        value, other = other, value
    return b.op(dtype, dims, f"{opcode}({value.name}, {other.name})")


def chain(b, value, length):
    for _ in range(length):
        value = step(b, value)
    return value


def numeric(b, value, dtypes=None):
    """`value` converted, if needed, to one of `dtypes` (default: not pred)."""
    dtypes = dtypes or INTS + FLOATS
    if value.dtype in dtypes:
        return value
    to = dtypes[b.rng.integers(len(dtypes))]
    return b.op(to, value.dims, f"convert({value.name})")


def finish(b, value):
    """Ends a program: sometimes with a transcendental, whose bound the
    program then carries."""
    if is_float(value.dtype) and b.rng.random() < 0.25:
        opcode = TRANSCENDENTAL[b.rng.integers(len(TRANSCENDENTAL))]
        b.ulp = ULP_BOUND[value.dtype]
        return b.op(value.dtype, value.dims, f"{opcode}({value.name})")
    return value
