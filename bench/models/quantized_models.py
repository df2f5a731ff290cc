"""The int8 benchmark models, written as a quantized JAX export writes them.

Imported by generate_models.py. Each model is the f32 model of the same name quantized
after training the way TFLite and XNNPACK quantize (MLPerf Tiny's int8 KWS is such a
model): s8 activations with a scale and zero point per tensor, s8 weights with zero
point 0 (one scale per output channel for convolutions, one per tensor for dense
layers and the GEMM), s32 biases. In the HLO each layer is

    acc = dot or convolution(x: s8, w: s8) -> s32
    acc = add(acc, bias)                 s32; the input zero point folded in:
                                         bias - zx * sum_k w[k, c]
    y   = multiply(convert(acc) -> f32, M)   M = f32(sx * sw) / sy, per channel or tensor
    y   = add(round-nearest-even(y), zy)
    y   = convert(clamp(lo, y, hi)) -> s8    lo = zy for a ReLU, hi from ReLU6's 6

which is XNNPACK's fp32 requantization step for step, so XNNPACK's qs8/qc8 operators
compute the same integers (its quantized add rescales in fixed point instead, off by
one at most). Padding is explicit, a `pad` with the input's zero point, as quantized
convolutions pad with the value that stands for 0. Scales come from the f32 model's
activations on the bench input (each tensor's range), computed here with numpy.
"""

import math

import numpy as np


