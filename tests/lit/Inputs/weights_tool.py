#!/usr/bin/env python3
"""Writes weights files the way frameworks do, independently of motec
(standard library only).

  weights_tool.py npz OUT [--stored] KEY=DESCR:SHAPE:VALUES ...
      numpy.savez_compressed (members deflated), or numpy.savez with --stored.
      DESCR, SHAPE and VALUES as for npy_tool.py make ('<V2' is bfloat16);
      VALUES '@N' fills the array with small exact values seeded by N.
  weights_tool.py safetensors OUT KEY=DTYPE:SHAPE:VALUES ...
      DTYPE one of F32 F16 BF16 F64 I32 I64 I8 U8 BOOL; the header as the
      safetensors library writes it, with a __metadata__ entry.
  weights_tool.py corrupt-zip OUT
      a file that starts like a zip archive and is not one.
"""
import json
import struct
import sys
import zipfile

import npy_tool

SAFETENSORS_DESCR = {"F32": "<f4", "F16": "<f2", "BF16": "<V2", "F64": "<f8", "I32": "<i4",
                     "I64": "<i8", "I8": "|i1", "U8": "|u1", "BOOL": "|b1"}


def parse(item):
    key, spec = item.split("=", 1)
    kind, shape, values = spec.split(":")
    if values.startswith("@"):
        count, seed = 1, int(values[1:])
        for d in shape.split(","):
            count *= int(d) if d.strip() else 1
        # Multiples of 1/16 in [-3, 3]: exact in every float type.
        values = ",".join(str(((i * 7919 + seed * 104729) % 97 - 48) / 16) for i in range(count))
    return key, kind, shape, values


def npy_data(descr, shape, values):
    """The data bytes of an array (a .npy file without its header)."""
    blob = npy_tool.encode(descr, shape, values)
    length = struct.unpack("<H", blob[8:10])[0]
    return blob[10 + length:]


def write_npz(out, items, stored):
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(out, "w", compression=method) as archive:
        for key, descr, shape, values in map(parse, items):
            archive.writestr(key + ".npy", npy_tool.encode(descr, shape, values))


def write_safetensors(out, items):
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for key, dtype, shape, values in map(parse, items):
        chunk = npy_data(SAFETENSORS_DESCR[dtype], shape, values)
        dims = [int(d) for d in shape.split(",") if d.strip()]
        header[key] = {"dtype": dtype, "shape": dims,
                       "data_offsets": [len(data), len(data) + len(chunk)]}
        data += chunk
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the library pads the header to 8 bytes
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    command, out, rest = argv[1], argv[2], argv[3:]
    if command == "npz":
        stored = "--stored" in rest
        write_npz(out, [r for r in rest if r != "--stored"], stored)
    elif command == "safetensors":
        write_safetensors(out, rest)
    elif command == "corrupt-zip":
        with open(out, "wb") as f:
            f.write(b"PK\x03\x04" + b"\xff" * 60)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
