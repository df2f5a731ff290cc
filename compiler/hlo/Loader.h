//===- Loader.h - Read, parse and verify an HLO file ------------*- C++ -*-===//
#ifndef MOTE_HLO_LOADER_H
#define MOTE_HLO_LOADER_H

#include "hlo/Module.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace mote::hlo {

/// Reads `path` ("-" for stdin), parses and verifies it. Errors are located in
/// the file (the module's source manager keeps it for later diagnostics); a
/// file that cannot be read is a plain error naming the path.
llvm::Expected<std::unique_ptr<Module>> loadModule(llvm::StringRef path);

/// Parses and verifies text already in memory.
llvm::Expected<std::unique_ptr<Module>> loadModuleText(llvm::StringRef text,
                                                       llvm::StringRef bufferName = "<string>");

} // namespace mote::hlo

#endif // MOTE_HLO_LOADER_H
