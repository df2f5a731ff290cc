#!/usr/bin/env python3
"""Trains the wine classifier and writes the files the example builds from.

The data is scikit-learn's wine set (178 wines, 13 chemical measurements, 3
cultivars). A fixed split holds back a third; the model is what a Keras model
on JAX would be: a normalization layer (mean and variance, non-trainable
state) and a 13 -> 16 (relu) -> 3 perceptron (trainable state), trained with a
fixed random_state, so running this again writes the same bytes.

  predict_step.hlo     the predict step in HLO text as JAX exports it: every
                       weight is a leading parameter (Keras' state_0__i_ and
                       state_1__i_), the wine follows (data_0_), and the step
                       returns its non-trainable state with the logits,
                       donated (input_output_alias may-alias)
  weights.npz          the trained weights, keyed by the parameter names
  wine_test_data.h     the held-back wines (float32) and their labels
  expected_output.txt  what main.c prints when every prediction matches a
                       float32 numpy forward pass of the same weights

Usage: /usr/bin/python3 train.py [output_dir]   (default: this script's folder)
"""

import io
import os
import sys
import warnings
import zipfile

import numpy as np
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

FEATURES, HIDDEN, CLASSES = 13, 16, 3
EPSILON = np.float32(1e-7)  # Keras' Normalization: divide by max(sqrt(variance), epsilon)

# Parameter names as a Keras-on-JAX export spells them: trainable variables,
# non-trainable variables, then the data.
KERNEL1, BIAS1, KERNEL2, BIAS2 = ("state_0__0_.1", "state_0__1_.2", "state_0__2_.3",
                                  "state_0__3_.4")
MEAN, VARIANCE, DATA = "state_1__0_.5", "state_1__1_.6", "data_0_.7"


def hlo_text():
    def meta(op, line):
        return (f'metadata={{op_name="jit(predict_step)/jit(main)/{op}" '
                f'source_file="keras/src/backend/jax/trainer.py" source_line={line}}}')

    f, h, c = FEATURES, HIDDEN, CLASSES
    return f"""HloModule jit_predict_step, input_output_alias={{ {{1}}: (4, {{}}, may-alias), {{2}}: (5, {{}}, may-alias) }}, entry_computation_layout={{(f32[{f},{h}]{{1,0}}, f32[{h}]{{0}}, f32[{h},{c}]{{1,0}}, f32[{c}]{{0}}, f32[{f}]{{0}}, /*index=5*/f32[{f}]{{0}}, f32[1,{f}]{{1,0}})->(f32[1,{c}]{{1,0}}, f32[{f}]{{0}}, f32[{f}]{{0}})}}

ENTRY %main.24 ({KERNEL1}: f32[{f},{h}], {BIAS1}: f32[{h}], {KERNEL2}: f32[{h},{c}], {BIAS2}: f32[{c}], {MEAN}: f32[{f}], /*index=5*/{VARIANCE}: f32[{f}], {DATA}: f32[1,{f}]) -> (f32[1,{c}], f32[{f}], f32[{f}]) {{
  %{KERNEL1} = f32[{f},{h}]{{1,0}} parameter(0), sharding={{replicated}}
  %{BIAS1} = f32[{h}]{{0}} parameter(1), sharding={{replicated}}
  %{KERNEL2} = f32[{h},{c}]{{1,0}} parameter(2), sharding={{replicated}}
  %{BIAS2} = f32[{c}]{{0}} parameter(3), sharding={{replicated}}
  %{MEAN} = f32[{f}]{{0}} parameter(4), sharding={{replicated}}
  %{VARIANCE} = f32[{f}]{{0}} parameter(5), sharding={{replicated}}
  %{DATA} = f32[1,{f}]{{1,0}} parameter(6), sharding={{replicated}}
  %broadcast.8 = f32[1,{f}]{{1,0}} broadcast(f32[{f}]{{0}} %{MEAN}), dimensions={{1}}, {meta("normalization/sub", 41)}
  %subtract.9 = f32[1,{f}]{{1,0}} subtract(f32[1,{f}]{{1,0}} %{DATA}, f32[1,{f}]{{1,0}} %broadcast.8), {meta("normalization/sub", 41)}
  %sqrt.10 = f32[{f}]{{0}} sqrt(f32[{f}]{{0}} %{VARIANCE}), {meta("normalization/sqrt", 42)}
  %constant.11 = f32[] constant(1e-07)
  %broadcast.12 = f32[{f}]{{0}} broadcast(f32[] %constant.11), dimensions={{}}
  %maximum.13 = f32[{f}]{{0}} maximum(f32[{f}]{{0}} %sqrt.10, f32[{f}]{{0}} %broadcast.12), {meta("normalization/max", 42)}
  %broadcast.14 = f32[1,{f}]{{1,0}} broadcast(f32[{f}]{{0}} %maximum.13), dimensions={{1}}
  %divide.15 = f32[1,{f}]{{1,0}} divide(f32[1,{f}]{{1,0}} %subtract.9, f32[1,{f}]{{1,0}} %broadcast.14), {meta("normalization/div", 42)}
  %dot.16 = f32[1,{h}]{{1,0}} dot(f32[1,{f}]{{1,0}} %divide.15, f32[{f},{h}]{{1,0}} %{KERNEL1}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, {meta("dense/dot_general", 57)}
  %broadcast.17 = f32[1,{h}]{{1,0}} broadcast(f32[{h}]{{0}} %{BIAS1}), dimensions={{1}}
  %add.18 = f32[1,{h}]{{1,0}} add(f32[1,{h}]{{1,0}} %dot.16, f32[1,{h}]{{1,0}} %broadcast.17), {meta("dense/add", 57)}
  %constant.19 = f32[] constant(0)
  %broadcast.20 = f32[1,{h}]{{1,0}} broadcast(f32[] %constant.19), dimensions={{}}
  %maximum.21 = f32[1,{h}]{{1,0}} maximum(f32[1,{h}]{{1,0}} %add.18, f32[1,{h}]{{1,0}} %broadcast.20), {meta("dense/relu", 58)}
  %dot.22 = f32[1,{c}]{{1,0}} dot(f32[1,{h}]{{1,0}} %maximum.21, f32[{h},{c}]{{1,0}} %{KERNEL2}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, {meta("dense_1/dot_general", 57)}
  %broadcast.23 = f32[1,{c}]{{1,0}} broadcast(f32[{c}]{{0}} %{BIAS2}), dimensions={{1}}
  %add.24 = f32[1,{c}]{{1,0}} add(f32[1,{c}]{{1,0}} %dot.22, f32[1,{c}]{{1,0}} %broadcast.23), {meta("dense_1/add", 57)}
  ROOT %tuple.25 = (f32[1,{c}]{{1,0}}, f32[{f}]{{0}}, f32[{f}]{{0}}) tuple(f32[1,{c}]{{1,0}} %add.24, f32[{f}]{{0}} %{MEAN}, f32[{f}]{{0}} %{VARIANCE})
}}
"""


