"""XNNPACK for arm64 as a peer under qemu-aarch64: Debian's own arm64 build, unpacked.

Installing libxnnpack-dev:arm64 with apt would remove the amd64 XNNPACK (and
python3-torch with it), so the packages are only downloaded (`apt-get download`, which
needs arm64 among dpkg's architectures: scripts/install-deps.sh bench adds it) and
unpacked with `dpkg-deb -x` into <build>/bench/arm64-sysroot. The peer program
(peers/xnnpack_peer.cc and xnnpack_quantized.cc) is cross-compiled against it and run as
`qemu-aarch64 -cpu <cpu> -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=<sysroot libs>`.

Under qemu-user XNNPACK cannot identify the core (cpuinfo reads the host's /proc/cpuinfo),
so it takes its generic kernel choice for the ISA the emulated CPU reports: with
`-cpu max` the SDOT kernels, with `-cpu cortex-a57` plain NEON.
"""

import glob
import os
import subprocess
import tempfile

from engines import COMMON_SOURCES, PEERS, ROOT, RunError, compile_if_stale, run

PACKAGES = ["libxnnpack0:arm64", "libxnnpack-dev:arm64", "libpthreadpool0:arm64",
            "libpthreadpool-dev:arm64", "libcpuinfo0:arm64"]
SOURCES = ["xnnpack_peer.cc", "xnnpack_quantized.cc"]


def sysroot(work):
    """The unpacked arm64 packages (downloaded once); RunError if apt cannot get them."""
    root = os.path.join(work, "arm64-sysroot")
    if os.path.exists(os.path.join(root, "usr", "include", "xnnpack.h")):
        return root
    with tempfile.TemporaryDirectory(prefix="mote-arm64-") as download:
        run(["apt-get", "download"] + PACKAGES, timeout=600, cwd=download)
        for deb in glob.glob(os.path.join(download, "*.deb")):
            run(["dpkg-deb", "-x", deb, root])
    return root


def build(work):
    """(peer binary, LD_LIBRARY_PATH) for qemu-aarch64; RunError when they do not build."""
    root = sysroot(work)
    libs = os.path.join(root, "usr", "lib", "aarch64-linux-gnu")
    binary = os.path.join(work, "bin", "xnnpack-peer-arm64")
    # The host peers' shared sources (peer_main.cc, the .npy and file readers).
    sources = [os.path.join(PEERS, s) for s in SOURCES] + COMMON_SOURCES
    argv = (["aarch64-linux-gnu-g++", "-O3", "-std=c++17", "-I" + os.path.join(ROOT, "include"),
             "-I" + os.path.join(ROOT, "runtime", "tools"),
             "-isystem", os.path.join(root, "usr", "include")] + sources +
            ["-o", binary, "-L" + libs, "-Wl,-rpath-link," + libs,
             "-lXNNPACK", "-lpthreadpool", "-lpthread", "-lm"])
    headers = [os.path.join(PEERS, h) for h in ("peer.h", "xnnpack_graph.h")]
    compile_if_stale(binary, argv, sources + headers)
    return binary, libs
