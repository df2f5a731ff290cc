#!/usr/bin/env python3
"""Writes and reads .npy files independently of motec (standard library only).

  npy_tool.py make DESCR SHAPE VALUES OUT [--fortran] [--version N] [--corrupt KIND]
      DESCR like '<f4', SHAPE like '2,3' ('' for a scalar), VALUES comma-separated
      (true/false for bool). KIND: magic, truncate, extra, header.
  npy_tool.py read FILE
      prints "DESCR SHAPE: v0 v1 ..." with floats in repr form.
  npy_tool.py close ACTUAL EXPECTED ATOL
      succeeds when both hold the same shape and every |a - e| <= ATOL.
"""
import struct
import sys

FORMATS = {"f2": "e", "f4": "f", "f8": "d", "b1": "?", "i1": "b", "u1": "B", "i2": "h",
           "u2": "H", "i4": "i", "u4": "I", "i8": "q", "u8": "Q"}


def encode(descr, shape_text, values_text, fortran=False, version=1, corrupt=None):
    """The bytes of a .npy file. DESCR 'V2' is bfloat16 as ml_dtypes saves it
    (two raw bytes an element; VALUES are floats exact in bfloat16)."""
    shape = [int(d) for d in shape_text.split(",") if d.strip()]
    kind = descr[1:]
    order = "<" if descr[0] in "<|" else ">"
    values = [v for v in values_text.split(",") if v.strip()]
    if kind == "V2":
        bits = [struct.unpack("<I", struct.pack("<f", float(v)))[0] >> 16 for v in values]
        data = struct.pack(order + "H" * len(bits), *bits)
    else:
        if kind == "b1":
            parsed = [v.strip() == "true" for v in values]
        elif kind[0] == "f":
            parsed = [float(v) for v in values]
        else:
            parsed = [int(v) for v in values]
        data = struct.pack(order + FORMATS[kind] * len(parsed), *parsed)
    shape_repr = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_repr)
    length_bytes = 2 if version == 1 else 4
    total = (8 + length_bytes + len(header) + 1 + 63) // 64 * 64
    header += " " * (total - 8 - length_bytes - len(header) - 1) + "\n"
    if corrupt == "header":
        header = header.replace("'shape'", "'shap'")
    blob = b"\x93NUMPY" + bytes([version, 0])
    blob += struct.pack("<H" if version == 1 else "<I", len(header)) + header.encode("latin1")
    blob += data
    if corrupt == "magic":
        blob = b"\x93NUMPX" + blob[6:]
    elif corrupt == "truncate":
        blob = blob[:-1]
    elif corrupt == "extra":
        blob += b"\0"
    return blob


def make(descr, shape_text, values_text, out, **options):
    with open(out, "wb") as f:
        f.write(encode(descr, shape_text, values_text, **options))


def load(path):
    blob = open(path, "rb").read()
    assert blob[:6] == b"\x93NUMPY", "bad magic"
    if blob[6] == 1:
        length, start = struct.unpack("<H", blob[8:10])[0], 10
    else:
        length, start = struct.unpack("<I", blob[8:12])[0], 12
    header = eval(blob[start:start + length].decode("latin1"))  # a dict literal
    descr, shape = header["descr"], header["shape"]
    count = 1
    for d in shape:
        count *= d
    order = "<" if descr[0] in "<|" else ">"
    values = struct.unpack(order + FORMATS[descr[1:]] * count, blob[start + length:])
    return descr, shape, values


def read(path):
    descr, shape, values = load(path)
    text = " ".join(repr(v).lower() if isinstance(v, bool) else repr(v) for v in values)
    print(f"{descr} {list(shape)}: {text}")


def main(argv):
    if argv[1] == "make":
        args, options = argv[2:6], argv[6:]
        fortran = "--fortran" in options
        version = int(options[options.index("--version") + 1]) if "--version" in options else 1
        corrupt = options[options.index("--corrupt") + 1] if "--corrupt" in options else None
        make(*args, fortran=fortran, version=version, corrupt=corrupt)
    elif argv[1] == "read":
        read(argv[2])
    elif argv[1] == "close":
        _, shape_a, a = load(argv[2])
        _, shape_e, e = load(argv[3])
        worst = max((abs(x - y) for x, y in zip(a, e)), default=0.0)
        print(f"shapes {list(shape_a)} {list(shape_e)}, max abs difference {worst:.3g}")
        if shape_a != shape_e or worst > float(argv[4]):
            sys.exit("not close")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
