#!/usr/bin/env python3
"""Trains the digit classifier and writes the files the example builds from.

The data is scikit-learn's 8x8 digits set (1,797 images, pixels 0..16). A fixed
split holds back a quarter of the images; a 64 -> 32 (relu) -> 10 perceptron is
trained on the rest with a fixed random_state, so running this again writes
the same bytes.

  digits.hlo            the model in XLA's HLO text syntax, weights as constants:
                        u8[1,64] pixels -> convert, scale by 1/16 -> f32[1,10] logits
  digits_test_data.h    the first TEST_IMAGES held-back images (uint8) and labels
  expected_output.txt   what main.c prints when every prediction matches a float32
                        numpy forward pass of the same weights (the test oracle)

Usage: /usr/bin/python3 train.py [output_dir]   (default: this script's folder)
"""

import os
import sys
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

INPUTS, HIDDEN, CLASSES = 64, 32, 10
TEST_IMAGES = 200


def f32_text(v):
    """Shortest decimal that reads back as the same float32 (HLO parses it exactly)."""
    text = np.format_float_positional(np.float32(v), unique=True, trim="-")
    return "0" if text in ("0", "-0") else text


def literal(a):
    if a.ndim == 1:
        return "{" + ", ".join(f32_text(v) for v in a) + "}"
    return "{ " + ", ".join(literal(row) for row in a) + " }"


def hlo_text(w1, b1, w2, b2):
    def meta(op, line):
        return f'metadata={{op_name="jit(classify)/jit(main)/{op}" source_file="train.py" source_line={line}}}'

    return f"""HloModule jit_classify, entry_computation_layout={{(u8[1,{INPUTS}]{{1,0}})->f32[1,{CLASSES}]{{1,0}}}}

ENTRY %main.19 (Arg_0.1: u8[1,{INPUTS}]) -> f32[1,{CLASSES}] {{
  %Arg_0.1 = u8[1,{INPUTS}]{{1,0}} parameter(0), metadata={{op_name="pixels"}}
  %convert.2 = f32[1,{INPUTS}]{{1,0}} convert(u8[1,{INPUTS}]{{1,0}} %Arg_0.1), {meta("convert_element_type[new_dtype=float32]", 1)}
  %constant.3 = f32[] constant(0.0625)
  %broadcast.4 = f32[1,{INPUTS}]{{1,0}} broadcast(f32[] %constant.3), dimensions={{}}
  %multiply.5 = f32[1,{INPUTS}]{{1,0}} multiply(f32[1,{INPUTS}]{{1,0}} %convert.2, f32[1,{INPUTS}]{{1,0}} %broadcast.4), {meta("mul", 1)}
  %constant.6 = f32[{INPUTS},{HIDDEN}]{{1,0}} constant({literal(w1)})
  %dot.7 = f32[1,{HIDDEN}]{{1,0}} dot(f32[1,{INPUTS}]{{1,0}} %multiply.5, f32[{INPUTS},{HIDDEN}]{{1,0}} %constant.6), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, {meta("dot_general", 2)}
  %constant.8 = f32[{HIDDEN}]{{0}} constant({literal(b1)})
  %broadcast.9 = f32[1,{HIDDEN}]{{1,0}} broadcast(f32[{HIDDEN}]{{0}} %constant.8), dimensions={{1}}
  %add.10 = f32[1,{HIDDEN}]{{1,0}} add(f32[1,{HIDDEN}]{{1,0}} %dot.7, f32[1,{HIDDEN}]{{1,0}} %broadcast.9), {meta("add", 2)}
  %constant.11 = f32[] constant(0)
  %broadcast.12 = f32[1,{HIDDEN}]{{1,0}} broadcast(f32[] %constant.11), dimensions={{}}
  %maximum.13 = f32[1,{HIDDEN}]{{1,0}} maximum(f32[1,{HIDDEN}]{{1,0}} %add.10, f32[1,{HIDDEN}]{{1,0}} %broadcast.12), {meta("max", 2)}
  %constant.14 = f32[{HIDDEN},{CLASSES}]{{1,0}} constant({literal(w2)})
  %dot.15 = f32[1,{CLASSES}]{{1,0}} dot(f32[1,{HIDDEN}]{{1,0}} %maximum.13, f32[{HIDDEN},{CLASSES}]{{1,0}} %constant.14), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, {meta("dot_general", 3)}
  %constant.16 = f32[{CLASSES}]{{0}} constant({literal(b2)})
  %broadcast.17 = f32[1,{CLASSES}]{{1,0}} broadcast(f32[{CLASSES}]{{0}} %constant.16), dimensions={{1}}
  ROOT %add.18 = f32[1,{CLASSES}]{{1,0}} add(f32[1,{CLASSES}]{{1,0}} %dot.15, f32[1,{CLASSES}]{{1,0}} %broadcast.17), {meta("add", 3)}
}}
"""


