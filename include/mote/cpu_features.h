/*===- mote/cpu_features.h - CPU features a code object may require -------===
 *
 * Part of the contract between compiler and runtime. A code object records
 * the CPU features it needs; the runtime loads it only on a machine that has
 * each of them. For the architectures below, the features that can be
 * recorded are exactly these (LLVM's spellings, comma-separated): motec
 * records those the target's CPU and --features enable, implied ones
 * included, and a port detects the same names at run time. A feature not
 * listed is never required: the listed ones imply it on every real CPU
 * (cx16 with x86-64-v2, fp16 conversions with NEON...), or generated code
 * does not use it.
 *
 * RISC-V's zvl<N>b say the vector registers are at least N bits wide (V
 * alone promises 128): code compiled for them holds that many lanes in a
 * register, so it must not run where the registers are narrower.
 *
 * Bare-metal triples have no detection: firmware knows its board and selects
 * by triple alone, so their code objects record the --features given.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MOTE_CPU_FEATURES_H
#define MOTE_CPU_FEATURES_H

#define MOTE_CPU_FEATURES_X86_64                                                                   \
  "sse3,ssse3,sse4.1,sse4.2,popcnt,avx,avx2,fma,f16c,bmi,bmi2,lzcnt,movbe,avx512f,avx512bw,"     \
  "avx512dq,avx512vl,avx512cd,avx512vnni,avx512bf16,avxvnni"
#define MOTE_CPU_FEATURES_AARCH64 "fp-armv8,neon,crc,lse,fullfp16,dotprod,i8mm,bf16,sve"
#define MOTE_CPU_FEATURES_RISCV64 "m,a,f,d,c,v,zvl256b,zvl512b,zvl1024b"

#endif /* MOTE_CPU_FEATURES_H */
