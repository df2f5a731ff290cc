//===- RunInputs.cpp - The entry arguments motec run passes ---------------===//

#include "RunInputs.h"

#include "InputBinding.h"
#include "InputGenerator.h"
#include "LiteralSummary.h"
#include "Npy.h"

#include "llvm/Support/MathExtras.h"

namespace mote::tools {

using hlo::Literal;

namespace {

/// Generated inputs larger than this are refused, as eval refuses them.
constexpr uint64_t kMaxGeneratedBytes = uint64_t(8) << 30;

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

/// The argument for a parameter of `shape` from the files of its leaves,
/// taken from `paths` at `next` on (tuples are rebuilt around them).
llvm::Expected<Literal> readArgument(const hlo::Shape &shape, const hlo::Instruction &parameter,
                                     llvm::ArrayRef<NamedLeaf> leaves,
                                     llvm::ArrayRef<std::string> paths, size_t &next) {
  if (shape.isTuple()) {
    std::vector<Literal> elements;
    for (const hlo::Shape &element : shape.tupleElements()) {
      auto value = readArgument(element, parameter, leaves, paths, next);
      if (!value)
        return value.takeError();
      elements.push_back(std::move(*value));
    }
    return Literal::tuple(std::move(elements));
  }
  size_t leaf = next++;
  auto value = readNpyFile(paths[leaf]);
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::toString(value.takeError()) + " (input for " +
                                       describeParameter(parameter) + ")");
  if (&shape == &parameter.shape())
    return bindInput(std::move(*value), parameter, paths[leaf]);
  return bindInput(std::move(*value), shape,
                   "leaf " + leaves[leaf].name + " (" + shape.toString(false) + ") of " +
                       describeParameter(parameter),
                   paths[leaf]);
}

} // namespace

void collectArrayLeaves(const Literal &literal, std::vector<const Literal *> &leaves) {
  if (!literal.shape().isTuple()) {
    if (literal.shape().isArray())
      leaves.push_back(&literal);
    return;
  }
  for (const Literal &element : literal.elements())
    collectArrayLeaves(element, leaves);
}

std::variant<std::vector<Literal>, ExitCode>
prepareEntryArguments(const hlo::Computation &entry, llvm::ArrayRef<std::string> inputPaths,
                      uint64_t seed, llvm::raw_ostream &errs) {
  llvm::ArrayRef<hlo::Instruction *> parameters = entry.parameters();
  for (const hlo::Instruction *parameter : parameters)
    if (!parameter) {
      errs << "error: the entry computation's parameters are not numbered 0..N-1\n";
      return ExitInvalidInput;
    }
  std::vector<Literal> arguments;
  if (inputPaths.empty()) {
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
           << " parameter(s) with --seed " << seed
           << " (floats uniform in [-1,1), integers uniform in [0,8), pred random)\n";
    for (size_t i = 0; i < parameters.size(); ++i) {
      auto value = generateInput(parameters[i]->shape(), seed, i);
      if (!value) {
        errs << "error: " << describeParameter(*parameters[i]) << ": "
             << llvm::toString(value.takeError()) << '\n';
        return ExitUnsupported;
      }
      arguments.push_back(std::move(*value));
    }
    return arguments;
  }
  // One file per array: a tuple parameter takes one per leaf, in flattened
  // order, as results are written and mote-run takes a package's arguments.
  std::vector<NamedLeaf> leaves = parameterLeaves(entry);
  if (inputPaths.size() != leaves.size()) {
    errs << "error: the entry computation %" << entry.name() << " takes " << parameters.size()
         << " parameter(s)";
    if (leaves.size() != parameters.size())
      errs << " (" << leaves.size() << " arrays in flattened tuple order)";
    errs << " but " << inputPaths.size() << " --input file(s) were given\n";
    for (const hlo::Instruction *parameter : parameters)
      errs << "note: " << describeParameter(*parameter) << '\n';
    return ExitInvalidInput;
  }
  size_t next = 0;
  for (const hlo::Instruction *parameter : parameters) {
    auto bound = readArgument(parameter->shape(), *parameter, leaves, inputPaths, next);
    if (!bound) {
      errs << "error: " << llvm::toString(bound.takeError()) << '\n';
      return ExitInvalidInput;
    }
    arguments.push_back(std::move(*bound));
  }
  return arguments;
}

ExitCode printAndWriteResult(const hlo::Literal &result, llvm::ArrayRef<NamedLeaf> names,
                             llvm::ArrayRef<std::string> outputPaths, bool printFull,
                             llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  LiteralPrintOptions printOptions;
  printOptions.full = printFull;
  out << formatLiteral(result, printOptions) << '\n';
  out.flush();

  std::vector<const hlo::Literal *> leaves;
  collectArrayLeaves(result, leaves);
  for (size_t i = 0; i < outputPaths.size() && i < leaves.size(); ++i) {
    if (llvm::Error error = writeNpyFile(*leaves[i], outputPaths[i])) {
      errs << "error: result " << i << " (" << names[i].name
           << "): " << llvm::toString(std::move(error)) << '\n';
      return ExitInvalidInput;
    }
  }
  return ExitOk;
}

} // namespace mote::tools