def c_array(values, per_line):
    lines = []
    for i in range(0, len(values), per_line):
        lines.append("  " + ", ".join(str(int(v)) for v in values[i:i + per_line]) + ",")
    return "\n".join(lines)


def c_rows(images):
    """One braced row per image, 32 pixels a line."""
    rows = []
    for image in images:
        half = INPUTS // 2
        rows.append("  {" + ", ".join(str(int(v)) for v in image[:half]) + ",\n   " +
                    ", ".join(str(int(v)) for v in image[half:]) + "},")
    return "\n".join(rows)


def test_header(images, labels):
    return f"""/* digits_test_data.h - written by train.py; do not edit.
 *
 * The first {len(labels)} held-back test images of scikit-learn's 8x8 digits set
 * (pixels 0..16, row-major) and their true labels. None was used in training.
 * Rows are 64 bytes and the array 16-byte aligned, so each image can be bound
 * to the model in place.
 */
#ifndef DIGITS_TEST_DATA_H
#define DIGITS_TEST_DATA_H

#include <stdint.h>

#define DIGITS_TEST_COUNT {len(labels)}
#define DIGITS_PIXELS {INPUTS}

static const uint8_t digits_test_images[DIGITS_TEST_COUNT][DIGITS_PIXELS]
    __attribute__((aligned(16))) = {{
{c_rows(images)}
}};

static const uint8_t digits_test_labels[DIGITS_TEST_COUNT] = {{
{c_array(labels, 25)}
}};

#endif /* DIGITS_TEST_DATA_H */
"""


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data, digits.target, test_size=0.25, random_state=0, stratify=digits.target)
    mlp = MLPClassifier(hidden_layer_sizes=(HIDDEN,), activation="relu", solver="adam",
                        alpha=1e-4, max_iter=400, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        mlp.fit(x_train / 16.0, y_train)
    print(f"sklearn float64 accuracy on all {len(y_test)} held-back images: "
          f"{mlp.score(x_test / 16.0, y_test):.4f}")

    w1, w2 = (w.astype(np.float32) for w in mlp.coefs_)
    b1, b2 = (b.astype(np.float32) for b in mlp.intercepts_)
    images = x_test[:TEST_IMAGES].astype(np.uint8)
    labels = y_test[:TEST_IMAGES].astype(np.uint8)

    # The reference: the HLO's computation in float32 with numpy.
    x = images.astype(np.float32) * np.float32(0.0625)
    logits = np.maximum(x @ w1 + b1, np.float32(0)) @ w2 + b2
    predictions = logits.argmax(axis=1)
    correct = int((predictions == labels).sum())
    top2 = np.sort(logits, axis=1)[:, -2:]
    print(f"float32 numpy accuracy on the first {TEST_IMAGES}: {correct}/{TEST_IMAGES}; "
          f"smallest top-2 logit gap {float((top2[:, 1] - top2[:, 0]).min()):.4f}")

    with open(os.path.join(out, "digits.hlo"), "w") as f:
        f.write(hlo_text(w1, b1, w2, b2))
    with open(os.path.join(out, "digits_test_data.h"), "w") as f:
        f.write(test_header(images, labels))
    with open(os.path.join(out, "expected_output.txt"), "w") as f:
        f.write("predictions: " + "".join(str(p) for p in predictions) + "\n")
        f.write(f"accuracy: {correct}/{TEST_IMAGES}\n")


if __name__ == "__main__":
    main()
