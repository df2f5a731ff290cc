#!/usr/bin/env python3
"""Writes the example model and its data (standard library only, deterministic).

  mlp.hlo              16 inputs -> 32 hidden (relu) -> 10 logits -> softmax, weights
                       as constants, in the style of a JAX dump
  input.npy            two input rows, float32[2,16]
  expected_output.npy  the class probabilities computed here in float64 from the
                       same float32 weights, float32[2,10]: an independent check of
                       what `motec eval` prints

Usage: generate_mlp.py [output_dir]   (default: this script's folder)
"""

import math
import os
import random
import struct
import sys

INPUTS, HIDDEN, CLASSES, BATCH = 16, 32, 10, 2


def f32(x):
    """Rounds a Python float to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def matrix(rng, rows, cols, scale):
    return [[round(rng.uniform(-scale, scale), 4) for _ in range(cols)] for _ in range(rows)]


def literal(values):
    if isinstance(values[0], list):
        return "{ " + ", ".join(literal(row) for row in values) + " }"
    return "{" + ", ".join(f"{v:.4f}".rstrip("0").rstrip(".") if v else "0" for v in values) + "}"


def write_npy(path, rows, dtype="<f4"):
    """A version 1.0 .npy file of a 2-D float32 array, as numpy.save writes it."""
    header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': ({len(rows)}, {len(rows[0])}), }}"
    total = (10 + len(header) + 1 + 63) // 64 * 64
    header += " " * (total - 10 - len(header) - 1) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        for row in rows:
            f.write(struct.pack(f"<{len(row)}f", *row))


def forward(x, w1, b1, w2, b2):
    """The model in float64 on float32-rounded parameters."""
    out = []
    for row in x:
        hidden = [max(0.0, sum(f32(row[i]) * f32(w1[i][j]) for i in range(INPUTS)) + f32(b1[j]))
                  for j in range(HIDDEN)]
        logits = [sum(hidden[j] * f32(w2[j][k]) for j in range(HIDDEN)) + f32(b2[k])
                  for k in range(CLASSES)]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        out.append([e / total for e in exps])
    return out


def hlo_text(w1, b1, w2, b2):
    meta = 'source_file="/tmp/mlp.py"'
    return f"""HloModule jit_mlp, entry_computation_layout={{(f32[{BATCH},{INPUTS}]{{1,0}})->f32[{BATCH},{CLASSES}]{{1,0}}}}

%region_0.max (Arg_0.1: f32[], Arg_1.2: f32[]) -> f32[] {{
  %Arg_0.1 = f32[] parameter(0)
  %Arg_1.2 = f32[] parameter(1)
  ROOT %maximum.3 = f32[] maximum(f32[] %Arg_0.1, f32[] %Arg_1.2), metadata={{op_name="jit(mlp)/jit(main)/reduce_max" {meta} source_line=14}}
}}

%region_1.add (Arg_0.4: f32[], Arg_1.5: f32[]) -> f32[] {{
  %Arg_0.4 = f32[] parameter(0)
  %Arg_1.5 = f32[] parameter(1)
  ROOT %add.6 = f32[] add(f32[] %Arg_0.4, f32[] %Arg_1.5), metadata={{op_name="jit(mlp)/jit(main)/reduce_sum" {meta} source_line=16}}
}}

