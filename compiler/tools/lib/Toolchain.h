//===- Toolchain.h - The C compiler and emulator for a target ---*- C++ -*-===//
///
/// \file
/// What `motec run` needs on the build machine to link the run driver for a
/// target and execute it: the C compiler with its flags, and the emulator
/// with its command line. Missing tools are errors naming the Debian package.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_TOOLCHAIN_H
#define MOTE_TOOLS_TOOLCHAIN_H

#include "ExitCodes.h"

#include "target/Target.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mote::tools {

/// An error that knows which exit status motec should end with.
class ToolError : public llvm::ErrorInfo<ToolError> {
public:
  static char ID;
  ToolError(ExitCode code, std::string message) : code_(code), message_(std::move(message)) {}
  ExitCode code() const { return code_; }
  void log(llvm::raw_ostream &os) const override { os << message_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  ExitCode code_;
  std::string message_;
};

llvm::Error toolError(ExitCode code, const llvm::Twine &message);
/// Prints `error: <message>` to `errs` and returns the error's exit code
/// (ExitInternalError for errors that are not ToolErrors).
ExitCode reportToolError(llvm::Error error, llvm::raw_ostream &errs);

struct Toolchain {
  std::string compiler;                  ///< absolute path of the C compiler
  std::vector<std::string> compileFlags; ///< target flags, before the sources
  std::vector<std::string> linkFlags;    ///< after the sources and objects
  std::string emulator;                  ///< absolute path; empty when native
  std::vector<std::string> emulatorFlags;
  /// qemu-system images get no command line: the driver's run directory is
  /// compiled in instead (-DMOTE_RUN_DIR).
  bool bareMetal = false;

  /// The command that runs `program` with the driver's files in `dir`.
  std::vector<std::string> runCommand(llvm::StringRef program, llvm::StringRef dir) const;
};

/// The toolchain for `spec`, or a ToolError: ExitUnsupported naming the
/// Debian package when a tool is missing, or when the target has no runner.
llvm::Expected<Toolchain> findToolchain(const target::TargetSpec &spec);

} // namespace mote::tools

#endif // MOTE_TOOLS_TOOLCHAIN_H
