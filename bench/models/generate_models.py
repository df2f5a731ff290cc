#!/usr/bin/env python3
"""Writes the benchmark models as HLO text, with their weights and inputs as .npy.

  generate_models.py OUT_DIR [--seed S]

For each model NAME in mlp, ds-cnn, mobilenet-block, transformer, gemm, mlp-batch64, each
of them in half precision, NAME-f16 and NAME-bf16 (every value of that type: inputs,
weights, activations; the same weights as the f32 model, rounded), and the int8 models of
quantized_models.py (mlp-int8, ds-cnn-int8, mobilenet-block-int8, gemm-int8):

  OUT_DIR/NAME/model.hlo      the module as XLA/JAX print it (typed operands, layouts,
                              entry_computation_layout, metadata, weights as constants)
  OUT_DIR/NAME/input_0.npy    the entry parameters, in order (float32)
  OUT_DIR/NAME/<weight>.npy   every constant tensor, in the layout the HLO holds it
                              (dots: [in, out]; convolutions: HWIO), for the peers
  OUT_DIR/NAME/manifest.json  inputs, weights, output shape and FLOPs per inference

Weights come from numpy's PCG64 with a fixed seed, so every run writes the same files.
Batch norm is folded into the convolution weights and biases, as exported models have it.
Constants are printed the way XLA prints f32 literals (%.6g, or %.9g when six digits do
not round-trip), so the .npy files hold exactly the values the HLO does.
"""

import argparse
import json
import math
import os

import numpy as np

import quantized_models

SOURCE_FILE = "/tmp/bench_models.py"


def to_bf16(array):
    """float32 values rounded to bf16 (nearest even), kept as float32."""
    bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32).reshape(np.shape(array))


def rounded(array, dtype):
    """`array` as the values of `dtype` hold it: float16 for f16, float32 otherwise."""
    array = np.asarray(array, dtype=np.float32)
    if dtype == "f16":
        return array.astype(np.float16)
    return to_bf16(array) if dtype == "bf16" else array


