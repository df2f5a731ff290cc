"""DS-CNN on Cortex-M4 and Cortex-M55 under qemu-system-arm: Mote against CMSIS-NN.

For each board (mps2-an386: Cortex-M4 with the DSP extension; mps3-an547: Cortex-M55 with
Helium) and each of ds-cnn-int8 and ds-cnn (f32) of bench/models, two firmware images run
the model:

- Mote: `motec compile --target=thumbv7em-none-eabihf --cpu=cortex-m4` (or
  thumbv8.1m.main-none-eabihf, cortex-m55) into an object, called by a small C driver
  (peers/mote_firmware.c) with its arena as a static array;
- CMSIS-NN (../shared/peers/cmsis-nn, Apache-2.0), compiled here with arm-none-eabi-gcc
  -O3 into a library: for int8 its s8 kernels, driven by peers/cmsis_nn_ds_cnn.c with the
  same weights, biases and scales (per-channel multipliers and shifts as TFLite derives
  them); for f32 its float kernels (ARM_NN_ENABLE_F32), driven by
  peers/cmsis_nn_ds_cnn_f32.c with the same weights.

Both are linked with picolibc and run under qemu-system-arm with semihosting; the
qemu-icount plugin counts guest instructions of an image that runs the network once and
of one that runs it twice, and the difference is one inference. Memory: Mote's arena
(motec report) against CMSIS-NN's buffers (two activation buffers and the largest
context buffer any kernel asked for, as the firmware prints).

GCC 12's arm_mve.h rejects CMSIS-NN's polymorphic vaddq(uint32x4_t, uint32_t) in two f32
files: the f32 library is built from copies that spell it vaddq_n_u32.
"""

import glob
import json
import math
import os
import re
import subprocess

import numpy as np

from engines import PEERS, ROOT, RunError, compile_if_stale, relative_error, run

CMSIS_NN = os.path.join(os.path.dirname(ROOT), "shared", "peers", "cmsis-nn")

# cpu: (triple, gcc flags, QEMU machine, flash, flash size, RAM, RAM size)
BOARDS = {
    "cortex-m4": ("thumbv7em-none-eabihf", ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard",
                                            "-mfpu=fpv4-sp-d16"],
                  "mps2-an386", 0x0, 0x400000, 0x21000000, 0x1000000),
    "cortex-m55": ("thumbv8.1m.main-none-eabihf", ["-mcpu=cortex-m55", "-mthumb",
                                                   "-mfloat-abi=hard"],
                   "mps3-an547", 0x0, 0x80000, 0x60000000, 0x1000000),
}
# The CMSIS-NN sources DS-CNN int8 needs (s8 kernels and their support functions).
CMSIS_SOURCES = ["ConvolutionFunctions/*s8*.c", "ConvolutionFunctions/arm_nn_mat_mult_kernel*.c",
                 "NNSupportFunctions/arm_nn_*s8*.c", "NNSupportFunctions/arm_q7_to_q15*.c",
                 "NNSupportFunctions/arm_nn_mat_mul*.c", "NNSupportFunctions/arm_s8_to_s16*.c",
                 "FullyConnectedFunctions/arm_vector_sum_s8.c",
                 "FullyConnectedFunctions/arm_fully_connected_s8.c",
                 "FullyConnectedFunctions/arm_fully_connected_get_buffer_sizes_s8.c",
                 "PoolingFunctions/arm_avgpool_s8.c",
                 "PoolingFunctions/arm_avgpool_get_buffer_sizes_s8.c",
                 "TransposeFunctions/arm_transpose_s8.c"]
# The float sources DS-CNN f32 needs, built with ARM_NN_ENABLE_F32.
CMSIS_F32_SOURCES = ["ConvolutionFunctions/*_f32.c", "NNSupportFunctions/*_f32.c",
                     "NNSupportFunctions/arm_nntables_flt.c", "FullyConnectedFunctions/*_f32.c",
                     "PoolingFunctions/*_f32.c", "ActivationFunctions/*_f32.c"]
F32_DEFINES = ["-DARM_NN_ENABLE_F32=1"]


def gcc_flags(cpu):
    _, flags, _, flash, flash_size, ram, ram_size = BOARDS[cpu]
    link = [f"-Wl,--defsym=__flash={flash:#x}", f"-Wl,--defsym=__flash_size={flash_size:#x}",
            f"-Wl,--defsym=__ram={ram:#x}", f"-Wl,--defsym=__ram_size={ram_size:#x}"]
    return flags + ["-O3", "--specs=picolibc.specs", "--oslib=semihost", "--crt0=semihost"], link


