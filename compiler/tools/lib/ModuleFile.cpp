//===- ModuleFile.cpp - Load an HLO file for a command --------------------===//

#include "ModuleFile.h"

#include "hlo/Diagnostics.h"
#include "hlo/Parser.h"
#include "hlo/Verifier.h"

#include "llvm/Support/MemoryBuffer.h"

namespace mote::tools {

std::unique_ptr<hlo::Module> loadModuleReportingErrors(llvm::StringRef path,
                                                       llvm::raw_ostream &errs) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    errs << "error: cannot read '" << path << "': " << buffer.getError().message() << '\n';
    return nullptr;
  }
  // A package is the output of motec compile, not an input to it.
  if ((*buffer)->getBuffer().starts_with(llvm::StringRef("MOTEPKG\0", 8))) {
    errs << "error: '" << path
         << "' is a Mote package (.mote), not an HLO module; run it with mote-run, or give "
            "motec the HLO it was compiled from\n";
    return nullptr;
  }
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned bufferId = sourceManager->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  auto module = hlo::parseModule(sourceManager, bufferId);
  if (!module) {
    hlo::printError(module.takeError(), sourceManager.get(), errs);
    return nullptr;
  }
  if (llvm::Error error = hlo::verifyModule(**module)) {
    hlo::printError(std::move(error), sourceManager.get(), errs);
    return nullptr;
  }
  return std::move(*module);
}

} // namespace mote::tools
