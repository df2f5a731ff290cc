#!/usr/bin/env python3
"""Random weights for the leading parameters of an exported module.

  random_weights.py MODEL.hlo OUT.safetensors --count N [--scale 0.02] [--seed S]

Reads the ENTRY signature of MODEL.hlo and writes random values for parameters
0 .. N-1 (a framework export's weights come first) to OUT.safetensors, keyed
by parameter number, each of its parameter's type and dimensions, for
motec --params. Floats are normal with the given scale, integers 0.
"""

import argparse
import json
import re
import struct

import numpy as np

DTYPES = {"f32": ("F32", np.float32), "f64": ("F64", np.float64), "f16": ("F16", np.float16),
          "bf16": ("BF16", None), "s32": ("I32", np.int32), "s64": ("I64", np.int64),
          "s8": ("I8", np.int8), "u8": ("U8", np.uint8), "pred": ("BOOL", np.bool_)}


def entry_parameters(path):
    with open(path) as f:
        for line in f:
            if line.startswith("ENTRY"):
                signature = line[line.index("(") + 1:line.index(") ->")]
                return [(t, [int(d) for d in dims.split(",") if d])
                        for t, dims in re.findall(r":\s*([a-z0-9]+)\[([0-9,]*)\]", signature)]
    raise SystemExit(f"{path}: no ENTRY computation")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--scale", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    params = entry_parameters(args.model)[:args.count]
    header, offset, sizes = {}, 0, []
    for i, (kind, dims) in enumerate(params):
        dtype, numpy_type = DTYPES[kind]
        size = int(np.prod(dims, dtype=np.int64)) * (2 if kind == "bf16" else
                                                     np.dtype(numpy_type).itemsize)
        header[str(i)] = {"dtype": dtype, "shape": dims, "data_offsets": [offset, offset + size]}
        offset += size
        sizes.append(size)
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)
    rng = np.random.Generator(np.random.PCG64(args.seed))
    with open(args.out, "wb") as f:
        f.write(struct.pack("<Q", len(encoded)) + encoded)
        for kind, dims in params:
            if kind in ("bf16", "f32", "f64", "f16"):
                values = rng.standard_normal(dims, dtype=np.float32) * np.float32(args.scale)
                if kind == "bf16":
                    f.write((values.view(np.uint32) >> 16).astype(np.uint16).tobytes())
                else:
                    f.write(values.astype(DTYPES[kind][1]).tobytes())
            else:
                f.write(np.zeros(dims, dtype=DTYPES[kind][1]).tobytes())
    print(f"{len(params)} parameters, {sum(sizes)} bytes")


if __name__ == "__main__":
    main()
