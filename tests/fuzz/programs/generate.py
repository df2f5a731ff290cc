"""Random valid HLO modules from a seed.

A module holds several independent programs side by side: each has its own
entry parameters and computes one array; the entry returns the tuple of
their results. One module is compiled, run and evaluated once, so a batch of
programs costs one compile, one link and one emulator launch per target,
and a mismatch in result k points at program k alone.

  generate.py SEED [--programs N]      prints the module for SEED
"""
import argparse
import sys

import numpy as np

import hlo_contractions
import hlo_structured
from hlo_elementwise import chain, finish, step
from hlo_movement import move, random_dims
from hlo_values import ALL_TYPES, ProgramBuilder, shape_text


def elementwise_program(b):
    """A chain that fusion turns into one loop."""
    rng = b.rng
    dtype = ALL_TYPES[rng.integers(len(ALL_TYPES))]
    value = b.param(dtype, random_dims(rng, int(rng.integers(0, 4)), 1, 7))
    b.family = f"elementwise {dtype}"
    return finish(b, chain(b, value, int(rng.integers(2, 9))))


def movement_program(b):
    """Slices, pads, transposes... interleaved with elementwise steps."""
    rng = b.rng
    dtype = ALL_TYPES[rng.integers(len(ALL_TYPES))]
    value = b.param(dtype, random_dims(rng, int(rng.integers(1, 4)), 1, 6))
    b.family = f"movement {dtype}"
    for _ in range(int(rng.integers(1, 5))):
        value = move(b, value)
        if rng.random() < 0.5:
            value = step(b, value)
    return finish(b, value)


FAMILIES = [
    (elementwise_program, 18), (movement_program, 14), (hlo_contractions.dot, 14),
    (hlo_contractions.convolution, 14), (hlo_structured.reduce, 9),
    (hlo_structured.reduce_window, 7), (hlo_structured.gather, 7), (hlo_structured.scatter, 6),
    (hlo_structured.sort, 3), (hlo_structured.while_loop, 5), (hlo_structured.conditional, 3),
]


class Program:
    """One generated program: its parameters, instruction lines and result."""

    def __init__(self, builder, result):
        self.params = builder.params  # [(Value, layout)]
        self.lines = builder.lines
        self.result = result
        self.ulp = builder.ulp
        self.family = builder.family


def generate_programs(seed, count):
    """`count` programs and the computations they call, all from `seed`."""
    rng = np.random.default_rng(seed)
    computations = {}
    programs = []
    weights = np.array([w for _, w in FAMILIES], dtype=float)
    for k in range(count):
        family = FAMILIES[rng.choice(len(FAMILIES), p=weights / weights.sum())][0]
        builder = ProgramBuilder(rng, f"g{k}", computations)
        result = family(builder)
        programs.append(Program(builder, result))
    return programs, computations


def module_text(name, programs, computations):
    """The HLO module running `programs` side by side."""
    lines = [f"HloModule {name}", ""]
    lines += [computations[key] + "\n" for key in computations]
    lines.append("ENTRY main {")
    number = 0
    for program in programs:
        for value, layout in program.params:
            lines.append(f"  {value.name} = {shape_text(value.dtype, value.dims, layout)} "
                         f"parameter({number})")
            number += 1
    for program in programs:
        lines += program.lines
    shapes = ", ".join(p.result.shape() for p in programs)
    roots = ", ".join(p.result.name for p in programs)
    lines.append(f"  ROOT out = ({shapes}) tuple({roots})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def generate(seed, count):
    programs, computations = generate_programs(seed, count)
    return module_text(f"fuzz_{seed}", programs, computations), programs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("--programs", type=int, default=12)
    args = parser.parse_args()
    text, _ = generate(args.seed, args.programs)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
