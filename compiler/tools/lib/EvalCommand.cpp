//===- EvalCommand.cpp - motec eval ---------------------------------------===//

#include "Commands.h"
#include "EntrySignature.h"
#include "InputBinding.h"
#include "LiteralSummary.h"
#include "ModuleFile.h"
#include "Npy.h"

#include "eval/Evaluator.h"
#include "hlo/Diagnostics.h"

#include "llvm/Support/MathExtras.h"

#include <variant>

namespace mote::tools {

using hlo::Literal;

namespace {

/// Generated inputs larger than this are refused rather than risking the host
/// running out of memory; real inputs of that size come from --input files.
constexpr uint64_t kMaxGeneratedBytes = uint64_t(8) << 30;

/// Bytes a value of `shape` takes in a Literal, saturating instead of overflowing.
uint64_t literalBytes(const hlo::Shape &shape) {
  llvm::SmallVector<const hlo::Shape *, 8> leaves;
  shape.collectLeaves(leaves);
  uint64_t total = 0;
  for (const hlo::Shape *leaf : leaves) {
    if (!leaf->isArray())
      continue;
    uint64_t bytes = hlo::storageBytes(leaf->elementType());
    for (int64_t dim : leaf->dims())
      bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(dim));
    total = llvm::SaturatingAdd(total, bytes);
  }
  return total;
}

void collectLeafValues(const Literal &literal, std::vector<const Literal *> &leaves) {
  if (!literal.shape().isTuple()) {
    leaves.push_back(&literal);
    return;
  }
  for (const Literal &element : literal.elements())
    collectLeafValues(element, leaves);
}

/// The arguments from --input files, or generated ones when there are none.
/// Prints what went wrong and returns the exit code on failure.
std::variant<std::vector<Literal>, ExitCode> prepareArguments(const hlo::Computation &entry,
                                                              const EvalOptions &options,
                                                              llvm::raw_ostream &errs) {
  llvm::ArrayRef<hlo::Instruction *> parameters = entry.parameters();
  std::vector<Literal> arguments;
  if (options.inputPaths.empty()) {
    uint64_t bytes = 0;
    for (const hlo::Instruction *parameter : parameters)
      bytes = llvm::SaturatingAdd(bytes, literalBytes(parameter->shape()));
    if (bytes > kMaxGeneratedBytes) {
      errs << "error: the parameters take " << bytes << " bytes, more than the "
           << (kMaxGeneratedBytes >> 30) << " GiB motec generates; pass --input files\n";
      return ExitUnsupported;
    }
    if (!parameters.empty())
      errs << "note: no --input given: using generated inputs for " << parameters.size()
           << " parameter(s) with --seed " << options.seed
           << " (floats uniform in [-1,1), integers uniform in [0,8), pred random)\n";
    for (size_t i = 0; i < parameters.size(); ++i) {
      auto value = generateInput(parameters[i]->shape(), options.seed, i);
      if (!value) {
        errs << "error: " << describeParameter(*parameters[i]) << ": "
             << llvm::toString(value.takeError()) << '\n';
        return ExitUnsupported;
      }
      arguments.push_back(std::move(*value));
    }
    return arguments;
  }
  if (options.inputPaths.size() != parameters.size()) {
    errs << "error: the entry computation %" << entry.name() << " takes " << parameters.size()
         << " parameter(s) but " << options.inputPaths.size() << " --input file(s) were given\n";
    for (const hlo::Instruction *parameter : parameters)
      errs << "note: " << describeParameter(*parameter) << '\n';
    return ExitInvalidInput;
  }
  for (size_t i = 0; i < parameters.size(); ++i) {
    auto value = readNpyFile(options.inputPaths[i]);
    if (!value) {
      errs << "error: " << llvm::toString(value.takeError()) << " (input for "
           << describeParameter(*parameters[i]) << ")\n";
      return ExitInvalidInput;
    }
    auto bound = bindInput(std::move(*value), *parameters[i], options.inputPaths[i]);
    if (!bound) {
      errs << "error: " << llvm::toString(bound.takeError()) << '\n';
      return ExitInvalidInput;
    }
    arguments.push_back(std::move(*bound));
  }
  return arguments;
}

} // namespace

ExitCode runEval(const EvalOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  auto module = loadModuleReportingErrors(options.modulePath, errs);
  if (!module)
    return ExitInvalidInput;
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

  std::vector<NamedLeaf> results = resultLeaves(entry);
  if (!options.outputPaths.empty() && options.outputPaths.size() != results.size()) {
    errs << "error: the result has " << results.size() << " array(s) in flattened tuple order but "
         << options.outputPaths.size() << " --output file(s) were given\n";
    for (size_t i = 0; i < results.size(); ++i)
      errs << "note: result " << i << ": " << results[i].name << ": "
           << results[i].shape.toString(false) << '\n';
    return ExitInvalidInput;
  }

  auto prepared = prepareArguments(entry, options, errs);
  if (auto *code = std::get_if<ExitCode>(&prepared))
    return *code;
  auto &arguments = std::get<std::vector<Literal>>(prepared);

  eval::EvaluatorOptions evaluatorOptions;
  evaluatorOptions.maxWhileIterations = options.maxWhileIterations;
  eval::Evaluator evaluator(*module, evaluatorOptions);
  auto result = evaluator.run(arguments);
  if (!result) {
    hlo::printError(result.takeError(), sources, errs);
    return ExitInvalidInput;
  }

  LiteralPrintOptions printOptions;
  printOptions.full = options.printFull;
  out << formatLiteral(*result, printOptions) << '\n';
  out.flush();

  std::vector<const Literal *> leaves;
  collectLeafValues(*result, leaves);
  for (size_t i = 0; i < options.outputPaths.size() && i < leaves.size(); ++i) {
    if (llvm::Error error = writeNpyFile(*leaves[i], options.outputPaths[i])) {
      errs << "error: result " << i << " (" << results[i].name
           << "): " << llvm::toString(std::move(error)) << '\n';
      return ExitInvalidInput;
    }
  }
  return ExitOk;
}

} // namespace mote::tools
