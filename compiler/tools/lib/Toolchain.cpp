//===- Toolchain.cpp - The C compiler and emulator for a target -----------===//
///
/// \file
/// Command lines as tested on Debian 12 (see the toolchain notes): static
/// Linux binaries under qemu-user; bare-metal images linked with picolibc's
/// semihosting crt0 (its vector table enables the FPU, and main's return
/// value becomes QEMU's exit status) for the boards' RAM maps.
///
//===----------------------------------------------------------------------===//

#include "Toolchain.h"

#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::tools {

char ToolError::ID = 0;

llvm::Error toolError(ExitCode code, const llvm::Twine &message) {
  return llvm::make_error<ToolError>(code, message.str());
}

ExitCode reportToolError(llvm::Error error, llvm::raw_ostream &errs) {
  ExitCode code = ExitInternalError;
  llvm::handleAllErrors(
      std::move(error),
      [&](const ToolError &tool) {
        code = tool.code();
        errs << "error: ";
        tool.log(errs);
        errs << '\n';
      },
      [&](const llvm::ErrorInfoBase &other) {
        errs << "error: ";
        other.log(errs);
        errs << '\n';
      });
  return code;
}

namespace {

llvm::Expected<std::string> findTool(llvm::StringRef name, llvm::StringRef package,
                                     llvm::StringRef triple, llvm::StringRef purpose) {
  auto path = llvm::sys::findProgramByName(name);
  if (!path)
    return toolError(ExitUnsupported, "cannot " + purpose + " for " + triple + ": '" + name +
                                          "' is not installed (Debian: apt-get install " + package +
                                          ")");
  return *path;
}

std::string defsym(llvm::StringRef symbol, uint64_t value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "-Wl,--defsym=" << symbol << "=0x";
  os.write_hex(value);
  return os.str();
}

/// picolibc with semihosting: a crt0 that exits QEMU with main's status.
void addPicolibc(Toolchain &toolchain, uint64_t flash, uint64_t flashSize, uint64_t ram,
                 uint64_t ramSize) {
  for (const char *flag : {"--specs=picolibc.specs", "--oslib=semihost", "--crt0=semihost"})
    toolchain.compileFlags.push_back(flag);
  toolchain.linkFlags.push_back(defsym("__flash", flash));
  toolchain.linkFlags.push_back(defsym("__flash_size", flashSize));
  toolchain.linkFlags.push_back(defsym("__ram", ram));
  toolchain.linkFlags.push_back(defsym("__ram_size", ramSize));
}

/// "rv32imac" from the features the spec enables, in the canonical order.
std::string riscvArch(const target::TargetSpec &spec, llvm::StringRef base) {
  std::string arch = base.str() + "i";
  for (const char *extension : {"m", "a", "f", "d", "c"})
    if (target::hasFeature(spec, extension))
      arch += extension;
  return arch;
}

llvm::Error addBareMetal(const target::TargetSpec &spec, Toolchain &toolchain) {
  llvm::Triple triple(spec.triple);
  auto &flags = toolchain.compileFlags;
  auto &qemu = toolchain.emulatorFlags;
  // Semihosting command lines differ between C libraries and QEMU versions.
  flags.push_back("-DMOTE_RUN_IGNORE_ARGV");
  if (triple.isRISCV32()) {
    flags.push_back("-march=" + riscvArch(spec, "rv32"));
    flags.push_back("-mabi=" + target::abiName(spec).str());
    flags.push_back("-mcmodel=medany");
    addPicolibc(toolchain, 0x80000000, 0x200000, 0x80200000, 0x4000000 - 0x200000);
    qemu = {"-M", "virt", "-m", "64M", "-bios", "none"};
    return llvm::Error::success();
  }
  flags.push_back("-mcpu=" + spec.cpu);
  flags.push_back("-mthumb");
  flags.push_back("-mfloat-abi=hard");
  // Board RAM maps as QEMU 7.2 models them; the large RAM keeps the heap
  // (arguments, results, scratch) clear of the boards' small SRAMs.
  if (spec.cpu == "cortex-m4") {
    flags.push_back("-mfpu=fpv4-sp-d16");
    addPicolibc(toolchain, 0x0, 0x400000, 0x21000000, 0x1000000);
    qemu = {"-M", "mps2-an386"};
  } else if (spec.cpu == "cortex-m7") {
    flags.push_back("-mfpu=fpv5-d16");
    addPicolibc(toolchain, 0x0, 0x400000, 0x60000000, 0x1000000);
    qemu = {"-M", "mps2-an500"};
  } else if (spec.cpu == "cortex-m55") {
    addPicolibc(toolchain, 0x0, 0x80000, 0x60000000, 0x1000000);
    qemu = {"-M", "mps3-an547"};
  } else {
    return toolError(ExitUnsupported, "motec run has no QEMU board for " + spec.cpu);
  }
  return llvm::Error::success();
}

} // namespace

std::vector<std::string> Toolchain::runCommand(llvm::StringRef program, llvm::StringRef dir) const {
  std::vector<std::string> command;
  if (!emulator.empty()) {
    command.push_back(emulator);
    command.insert(command.end(), emulatorFlags.begin(), emulatorFlags.end());
  }
  if (bareMetal) {
    // No command line: the image has its run directory compiled in.
    for (const char *flag : {"-nographic", "-monitor", "none", "-semihosting", "-kernel"})
      command.push_back(flag);
    command.push_back(program.str());
    return command;
  }
  command.push_back(program.str());
  command.push_back(dir.str());
  return command;
}

llvm::Expected<Toolchain> findToolchain(const target::TargetSpec &spec) {
  const target::TargetInfo &info = *spec.info;
  if (info.runner == target::RunnerKind::None)
    return toolError(ExitUnsupported, "motec run cannot run " + spec.triple +
                                          " on this machine (compile only; use --target=" +
                                          target::hostTriple() + " or a qemu target)");
  Toolchain toolchain;
  auto compiler =
      findTool(info.cCompiler, info.cCompilerPackage, spec.triple, "link the run driver");
  if (!compiler)
    return compiler.takeError();
  toolchain.compiler = *compiler;
  toolchain.bareMetal = info.bareMetal;
  if (info.runner != target::RunnerKind::Native) {
    auto emulator = findTool(info.emulator, info.emulatorPackage, spec.triple, "run code");
    if (!emulator)
      return emulator.takeError();
    toolchain.emulator = *emulator;
  }
  toolchain.compileFlags = {"-std=c99", "-O2"};
  llvm::Triple triple(spec.triple);
  if (!info.bareMetal) {
    toolchain.linkFlags.push_back("-static");
    // QEMU's vector registers as narrow as the code allows.
    if (unsigned bits = triple.isRISCV64() ? target::riscvVectorBits(spec) : 0)
      toolchain.emulatorFlags = {"-cpu", "rv64,v=true,vext_spec=v1.0,vlen=" + std::to_string(bits)};
    return toolchain;
  }
  if (llvm::Error error = addBareMetal(spec, toolchain))
    return std::move(error);
  return toolchain;
}

} // namespace mote::tools
