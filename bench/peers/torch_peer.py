#!/usr/bin/env python3
"""The benchmark models in PyTorch (eager, inference mode), same interface as the C++ peers.

  torch_peer.py --model NAME --dir MODEL_DIR [--threads K] [--bench N] [--output y.npy] | --info

Prints `latency_ms min=<x> median=<y> runs=<N>` like `mote-run --bench`: one warm-up,
then N timed inferences. Weights are read from the model folder and put in PyTorch's
layouts once (dense [in, out] -> [out, in]; convolutions HWIO -> OIHW). Activations stay
NHWC in memory: the timed inference views the input as NCHW with channels-last strides
(a permute, no copy), so PyTorch's channels-last convolutions run on it, and views the
result back as NHWC.
"""

import argparse
import os
import re
import sys
import time


def _threads_in_argv(argv):
    for i, arg in enumerate(argv[:-1]):
        if arg == "--threads":
            return argv[i + 1]
    return "1"


# PyTorch's BLAS (OpenBLAS on Debian) sizes its own thread pool when loaded, one
# thread a core unless told: give it the --threads count, as torch.set_num_threads
# does not reach it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", _threads_in_argv(sys.argv))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def load(folder, name):
    return torch.from_numpy(np.load(os.path.join(folder, name + ".npy")))


def dense_weights(folder, label):
    return load(folder, label + "_w").t().contiguous(), load(folder, label + "_b")


def conv_weights(folder, label):
    w = load(folder, label + "_w").permute(3, 2, 0, 1)  # HWIO -> OIHW
    return w.contiguous(memory_format=torch.channels_last), load(folder, label + "_b")


def mlp(folder):
    layers = [dense_weights(folder, f"fc{i}") for i in (1, 2, 3)]

    def infer(x):
        for i, (w, b) in enumerate(layers):
            x = F.linear(x, w, b)
            if i < 2:
                x = F.relu(x)
        return x
    return infer


def ds_cnn(folder):
    conv1 = conv_weights(folder, "conv1")
    blocks = [(conv_weights(folder, f"dw{i}"), conv_weights(folder, f"pw{i}")) for i in range(1, 5)]
    fc = dense_weights(folder, "fc")

    def infer(x):
        y = x.permute(0, 3, 1, 2)  # NHWC memory seen as NCHW, channels-last
        y = F.relu(F.conv2d(F.pad(y, (1, 1, 4, 5)), *conv1, stride=2))
        for (dw, pw) in blocks:
            y = F.relu(F.conv2d(y, *dw, padding=1, groups=y.shape[1]))
            y = F.relu(F.conv2d(y, *pw))
        return F.linear(y.mean(dim=(2, 3)), *fc)
    return infer


def mobilenet_block(folder):
    expand, depthwise, project = (conv_weights(folder, n) for n in ("expand", "depthwise", "project"))

    def infer(x):
        y = x.permute(0, 3, 1, 2)
        h = F.relu6(F.conv2d(y, *expand))
        h = F.relu6(F.conv2d(h, *depthwise, padding=1, groups=h.shape[1]))
        return (F.conv2d(h, *project) + y).permute(0, 2, 3, 1)
    return infer


def transformer(folder):
    heads = 4
    q, k, v, o, f1, f2 = (dense_weights(folder, n) for n in ("q", "k", "v", "o", "ffn1", "ffn2"))
    ln1 = (load(folder, "ln1_gamma"), load(folder, "ln1_beta"))
    ln2 = (load(folder, "ln2_gamma"), load(folder, "ln2_beta"))

    def infer(x):
        seq, d = x.shape

        def split(t):  # [seq, d] -> [heads, seq, d / heads]
            return t.view(seq, heads, d // heads).transpose(0, 1)
        qh, kh, vh = split(F.linear(x, *q)), split(F.linear(x, *k)), split(F.linear(x, *v))
        scores = torch.matmul(qh, kh.transpose(1, 2)) * (1.0 / (d // heads) ** 0.5)
        context = torch.matmul(torch.softmax(scores, dim=-1), vh)
        context = context.transpose(0, 1).reshape(seq, d)
        y1 = F.layer_norm(x + F.linear(context, *o), (d,), *ln1, eps=1e-5)
        h = F.gelu(F.linear(y1, *f1), approximate="tanh")
        return F.layer_norm(y1 + F.linear(h, *f2), (d,), *ln2, eps=1e-5)
    return infer


def gemm(folder):
    return lambda a, b: torch.matmul(a, b)


MODELS = {"mlp": mlp, "mlp-batch64": mlp, "ds-cnn": ds_cnn, "mobilenet-block": mobilenet_block,
          "transformer": transformer, "gemm": gemm}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model")
    parser.add_argument("--dir")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--bench", type=int, default=0)
    parser.add_argument("--output")
    parser.add_argument("--info", action="store_true")
    args = parser.parse_args()
    if args.info:
        capability = re.search(r"CPU capability usage: (\S+)", torch.__config__.show())
        with open("/proc/self/maps") as maps:
            libs = sorted({line.split()[-1] for line in maps if "libtorch_cpu" in line})
        print(f"models={','.join(sorted(MODELS))} torch={torch.__version__} "
              f"aten={capability.group(1) if capability else '?'} "
              f"mkldnn={torch.backends.mkldnn.is_available()} lib={libs[0] if libs else '?'}")
        return
    if args.model not in MODELS or not args.dir:
        parser.error("--model (one of " + ", ".join(MODELS) + ") and --dir are needed")
    torch.set_num_threads(args.threads)
    inputs = []
    for name in sorted(f for f in os.listdir(args.dir) if f.startswith("input_")):
        inputs.append(load(args.dir, name[:-4]))
    with torch.inference_mode():
        infer = MODELS[args.model](args.dir)
        out = infer(*inputs)  # warm-up
        times = []
        for _ in range(args.bench):
            start = time.perf_counter()
            out = infer(*inputs)
            times.append((time.perf_counter() - start) * 1e3)
    if times:
        times.sort()
        n = len(times)
        median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
        print(f"latency_ms min={times[0]:.4f} median={median:.4f} runs={n}")
    if args.output:
        np.save(args.output, out.contiguous().numpy())


if __name__ == "__main__":
    main()
