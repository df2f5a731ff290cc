#!/usr/bin/env python3
"""Usage: expect_exit.py CODE COMMAND...: runs COMMAND (its output passes
through) and succeeds only if it exits with CODE. lit's `not` accepts any
non-zero status; motec's exit codes are an interface, so tests pin them."""
import subprocess
import sys

expected = int(sys.argv[1])
code = subprocess.call(sys.argv[2:])
if code != expected:
    sys.stderr.write(f"expect_exit: '{' '.join(sys.argv[2:])}' exited with {code}, "
                     f"expected {expected}\n")
    sys.exit(1)