def quantize_multiplier(real):
    """TFLite's QuantizeMultiplier: real = multiplier * 2^(shift - 31), multiplier in Q31."""
    if real == 0:
        return 0, 0
    fraction, shift = math.frexp(real)
    fixed = int(round(fraction * (1 << 31)))
    if fixed == 1 << 31:
        fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return fixed, shift


def c_array(kind, name, values):
    flat = np.asarray(values).reshape(-1)
    if kind == "float":  # hexadecimal literals: the f32 values exactly
        body = ",".join(float(v).hex() + "f" for v in flat.astype(np.float32))
    else:
        body = ",".join(str(int(v)) for v in flat)
    values = flat
    return f"static const {kind} {name}[{len(values)}] __attribute__((aligned(16))) = {{{body}}};\n"


def weights_header(model_dir):
    """ds_cnn_weights.h for cmsis_nn_ds_cnn.c from the model's files."""
    def load(name):
        return np.load(os.path.join(model_dir, f"{name}.npy"))

    def quant(label):
        return float(load(f"{label}_scale")[0]), int(load(f"{label}_zero")[0])

    text = ["/* Written by bench/cortex_m.py from bench/models' ds-cnn-int8 files. */\n",
            "typedef struct {\n  int32_t input_offset, output_offset, stride, pad_top, pad_left;\n"
            "  int32_t kernel_h, kernel_w, min, max;\n  const int8_t *filter;\n"
            "  const int32_t *bias, *multiplier, *shift;\n} ConvLayer;\n"]
    layers = {}
    previous = "mfcc"
    order = ["conv1"] + [f"{kind}{b}" for b in range(1, 5) for kind in ("dw", "pw")]
    for label in order:
        in_scale, in_zero = quant(previous)
        out_scale, out_zero = quant(label)
        w = load(f"{label}_w").astype(np.int64)  # HWIO
        w_scale = load(f"{label}_w_scale").astype(np.float64)
        kh, kw, _, cout = w.shape
        bias = load(f"{label}_b").astype(np.int64) + in_zero * w.sum(axis=(0, 1, 2))
        filter_data = w if label.startswith("dw") else np.transpose(w, (3, 0, 1, 2))  # OHWI
        fixed = [quantize_multiplier(float(in_scale) * s / float(out_scale)) for s in w_scale]
        low, high = (int(v) for v in load(f"{label}_range"))
        text.append(c_array("int8_t", f"{label}_filter", filter_data))
        text.append(c_array("int32_t", f"{label}_bias", bias))
        text.append(c_array("int32_t", f"{label}_multiplier", [f[0] for f in fixed]))
        text.append(c_array("int32_t", f"{label}_shift", [f[1] for f in fixed]))
        stride, pad_top, pad_left = (2, 4, 1) if label == "conv1" else (1, 1, 1)
        if label.startswith("pw"):
            pad_top = pad_left = 0
        layers[label] = (f"{{{-in_zero}, {out_zero}, {stride}, {pad_top}, {pad_left}, {kh}, {kw}, "
                         f"{low}, {high}, {label}_filter, {label}_bias, {label}_multiplier, "
                         f"{label}_shift}}")
        previous = label
    # The average pool keeps its input's quantization (TFLite's does); the dense layer
    # takes it, with the bias moved from the pool output's scale and zero point.
    in_scale, in_zero = quant("pw4")
    pool_scale, pool_zero = quant("pool")
    out_scale, out_zero = quant("fc")
    w = load("fc_w").astype(np.int64)  # [in, out]
    w_scale = float(load("fc_w_scale")[0])
    true_bias = load("fc_b").astype(np.int64) + pool_zero * w.sum(axis=0)
    bias = np.round(true_bias * float(pool_scale) / float(in_scale))
    fixed = quantize_multiplier(float(in_scale) * w_scale / float(out_scale))
    text.append(c_array("int8_t", "fc_filter", w.T))
    text.append(c_array("int32_t", "fc_bias", bias))
    text.append(c_array("int32_t", "fc_multiplier", [fixed[0]]))
    text.append(c_array("int32_t", "fc_shift", [fixed[1]]))
    text.append(c_array("int8_t", "model_input", load("input_0")))
    text.append(f"static const ConvLayer conv1 = {layers['conv1']};\n")
    for kind, name in (("dw", "depthwise_layers"), ("pw", "pointwise_layers")):
        text.append(f"static const ConvLayer {name}[4] = {{" +
                    ", ".join(layers[f"{kind}{b}"] for b in range(1, 5)) + "};\n")
    text.append(f"static const ConvLayer dense = {{{-in_zero}, {out_zero}, 1, 0, 0, 1, 1, -128, "
                "127, fc_filter, fc_bias, fc_multiplier, fc_shift};\n")
    return "".join(text)


