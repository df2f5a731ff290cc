//===- ModuleFile.h - Load an HLO or StableHLO file for a command -*- C++ -*-===//
///
/// \file
/// The one place the tools read a model: HLO text, or StableHLO MLIR text
/// (recognised by its content, whatever the extension), parsed, converted
/// and verified. The source manager stays alive when loading fails too, so
/// every error prints clang-style with the file, line, column, the source
/// line and a caret.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_MODULEFILE_H
#define MOTE_TOOLS_MODULEFILE_H

#include "ExitCodes.h"

#include "hlo/Module.h"
#include "stablehlo/StableHlo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <vector>

namespace mote::tools {

/// How StableHLO files are read (set once from the command line).
struct ModuleLoadOptions {
  /// ConversionOptions::liftInputs: `@inputs()`'s values become parameters.
  bool liftInputs = false;
};
void setModuleLoadOptions(const ModuleLoadOptions &options);

struct LoadedModule {
  std::unique_ptr<hlo::Module> module; ///< null when loading failed
  ExitCode failure = ExitOk;           ///< why, when it did
  /// StableHLO `check.*` assertions: the entry's last result leaves.
  std::vector<stablehlo::CheckDescription> checks;
  /// The lifted `@inputs` function (ModuleLoadOptions::liftInputs).
  std::unique_ptr<hlo::Module> inputs;
};

/// Reads `path` ("-" for stdin), parses (or converts) and verifies it. On
/// failure prints the error to `errs`: ExitInvalidInput for bad input,
/// ExitUnsupported for valid StableHLO Mote does not support.
LoadedModule loadModuleFile(llvm::StringRef path, llvm::raw_ostream &errs);

/// loadModuleFile() for commands that need only the module (checks stay
/// result leaves); null on failure, with `failure` set if given.
std::unique_ptr<hlo::Module> loadModuleReportingErrors(llvm::StringRef path,
                                                       llvm::raw_ostream &errs,
                                                       ExitCode *failure = nullptr);

} // namespace mote::tools

#endif // MOTE_TOOLS_MODULEFILE_H
