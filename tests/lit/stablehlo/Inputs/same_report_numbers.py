#!/usr/bin/env python3
"""Usage: same_report_numbers.py A B: compares the numbers of two `motec
report` outputs that describe the compiled code (after the pass pipeline:
instructions, fusions, constants, arena, buffers, per-target sizes); names
and the counts before the passes may differ. Exits 1 naming what differs."""
import re
import sys


def numbers(path):
    found = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if m := re.match(r"instructions: \d+ \((\d+) after", line):
            found["instructions after the passes"] = m.group(1)
        elif m := re.match(r"fusions:\s+(.*)", line):
            found["fusions"] = m.group(1)
        elif m := re.match(r"constants:\s+(.*)", line):
            found["constants"] = m.group(1)
        elif m := re.match(r"arena:\s+(.*)", line):
            found["arena"] = m.group(1)
        elif m := re.match(r"buffers:\s+(.*)", line):
            found["buffers"] = m.group(1)
        elif m := re.match(r"opcodes:\s+(.*)", line):
            counts = re.findall(r"([\w-]+) \d+ \((\d+) after\)", m.group(1))
            found["opcodes after the passes"] = ", ".join(f"{op} {n}" for op, n in counts)
        elif m := re.match(r"(\S+-\S+) \(.*\): (.*)", line):
            found[m.group(1)] = m.group(2)
    return found


a, b = numbers(sys.argv[1]), numbers(sys.argv[2])
if not a:
    sys.exit(f"no report numbers in {sys.argv[1]}")
differences = [f"{key}: {a.get(key)} != {b.get(key)}" for key in sorted(set(a) | set(b))
               if a.get(key) != b.get(key)]
for difference in differences:
    print(difference)
sys.exit(1 if differences else 0)
