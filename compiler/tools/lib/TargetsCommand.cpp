//===- TargetsCommand.cpp - motec targets ---------------------------------===//

#include "Commands.h"

#include "target/Target.h"

#include "llvm/Support/Program.h"

namespace mote::tools {

namespace {

llvm::StringRef runnerName(target::RunnerKind kind) {
  switch (kind) {
  case target::RunnerKind::Native:
    return "native";
  case target::RunnerKind::QemuUser:
    return "qemu-user";
  case target::RunnerKind::QemuSystem:
    return "qemu-system, semihosting";
  case target::RunnerKind::None:
    return "none";
  }
  return "none";
}

/// "aarch64-linux-gnu-gcc" or "aarch64-linux-gnu-gcc (missing: apt-get install ...)".
std::string toolStatus(llvm::StringRef tool, llvm::StringRef package) {
  if (llvm::sys::findProgramByName(tool))
    return tool.str();
  return tool.str() + " (missing: apt-get install " + package.str() + ")";
}

} // namespace

ExitCode runTargets(llvm::raw_ostream &out) {
  for (const target::TargetInfo &info : target::supportedTargets()) {
    out << info.triple << "\n  " << info.description << "\n  cpus: ";
    for (size_t i = 0; i < info.cpus.size(); ++i) {
      out << (i ? ", " : "") << info.cpus[i];
      if (info.cpus[i] == info.defaultCpu)
        out << " (default)";
    }
    out << "\n  default features: "
        << (info.defaultFeatures.empty() ? llvm::StringRef("(none)") : info.defaultFeatures)
        << "\n  runner: " << runnerName(info.runner);
    if (info.runner != target::RunnerKind::None) {
      out << "; driver built with " << toolStatus(info.cCompiler, info.cCompilerPackage);
      if (!info.emulator.empty())
        out << "; runs under " << toolStatus(info.emulator, info.emulatorPackage);
    }
    out << "\n";
  }
  return ExitOk;
}

} // namespace mote::tools