def weights_header_f32(model_dir):
    """ds_cnn_f32_weights.h for cmsis_nn_ds_cnn_f32.c from the model's files."""
    def load(name):
        return np.load(os.path.join(model_dir, f"{name}.npy")).astype(np.float32)

    text = ["/* Written by bench/cortex_m.py from bench/models' ds-cnn files. */\n",
            "typedef struct {\n  int32_t stride, pad_top, pad_left, kernel_h, kernel_w;\n"
            "  const float *filter, *bias;\n} FloatConvLayer;\n"]
    layers = {}
    for label in ["conv1"] + [f"{kind}{b}" for b in range(1, 5) for kind in ("dw", "pw")]:
        w = load(f"{label}_w")  # HWIO
        kh, kw = w.shape[:2]
        # Depthwise filters stay [kernel][channel] (HWIO with I = 1); the others go OHWI.
        filter_data = w if label.startswith("dw") else np.transpose(w, (3, 0, 1, 2))
        text.append(c_array("float", f"{label}_filter", filter_data))
        text.append(c_array("float", f"{label}_bias", load(f"{label}_b")))
        stride, pad_top, pad_left = (2, 4, 1) if label == "conv1" else (1, 1, 1)
        if label.startswith("pw"):
            pad_top = pad_left = 0
        layers[label] = (f"{{{stride}, {pad_top}, {pad_left}, {kh}, {kw}, {label}_filter, "
                         f"{label}_bias}}")
    text.append(c_array("float", "fc_weights", load("fc_w").T))  # [output][input]
    text.append(c_array("float", "fc_bias_values", load("fc_b")))
    text.append(c_array("float", "model_input", np.load(os.path.join(model_dir, "input_0.npy"))))
    text.append(f"static const FloatConvLayer conv1 = {layers['conv1']};\n")
    for kind, name in (("dw", "depthwise_layers"), ("pw", "pointwise_layers")):
        text.append(f"static const FloatConvLayer {name}[4] = {{" +
                    ", ".join(layers[f"{kind}{b}"] for b in range(1, 5)) + "};\n")
    return "".join(text)


class Variant:
    """How one model runs on CMSIS-NN: its driver, weights header and library."""

    def __init__(self, driver, header_name, header, patterns, defines, result_f32):
        self.driver, self.header_name, self.header = driver, header_name, header
        self.patterns, self.defines, self.result_f32 = patterns, defines, result_f32


VARIANTS = {
    "ds-cnn-int8": Variant("cmsis_nn_ds_cnn.c", "ds_cnn_weights.h", weights_header,
                           CMSIS_SOURCES, [], False),
    "ds-cnn": Variant("cmsis_nn_ds_cnn_f32.c", "ds_cnn_f32_weights.h", weights_header_f32,
                      CMSIS_F32_SOURCES, F32_DEFINES, True),
}


def spelled_for_gcc(source, work):
    """`source`, or a copy in `work` with vaddq(uint32x4_t, uint32_t) as vaddq_n_u32."""
    text = open(source).read()
    fixed = re.sub(r"vaddq\((\w+), \(uint32_t\)", r"vaddq_n_u32(\1, (uint32_t)", text)
    if fixed == text:
        return source
    copy = os.path.join(work, "cmsis-sources", os.path.basename(source))
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    if not os.path.exists(copy) or open(copy).read() != fixed:
        with open(copy, "w") as f:
            f.write(fixed)
    return copy


def cmsis_library(cpu, work, kind, variant):
    """libcmsis-nn-<kind>-<cpu>.a from the variant's sources, compiled once."""
    library = os.path.join(work, f"libcmsis-nn-{kind}-{cpu}.a")
    sources = sorted({s for pattern in variant.patterns
                      for s in glob.glob(os.path.join(CMSIS_NN, "Source", pattern))})
    if not sources:
        raise RunError(f"no CMSIS-NN sources in {CMSIS_NN}")
    objects = []
    compile_flags, _ = gcc_flags(cpu)
    for source in sources:
        built = spelled_for_gcc(source, work)
        obj = os.path.join(work, f"cmsis-{kind}-{cpu}", os.path.basename(source) + ".o")
        compile_if_stale(obj, ["arm-none-eabi-gcc"] + compile_flags + variant.defines +
                         ["-I" + os.path.join(CMSIS_NN, "Include"), "-c", built, "-o", obj],
                         [source])
        objects.append(obj)
    if os.path.exists(library):
        os.remove(library)
    run(["arm-none-eabi-ar", "rcs", library] + objects)
    return library


