//===- RunCompile.h - Target flags and compiling, for compile and run -*- C++ -*-===//
///
/// \file
/// The steps `motec compile` and `motec run` share: turning the target flags
/// into a TargetSpec, and compiling a loaded module, each failure printed
/// with its exit code.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_RUNCOMPILE_H
#define MOTE_TOOLS_RUNCOMPILE_H

#include "Commands.h"

#include "output/CompileModel.h"

#include <variant>

namespace mote::tools {

/// Each triple of `options` (comma-separated; none means the build machine's)
/// resolved with the CPU and features, or ExitBadCommandLine after printing
/// what is supported.
std::variant<std::vector<target::TargetSpec>, ExitCode>
resolveTargetOptions(const TargetOptions &options, llvm::raw_ostream &errs);

/// `module` compiled for `spec`; on failure the error is printed (located
/// at the instruction when it can be) and the exit code returned:
/// ExitUnsupported for what code generation cannot do, ExitInternalError
/// for the rest. `choices` gives fusion and native half sums (its targets
/// are in `spec`). With `weightsOutsideCode` (packages), large constants go
/// to CompiledModel::weights; `rhsPanels` is CompileOptions::rhsPanels.
std::variant<output::CompiledModel, ExitCode>
compileForTarget(hlo::Module &module, const target::TargetSpec &spec, llvm::StringRef name,
                 llvm::raw_ostream &errs, const TargetOptions &choices = {},
                 bool weightsOutsideCode = false, bool rhsPanels = true);

} // namespace mote::tools

#endif // MOTE_TOOLS_RUNCOMPILE_H