def c_float(v):
    text = np.format_float_positional(np.float32(v), unique=True, trim="0")
    return text + "f" if "." in text or "e" in text else text + ".0f"


def test_header(wines, labels):
    rows = "\n".join("  {" + ", ".join(c_float(v) for v in wine) + "}," for wine in wines)
    return f"""/* wine_test_data.h - written by train.py; do not edit.
 *
 * The {len(labels)} held-back wines of scikit-learn's wine set (13 measurements
 * each, float32, as measured: the model normalizes them itself) and their
 * cultivars. None was used in training.
 */
#ifndef WINE_TEST_DATA_H
#define WINE_TEST_DATA_H

#include <stdint.h>

#define WINE_TEST_COUNT {len(labels)}
#define WINE_FEATURES {FEATURES}

static const float wine_test_data[WINE_TEST_COUNT][WINE_FEATURES] __attribute__((aligned(16))) = {{
{rows}
}};

static const uint8_t wine_test_labels[WINE_TEST_COUNT] = {{
  {", ".join(str(int(v)) for v in labels)}
}};

#endif /* WINE_TEST_DATA_H */
"""


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    wine = load_wine()
    x_train, x_test, y_train, y_test = train_test_split(
        wine.data, wine.target, test_size=1 / 3, random_state=0, stratify=wine.target)
    mean = x_train.mean(axis=0).astype(np.float32)
    variance = x_train.var(axis=0).astype(np.float32)
    scale = np.maximum(np.sqrt(variance), EPSILON)
    mlp = MLPClassifier(hidden_layer_sizes=(HIDDEN,), activation="relu", solver="adam",
                        alpha=1e-3, max_iter=600, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp.fit((x_train - mean) / scale, y_train)
    w1, w2 = (w.astype(np.float32) for w in mlp.coefs_)
    b1, b2 = (b.astype(np.float32) for b in mlp.intercepts_)

    wines = x_test.astype(np.float32)
    labels = y_test.astype(np.uint8)
    # The reference: the HLO's computation in float32 with numpy.
    x = (wines - mean) / scale
    logits = np.maximum(x @ w1 + b1, np.float32(0)) @ w2 + b2
    predictions = logits.argmax(axis=1)
    correct = int((predictions == labels).sum())
    top2 = np.sort(logits, axis=1)[:, -2:]
    print(f"float32 numpy accuracy on the {len(labels)} held-back wines: {correct}/{len(labels)}; "
          f"smallest top-2 logit gap {float((top2[:, 1] - top2[:, 0]).min()):.4f}")

    with open(os.path.join(out, "predict_step.hlo"), "w") as f:
        f.write(hlo_text())
    # What numpy.savez writes (stored .npy members keyed by the parameter
    # names), with fixed timestamps so the bytes are the same every run.
    with zipfile.ZipFile(os.path.join(out, "weights.npz"), "w") as archive:
        for key, array in ((KERNEL1, w1), (BIAS1, b1), (KERNEL2, w2), (BIAS2, b2), (MEAN, mean),
                           (VARIANCE, variance)):
            member = io.BytesIO()
            np.lib.format.write_array(member, array, allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0)),
                             member.getvalue())
    with open(os.path.join(out, "wine_test_data.h"), "w") as f:
        f.write(test_header(wines, labels))
    with open(os.path.join(out, "expected_output.txt"), "w") as f:
        f.write("predictions: " + "".join(str(p) for p in predictions) + "\n")
        f.write(f"accuracy: {correct}/{len(labels)}\n")


if __name__ == "__main__":
    main()
