//===- ModuleFile.h - Load an HLO file for a command ------------*- C++ -*-===//
///
/// \file
/// Parses and verifies an HLO file like hlo::loadModule, but keeps the source
/// manager alive when parsing fails too, so every error prints clang-style
/// with the file, line, column, the source line and a caret.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_TOOLS_MODULEFILE_H
#define MOTE_TOOLS_MODULEFILE_H

#include "hlo/Module.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace mote::tools {

/// Reads `path` ("-" for stdin), parses and verifies it. On failure prints the
/// error to `errs` and returns null (the caller exits with ExitInvalidInput).
std::unique_ptr<hlo::Module> loadModuleReportingErrors(llvm::StringRef path,
                                                       llvm::raw_ostream &errs);

} // namespace mote::tools

#endif // MOTE_TOOLS_MODULEFILE_H
