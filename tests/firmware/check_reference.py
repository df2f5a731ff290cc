#!/usr/bin/env python3
"""Checks examples/digits/expected_output.txt against the reference evaluator.

expected_output.txt comes from a numpy forward pass in train.py; the programs
must print it. This runs `motec eval` (XLA semantics, op by op) on every test
image of digits_test_data.h and asserts that its predictions and accuracy are
the same, so the oracle of the firmware tests is not numpy's word alone.

Usage: check_reference.py <motec> <examples/digits>   (standard library only)
"""

import os
import re
import struct
import subprocess
import sys
import tempfile


def read_test_data(header):
    text = open(header).read()
    images = text[text.index("digits_test_images"):text.index("digits_test_labels")]
    labels = text[text.index("digits_test_labels"):]
    pixels = [int(v) for v in re.findall(r"\b\d+\b", images[images.index("= {"):])]
    labels = [int(v) for v in re.findall(r"\b\d+\b", labels[labels.index("= {"):])]
    return [pixels[i:i + 64] for i in range(0, len(pixels), 64)], labels


def write_npy(path, image):
    """u8[1,64] as numpy.save writes it (format 1.0)."""
    header = "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 64), }"
    header += " " * ((10 + len(header) + 1 + 63) // 64 * 64 - 10 - len(header) - 1) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(bytes(image))


def main():
    motec, example = sys.argv[1], sys.argv[2]
    images, labels = read_test_data(os.path.join(example, "digits_test_data.h"))
    predictions = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, image in enumerate(images):
            path = os.path.join(tmp, f"image{i}.npy")
            write_npy(path, image)
            out = subprocess.run([motec, "eval", os.path.join(example, "digits.hlo"), "--input", path],
                                 check=True, capture_output=True, text=True).stdout
            logits = [float(v) for v in re.findall(r"-?[\d.]+(?:e[-+]?\d+)?", out.split("{{")[1])]
            predictions.append(max(range(10), key=lambda k: logits[k]))
    correct = sum(p == l for p, l in zip(predictions, labels))
    got = [f"predictions: {''.join(map(str, predictions))}", f"accuracy: {correct}/{len(labels)}"]
    expected = open(os.path.join(example, "expected_output.txt")).read().splitlines()
    print("\n".join(got))
    if got != expected:
        print("motec eval differs from expected_output.txt:\n" + "\n".join(expected))
        return 1
    print("motec eval agrees with expected_output.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
