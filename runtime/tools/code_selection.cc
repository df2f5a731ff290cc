//===- code_selection.cc - Which code object fits the machine we run on ---===//

#include "code_selection.h"

#include "mote/cpu_features.h"

#if defined(__linux__) && (defined(__aarch64__) || defined(__riscv))
#include <sys/auxv.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace mote::run {

const char *machineTriple() {
#if defined(__x86_64__) && defined(__linux__) && !defined(__ANDROID__)
  return "x86_64-linux-gnu";
#elif defined(__aarch64__) && defined(__ANDROID__)
  return "aarch64-linux-android";
#elif defined(__aarch64__) && defined(__linux__)
  return "aarch64-linux-gnu";
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
  return "riscv64-linux-gnu";
#else
  return "";
#endif
}

std::vector<FeatureProbe> machineFeatureProbes() {
  std::vector<FeatureProbe> probes;
#if defined(__x86_64__)
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx1 = 0, edx = 0, ecxExtended = 0, eax7s1 = 0;
  __get_cpuid(1, &eax, &ebx, &ecx1, &edx);
  __get_cpuid(0x80000001u, &eax, &ebx, &ecxExtended, &edx);
  __get_cpuid_count(7, 1, &eax7s1, &ebx, &eax, &edx);
  probes = {
      {"sse3", bool(__builtin_cpu_supports("sse3"))},
      {"ssse3", bool(__builtin_cpu_supports("ssse3"))},
      {"sse4.1", bool(__builtin_cpu_supports("sse4.1"))},
      {"sse4.2", bool(__builtin_cpu_supports("sse4.2"))},
      {"popcnt", bool(__builtin_cpu_supports("popcnt"))},
      {"avx", bool(__builtin_cpu_supports("avx"))},
      {"avx2", bool(__builtin_cpu_supports("avx2"))},
      {"fma", bool(__builtin_cpu_supports("fma"))},
      {"f16c", bool(ecx1 & (1u << 29))}, // CPUID.1:ECX
      {"bmi", bool(__builtin_cpu_supports("bmi"))},
      {"bmi2", bool(__builtin_cpu_supports("bmi2"))},
      {"lzcnt", bool(ecxExtended & (1u << 5))}, // CPUID.80000001h:ECX (ABM)
      {"movbe", bool(ecx1 & (1u << 22))},       // CPUID.1:ECX
      {"avx512f", bool(__builtin_cpu_supports("avx512f"))},
      {"avx512bw", bool(__builtin_cpu_supports("avx512bw"))},
      {"avx512dq", bool(__builtin_cpu_supports("avx512dq"))},
      {"avx512vl", bool(__builtin_cpu_supports("avx512vl"))},
      {"avx512cd", bool(__builtin_cpu_supports("avx512cd"))},
      {"avx512vnni", bool(__builtin_cpu_supports("avx512vnni"))},
      {"avx512bf16", bool(__builtin_cpu_supports("avx512bf16"))},
      {"avxvnni", bool(eax7s1 & (1u << 4))}, // CPUID.(7,1):EAX
  };
#elif defined(__aarch64__) && defined(__linux__)
  // Linux on AArch64 always has FP and Advanced SIMD; the rest the kernel
  // reports in AT_HWCAP (bit numbers from <asm/hwcap.h>).
  unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  probes = {
      {"fp-armv8", true},
      {"neon", true},
      {"crc", bool(hwcap & (1ul << 7))},
      {"lse", bool(hwcap & (1ul << 8))},
      {"fullfp16", bool(hwcap & (1ul << 10))},
      {"dotprod", bool(hwcap & (1ul << 20))},
      {"i8mm", bool(hwcap2 & (1ul << 13))},
      {"sve", bool(hwcap & (1ul << 22))},
  };
#elif defined(__riscv) && defined(__linux__)
  // The kernel reports single-letter extensions as bits of AT_HWCAP.
  unsigned long hwcap = getauxval(AT_HWCAP);
  for (char letter : {'m', 'a', 'f', 'd', 'c', 'v'})
    probes.push_back({std::string(1, letter), bool(hwcap & (1ul << (letter - 'a')))});
  // The vector registers' width: vlenb is readable only with V.
  unsigned long vectorBits = 0;
  if (hwcap & (1ul << ('v' - 'a'))) {
    unsigned long bytes = 0;
    __asm__ volatile(".option push\n.option arch, +v\ncsrr %0, vlenb\n.option pop" : "=r"(bytes));
    vectorBits = bytes * 8;
  }
  for (unsigned long bits : {256ul, 512ul, 1024ul})
    probes.push_back({"zvl" + std::to_string(bits) + "b", vectorBits >= bits});
#endif
  return probes;
}

const char *detectableFeatures() {
#if defined(__x86_64__)
  return MOTE_CPU_FEATURES_X86_64;
#elif defined(__aarch64__)
  return MOTE_CPU_FEATURES_AARCH64;
#elif defined(__riscv) && __riscv_xlen == 64
  return MOTE_CPU_FEATURES_RISCV64;
#else
  return "";
#endif
}

std::string machineFeatures() {
  std::string out;
  for (const FeatureProbe &probe : machineFeatureProbes())
    if (probe.present)
      out += (out.empty() ? "+" : ",+") + probe.name;
  return out;
}

mote_status selectCode(const mote_package *package, const char *triple, const std::string &features,
                       uint32_t *out_index) {
  return mote_package_select(package, triple, features.c_str(), out_index);
}

} // namespace mote::run
