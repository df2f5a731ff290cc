//===- code_selection.cc - Which code object fits the machine we run on ---===//

#include "code_selection.h"

#if defined(__linux__) && (defined(__aarch64__) || defined(__riscv))
#include <sys/auxv.h>
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

std::string machineFeatures() {
  std::string out;
  auto add = [&out](bool present, const char *feature) {
    if (present)
      out += std::string(out.empty() ? "" : ",") + feature;
  };
#if defined(__x86_64__)
  __builtin_cpu_init();
  add(true, "+sse,+sse2"); // the x86-64 baseline
  add(__builtin_cpu_supports("sse3"), "+sse3");
  add(__builtin_cpu_supports("ssse3"), "+ssse3");
  add(__builtin_cpu_supports("sse4.1"), "+sse4.1");
  add(__builtin_cpu_supports("sse4.2"), "+sse4.2");
  add(__builtin_cpu_supports("popcnt"), "+popcnt");
  add(__builtin_cpu_supports("avx"), "+avx");
  add(__builtin_cpu_supports("avx2"), "+avx2");
  add(__builtin_cpu_supports("fma"), "+fma");
  add(__builtin_cpu_supports("bmi"), "+bmi");
  add(__builtin_cpu_supports("bmi2"), "+bmi2");
  add(__builtin_cpu_supports("avx512f"), "+avx512f");
  add(__builtin_cpu_supports("avx512bw"), "+avx512bw");
  add(__builtin_cpu_supports("avx512dq"), "+avx512dq");
  add(__builtin_cpu_supports("avx512vl"), "+avx512vl");
#elif defined(__aarch64__) && defined(__linux__)
  // Linux on AArch64 always has FP and Advanced SIMD; the rest the kernel
  // reports in AT_HWCAP (bit numbers from <asm/hwcap.h>).
  unsigned long hwcap = getauxval(AT_HWCAP);
  add(true, "+fp-armv8,+neon");
  add(hwcap & (1ul << 7), "+crc");
  add(hwcap & (1ul << 8), "+lse");
  add(hwcap & (1ul << 10), "+fullfp16");
  add(hwcap & (1ul << 20), "+dotprod");
  add(hwcap & (1ul << 22), "+sve");
#elif defined(__riscv) && defined(__linux__)
  // The kernel reports single-letter extensions as bits of AT_HWCAP.
  unsigned long hwcap = getauxval(AT_HWCAP);
  static const char kLetters[] = "mafdcv";
  for (const char *letter = kLetters; *letter; ++letter) {
    char feature[3] = {'+', *letter, 0};
    add(hwcap & (1ul << (*letter - 'a')), feature);
  }
#endif
  return out;
}

mote_status selectCode(const mote_package *package, const char *triple, const std::string &features,
                       uint32_t *out_index) {
  return mote_package_select(package, triple, features.c_str(), out_index);
}

} // namespace mote::run
