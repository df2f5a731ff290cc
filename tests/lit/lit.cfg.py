# lit configuration for motec's command-line tests.
#
# Run through the build: `ctest -L lit`, or `lit.py -sv <build>/tests/lit`.
# Run straight from the sources with MOTEC=/path/to/motec set:
#   MOTEC=build/bin/motec /usr/lib/llvm-16/build/utils/lit/lit.py -sv tests/lit
import os
import sys

import lit.formats

config.name = "mote"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".hlo", ".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)

motec = getattr(config, "motec", None) or os.environ.get("MOTEC")
if not motec:
    lit_config.fatal("motec not configured: run lit on <build>/tests/lit or set MOTEC")
motec = os.path.abspath(motec)
source_dir = getattr(config, "mote_source_dir", None) or os.path.abspath(
    os.path.join(config.test_source_root, "..", ".."))
if not hasattr(config, "test_exec_root") or config.test_exec_root is None:
    config.test_exec_root = os.path.join(os.path.dirname(motec), "..", "tests", "lit")
tools_dir = getattr(config, "llvm_tools_dir", None) or "/usr/lib/llvm-16/bin"
python = getattr(config, "python", None) or sys.executable
inputs = os.path.join(config.test_source_root, "Inputs")

# FileCheck, not, split-file and count from LLVM come first on PATH.
config.environment["PATH"] = os.pathsep.join([tools_dir, os.environ.get("PATH", "")])
config.environment["FILECHECK_OPTS"] = "--dump-input=fail"

config.substitutions.append(("%motec", motec))
config.substitutions.append(("%mote_runtime", getattr(config, "mote_runtime", "")))
if getattr(config, "graphviz", 0):
    config.available_features.add("graphviz")
config.substitutions.append(("%python", python))
config.substitutions.append(("%expect-exit", f"{python} {inputs}/expect_exit.py"))
config.substitutions.append(("%make-npy", f"{python} {inputs}/npy_tool.py make"))
config.substitutions.append(("%read-npy", f"{python} {inputs}/npy_tool.py read"))
config.substitutions.append(("%make-weights", f"{python} {inputs}/weights_tool.py"))
# mote-run for this machine, and for aarch64 under qemu-user; both next to motec.
bin_dir = os.path.dirname(motec)
config.substitutions.append(("%mote-run-aarch64", "qemu-aarch64 -L /usr/aarch64-linux-gnu "
                             + os.path.join(bin_dir, "mote-run-aarch64-linux-gnu")))
config.substitutions.append(("%mote-run", os.path.join(bin_dir, "mote-run")))
config.substitutions.append(("%examples", os.path.join(source_dir, "examples")))
config.substitutions.append(("%mote_version", getattr(config, "mote_version", "")))
