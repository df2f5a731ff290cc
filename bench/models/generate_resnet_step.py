#!/usr/bin/env python3
"""Writes a ResNet-18 predict step as a Keras model on JAX exports it.

  generate_resnet_step.py OUT_DIR [--size 224] [--seed S]

  OUT_DIR/model.hlo     the predict step: every weight a leading parameter (conv
                        kernels HWIO, batch-norm gamma/beta and moving mean and
                        variance, the classifier), the NHWC image last; it
                        returns the logits and the batch norms' moving
                        statistics (non-trainable state), donated back
                        (input_output_alias may-alias), as Keras' predict_step
                        returns (outputs, non_trainable_variables)
  OUT_DIR/weights.npz   random weights keyed by the parameter names
  OUT_DIR/image.npy     a random image
  OUT_DIR/inputs/       every parameter as input<N>.npy, in order, to run the
                        same module unbound (mote-run --input ... for each)

Batch norm stays as the export has it (inference form, not folded into the
convolutions): binding the weights lets the compiler fold what is constant.
Weights come from numpy's PCG64 with a fixed seed.
"""

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate_models import ModuleBuilder, shape_text  # noqa: E402

EPSILON = 1e-3


class Step:
    def __init__(self, rng):
        self.rng = rng
        self.h = ModuleBuilder("predict_step")
        self.weights = {}  # parameter name -> array, in parameter order
        self.state = []    # the moving statistics, returned
        self.flops = 0

    def parameter(self, array, label):
        value = self.h.parameter(array.shape, label)
        self.weights[value.name] = np.asarray(array, dtype=np.float32)
        return value

    def conv_bn(self, x, cin, cout, k, stride, relu):
        pad = (k - 1) // 2
        w = self.rng.standard_normal((k, k, cin, cout)) * math.sqrt(2.0 / (k * k * cin))
        kernel = self.parameter(w, "conv/kernel")
        # Keras' SAME padding for odd kernels: (k - 1) / 2 each side at stride 1,
        # and at stride 2 on even sizes one less before than after.
        low = pad - 1 if stride == 2 and x.shape[1] % 2 == 0 and k > 1 else pad
        high = pad
        y = self.h.conv(x, kernel, stride, ((low, high), (low, high)))
        self.flops += 2 * math.prod(y.shape) * k * k * cin
        gamma = self.parameter(self.rng.uniform(0.8, 1.2, cout), "batch_norm/gamma")
        beta = self.parameter(self.rng.standard_normal(cout) * 0.1, "batch_norm/beta")
        mean = self.parameter(self.rng.standard_normal(cout) * 0.1, "batch_norm/moving_mean")
        var = self.parameter(self.rng.uniform(0.5, 1.5, cout), "batch_norm/moving_variance")
        self.state += [mean, var]
        h = self.h
        # (x - mean) * gamma / sqrt(var + eps) + beta, as Keras' BatchNormalization computes it.
        inv = h.unary("rsqrt", h.binary("add", var, h.scalar(EPSILON, var.shape), "add"), "rsqrt")
        scale = h.binary("multiply", inv, gamma, "mul")
        dims = (3,)
        centered = h.binary("subtract", y, h.broadcast(mean, y.shape, dims, "sub"), "sub")
        scaled = h.binary("multiply", centered, h.broadcast(scale, y.shape, dims, "mul"), "mul")
        y = h.binary("add", scaled, h.broadcast(beta, y.shape, dims, "add"), "add")
        if relu:
            y = h.binary("maximum", y, h.scalar(0, y.shape), "relu")
        return y

    def block(self, x, cin, cout, stride):
        y = self.conv_bn(x, cin, cout, 3, stride, relu=True)
        y = self.conv_bn(y, cout, cout, 3, 1, relu=False)
        shortcut = x if stride == 1 and cin == cout else self.conv_bn(x, cin, cout, 1, stride, False)
        y = self.h.binary("add", y, shortcut, "add")
        return self.h.binary("maximum", y, self.h.scalar(0, y.shape), "relu")

    def max_pool(self, x):
        n, hgt, wid, c = x.shape
        out = (n, hgt // 2, wid // 2, c)
        init = self.h.constant(np.float32(-np.inf))
        return self.h.op("reduce-window", out, [x, init],
                         "window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, "
                         f"to_apply=%{self.h.region('maximum')}", "reduce_window_max")

    def text(self, logits):
        h = self.h
        leaves = [logits] + self.state
        h.lines.append(f"  %tuple.{h.next_id} = (" + ", ".join(shape_text(v.shape) for v in leaves)
                       + ") tuple(" + ", ".join(v.typed() for v in leaves) + ")")
        h.lines[-1] = "  ROOT " + h.lines[-1].lstrip()
        numbers = {name: i for i, name in enumerate(self.weights)}
        aliases = ", ".join(f"{{{i + 1}}}: ({numbers[v.name]}, {{}}, may-alias)"
                            for i, v in enumerate(self.state))
        params = ", ".join(shape_text(s) for _, s in h.params)
        results = ", ".join(shape_text(v.shape) for v in leaves)
        signature = ", ".join(f"{n}: {shape_text(s, layout=False)}" for n, s in h.params)
        return (f"HloModule jit_predict_step, input_output_alias={{ {aliases} }}, "
                f"entry_computation_layout={{({params})->({results})}}\n\n"
                + "".join(r + "\n" for r in h.region_text)
                + f"ENTRY %main.{h.next_id + 1} ({signature}) -> ("
                + ", ".join(shape_text(v.shape, layout=False) for v in leaves) + ") {\n"
                + "\n".join(h.lines) + "\n}\n")


def resnet18(rng, size, classes=1000):
    step = Step(rng)
    h = step.h
    # The image is Keras' last argument, after the state; built here first
    # only as an operand, so its parameter line is placed last below.
    image_shape = (1, size, size, 3)
    image = h.parameter(image_shape, "data")
    image_line = h.lines.pop()
    h.params.pop()
    y = step.conv_bn(image, 3, 64, 7, 2, relu=True)
    y = step.max_pool(y)
    channels = 64
    for stage, width in enumerate((64, 128, 256, 512)):
        for b in range(2):
            stride = 2 if stage > 0 and b == 0 else 1
            y = step.block(y, channels, width, stride)
            channels = width
    total = h.reduce(y, 0, (1, 2), "add", "reduce_sum")
    pooled = h.binary("divide", total, h.scalar(y.shape[1] * y.shape[2], total.shape), "mean")
    w = step.parameter(rng.standard_normal((512, classes)) * math.sqrt(1.0 / 512), "dense/kernel")
    b = step.parameter(rng.standard_normal(classes) * 0.01, "dense/bias")
    logits = h.add_bias(h.matmul(pooled, w), b)
    step.flops += 2 * 512 * classes
    # The image parameter goes last: renumber it after the weights.
    number = len(h.params)
    h.lines.insert(0, image_line.replace("parameter(0)", f"parameter({number})"))
    h.params.append((image.name, image_shape))
    return step, logits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.Generator(np.random.PCG64(args.seed))
    step, logits = resnet18(rng, args.size)
    os.makedirs(os.path.join(args.out, "inputs"), exist_ok=True)
    with open(os.path.join(args.out, "model.hlo"), "w") as f:
        f.write(step.text(logits))
    np.savez(os.path.join(args.out, "weights.npz"), **step.weights)
    image = rng.uniform(-1, 1, (1, args.size, args.size, 3)).astype(np.float32)
    np.save(os.path.join(args.out, "image.npy"), image)
    for i, array in enumerate(list(step.weights.values()) + [image]):
        np.save(os.path.join(args.out, "inputs", f"input{i}.npy"), array)
    count = sum(a.size for a in step.weights.values())
    print(f"resnet18 {args.size}x{args.size}: {len(step.weights)} weight parameters, "
          f"{count} weights, {step.flops / 1e9:.2f} GFLOP per image")


if __name__ == "__main__":
    main()
