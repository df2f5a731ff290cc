//===- EvalCommand.cpp - motec eval ---------------------------------------===//

#include "CheckVerdicts.h"
#include "Commands.h"
#include "EntrySignature.h"
#include "InputBinding.h"
#include "LiteralSummary.h"
#include "ModuleFile.h"
#include "Npy.h"
#include "RunCompile.h"
#include "RunInputs.h"

#include "codegen/ContractionKernel.h"

#include "eval/Evaluator.h"
#include "hlo/Diagnostics.h"

#include <variant>

namespace mote::tools {

using hlo::Literal;

namespace {

/// Writes the array leaves of `value` (tuples flattened in order) to
/// <dir>/input<N>.npy, numbering on from `next`.
llvm::Error saveLeaves(const Literal &value, llvm::StringRef dir, size_t &next) {
  if (value.shape().isTuple()) {
    for (size_t i = 0; i < value.tupleSize(); ++i)
      if (llvm::Error error = saveLeaves(value.element(i), dir, next))
        return error;
    return llvm::Error::success();
  }
  return writeNpyFile(value, (dir + "/input" + llvm::Twine(next++) + ".npy").str());
}

} // namespace

ExitCode runEval(const EvalOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  LoadedModule loaded = loadModelWithInterface(options.modulePath, options.interface, errs);
  if (!loaded.module)
    return loaded.failure;
  std::unique_ptr<hlo::Module> &module = loaded.module;
  const llvm::SourceMgr *sources = module->sourceManager().get();
  if (llvm::Error error = eval::checkEvaluable(*module)) {
    hlo::printError(std::move(error), sources, errs);
    return ExitUnsupported;
  }
  const hlo::Computation &entry = *module->entry();
  for (const hlo::Instruction *parameter : entry.parameters())
    if (!parameter) {
      errs << "error: the entry computation's parameters are not numbered 0..N-1\n";
      return ExitInvalidInput;
    }

  std::vector<NamedLeaf> results = ownResultLeaves(loaded);
  if (!options.outputPaths.empty() && options.outputPaths.size() != results.size()) {
    errs << "error: the result has " << results.size() << " array(s) in flattened tuple order but "
         << options.outputPaths.size() << " --output file(s) were given\n";
    for (size_t i = 0; i < results.size(); ++i)
      errs << "note: result " << i << ": " << results[i].name << ": "
           << results[i].shape.toString(false) << '\n';
    return ExitBadCommandLine;
  }

  auto prepared = prepareArguments(loaded, options.inputPaths, options.seed, errs);
  if (auto *code = std::get_if<ExitCode>(&prepared))
    return *code;
  auto &arguments = std::get<std::vector<Literal>>(prepared);
  if (!options.saveInputsDir.empty()) {
    size_t next = 0;
    for (const Literal &argument : arguments)
      if (llvm::Error error = saveLeaves(argument, options.saveInputsDir, next)) {
        errs << "error: " << llvm::toString(std::move(error)) << '\n';
        return ExitInvalidInput;
      }
  }

  auto specs = resolveTargetOptions(options.target, errs);
  if (auto *code = std::get_if<ExitCode>(&specs))
    return *code;
  const auto &targets = std::get<std::vector<target::TargetSpec>>(specs);
  if (targets.size() != 1) {
    errs << "error: eval takes one --target (its dots and convolutions sum as that target's "
            "code does)\n";
    return ExitBadCommandLine;
  }
  eval::EvaluatorOptions evaluatorOptions;
  evaluatorOptions.maxWhileIterations = options.maxWhileIterations;
  evaluatorOptions.maxLoopInstructions = options.maxLoopInstructions;
  evaluatorOptions.contraction = codegen::contractionArithmetic(targets.front());
  eval::Evaluator evaluator(*module, evaluatorOptions);
  auto result = evaluator.run(arguments);
  if (!result) {
    hlo::printError(result.takeError(), sources, errs);
    return ExitInvalidInput;
  }

  bool passed;
  Literal own = takeCheckVerdicts(std::move(*result), loaded, passed, errs);
  ExitCode code =
      printAndWriteResult(own, results, options.outputPaths, options.printFull, out, errs);
  return code == ExitOk && !passed ? ExitInvalidInput : code;
}

} // namespace mote::tools