def fp_text(value):
    """An f32 value as XLA's literal printer writes it (tsl FloatToBuffer)."""
    value = np.float32(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = "%.6g" % value
    if np.float32(float(text)) != value:
        text = "%.9g" % value
    return text


def literal_text(array):
    """The body of constant(...) for an array: {1, 2}, { {1, 2}, {3, 4} }, ..."""
    if array.ndim == 0:
        return fp_text(array)
    if array.ndim == 1:
        return "{" + ", ".join(fp_text(v) for v in array) + "}"
    return "{ " + ", ".join(literal_text(sub) for sub in array) + " }"


def shape_text(shape, layout=True, dtype="f32"):
    dims = ",".join(str(d) for d in shape)
    if not layout or len(shape) == 0:
        return f"{dtype}[{dims}]"
    minor_to_major = ",".join(str(d) for d in reversed(range(len(shape))))
    return f"{dtype}[{dims}]{{{minor_to_major}}}"


class Value:
    def __init__(self, name, shape, dtype="f32"):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    def typed(self):
        return f"{shape_text(self.shape, dtype=self.dtype)} %{self.name}"


class ModuleBuilder:
    """Builds one HLO module in the text form XLA prints with typed operands."""

    def __init__(self, function, dtype="f32"):
        self.function = function
        self.dtype = dtype
        self.next_id = 1
        self.lines = []
        self.params = []
        self.regions = {}
        self.region_text = []
        self.line = 1

    def _name(self, base):
        name = f"{base}.{self.next_id}"
        self.next_id += 1
        return name

    def _meta(self, op_name):
        if not op_name:
            return ""
        self.line += 1
        return (f', metadata={{op_name="jit({self.function})/jit(main)/{op_name}" '
                f'source_file="{SOURCE_FILE}" source_line={self.line}}}')

    def parameter(self, shape, label):
        name = self._name(f"Arg_{len(self.params)}")
        self.params.append((name, shape))
        self.lines.append(f"  %{name} = {shape_text(shape, dtype=self.dtype)} "
                          f"parameter({len(self.params) - 1}), "
                          f'metadata={{op_name="{label}"}}')
        return Value(name, shape, self.dtype)

    def constant(self, array):
        array = rounded(array, self.dtype).astype(np.float32)
        name = self._name("constant")
        self.lines.append(f"  %{name} = {shape_text(array.shape, dtype=self.dtype)} "
                          f"constant({literal_text(array)})")
        return Value(name, array.shape, self.dtype)

    def op(self, opcode, shape, operands, attrs="", op_name=None):
        name = self._name(opcode)
        args = ", ".join(v.typed() for v in operands)
        extra = f", {attrs}" if attrs else ""
        self.lines.append(f"  %{name} = {shape_text(shape, dtype=self.dtype)} {opcode}({args})"
                          f"{extra}{self._meta(op_name)}")
        return Value(name, shape, self.dtype)

    def region(self, opcode):
        """A scalar binary computation (add, maximum) for reduce's to_apply."""
        if opcode not in self.regions:
            index = len(self.regions)
            a, b = self._name("Arg_0"), self._name("Arg_1")
            root = self._name(opcode)
            name = f"region_{index}.{self.next_id}"
            self.next_id += 1
            t = self.dtype
            self.region_text.append(
                f"%{name} ({a}: {t}[], {b}: {t}[]) -> {t}[] {{\n"
                f"  %{a} = {t}[] parameter(0)\n"
                f"  %{b} = {t}[] parameter(1)\n"
                f"  ROOT %{root} = {t}[] {opcode}({t}[] %{a}, {t}[] %{b})\n"
                f"}}\n")
            self.regions[opcode] = name
        return self.regions[opcode]

    # Shorthands for the ops the models use.
    def scalar(self, value, shape):
        c = self.constant(np.float32(value))
        return self.broadcast(c, shape, ())

    def broadcast(self, value, shape, dims, op_name=None):
        dims_text = ",".join(str(d) for d in dims)
        return self.op("broadcast", shape, [value], f"dimensions={{{dims_text}}}", op_name)

    def binary(self, opcode, a, b, op_name):
        return self.op(opcode, a.shape, [a, b], op_name=op_name)

    def unary(self, opcode, a, op_name):
        return self.op(opcode, a.shape, [a], op_name=op_name)

    def reduce(self, a, init, dims, opcode, op_name):
        shape = [d for i, d in enumerate(a.shape) if i not in dims]
        zero = self.constant(np.float32(init))
        dims_text = ",".join(str(d) for d in dims)
        return self.op("reduce", shape, [a, zero],
                       f"dimensions={{{dims_text}}}, to_apply=%{self.region(opcode)}", op_name)

    def dot(self, a, b, shape, dims, op_name="dot_general"):
        return self.op("dot", shape, [a, b], dims, op_name)

    def matmul(self, a, w):
        shape = a.shape[:-1] + w.shape[1:]
        return self.dot(a, w, shape, f"lhs_contracting_dims={{{len(a.shape) - 1}}}, "
                        "rhs_contracting_dims={0}",
                        "dot_general[dimension_numbers=(([1], [0]), ([], []))]")

    def add_bias(self, a, bias):
        b = self.broadcast(bias, a.shape, (len(a.shape) - 1,), "add")
        return self.binary("add", a, b, "add")

    def conv(self, x, kernel, stride, pad, groups=1):
        """NHWC x HWIO convolution with explicit padding ((top, bottom), (left, right))."""
        n, h, w, _ = x.shape
        kh, kw, _, out = kernel.shape
        oh = (h + pad[0][0] + pad[0][1] - kh) // stride + 1
        ow = (w + pad[1][0] + pad[1][1] - kw) // stride + 1
        window = f"size={kh}x{kw}"
        if stride != 1:
            window += f" stride={stride}x{stride}"
        if any(p for side in pad for p in side):
            window += f" pad={pad[0][0]}_{pad[0][1]}x{pad[1][0]}_{pad[1][1]}"
        attrs = f"window={{{window}}}, dim_labels=b01f_01io->b01f"
        if groups > 1:
            attrs += f", feature_group_count={groups}"
        return self.op("convolution", (n, oh, ow, out), [x, kernel], attrs,
                       "conv_general_dilated[window_strides=({0}, {0})]".format(stride))

    def text(self, module_name, root):
        t = self.dtype
        params = ", ".join(shape_text(s, dtype=t) for _, s in self.params)
        header = (f"HloModule {module_name}, entry_computation_layout="
                  f"{{({params})->{shape_text(root.shape, dtype=t)}}}\n\n")
        self.lines[-1] = "  ROOT " + self.lines[-1].lstrip()
        signature = ", ".join(f"{n}: {shape_text(s, False, t)}" for n, s in self.params)
        entry = (f"ENTRY %main.{self.next_id} ({signature}) -> {shape_text(root.shape, False, t)} "
                 "{\n"
                 + "\n".join(self.lines) + "\n}\n\n")
        return header + "".join(r + "\n" for r in self.region_text) + entry


class Model:
    """Weights, inputs and the HLO of one benchmark model."""

    def __init__(self, name, function, rng, dtype="f32"):
        self.name, self.rng, self.dtype = name, rng, dtype
        self.hlo = ModuleBuilder(function, dtype)
        self.weights = {}
        self.inputs = []
        self.flops = 0

    def weight(self, label, shape, scale):
        array = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return self.named(label, array)

    def named(self, label, array):
        self.weights[label] = rounded(array, self.dtype)
        return self.hlo.constant(self.weights[label])

    def input(self, label, shape, scale=1.0):
        array = rounded(self.rng.uniform(-scale, scale, shape), self.dtype)
        self.inputs.append(array)
        return self.hlo.parameter(shape, label)

    def dense(self, x, label, n_in, n_out, relu=None):
        w = self.weight(f"{label}_w", (n_in, n_out), math.sqrt(2.0 / n_in))
        b = self.weight(f"{label}_b", (n_out,), 0.1)
        y = self.hlo.add_bias(self.hlo.matmul(x, w), b)
        self.flops += 2 * math.prod(x.shape[:-1]) * n_in * n_out
        return self.activation(y, relu)

    def conv(self, x, label, kernel, stride, pad, groups=1, relu=None):
        """Convolution + bias (batch norm folded in: scale the kernel, shift the bias)."""
        kh, kw, cin, cout = kernel
        w = self.rng.standard_normal(kernel) * math.sqrt(2.0 / (kh * kw * cin))
        gamma = self.rng.uniform(0.8, 1.2, cout)
        beta = self.rng.standard_normal(cout) * 0.1
        mean = self.rng.standard_normal(cout) * 0.1
        var = self.rng.uniform(0.5, 1.5, cout)
        scale = gamma / np.sqrt(var + 1e-3)
        y = self.hlo.conv(x, self.named(f"{label}_w", w * scale), stride, pad, groups)
        y = self.hlo.add_bias(y, self.named(f"{label}_b", beta - mean * scale))
        self.flops += 2 * math.prod(y.shape) * kh * kw * cin
        return self.activation(y, relu)

    def activation(self, y, kind):
        h = self.hlo
        if kind in ("relu", "relu6"):
            y = h.binary("maximum", y, h.scalar(0, y.shape), "max")
        if kind == "relu6":
            y = h.binary("minimum", y, h.scalar(6, y.shape), "min")
        return y

    def write(self, out_dir, root, module_name):
        write_model(out_dir, self.name, self.hlo.text(module_name, root), self.inputs,
                    self.weights, {"output_shape": list(root.shape), "flops": self.flops})


def write_model(out_dir, name, text, inputs, weights, manifest):
    """OUT_DIR/NAME: the HLO, input_<i>.npy, <weight>.npy and manifest.json (`manifest`
    plus the name and the files)."""
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "model.hlo"), "w") as f:
        f.write(text)
    names = []
    for i, array in enumerate(inputs):
        names.append(f"input_{i}.npy")
        np.save(os.path.join(folder, names[-1]), array)
    for label, array in weights.items():
        np.save(os.path.join(folder, f"{label}.npy"), array)
    manifest = {"name": name, "inputs": names, "weights": sorted(weights), **manifest}
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


