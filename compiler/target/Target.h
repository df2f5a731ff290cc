//===- Target.h - The targets Mote compiles for -----------------*- C++ -*-===//
///
/// \file
/// The triples, CPUs and features `motec` accepts, spelled as clang spells
/// them, and the LLVM TargetMachine for a chosen one.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TARGET_TARGET_H
#define MOTE_TARGET_TARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace mote::target {

/// How `motec run` executes code for a target on the build machine.
enum class RunnerKind {
  Native,     ///< the host itself
  QemuUser,   ///< qemu-aarch64 / qemu-riscv64 on a static Linux binary
  QemuSystem, ///< qemu-system-* with semihosting on a bare-metal image
  None,       ///< compile only: nothing on the build machine runs this target
};

/// A CPU and features (added to the triple's defaults) of machines users
/// have, that a package carries code for.
struct FeatureLevel {
  llvm::StringRef cpu; ///< empty: the triple's default
  llvm::StringRef features;
};

/// A triple Mote supports and what it takes to build and run code for it.
struct TargetInfo {
  llvm::StringRef triple;      ///< e.g. "aarch64-linux-gnu"
  llvm::StringRef description; ///< one line for `motec targets`
  llvm::StringRef defaultCpu;  ///< e.g. "generic", "cortex-m4"
  std::vector<llvm::StringRef> cpus;
  llvm::StringRef defaultFeatures; ///< e.g. "+neon"; may be empty
  bool bareMetal = false;
  RunnerKind runner = RunnerKind::Native;
  /// The C compiler that links a driver for this target, and the Debian
  /// package providing it (for a clear error when it is missing).
  llvm::StringRef cCompiler, cCompilerPackage;
  /// The emulator, and its Debian package (empty for Native).
  llvm::StringRef emulator, emulatorPackage;
  /// What a package built without --cpu and --features carries code for,
  /// lowest first; the loader runs the best the machine has. Empty: the
  /// default CPU alone (bare metal, where firmware knows its board).
  std::vector<FeatureLevel> packageLevels;
};

/// Every supported triple, in the order `motec targets` lists them.
llvm::ArrayRef<TargetInfo> supportedTargets();
/// The entry for `triple`, or nullptr.
const TargetInfo *findTarget(llvm::StringRef triple);
/// The triple of the machine motec runs on (x86_64-linux-gnu here).
llvm::StringRef hostTriple();

/// A resolved choice of triple, CPU and features.
struct TargetSpec {
  const TargetInfo *info = nullptr;
  std::string triple;
  std::string cpu;      ///< never empty after resolveTarget
  std::string features; ///< comma-separated "+x,-y"; defaults merged in
};

/// Validates triple/CPU/features (empty cpu/features mean the defaults). An
/// unknown triple or CPU is an error listing what is supported. On the
/// build machine's triple, cpu "native" is its CPU and features "host" its
/// features.
llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef triple, llvm::StringRef cpu,
                                         llvm::StringRef features);

/// An optimising TargetMachine for `spec` (PIC, so code objects relocate).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const TargetSpec &spec);

/// Sets the tuning of every function in `module` where `spec`'s CPU names an
/// instruction set rather than a processor: the x86-64-v2/v3/v4 levels tune
/// as plain x86-64. A level says nothing about the machine, and LLVM 16's
/// x86-64-v4 tuning (Skylake-server scheduling) spills the accumulators of the
/// f32 register tiles: the 512^3 GEMM runs 1.5x slower than the same
/// instructions tuned as x86-64.
void setLevelTuning(const TargetSpec &spec, llvm::Module &module);

/// The ABI name LLVM and GCC use for `spec` ("lp64d", "ilp32f"...), empty
/// where the triple implies it. Code generation sets it as the "target-abi"
/// module flag; createTargetMachine sets it in MCOptions.
llvm::StringRef abiName(const TargetSpec &spec);

/// True when the CPU and features of `spec` enable `feature` ("avx2", "v"),
/// implied features included.
bool hasFeature(const TargetSpec &spec, llvm::StringRef feature);

/// True when `spec` has a fused multiply-add instruction for floats of
/// `bits` (32 or 64): the one that `llvm.fma` lowers to without a library
/// call (AArch64, RISC-V F/D, x86-64 with FMA, Cortex-M with VFPv4/FPv5).
bool hasFusedMultiplyAdd(const TargetSpec &spec, unsigned bits);

/// True when `spec` converts between f16 and f32 with instructions LLVM
/// emits inline (x86-64 with F16C, AArch64), so generated code may use
/// fpext/fptrunc of half instead of integer code.
bool hasHalfConversions(const TargetSpec &spec);

/// True when, besides the conversions, LLVM handles arithmetic on vectors
/// of half well for `spec`: AArch64 with +fullfp16 (native). LLVM 16 splits
/// it into scalars on AArch64 without +fullfp16, and on x86-64 with F16C
/// splits compares of half vectors into one per lane.
bool hasHalfArithmetic(const TargetSpec &spec);

/// True when elementwise f16 code should convert with the target's
/// instructions (codegen's markHardwareF16Conversions): where it has half
/// arithmetic, and on x86-64 with F16C, where the half vector arithmetic
/// LLVM narrows the conversions into is put back on f32 vectors before
/// code generation (output/BackendWorkarounds.h). Elsewhere integer code
/// converts, which vectorises on every target.
bool convertsHalfElementwise(const TargetSpec &spec);

/// True when `spec` multiplies and adds vectors of f16 in hardware: AArch64
/// with +fullfp16 (fmla .8h), Cortex-M55's Helium with floating point
/// (vfma.f16), where f16 sums may opt to stay f16.
bool hasHalfMultiplyAdd(const TargetSpec &spec);

/// True when `spec` has bf16 dot products into f32 (AArch64 with +bf16:
/// bfdot), which bf16 sums may opt to use.
bool hasBf16DotProduct(const TargetSpec &spec);

/// The width in bits RISC-V vector registers have at least under `spec`:
/// 0 without V, 128 for V alone, N with zvl<N>b.
unsigned riscvVectorBits(const TargetSpec &spec);

/// The CPU features code compiled for `spec` requires of the machine that
/// loads it (mote/cpu_features.h): for Linux triples, each feature the
/// runtime can detect that the CPU and features enable; for bare-metal
/// triples, the features given. Comma-separated "+x".
std::string requiredFeatures(const TargetSpec &spec);

/// The widest vector register of the target in bytes (scratch alignment
/// never goes below 16).
unsigned preferredAlignment(const TargetSpec &spec);

} // namespace mote::target

#endif // MOTE_TARGET_TARGET_H