ENTRY %main.30 (Arg_0.7: f32[{BATCH},{INPUTS}]) -> f32[{BATCH},{CLASSES}] {{
  %Arg_0.7 = f32[{BATCH},{INPUTS}]{{1,0}} parameter(0), metadata={{op_name="x"}}
  %constant.8 = f32[{INPUTS},{HIDDEN}]{{1,0}} constant({literal(w1)})
  %dot.9 = f32[{BATCH},{HIDDEN}]{{1,0}} dot(f32[{BATCH},{INPUTS}]{{1,0}} %Arg_0.7, f32[{INPUTS},{HIDDEN}]{{1,0}} %constant.8), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, metadata={{op_name="jit(mlp)/jit(main)/dot_general[dimension_numbers=(([1], [0]), ([], []))]" {meta} source_line=10}}
  %constant.10 = f32[{HIDDEN}]{{0}} constant({literal(b1)})
  %broadcast.11 = f32[{BATCH},{HIDDEN}]{{1,0}} broadcast(f32[{HIDDEN}]{{0}} %constant.10), dimensions={{1}}, metadata={{op_name="jit(mlp)/jit(main)/add" {meta} source_line=10}}
  %add.12 = f32[{BATCH},{HIDDEN}]{{1,0}} add(f32[{BATCH},{HIDDEN}]{{1,0}} %dot.9, f32[{BATCH},{HIDDEN}]{{1,0}} %broadcast.11), metadata={{op_name="jit(mlp)/jit(main)/add" {meta} source_line=10}}
  %constant.13 = f32[] constant(0)
  %broadcast.14 = f32[{BATCH},{HIDDEN}]{{1,0}} broadcast(f32[] %constant.13), dimensions={{}}
  %maximum.15 = f32[{BATCH},{HIDDEN}]{{1,0}} maximum(f32[{BATCH},{HIDDEN}]{{1,0}} %add.12, f32[{BATCH},{HIDDEN}]{{1,0}} %broadcast.14), metadata={{op_name="jit(mlp)/jit(main)/max" {meta} source_line=11}}
  %constant.16 = f32[{HIDDEN},{CLASSES}]{{1,0}} constant({literal(w2)})
  %dot.17 = f32[{BATCH},{CLASSES}]{{1,0}} dot(f32[{BATCH},{HIDDEN}]{{1,0}} %maximum.15, f32[{HIDDEN},{CLASSES}]{{1,0}} %constant.16), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, metadata={{op_name="jit(mlp)/jit(main)/dot_general[dimension_numbers=(([1], [0]), ([], []))]" {meta} source_line=12}}
  %constant.18 = f32[{CLASSES}]{{0}} constant({literal(b2)})
  %broadcast.19 = f32[{BATCH},{CLASSES}]{{1,0}} broadcast(f32[{CLASSES}]{{0}} %constant.18), dimensions={{1}}
  %add.20 = f32[{BATCH},{CLASSES}]{{1,0}} add(f32[{BATCH},{CLASSES}]{{1,0}} %dot.17, f32[{BATCH},{CLASSES}]{{1,0}} %broadcast.19), metadata={{op_name="jit(mlp)/jit(main)/add" {meta} source_line=12}}
  %constant.21 = f32[] constant(-inf)
  %reduce.22 = f32[{BATCH}]{{0}} reduce(f32[{BATCH},{CLASSES}]{{1,0}} %add.20, f32[] %constant.21), dimensions={{1}}, to_apply=%region_0.max, metadata={{op_name="jit(mlp)/jit(main)/reduce_max[axes=(1,)]" {meta} source_line=14}}
  %broadcast.23 = f32[{BATCH},{CLASSES}]{{1,0}} broadcast(f32[{BATCH}]{{0}} %reduce.22), dimensions={{0}}
  %subtract.24 = f32[{BATCH},{CLASSES}]{{1,0}} subtract(f32[{BATCH},{CLASSES}]{{1,0}} %add.20, f32[{BATCH},{CLASSES}]{{1,0}} %broadcast.23), metadata={{op_name="jit(mlp)/jit(main)/sub" {meta} source_line=15}}
  %exponential.25 = f32[{BATCH},{CLASSES}]{{1,0}} exponential(f32[{BATCH},{CLASSES}]{{1,0}} %subtract.24), metadata={{op_name="jit(mlp)/jit(main)/exp" {meta} source_line=15}}
  %constant.26 = f32[] constant(0)
  %reduce.27 = f32[{BATCH}]{{0}} reduce(f32[{BATCH},{CLASSES}]{{1,0}} %exponential.25, f32[] %constant.26), dimensions={{1}}, to_apply=%region_1.add, metadata={{op_name="jit(mlp)/jit(main)/reduce_sum[axes=(1,)]" {meta} source_line=16}}
  %broadcast.28 = f32[{BATCH},{CLASSES}]{{1,0}} broadcast(f32[{BATCH}]{{0}} %reduce.27), dimensions={{0}}
  ROOT %divide.29 = f32[{BATCH},{CLASSES}]{{1,0}} divide(f32[{BATCH},{CLASSES}]{{1,0}} %exponential.25, f32[{BATCH},{CLASSES}]{{1,0}} %broadcast.28), metadata={{op_name="jit(mlp)/jit(main)/div" {meta} source_line=16}}
}}

"""


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(2024)
    w1 = matrix(rng, INPUTS, HIDDEN, 0.5)
    b1 = matrix(rng, 1, HIDDEN, 0.1)[0]
    w2 = matrix(rng, HIDDEN, CLASSES, 0.5)
    b2 = matrix(rng, 1, CLASSES, 0.1)[0]
    x = matrix(rng, BATCH, INPUTS, 1.0)
    with open(os.path.join(out_dir, "mlp.hlo"), "w") as f:
        f.write(hlo_text(w1, b1, w2, b2))
    write_npy(os.path.join(out_dir, "input.npy"), x)
    write_npy(os.path.join(out_dir, "expected_output.npy"), forward(x, w1, b1, w2, b2))


if __name__ == "__main__":
    main()