def quantize_range(lo, hi):
    """(scale, zero point) of s8 values covering [lo, hi] (0 always inside)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32(max(hi - lo, 1e-6) / 255.0)
    zero = int(np.clip(round(-128 - lo / float(scale)), -128, 127))
    return scale, zero


def quantize_weights(w, per_channel):
    """Symmetric s8 weights (zero point 0, values in [-127, 127]) and their scale(s)."""
    axes = tuple(range(w.ndim - 1)) if per_channel else None
    peak = np.max(np.abs(w), axis=axes)
    scale = (np.maximum(peak, 1e-8) / 127.0).astype(np.float32)
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    return q, scale


def conv2d_nhwc(x, w, stride, pad, groups=1):
    """f32 reference convolution (NHWC, HWIO), for the calibration pass."""
    x = np.pad(x, ((0, 0), pad[0], pad[1], (0, 0)))
    kh, kw, cin, cout = w.shape
    n, h, wd, c = x.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, cout), np.float64)
    per_group = cout // groups
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i:i + stride * oh:stride, j:j + stride * ow:stride, :]
            if groups == 1:
                out += np.einsum("nhwc,co->nhwo", patch, w[i, j])
            else:  # depthwise: one input feature per group, one output per group
                assert per_group == 1 and cin == 1
                out += patch * w[i, j, 0].reshape(1, 1, 1, cout)
    return out


class QuantizedBuilder:
    """HLO text with typed shapes, in the form generate_models.ModuleBuilder writes."""

    def __init__(self, fp_text, literal_text):
        self.fp_text, self.literal_text = fp_text, literal_text
        self.next_id, self.lines, self.params = 1, [], []

    @staticmethod
    def shape(dtype, dims, layout=True):
        text = f"{dtype}[{','.join(str(d) for d in dims)}]"
        if layout and dims:
            text += "{" + ",".join(str(d) for d in reversed(range(len(dims)))) + "}"
        return text

    def _name(self, base):
        name = f"{base}.{self.next_id}"
        self.next_id += 1
        return name

    def _emit(self, base, dtype, dims, text):
        name = self._name(base)
        self.lines.append(f"  %{name} = {self.shape(dtype, dims)} {text}")
        return (name, dtype, tuple(dims))

    def typed(self, value):
        name, dtype, dims = value
        return f"{self.shape(dtype, dims)} %{name}"

    def parameter(self, dtype, dims, label):
        value = self._emit(f"Arg_{len(self.params)}", dtype, dims,
                           f'parameter({len(self.params)}), metadata={{op_name="{label}"}}')
        self.params.append(value)
        return value

    def constant(self, array, dtype):
        array = np.asarray(array)
        if dtype == "f32":
            body = self.literal_text(array.astype(np.float32))
        else:
            body = integer_literal(array)
        return self._emit("constant", dtype, array.shape, f"constant({body})")

    def op(self, opcode, dtype, dims, operands, attrs=""):
        args = ", ".join(self.typed(v) for v in operands)
        return self._emit(opcode, dtype, dims, f"{opcode}({args})" + (f", {attrs}" if attrs else ""))

    def scalar(self, value, dtype, dims):
        c = self.constant(np.array(value, dtype=np.float32 if dtype == "f32" else np.int64), dtype)
        return self.op("broadcast", dtype, dims, [c], "dimensions={}")

    def bound(self, value):
        """An f32 scalar constant (clamp takes scalar bounds)."""
        return self.constant(np.float32(value), "f32")

    def per_channel(self, array, dtype, dims):
        c = self.constant(array, dtype)
        return self.op("broadcast", dtype, dims, [c], f"dimensions={{{len(dims) - 1}}}")

    def text(self, module_name, root):
        params = ", ".join(self.shape(v[1], v[2]) for v in self.params)
        header = (f"HloModule {module_name}, entry_computation_layout="
                  f"{{({params})->{self.shape(root[1], root[2])}}}\n\n")
        self.lines[-1] = "  ROOT " + self.lines[-1].lstrip()
        signature = ", ".join(f"{v[0]}: {self.shape(v[1], v[2], False)}" for v in self.params)
        return (header + f"ENTRY %main.{self.next_id} ({signature}) -> "
                f"{self.shape(root[1], root[2], False)} {{\n" + "\n".join(self.lines) + "\n}\n")


def integer_literal(array):
    if array.ndim == 0:
        return str(int(array))
    if array.ndim == 1:
        return "{" + ", ".join(str(int(v)) for v in array) + "}"
    return "{ " + ", ".join(integer_literal(sub) for sub in array) + " }"


class QuantizedModel:
    """A model being quantized: the HLO, the weights and inputs the peers read, and each
    tensor's f32 value on the bench input (to size the next tensor's scale)."""

    def __init__(self, name, rng, builder):
        self.name, self.rng, self.hlo = name, rng, builder
        self.weights, self.inputs, self.flops = {}, [], 0

    def input(self, label, dims):
        real = self.rng.uniform(-1.0, 1.0, dims).astype(np.float32)
        scale, zero = quantize_range(-1.0, 1.0)
        q = np.clip(np.round(real / scale) + zero, -128, 127).astype(np.int8)
        self.inputs.append(q)
        self.save_quantization(label, scale, zero)
        value = self.hlo.parameter("s8", dims, label)
        return Tensor(value, (q.astype(np.float64) - zero) * float(scale), scale, zero)

    def save_quantization(self, label, scale, zero):
        self.weights[f"{label}_scale"] = np.array([scale], np.float32)
        self.weights[f"{label}_zero"] = np.array([zero], np.int32)

    def requantize(self, label, acc, acc_real, in_scale, w_scale, activation, dims):
        """The s32 sums `acc` (with bias) rescaled to s8 by the output's range."""
        h = self.hlo
        out_real = acc_real
        if activation in ("relu", "relu6"):
            out_real = np.maximum(out_real, 0)
        if activation == "relu6":
            out_real = np.minimum(out_real, 6)
        lo, hi = float(out_real.min()), float(out_real.max())
        if activation == "relu6":
            lo, hi = 0.0, 6.0
        scale, zero = quantize_range(lo, hi)
        multiplier = (np.float32(in_scale) * np.asarray(w_scale, np.float32)) / scale
        multiplier = multiplier.astype(np.float32)
        self.weights[f"{label}_multiplier"] = np.atleast_1d(multiplier)
        self.save_quantization(label, scale, zero)
        y = h.op("convert", "f32", dims, [acc])
        m = (h.per_channel(multiplier, "f32", dims) if multiplier.ndim
             else h.scalar(float(multiplier), "f32", dims))
        y = h.op("multiply", "f32", dims, [y, m])
        y = h.op("round-nearest-even", "f32", dims, [y])
        y = h.op("add", "f32", dims, [y, h.scalar(zero, "f32", dims)])
        low = zero if activation in ("relu", "relu6") else -128
        high = min(127, zero + int(round(6.0 / float(scale)))) if activation == "relu6" else 127
        self.weights[f"{label}_range"] = np.array([low, high], np.int32)
        y = h.op("clamp", "f32", dims, [h.bound(low), y, h.bound(high)])
        q = h.op("convert", "s8", dims, [y])
        real = (np.clip(np.round(out_real / float(scale)) + zero, low, high) - zero) * float(scale)
        return Tensor(q, real, scale, zero)

    def biased(self, label, acc, dims, bias_real, x, w_q, w_scale, sum_axes):
        """acc + the s32 bias, the input zero point folded in."""
        h = self.hlo
        bias_q = np.round(bias_real / (float(x.scale) * w_scale.astype(np.float64)))
        bias_q = (bias_q - x.zero * w_q.astype(np.int64).sum(axis=sum_axes)).astype(np.int64)
        self.weights[f"{label}_b"] = bias_q.astype(np.int32)
        return h.op("add", "s32", dims, [acc, h.per_channel(bias_q, "s32", dims)])

    def dense(self, x, label, n_out, activation=None):
        n_in = x.dims[-1]
        w = self.rng.standard_normal((n_in, n_out)) * math.sqrt(2.0 / n_in)
        b = self.rng.standard_normal(n_out) * 0.1
        w_q, w_scale = quantize_weights(w, per_channel=False)
        self.weights[f"{label}_w"] = w_q
        self.weights[f"{label}_w_scale"] = np.array([w_scale], np.float32)
        dims = x.dims[:-1] + (n_out,)
        h = self.hlo
        acc = h.op("dot", "s32", dims, [x.value, h.constant(w_q, "s8")],
                   f"lhs_contracting_dims={{{len(x.dims) - 1}}}, rhs_contracting_dims={{0}}")
        acc = self.biased(label, acc, dims, b, x, w_q, np.float32(w_scale), 0)
        self.flops += 2 * math.prod(x.dims[:-1]) * n_in * n_out
        real = x.real @ (w_q.astype(np.float64) * float(w_scale)) + b
        return self.requantize(label, acc, real, x.scale, w_scale, activation, dims)

    def conv(self, x, label, kernel, stride, pad, groups=1, activation=None):
        kh, kw, cin, cout = kernel
        w = self.rng.standard_normal(kernel) * math.sqrt(2.0 / (kh * kw * cin))
        b = self.rng.standard_normal(cout) * 0.1
        w_q, w_scale = quantize_weights(w, per_channel=True)
        self.weights[f"{label}_w"] = w_q
        self.weights[f"{label}_w_scale"] = w_scale
        h = self.hlo
        value, dims = x.value, x.dims
        if any(p for side in pad for p in side):
            # Quantized padding holds the value that stands for 0.
            dims = (dims[0], dims[1] + sum(pad[0]), dims[2] + sum(pad[1]), dims[3])
            padding = f"padding=0_0x{pad[0][0]}_{pad[0][1]}x{pad[1][0]}_{pad[1][1]}x0_0"
            value = h.op("pad", "s8", dims, [value, h.constant(np.int8(x.zero), "s8")], padding)
        oh = (dims[1] - kh) // stride + 1
        ow = (dims[2] - kw) // stride + 1
        out_dims = (dims[0], oh, ow, cout)
        window = f"size={kh}x{kw}" + (f" stride={stride}x{stride}" if stride != 1 else "")
        attrs = f"window={{{window}}}, dim_labels=b01f_01io->b01f"
        if groups > 1:
            attrs += f", feature_group_count={groups}"
        acc = h.op("convolution", "s32", out_dims, [value, h.constant(w_q, "s8")], attrs)
        acc = self.biased(label, acc, out_dims, b, x, w_q, w_scale, (0, 1, 2))
        self.flops += 2 * math.prod(out_dims) * kh * kw * cin
        real = conv2d_nhwc(x.real, w_q.astype(np.float64) * w_scale, stride, pad, groups) + b
        return self.requantize(label, acc, real, x.scale, w_scale, activation, out_dims)

    def global_average_pool(self, x, label):
        """Mean over the spatial dimensions, as XNNPACK's qs8 global average pooling."""
        h = self.hlo
        n, height, width, c = x.dims
        count = height * width
        wide = h.op("convert", "s32", x.dims, [x.value])
        zero = h.constant(np.int64(0), "s32")
        total = h.op("reduce", "s32", (n, c), [wide, zero],
                     "dimensions={1,2}, to_apply=%region_add")
        total = h.op("add", "s32", (n, c), [total, h.scalar(-count * x.zero, "s32", (n, c))])
        real = x.real.mean(axis=(1, 2))
        scale, zero_out = quantize_range(float(real.min()), float(real.max()))
        multiplier = np.float32(np.float32(x.scale) / scale) / np.float32(count)
        self.save_quantization(label, scale, zero_out)
        y = h.op("convert", "f32", (n, c), [total])
        y = h.op("multiply", "f32", (n, c), [y, h.scalar(float(multiplier), "f32", (n, c))])
        y = h.op("round-nearest-even", "f32", (n, c), [y])
        y = h.op("add", "f32", (n, c), [y, h.scalar(zero_out, "f32", (n, c))])
        y = h.op("clamp", "f32", (n, c), [h.bound(-128), y, h.bound(127)])
        q = h.op("convert", "s8", (n, c), [y])
        out = (np.clip(np.round(real / float(scale)) + zero_out, -128, 127) - zero_out) * scale
        return Tensor(q, out, scale, zero_out)

    def add(self, a, b, label):
        """a + b requantized: each dequantized to f32, summed, rescaled."""
        h = self.hlo
        real = a.real + b.real
        scale, zero = quantize_range(float(real.min()), float(real.max()))
        self.save_quantization(label, scale, zero)
        dims = a.dims
        terms = []
        for t in (a, b):
            f = h.op("convert", "f32", dims, [t.value])
            f = h.op("subtract", "f32", dims, [f, h.scalar(t.zero, "f32", dims)])
            terms.append(h.op("multiply", "f32", dims,
                              [f, h.scalar(float(np.float32(t.scale) / scale), "f32", dims)]))
        y = h.op("add", "f32", dims, terms)
        y = h.op("round-nearest-even", "f32", dims, [y])
        y = h.op("add", "f32", dims, [y, h.scalar(zero, "f32", dims)])
        y = h.op("clamp", "f32", dims, [h.bound(-128), y, h.bound(127)])
        q = h.op("convert", "s8", dims, [y])
        out = (np.clip(np.round(real / float(scale)) + zero, -128, 127) - zero) * scale
        return Tensor(q, out, scale, zero)


