#!/usr/bin/env python3
"""Writes a large model exported with its weights as parameters, and the weights.

  generate_big_model.py OUT_DIR [--blocks 30] [--width 2048] [--hidden 16384] [--seed S]

  OUT_DIR/model.hlo            residual MLP blocks, x + relu(x @ W1) @ W2, in bf16, every
                               weight an entry parameter before the input, as JAX exports
                               a model's apply function
  OUT_DIR/weights.safetensors  random bf16 weights keyed by parameter number (the defaults:
                               30 blocks of 2 x 2048 x 16384 = 2.01e9 weights, 4.0 GB)

It measures motec on a model of a realistic size: reading and binding gigabytes of
weights, the passes and code generation over them, and writing them to a weights file
(motec compile model.hlo --params weights.safetensors -o model.mote --weights-file ...).
Keep OUT_DIR outside the repository.
"""

import argparse
import json
import os
import struct

import numpy as np


def hlo_text(blocks, width, hidden):
    lines, params = [], []
    for b in range(blocks):
        for name, shape in ((f"w1_{b}", (width, hidden)), (f"w2_{b}", (hidden, width))):
            params.append((f"{name}.{len(params) + 1}", shape))
    x = f"x.{len(params) + 1}"
    for i, (name, (rows, cols)) in enumerate(params):
        lines.append(f"  %{name} = bf16[{rows},{cols}]{{1,0}} parameter({i})")
    lines.append(f"  %{x} = bf16[1,{width}]{{1,0}} parameter({len(params)})")
    lines.append("  %zero = bf16[] constant(0)")
    lines.append(f"  %zeros = bf16[1,{hidden}]{{1,0}} broadcast(%zero), dimensions={{}}")
    h = x
    for b in range(blocks):
        w1, w2 = params[2 * b][0], params[2 * b + 1][0]
        lines += [
            f"  %up.{b} = bf16[1,{hidden}]{{1,0}} dot(%{h}, %{w1}), lhs_contracting_dims={{1}}, "
            "rhs_contracting_dims={0}",
            f"  %relu.{b} = bf16[1,{hidden}]{{1,0}} maximum(%up.{b}, %zeros)",
            f"  %down.{b} = bf16[1,{width}]{{1,0}} dot(%relu.{b}, %{w2}), "
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            f"  %h.{b} = bf16[1,{width}]{{1,0}} add(%{h}, %down.{b})",
        ]
        h = f"h.{b}"
    lines[-1] = lines[-1].replace(f"  %{h} =", f"  ROOT %{h} =")
    layout = ", ".join(f"bf16[{r},{c}]{{1,0}}" for _, (r, c) in params)
    signature = ", ".join(f"{n}: bf16[{r},{c}]" for n, (r, c) in params)
    return (f"HloModule jit_apply, entry_computation_layout={{({layout}, bf16[1,{width}]{{1,0}})"
            f"->bf16[1,{width}]{{1,0}}}}\n\n"
            f"ENTRY %main ({signature}, {x}: bf16[1,{width}]) -> bf16[1,{width}] {{\n"
            + "\n".join(lines) + "\n}\n"), params


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--blocks", type=int, default=30)
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--hidden", type=int, default=16384)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    text, params = hlo_text(args.blocks, args.width, args.hidden)
    with open(os.path.join(args.out, "model.hlo"), "w") as f:
        f.write(text)

    header, offset = {}, 0
    for i, (_, shape) in enumerate(params):
        size = shape[0] * shape[1] * 2
        header[str(i)] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    encoded = json.dumps(header, separators=(",", ":")).encode()
    encoded += b" " * (-len(encoded) % 8)
    rng = np.random.Generator(np.random.PCG64(args.seed))
    with open(os.path.join(args.out, "weights.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(encoded)) + encoded)
        for _, shape in params:
            values = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
            f.write((values.view(np.uint32) >> 16).astype(np.uint16).tobytes())
    count = sum(r * c for _, (r, c) in params)
    print(f"{len(params)} weight parameters, {count} weights ({count * 2 / 1e9:.2f} GB bf16)")


if __name__ == "__main__":
    main()
