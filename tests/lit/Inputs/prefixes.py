#!/usr/bin/env python3
"""Usage: prefixes.py MOTEC FILE STEP: runs `motec check` on every STEP-th
prefix of FILE. Each must exit 0 or 1 (valid or located error): never a crash,
a hang, or exit 4."""
import subprocess
import sys
import tempfile

motec, path, step = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path, "rb").read()
bad = []
with tempfile.NamedTemporaryFile(suffix=".hlo") as cut:
    for length in list(range(0, len(text), step)) + [len(text)]:
        cut.seek(0)
        cut.truncate()
        cut.write(text[:length])
        cut.flush()
        try:
            done = subprocess.run([motec, "check", cut.name], capture_output=True, timeout=60)
            code, err = done.returncode, done.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            code, err = "timeout", ""
        if code not in (0, 1) or (code == 1 and ":" not in err.split("error:")[0]):
            bad.append(f"prefix {length}: exit {code}: {err.strip()[:200]}")
print(f"{len(range(0, len(text), step)) + 1} prefixes, {len(bad)} bad")
for line in bad:
    print(line)
sys.exit(1 if bad else 0)
