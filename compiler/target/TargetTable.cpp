//===- TargetTable.cpp - The triples, CPUs and tools Mote knows -----------===//
///
/// \file
/// One entry per supported triple. CPU names and features are LLVM's (as
/// clang's -mcpu/-mattr spell them); the C compilers, emulators and Debian
/// packages are what `motec run` needs on a Debian 12 build machine.
///
//===----------------------------------------------------------------------===//

#include "target/Target.h"

#include "llvm/TargetParser/Triple.h"

namespace mote::target {

namespace {

std::vector<TargetInfo> buildTable() {
  std::vector<TargetInfo> table;

  TargetInfo x86;
  x86.triple = "x86_64-linux-gnu";
  x86.description = "x86-64 Linux (the build machine); 'native' uses the host's CPU";
  x86.defaultCpu = "x86-64";
  x86.cpus = {"x86-64",  "x86-64-v2",      "x86-64-v3",      "x86-64-v4",
              "haswell", "skylake-avx512", "sapphirerapids", "native"};
  // x86-64-v3 is AVX2 + FMA + F16C; v4 AVX-512, and VNNI for int8 sums.
  x86.packageLevels = {{"", ""}, {"x86-64-v3", ""}, {"x86-64-v4", "+avx512vnni"}};
  x86.runner = RunnerKind::Native;
  x86.cCompiler = "cc";
  x86.cCompilerPackage = "gcc";
  table.push_back(x86);

  std::vector<llvm::StringRef> armCpus = {"generic",    "cortex-a53", "cortex-a55",  "cortex-a72",
                                          "cortex-a76", "cortex-a78", "neoverse-n1", "neoverse-v1"};
  TargetInfo a64;
  a64.triple = "aarch64-linux-gnu";
  a64.description = "AArch64 Linux, static binaries under qemu-aarch64";
  a64.defaultCpu = "generic";
  a64.cpus = armCpus;
  a64.defaultFeatures = "+neon";
  a64.packageLevels = {
      {"", ""}, {"", "+dotprod,+fullfp16"}, {"", "+dotprod,+fullfp16,+i8mm,+bf16"}};
  a64.runner = RunnerKind::QemuUser;
  a64.cCompiler = "aarch64-linux-gnu-gcc";
  a64.cCompilerPackage = "gcc-aarch64-linux-gnu";
  a64.emulator = "qemu-aarch64";
  a64.emulatorPackage = "qemu-user";
  table.push_back(a64);

  TargetInfo android = a64;
  android.triple = "aarch64-linux-android";
  android.description = "AArch64 Android (compile only: no runner on this machine)";
  android.runner = RunnerKind::None;
  android.cCompiler = android.cCompilerPackage = "";
  android.emulator = android.emulatorPackage = "";
  table.push_back(android);

  TargetInfo rv64;
  rv64.triple = "riscv64-linux-gnu";
  rv64.description = "RISC-V 64 Linux (rv64gc; add +v for the vector extension), qemu-riscv64";
  rv64.defaultCpu = "generic-rv64";
  rv64.cpus = {"generic-rv64", "sifive-u74"};
  rv64.defaultFeatures = "+m,+a,+f,+d,+c";
  rv64.packageLevels = {{"", ""}, {"", "+v"}, {"", "+v,+zvl256b"}};
  rv64.runner = RunnerKind::QemuUser;
  rv64.cCompiler = "riscv64-linux-gnu-gcc";
  rv64.cCompilerPackage = "gcc-riscv64-linux-gnu";
  rv64.emulator = "qemu-riscv64";
  rv64.emulatorPackage = "qemu-user";
  table.push_back(rv64);

  TargetInfo m4;
  m4.triple = "thumbv7em-none-eabihf";
  m4.description = "Cortex-M4/M7 bare metal, hard float (QEMU mps2-an386 / mps2-an500)";
  m4.defaultCpu = "cortex-m4";
  m4.cpus = {"cortex-m4", "cortex-m7"};
  m4.bareMetal = true;
  m4.runner = RunnerKind::QemuSystem;
  m4.cCompiler = "arm-none-eabi-gcc";
  m4.cCompilerPackage = "gcc-arm-none-eabi picolibc-arm-none-eabi";
  m4.emulator = "qemu-system-arm";
  m4.emulatorPackage = "qemu-system-arm";
  table.push_back(m4);

  TargetInfo m55 = m4;
  m55.triple = "thumbv8.1m.main-none-eabihf";
  m55.description = "Cortex-M55 bare metal with Helium (MVE), hard float (QEMU mps3-an547)";
  m55.defaultCpu = "cortex-m55";
  m55.cpus = {"cortex-m55"};
  m55.defaultFeatures = "+mve.fp";
  table.push_back(m55);

  TargetInfo rv32;
  rv32.triple = "riscv32-unknown-elf";
  rv32.description = "RISC-V 32 bare metal (rv32imac; +f for rv32imafc), QEMU virt";
  rv32.defaultCpu = "generic-rv32";
  rv32.cpus = {"generic-rv32", "sifive-e31", "sifive-e76"};
  rv32.defaultFeatures = "+m,+a,+c";
  rv32.bareMetal = true;
  rv32.runner = RunnerKind::QemuSystem;
  rv32.cCompiler = "riscv64-unknown-elf-gcc";
  rv32.cCompilerPackage = "gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf";
  rv32.emulator = "qemu-system-riscv32";
  rv32.emulatorPackage = "qemu-system-misc";
  table.push_back(rv32);

  return table;
}

} // namespace

llvm::ArrayRef<TargetInfo> supportedTargets() {
  static const std::vector<TargetInfo> table = buildTable();
  return table;
}

const TargetInfo *findTarget(llvm::StringRef triple) {
  for (const TargetInfo &info : supportedTargets())
    if (info.triple == triple)
      return &info;
  return nullptr;
}

llvm::StringRef hostTriple() {
#if defined(__x86_64__)
  return "x86_64-linux-gnu";
#elif defined(__aarch64__)
  return "aarch64-linux-gnu";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64-linux-gnu";
#else
  return "";
#endif
}

} // namespace mote::target
