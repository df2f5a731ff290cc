"""Summarises a .mote package for lit tests, checking its header and digest
independently of the runtime (Python's hashlib, the layout written out again):
magic, version, total size, SHA-256 over bytes [0, 32) + [64, total), and the
target triples its code objects name, each with its ELF machine."""
import hashlib
import re
import struct
import sys

data = open(sys.argv[1], "rb").read()
magic, version, header_size, total, reserved = struct.unpack_from("<8sIIQQ", data, 0)
digest = hashlib.sha256(data[:32] + data[64:total]).digest()
name = magic.rstrip(b"\0").decode("latin-1")
print(f"magic {name} version {version} header {header_size}")
print(f"size {'ok' if total == len(data) else 'wrong'} digest "
      f"{'ok' if digest == data[32:64] else 'wrong'}")
matches = list(re.finditer(rb"\x7fELF", data))
for match in matches:
    machine = struct.unpack_from("<H", data, match.start() + 18)[0]
    print(f"elf machine {machine} class {data[match.start() + 4]}")
print(f"code objects {len(matches)}")
