//===- runtime/package/machine.cc - This machine's triple and CPU features ===//
//
// The probes behind mote/machine.h: the triple is fixed when this file is
// compiled; on Linux each feature of mote/cpu_features.h's list is asked of
// the CPU (cpuid on x86-64, AT_HWCAP and vlenb on AArch64 and RISC-V). The
// answers are computed once; computing them twice gives the same values, so
// callers on several threads need no lock.
//
//===----------------------------------------------------------------------===//
#include "mote/machine.h"

#if defined(__linux__) && (defined(__aarch64__) || defined(__riscv))
#include <sys/auxv.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#endif

namespace {

struct Feature {
  const char *name;
  bool present;
};

constexpr uint32_t kMaxFeatures = 32;
Feature features[kMaxFeatures];
uint32_t feature_count = 0;
bool probed = false;

void add(const char *name, bool present) {
  if (feature_count < kMaxFeatures)
    features[feature_count++] = {name, present};
}

void probe() {
  if (probed)
    return;
  feature_count = 0;
#if defined(__x86_64__) && defined(__linux__)
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx1 = 0, edx = 0, ecx_extended = 0, eax7s1 = 0;
  __get_cpuid(1, &eax, &ebx, &ecx1, &edx);
  __get_cpuid(0x80000001u, &eax, &ebx, &ecx_extended, &edx);
  __get_cpuid_count(7, 1, &eax7s1, &ebx, &eax, &edx);
  add("sse3", __builtin_cpu_supports("sse3"));
  add("ssse3", __builtin_cpu_supports("ssse3"));
  add("sse4.1", __builtin_cpu_supports("sse4.1"));
  add("sse4.2", __builtin_cpu_supports("sse4.2"));
  add("popcnt", __builtin_cpu_supports("popcnt"));
  add("avx", __builtin_cpu_supports("avx"));
  add("avx2", __builtin_cpu_supports("avx2"));
  add("fma", __builtin_cpu_supports("fma"));
  add("f16c", ecx1 & (1u << 29)); // CPUID.1:ECX
  add("bmi", __builtin_cpu_supports("bmi"));
  add("bmi2", __builtin_cpu_supports("bmi2"));
  add("lzcnt", ecx_extended & (1u << 5)); // CPUID.80000001h:ECX (ABM)
  add("movbe", ecx1 & (1u << 22));        // CPUID.1:ECX
  add("avx512f", __builtin_cpu_supports("avx512f"));
  add("avx512bw", __builtin_cpu_supports("avx512bw"));
  add("avx512dq", __builtin_cpu_supports("avx512dq"));
  add("avx512vl", __builtin_cpu_supports("avx512vl"));
  add("avx512cd", __builtin_cpu_supports("avx512cd"));
  add("avx512vnni", __builtin_cpu_supports("avx512vnni"));
  add("avx512bf16", __builtin_cpu_supports("avx512bf16"));
  add("avxvnni", eax7s1 & (1u << 4)); // CPUID.(7,1):EAX
#elif defined(__aarch64__) && defined(__linux__)
  // Linux on AArch64 always has FP and Advanced SIMD; the rest the kernel
  // reports in AT_HWCAP and AT_HWCAP2 (bit numbers from <asm/hwcap.h>).
  unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  add("fp-armv8", true);
  add("neon", true);
  add("crc", hwcap & (1ul << 7));
  add("lse", hwcap & (1ul << 8));
  add("fullfp16", hwcap & (1ul << 10));
  add("dotprod", hwcap & (1ul << 20));
  add("i8mm", hwcap2 & (1ul << 13));
  add("bf16", hwcap2 & (1ul << 14));
  add("sve", hwcap & (1ul << 22));
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
  // The kernel reports single-letter extensions as bits of AT_HWCAP.
  unsigned long hwcap = getauxval(AT_HWCAP);
  static const char *const kLetters[] = {"m", "a", "f", "d", "c", "v"};
  for (const char *letter : kLetters)
    add(letter, hwcap & (1ul << (letter[0] - 'a')));
  // The vector registers' width: vlenb is readable only with V.
  unsigned long vector_bits = 0;
  if (hwcap & (1ul << ('v' - 'a'))) {
    unsigned long bytes = 0;
    __asm__ volatile(".option push\n.option arch, +v\ncsrr %0, vlenb\n.option pop" : "=r"(bytes));
    vector_bits = bytes * 8;
  }
  add("zvl256b", vector_bits >= 256);
  add("zvl512b", vector_bits >= 512);
  add("zvl1024b", vector_bits >= 1024);
#endif
  probed = true;
}

} // namespace

extern "C" const char *mote_machine_triple(void) {
#if defined(__x86_64__) && defined(__linux__) && !defined(__ANDROID__)
  return "x86_64-linux-gnu";
#elif defined(__aarch64__) && defined(__ANDROID__)
  return "aarch64-linux-android";
#elif defined(__aarch64__) && defined(__linux__)
  return "aarch64-linux-gnu";
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
  return "riscv64-linux-gnu";
#elif defined(__ARM_ARCH_8_1M_MAIN__) && defined(__ARM_PCS_VFP)
  return "thumbv8.1m.main-none-eabihf";
#elif defined(__ARM_ARCH_7EM__) && defined(__ARM_PCS_VFP)
  return "thumbv7em-none-eabihf";
#elif defined(__riscv) && __riscv_xlen == 32
  return "riscv32-unknown-elf";
#else
  return "";
#endif
}

extern "C" int mote_machine_detects_features(void) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__) || defined(__riscv))
  return 1;
#else
  return 0;
#endif
}

extern "C" uint32_t mote_machine_feature_count(void) {
  probe();
  return feature_count;
}

extern "C" mote_status mote_machine_feature(uint32_t index, const char **out_name,
                                            int *out_present) {
  probe();
  if (index >= feature_count || !out_name || !out_present)
    return MOTE_INVALID_ARGUMENT;
  *out_name = features[index].name;
  *out_present = features[index].present ? 1 : 0;
  return MOTE_OK;
}

extern "C" mote_status mote_machine_features(char *buffer, size_t capacity) {
  if (!buffer || capacity == 0)
    return MOTE_INVALID_ARGUMENT;
  probe();
  size_t length = 0;
  for (uint32_t i = 0; i < feature_count; ++i) {
    if (!features[i].present)
      continue;
    const char *separator = length ? ",+" : "+";
    for (const char *p = separator; *p; ++p) {
      if (length + 1 >= capacity)
        return MOTE_BUFFER_TOO_SMALL;
      buffer[length++] = *p;
    }
    for (const char *p = features[i].name; *p; ++p) {
      if (length + 1 >= capacity)
        return MOTE_BUFFER_TOO_SMALL;
      buffer[length++] = *p;
    }
  }
  buffer[length] = '\0';
  return MOTE_OK;
}