def counted(plugin, machine, build):
    """(instructions of one inference, the RUNS=1 image's output) for build(runs) -> image."""
    totals, outputs = [], []
    for runs in (1, 2):
        image = build(runs)
        done = run_with_stderr(["qemu-system-arm", "-M", machine, "-nographic", "-monitor",
                                "none", "-semihosting", "-plugin", plugin, "-d", "plugin",
                                "-kernel", image])
        match = re.search(r"insns total=([0-9]+)", done)
        if not match:
            raise RunError(f"no instruction count from {image}: {done[-300:]}")
        totals.append(int(match.group(1)))
        outputs.append(done)
    return totals[1] - totals[0], outputs[0]


def run_with_stderr(argv):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RunError(f"exit {done.returncode}: {' '.join(argv)}\n{done.stderr[-400:]}")
    return done.stdout + done.stderr


def printed_output(text, result_f32):
    """The `output=` values a firmware image printed (f32 ones as their bits in hex)."""
    items = re.search(r"output=([-0-9a-f,]+)", text).group(1).split(",")
    if result_f32:
        return np.array([int(v, 16) for v in items], dtype=np.uint32).view(np.float32)
    return np.array([int(v) for v in items])


def measure_model(motec, model, plugin, work, log):
    """{cpu: {"mote": (insns, arena), "cmsis-nn": (insns, buffers), ...}} for one model."""
    variant = VARIANTS[model.name]
    results = {}
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, variant.header_name), "w") as f:
        f.write(variant.header(model.dir))
    input_kind = "float" if variant.result_f32 else "int8_t"
    for cpu, (triple, _, machine, *_) in BOARDS.items():
        compile_flags, link_flags = gcc_flags(cpu)
        log(f"  {cpu}: Mote and CMSIS-NN {model.name} under qemu-system-arm ({machine})")
        obj = os.path.join(work, f"mote-{model.name}-{cpu}")
        run([motec, "compile", model.hlo, f"--target={triple}", f"--cpu={cpu}", "-o", obj])
        header = open(obj + ".h").read()
        entry = re.search(r"int32_t (\w+_entry)\(", header).group(1)
        scratch = int(re.search(r"_SCRATCH_BYTES ([0-9]+)ull", header).group(1))
        result = int(re.search(r"_RESULT_\w+_BYTES ([0-9]+)ull", header).group(1))
        report = json.loads(run([motec, "report", model.hlo, "--json", f"--target={triple}",
                                 f"--cpu={cpu}"]))
        arena = report["targets"][0]["arena_bytes"]
        with open(os.path.join(work, "mote_input.h"), "w") as f:
            f.write(c_array(input_kind, "model_input", np.load(model.inputs[0])))

        def mote_image(runs):
            image = os.path.join(work, f"mote-{model.name}-{cpu}-{runs}.elf")
            run(["arm-none-eabi-gcc"] + compile_flags + link_flags +
                [f"-DRUNS={runs}", f"-DMODEL_HEADER=\"{obj}.h\"", f"-DENTRY={entry}",
                 f"-DSCRATCH_BYTES={max(scratch, 16)}", f"-DRESULT_BYTES={result}",
                 "-I" + work, "-I" + os.path.join(ROOT, "include")] +
                (["-DRESULT_F32"] if variant.result_f32 else []) +
                [os.path.join(PEERS, "mote_firmware.c"), obj + ".o", "-o", image])
            return image

        library = cmsis_library(cpu, work, model.name, variant)

        def cmsis_image(runs):
            image = os.path.join(work, f"cmsis-nn-{model.name}-{cpu}-{runs}.elf")
            run(["arm-none-eabi-gcc"] + compile_flags + link_flags + variant.defines +
                [f"-DRUNS={runs}", "-I" + work, "-I" + os.path.join(CMSIS_NN, "Include"),
                 os.path.join(PEERS, variant.driver), library, "-lm", "-o", image])
            return image

        mote_insns, mote_out = counted(plugin, machine, mote_image)
        cmsis_insns, cmsis_out = counted(plugin, machine, cmsis_image)
        buffers = int(re.search(r"buffers=([0-9]+)", cmsis_out).group(1))
        values = [printed_output(out, variant.result_f32) for out in (mote_out, cmsis_out)]
        reference = np.asarray(model.reference).reshape(-1)
        entry = {"mote": (mote_insns, arena), "cmsis-nn": (cmsis_insns, buffers),
                 "result_f32": variant.result_f32}
        if variant.result_f32:
            entry["mote_error"] = relative_error(values[0], reference)
            entry["cmsis_error"] = relative_error(values[1], reference)
        else:
            entry["mote_exact"] = bool((values[0] == reference).all())
            entry["cmsis_difference"] = int(np.abs(values[1] - values[0]).max())
        results[cpu] = entry
    return results


def measure(motec, models, plugin, work, log):
    """{model: {cpu: ...}} for each of `models` that has a CMSIS-NN driver."""
    return {model.name: measure_model(motec, model, plugin, os.path.join(work, model.name), log)
            for model in models if model.name in VARIANTS}
