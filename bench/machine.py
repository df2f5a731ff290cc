"""The host CPU as the benchmark sees it: name, SIMD level, clock and f32 peak."""

import os
import subprocess

# x86 flags of /proc/cpuinfo that mote-run detects at run time (runtime/tools/
# code_selection.cc), as LLVM feature names. Mote code compiled with exactly
# these runs on this machine; code that needs more is refused by mote-run.
MOTE_RUN_FEATURES = [("pni", "+sse3"), ("ssse3", "+ssse3"), ("sse4_1", "+sse4.1"),
                     ("sse4_2", "+sse4.2"), ("popcnt", "+popcnt"), ("avx", "+avx"),
                     ("avx2", "+avx2"), ("fma", "+fma"), ("bmi1", "+bmi"), ("bmi2", "+bmi2"),
                     ("avx512f", "+avx512f"), ("avx512bw", "+avx512bw"),
                     ("avx512dq", "+avx512dq"), ("avx512vl", "+avx512vl"),
                     ("avx512_vnni", "+avx512vnni"), ("avx_vnni", "+avxvnni")]


class Machine:
    def __init__(self, clock_tool=None):
        info = {}
        processors = 0
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "processor":
                    processors += 1
                if processors == 1 and key and key not in info:
                    info[key] = value
        self.name = info.get("model name", "unknown CPU")
        self.vendor = info.get("vendor_id", "")
        self.family = int(info.get("cpu family", "0"))
        self.flags = set(info.get("flags", "").split())
        self.cores = processors
        self.nominal_ghz = float(info.get("cpu MHz", "0")) / 1000
        self.measured_ghz = measure_clock(clock_tool) if clock_tool else None
        self.ghz = self.measured_ghz or self.nominal_ghz
        self.simd, self.flops_per_cycle, self.peak_reason = self._peak_model()
        self.peak_gflops = self.flops_per_cycle * self.ghz

    def _peak_model(self):
        """f32 flops a cycle on one core: FMA pipes x lanes x 2, with the assumption said."""
        if "avx512f" in self.flags:
            if self.vendor == "AuthenticAMD" and self.family == 0x19:
                return "AVX-512", 32, ("AVX-512 on Zen 4, whose 512-bit FMAs run as two "
                                       "256-bit halves: 2 FMA pipes x 8 lanes x 2")
            return "AVX-512", 64, "AVX-512: 2 FMA pipes x 16 f32 lanes x 2 flops"
        if "avx2" in self.flags and "fma" in self.flags:
            return "AVX2", 32, "AVX2+FMA: 2 FMA pipes x 8 f32 lanes x 2 flops"
        return "SSE", 8, "SSE: one 4-lane add and one 4-lane multiply a cycle"

    def mote_features(self):
        """The --features for motec that make the best code mote-run accepts here."""
        return ",".join(name for flag, name in MOTE_RUN_FEATURES if flag in self.flags)

    def openblas_coretype(self):
        return "SkylakeX" if "avx512f" in self.flags else "Haswell"

    def describe(self):
        clock = (f"{self.measured_ghz:.2f} GHz measured (cpuinfo says {self.nominal_ghz:.2f})"
                 if self.measured_ghz else f"{self.nominal_ghz:.2f} GHz from /proc/cpuinfo")
        return (f"{self.name} ({self.vendor} family {self.family:#x}), {self.cores} cores, "
                f"{self.simd}, {clock}")

    def describe_peak(self):
        return (f"single-core f32 peak {self.peak_gflops:.0f} GFLOP/s = {self.flops_per_cycle} "
                f"flop/cycle ({self.peak_reason}) x {self.ghz:.2f} GHz")


def measure_clock(tool):
    """The core clock from a chain of dependent adds (bench/peers/cpu_clock.cc)."""
    try:
        out = subprocess.run([tool], capture_output=True, text=True, timeout=60).stdout
        return float(out.strip().split("=")[1])
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return None


def load_average():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")