def variant(name, dtype):
    """A model's name in `dtype`: the f32 name, or NAME-f16 / NAME-bf16."""
    return name if dtype == "f32" else f"{name}-{dtype}"


def dense_stack(rng, dtype, name, rows, sizes):
    """Dense layers of `sizes` (relu between them) over `rows` input rows."""
    m = Model(variant(name, dtype), "mlp", rng, dtype)
    h = m.input("x", (rows, sizes[0]))
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        last = i == len(sizes) - 2
        h = m.dense(h, f"fc{i + 1}", n_in, n_out, None if last else "relu")
    return m, h, "jit_mlp"


def mlp(rng, dtype):
    return dense_stack(rng, dtype, "mlp", 1, [784, 256, 128, 10])


def mlp_batch64(rng, dtype):
    """The MLP of XNNPACK's arm64 comparison: 64 rows of 784-512-512-10."""
    return dense_stack(rng, dtype, "mlp-batch64", 64, [784, 512, 512, 10])


def ds_cnn(rng, dtype):
    """DS-CNN (Hello Edge) keyword spotting: 49x10 MFCC in, 12 classes out."""
    m = Model(variant("ds-cnn", dtype), "ds_cnn", rng, dtype)
    h = m.hlo
    x = m.input("mfcc", (1, 49, 10, 1))
    # SAME padding for a 10x4 window at stride 2 over 49x10: 4_5 rows, 1_1 columns.
    y = m.conv(x, "conv1", (10, 4, 1, 64), 2, ((4, 5), (1, 1)), relu="relu")
    for block in range(1, 5):
        y = m.conv(y, f"dw{block}", (3, 3, 1, 64), 1, ((1, 1), (1, 1)), groups=64, relu="relu")
        y = m.conv(y, f"pw{block}", (1, 1, 64, 64), 1, ((0, 0), (0, 0)), relu="relu")
    total = h.reduce(y, 0, (1, 2), "add", "reduce_sum[axes=(1, 2)]")
    count = y.shape[1] * y.shape[2]
    pooled = h.binary("divide", total, h.scalar(count, total.shape), "div")
    return m, m.dense(pooled, "fc", 64, 12), "jit_ds_cnn"


