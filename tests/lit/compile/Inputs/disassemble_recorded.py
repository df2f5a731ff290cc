"""Disassembles a model's object with exactly the CPU features a header says
its code records: +feature for each recorded one, -feature for every other
one include/mote/cpu_features.h lists for the architecture (llvm-objdump
enables them all by default), so an instruction the descriptor does not own
up to comes out as <unknown>.

Usage: disassemble_recorded.py model.h model.o cpu_features.h ARCH
       (ARCH: AARCH64, X86_64 or RISCV64; llvm-objdump from PATH)
"""
import re
import subprocess
import sys

header, obj, features_header, arch = sys.argv[1:]
recorded = re.search(r"features ([^ ]*)\.\n", open(header).read()).group(1).split(",")
recorded = [name[1:] for name in recorded if name.startswith("+")]
listed = re.search(r'#define MOTE_CPU_FEATURES_%s ((?:\s*"[^"]*"\s*\\?)+)' % arch,
                   open(features_header).read()).group(1)
listed = "".join(re.findall(r'"([^"]*)"', listed)).split(",")
mattr = ",".join(("+" if name in recorded else "-") + name for name in listed)
sys.exit(subprocess.run(["llvm-objdump", "-d", "--mattr=" + mattr, obj]).returncode)
