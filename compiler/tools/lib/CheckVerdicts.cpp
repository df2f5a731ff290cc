//===- CheckVerdicts.cpp - The check.* results of StableHLO test files ----===//

#include "CheckVerdicts.h"

#include "RunInputs.h"

#include "eval/Evaluator.h"
#include "hlo/Diagnostics.h"

namespace mote::tools {

std::vector<NamedLeaf> ownResultLeaves(const LoadedModule &loaded) {
  std::vector<NamedLeaf> leaves = resultLeaves(*loaded.module->entry());
  leaves.resize(leaves.size() - std::min(leaves.size(), loaded.checks.size()));
  return leaves;
}

hlo::Literal takeCheckVerdicts(hlo::Literal result, const LoadedModule &loaded, bool &passed,
                               llvm::raw_ostream &errs) {
  passed = true;
  size_t checks = loaded.checks.size();
  if (checks == 0 || !result.shape().isTuple() || result.tupleSize() < checks)
    return result;
  size_t own = result.tupleSize() - checks;
  const llvm::SourceMgr *sources = loaded.module->sourceManager().get();
  for (size_t i = 0; i < checks; ++i) {
    const hlo::Literal &verdict = result.element(own + i);
    if (verdict.getAsInt64(0) != 0)
      continue;
    passed = false;
    const stablehlo::CheckDescription &check = loaded.checks[i];
    std::string message = check.kind + " failed";
    if (sources && check.location.isValid())
      sources->PrintMessage(errs, check.location, llvm::SourceMgr::DK_Error, message);
    else
      errs << "error: " << message << '\n';
  }
  std::vector<hlo::Literal> elements(std::make_move_iterator(result.elements().begin()),
                                     std::make_move_iterator(result.elements().begin() + own));
  // The entry's own result: one value as itself, several as their tuple.
  if (elements.size() == 1)
    return std::move(elements.front());
  return hlo::Literal::tuple(std::move(elements));
}

static llvm::Expected<std::vector<hlo::Literal>> liftedInputArguments(const LoadedModule &loaded) {
  eval::Evaluator evaluator(*loaded.inputs);
  auto values = evaluator.run({});
  if (!values)
    return values.takeError();
  std::vector<hlo::Literal> arguments;
  size_t parameters = loaded.module->entry()->parameterCount();
  if (parameters == 1 || !values->shape().isTuple())
    arguments.push_back(std::move(*values));
  else
    for (hlo::Literal &element : values->elements())
      arguments.push_back(std::move(element));
  if (arguments.size() != parameters)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "@inputs() returns %zu values for %zu entry parameters",
                                   arguments.size(), parameters);
  return arguments;
}

std::variant<std::vector<hlo::Literal>, ExitCode>
prepareArguments(const LoadedModule &loaded, llvm::ArrayRef<std::string> inputPaths, uint64_t seed,
                 llvm::raw_ostream &errs) {
  if (!loaded.inputs || !inputPaths.empty())
    return prepareEntryArguments(*loaded.module->entry(), inputPaths, seed, errs);
  auto lifted = liftedInputArguments(loaded);
  if (!lifted) {
    hlo::printError(lifted.takeError(), loaded.module->sourceManager().get(), errs);
    return ExitInvalidInput;
  }
  return std::move(*lifted);
}

} // namespace mote::tools