def mobilenet_block(rng, dtype):
    """MobileNetV2 inverted residual: 1x1 expand x6, 3x3 depthwise, 1x1 project, add."""
    m = Model(variant("mobilenet-block", dtype), "inverted_residual", rng, dtype)
    x = m.input("x", (1, 56, 56, 24))
    y = m.conv(x, "expand", (1, 1, 24, 144), 1, ((0, 0), (0, 0)), relu="relu6")
    y = m.conv(y, "depthwise", (3, 3, 1, 144), 1, ((1, 1), (1, 1)), groups=144, relu="relu6")
    y = m.conv(y, "project", (1, 1, 144, 24), 1, ((0, 0), (0, 0)))
    return m, m.hlo.binary("add", x, y, "add"), "jit_inverted_residual"


def layer_norm(m, x, label):
    h = m.hlo
    rows, width = x.shape
    gamma = m.named(f"{label}_gamma", 1.0 + 0.1 * m.rng.standard_normal(width))
    beta = m.named(f"{label}_beta", 0.1 * m.rng.standard_normal(width))
    mean = h.binary("divide", h.reduce(x, 0, (1,), "add", "reduce_sum[axes=(1,)]"),
                    h.scalar(width, (rows,)), "div")
    centered = h.binary("subtract", x, h.broadcast(mean, x.shape, (0,)), "sub")
    square = h.binary("multiply", centered, centered, "integer_pow[y=2]")
    var = h.binary("divide", h.reduce(square, 0, (1,), "add", "reduce_sum[axes=(1,)]"),
                   h.scalar(width, (rows,)), "div")
    var = h.binary("add", var, h.scalar(1e-5, (rows,)), "add")
    rstd = h.unary("rsqrt", var, "rsqrt")
    y = h.binary("multiply", centered, h.broadcast(rstd, x.shape, (0,)), "mul")
    y = h.binary("multiply", y, h.broadcast(gamma, x.shape, (1,)), "mul")
    return h.binary("add", y, h.broadcast(beta, x.shape, (1,)), "add")


