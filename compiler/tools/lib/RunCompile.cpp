//===- RunCompile.cpp - Target flags and compiling, for compile and run ---===//

#include "RunCompile.h"

#include "Progress.h"

#include "hlo/Diagnostics.h"

namespace mote::tools {

std::variant<std::vector<target::TargetSpec>, ExitCode>
resolveTargetOptions(const TargetOptions &options, llvm::raw_ostream &errs) {
  llvm::SmallVector<llvm::StringRef, 4> triples;
  llvm::StringRef(options.triples).split(triples, ',', -1, /*KeepEmpty=*/false);
  if (triples.empty())
    triples.push_back(target::hostTriple());
  std::vector<target::TargetSpec> specs;
  for (llvm::StringRef triple : triples) {
    auto spec = target::resolveTarget(triple.trim(), options.cpu, options.features);
    if (!spec) {
      errs << "error: " << llvm::toString(spec.takeError()) << " (see 'motec targets')\n";
      return ExitBadCommandLine;
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

std::variant<output::CompiledModel, ExitCode>
compileForTarget(hlo::Module &module, const target::TargetSpec &spec, llvm::StringRef name,
                 llvm::raw_ostream &errs, const TargetOptions &choices, bool weightsOutsideCode,
                 bool rhsPanels) {
  output::CompileOptions options;
  options.target = spec;
  options.name = name.str();
  options.fusion = choices.fusion;
  options.nativeHalfSums = choices.nativeHalfSums;
  options.weightsOutsideCode = weightsOutsideCode;
  options.rhsPanels = rhsPanels;
  options.progress = &commandProgress();
  auto compiled = output::compileModel(module, options);
  if (compiled)
    return std::move(*compiled);
  // Located errors are code generation declining an instruction; anything
  // else (invalid IR, a broken invariant) is a bug in Mote.
  ExitCode code = ExitInternalError;
  llvm::Error error = llvm::handleErrors(
      compiled.takeError(), [&](std::unique_ptr<hlo::LocatedError> located) -> llvm::Error {
        if (!llvm::StringRef(located->text()).contains("internal error"))
          code = ExitUnsupported;
        return llvm::Error(std::move(located));
      });
  hlo::printError(std::move(error), module.sourceManager().get(), errs);
  return code;
}

} // namespace mote::tools