class Tensor:
    """An s8 value in the HLO, its f32 meaning on the bench input, and its quantization."""

    def __init__(self, value, real, scale, zero):
        self.value, self.real, self.scale, self.zero = value, real, scale, zero
        self.dims = value[2]


def mlp_int8(model):
    x = model.input("x", (1, 784))
    h = model.dense(x, "fc1", 256, "relu")
    h = model.dense(h, "fc2", 128, "relu")
    return model.dense(h, "fc3", 10), "jit_mlp_int8"


def ds_cnn_int8(model):
    x = model.input("mfcc", (1, 49, 10, 1))
    y = model.conv(x, "conv1", (10, 4, 1, 64), 2, ((4, 5), (1, 1)), activation="relu")
    for block in range(1, 5):
        y = model.conv(y, f"dw{block}", (3, 3, 1, 64), 1, ((1, 1), (1, 1)), groups=64,
                       activation="relu")
        y = model.conv(y, f"pw{block}", (1, 1, 64, 64), 1, ((0, 0), (0, 0)), activation="relu")
    pooled = model.global_average_pool(y, "pool")
    return model.dense(pooled, "fc", 12), "jit_ds_cnn_int8"


def mobilenet_block_int8(model):
    x = model.input("x", (1, 56, 56, 24))
    y = model.conv(x, "expand", (1, 1, 24, 144), 1, ((0, 0), (0, 0)), activation="relu6")
    y = model.conv(y, "depthwise", (3, 3, 1, 144), 1, ((1, 1), (1, 1)), groups=144,
                   activation="relu6")
    y = model.conv(y, "project", (1, 1, 144, 24), 1, ((0, 0), (0, 0)))
    return model.add(x, y, "residual"), "jit_inverted_residual_int8"


def gemm_int8(model):
    a = model.input("a", (512, 512))
    model.flops = 2 * 512 ** 3
    return model.dense(a, "b", 512), "jit_gemm_int8"


MODELS = {"mlp-int8": mlp_int8, "ds-cnn-int8": ds_cnn_int8,
          "mobilenet-block-int8": mobilenet_block_int8, "gemm-int8": gemm_int8}


def build(name, rng, fp_text, literal_text):
    """The model `name`: (model, root tensor, module name, HLO text)."""
    builder = QuantizedBuilder(fp_text, literal_text)
    model = QuantizedModel(name, rng, builder)
    root, module_name = MODELS[name](model)
    text = builder.text(module_name, root.value)
    if "%region_add" in text:
        text = text.replace("ENTRY", "%region_add (a: s32[], b: s32[]) -> s32[] {\n"
                            "  %a = s32[] parameter(0)\n  %b = s32[] parameter(1)\n"
                            "  ROOT %sum = s32[] add(s32[] %a, s32[] %b)\n}\n\nENTRY", 1)
    return model, root, module_name, text