def transformer(rng, dtype):
    """One post-LN encoder layer: seq 128, d_model 256, 4 heads, FFN 1024, GELU (tanh)."""
    seq, d, heads, ffn = 128, 256, 4, 1024
    dh = d // heads
    m = Model(variant("transformer", dtype), "encoder_layer", rng, dtype)
    h = m.hlo
    x = m.input("x", (seq, d))
    split = {}
    for p in ("q", "k", "v"):
        y = m.dense(x, p, d, d)
        split[p] = h.op("reshape", (seq, heads, dh), [y], op_name="reshape")
    scores = h.dot(split["q"], split["k"], (heads, seq, seq),
                   "lhs_batch_dims={1}, lhs_contracting_dims={2}, "
                   "rhs_batch_dims={1}, rhs_contracting_dims={2}",
                   "dot_general[dimension_numbers=(([2], [2]), ([1], [1]))]")
    scores = h.binary("multiply", scores, h.scalar(1.0 / math.sqrt(dh), scores.shape), "mul")
    top = h.reduce(scores, float("-inf"), (2,), "maximum", "reduce_max[axes=(2,)]")
    shifted = h.binary("subtract", scores, h.broadcast(top, scores.shape, (0, 1)), "sub")
    exps = h.unary("exponential", shifted, "exp")
    total = h.reduce(exps, 0, (2,), "add", "reduce_sum[axes=(2,)]")
    probs = h.binary("divide", exps, h.broadcast(total, scores.shape, (0, 1)), "div")
    context = h.dot(probs, split["v"], (heads, seq, dh),
                    "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                    "rhs_batch_dims={1}, rhs_contracting_dims={0}",
                    "dot_general[dimension_numbers=(([2], [0]), ([0], [1]))]")
    m.flops += 2 * 2 * heads * seq * seq * dh
    context = h.op("transpose", (seq, heads, dh), [context], "dimensions={1,0,2}",
                   "transpose[permutation=(1, 0, 2)]")
    context = h.op("reshape", (seq, d), [context], op_name="reshape")
    attended = m.dense(context, "o", d, d)
    y1 = layer_norm(m, h.binary("add", x, attended, "add"), "ln1")
    f = m.dense(y1, "ffn1", d, ffn)
    # jax.nn.gelu(approximate=True): x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
    cube = h.binary("multiply", f, h.binary("multiply", f, f, "integer_pow[y=3]"),
                    "integer_pow[y=3]")
    inner = h.binary("add", f, h.binary("multiply", cube, h.scalar(0.044715, f.shape), "mul"),
                     "add")
    inner = h.binary("multiply", inner, h.scalar(math.sqrt(2 / math.pi), f.shape), "mul")
    cdf = h.binary("add", h.unary("tanh", inner, "tanh"), h.scalar(1, f.shape), "add")
    cdf = h.binary("multiply", cdf, h.scalar(0.5, f.shape), "mul")
    gelu = h.binary("multiply", f, cdf, "mul")
    g = m.dense(gelu, "ffn2", ffn, d)
    return m, layer_norm(m, h.binary("add", y1, g, "add"), "ln2"), "jit_encoder_layer"


def gemm(rng, dtype):
    m = Model(variant("gemm", dtype), "gemm", rng, dtype)
    a = m.input("a", (512, 512))
    b = m.input("b", (512, 512))
    m.flops = 2 * 512 ** 3
    return m, m.hlo.matmul(a, b), "jit_gemm"


MODELS = {"mlp": mlp, "ds-cnn": ds_cnn, "mobilenet-block": mobilenet_block,
          "transformer": transformer, "gemm": gemm, "mlp-batch64": mlp_batch64}


def write_quantized(out_dir, name, rng):
    """An int8 model of quantized_models.py: its HLO, s8 inputs, weights and quantization
    parameters in their own types, and a manifest that allows its peers one unit in the
    last place (XNNPACK's quantized add rescales in fixed point)."""
    model, root, module_name, text = quantized_models.build(name, rng, fp_text, literal_text)
    write_model(out_dir, name, text, model.inputs, model.weights,
                {"output_shape": list(root.dims), "flops": model.flops,
                 "output_scale": float(root.scale), "output_zero": root.zero,
                 "peer_tolerance_units": 1})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args()
    for name in args.models.split(","):
        # One generator a model, so each model's weights depend on no other model
        # (and the half-precision variants hold the f32 weights, rounded).
        if name in quantized_models.MODELS:
            index = len(MODELS) + list(quantized_models.MODELS).index(name)
            write_quantized(args.out_dir, name, np.random.default_rng([args.seed, index]))
            continue
        base, dtype = name, "f32"
        for half in ("f16", "bf16"):
            if name.endswith("-" + half):
                base, dtype = name[:-len(half) - 1], half
        if base not in MODELS:
            parser.error(f"unknown model '{name}'")
        index = list(MODELS).index(base)
        model, root, module_name = MODELS[base](np.random.default_rng([args.seed, index]), dtype)
        model.write(args.out_dir, root, module_name)


if __name__ == "__main__":
    main()
