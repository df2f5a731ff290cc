//===- ModuleFile.cpp - Load an HLO or StableHLO file for a command -------===//

#include "ModuleFile.h"

#include "hlo/Diagnostics.h"
#include "hlo/Parser.h"
#include "hlo/Verifier.h"

#include "llvm/Support/MemoryBuffer.h"

namespace mote::tools {

static ModuleLoadOptions loadOptions;

void setModuleLoadOptions(const ModuleLoadOptions &options) { loadOptions = options; }

LoadedModule loadModuleFile(llvm::StringRef path, llvm::raw_ostream &errs) {
  LoadedModule loaded;
  loaded.failure = ExitInvalidInput;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    errs << "error: cannot read '" << path << "': " << buffer.getError().message() << '\n';
    return loaded;
  }
  // A package is the output of motec compile, not an input to it.
  if ((*buffer)->getBuffer().starts_with(llvm::StringRef("MOTEPKG\0", 8))) {
    errs << "error: '" << path
         << "' is a Mote package (.mote), not an HLO or StableHLO module; run it with "
            "mote-run, or give motec the model it was compiled from\n";
    return loaded;
  }
  bool isMlir = stablehlo::looksLikeMlir((*buffer)->getBuffer());
  auto sourceManager = std::make_shared<llvm::SourceMgr>();
  unsigned bufferId = sourceManager->AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  std::unique_ptr<hlo::Module> module;
  if (isMlir) {
    stablehlo::ConversionOptions options;
    options.liftInputs = loadOptions.liftInputs;
    auto converted = stablehlo::convertStableHlo(sourceManager, bufferId, options);
    if (!converted) {
      llvm::Error error = converted.takeError();
      if (error.isA<stablehlo::UnsupportedError>())
        loaded.failure = ExitUnsupported;
      hlo::printError(std::move(error), sourceManager.get(), errs);
      return loaded;
    }
    module = std::move(converted->module);
    loaded.checks = std::move(converted->checks);
    loaded.inputs = std::move(converted->inputs);
    if (loaded.inputs)
      if (llvm::Error error = hlo::verifyModule(*loaded.inputs)) {
        hlo::printError(std::move(error), sourceManager.get(), errs);
        return loaded;
      }
  } else {
    auto parsed = hlo::parseModule(sourceManager, bufferId);
    if (!parsed) {
      hlo::printError(parsed.takeError(), sourceManager.get(), errs);
      return loaded;
    }
    module = std::move(*parsed);
  }
  if (llvm::Error error = hlo::verifyModule(*module)) {
    hlo::printError(std::move(error), sourceManager.get(), errs);
    return loaded;
  }
  loaded.module = std::move(module);
  loaded.failure = ExitOk;
  return loaded;
}

std::unique_ptr<hlo::Module> loadModuleReportingErrors(llvm::StringRef path,
                                                       llvm::raw_ostream &errs, ExitCode *failure) {
  LoadedModule loaded = loadModuleFile(path, errs);
  if (failure)
    *failure = loaded.failure;
  return std::move(loaded.module);
}

} // namespace mote::tools
