//===- RunCommand.cpp - motec run -----------------------------------------===//
///
/// \file
/// Compile for the target, hand each argument to the run driver in its
/// compiled layout, run, and print the result as `motec eval` prints it, so
/// `diff <(motec eval m.hlo) <(motec run m.hlo --target=T)` compares the
/// generated code with the reference evaluator.
///
//===----------------------------------------------------------------------===//

#include "CheckVerdicts.h"
#include "Commands.h"
#include "EntrySignature.h"
#include "LiteralSummary.h"
#include "ModuleFile.h"
#include "Npy.h"
#include "RunCompile.h"
#include "RunInputs.h"
#include "RunLayout.h"
#include "RunModel.h"
#include "Toolchain.h"

#include "output/ObjectEmitter.h"

namespace mote::tools {

using hlo::Literal;

namespace {

void collectMutableLeaves(Literal &literal, std::vector<Literal *> &leaves) {
  if (!literal.shape().isTuple()) {
    if (literal.shape().isArray())
      leaves.push_back(&literal);
    return;
  }
  for (Literal &element : literal.elements())
    collectMutableLeaves(element, leaves);
}

/// The shape of the value the evaluator returns for `instruction`: a tuple
/// instruction's elements keep their operands' shapes (layouts included).
/// Pass-through ops return their operand's value as it is.
hlo::Shape evaluatedShape(const hlo::Instruction &instruction) {
  hlo::Opcode opcode = instruction.opcode();
  if ((opcode == hlo::Opcode::AddDependency || opcode == hlo::Opcode::OptimizationBarrier ||
       opcode == hlo::Opcode::Domain) &&
      !instruction.operands().empty())
    return evaluatedShape(*instruction.operands().front());
  if (opcode != hlo::Opcode::Tuple)
    return instruction.shape();
  std::vector<hlo::Shape> elements;
  for (const hlo::Instruction *operand : instruction.operands())
    elements.push_back(evaluatedShape(*operand));
  return hlo::Shape::tuple(std::move(elements));
}

bool sameDims(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// Each argument leaf's bytes in the layout the model was compiled for.
llvm::Expected<std::vector<std::vector<uint8_t>>>
physicalArguments(llvm::ArrayRef<Literal> arguments, const codegen::ModelSignature &signature) {
  std::vector<const Literal *> leaves;
  for (const Literal &argument : arguments)
    collectArrayLeaves(argument, leaves);
  if (leaves.size() != signature.args.size())
    return toolError(ExitInternalError,
                     "the compiled model takes " + llvm::Twine(signature.args.size()) +
                         " arrays but the parameters have " + llvm::Twine(leaves.size()));
  std::vector<std::vector<uint8_t>> bytes;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const codegen::TensorSignature &tensor = signature.args[i];
    const Literal &leaf = *leaves[i];
    if (leaf.bytes().size() != tensor.byteSize || !sameDims(leaf.shape().dims(), tensor.dims))
      return toolError(ExitInternalError, "argument " + llvm::Twine(i) + " (" + tensor.name +
                                              ") is " + leaf.shape().toString(false) +
                                              " but the compiled model expects " +
                                              llvm::Twine(tensor.byteSize) + " bytes");
    bytes.push_back(relayout(leaf.bytes(), tensor.dims, tensor.minorToMajor,
                             hlo::storageBytes(tensor.elementType), LayoutDirection::ToPhysical));
  }
  return bytes;
}

/// The result value with the shape the evaluator would give it.
llvm::Expected<Literal> resultLiteral(const hlo::Shape &rootShape,
                                      const std::vector<std::vector<uint8_t>> &results,
                                      const codegen::ModelSignature &signature) {
  Literal literal(rootShape);
  std::vector<Literal *> leaves;
  collectMutableLeaves(literal, leaves);
  if (leaves.size() != results.size() || leaves.size() != signature.results.size())
    return toolError(ExitInternalError,
                     "the compiled model returns " + llvm::Twine(signature.results.size()) +
                         " arrays but the result has " + llvm::Twine(leaves.size()));
  for (size_t i = 0; i < leaves.size(); ++i) {
    const codegen::TensorSignature &tensor = signature.results[i];
    Literal &leaf = *leaves[i];
    if (leaf.bytes().size() != results[i].size() || !sameDims(leaf.shape().dims(), tensor.dims))
      return toolError(ExitInternalError, "result " + llvm::Twine(i) + " (" + tensor.name +
                                              ") does not match the entry's result shape " +
                                              leaf.shape().toString(false));
    std::vector<uint8_t> logical =
        relayout(results[i], tensor.dims, tensor.minorToMajor,
                 hlo::storageBytes(tensor.elementType), LayoutDirection::ToLogical);
    std::copy(logical.begin(), logical.end(), leaf.bytes().begin());
  }
  return literal;
}

} // namespace

ExitCode runRun(const RunOptions &options, llvm::raw_ostream &out, llvm::raw_ostream &errs) {
  auto resolved = resolveTargetOptions(options.target, errs);
  if (auto *code = std::get_if<ExitCode>(&resolved))
    return *code;
  auto &specs = std::get<std::vector<target::TargetSpec>>(resolved);
  if (specs.size() != 1) {
    errs << "error: motec run takes one target, not " << specs.size() << '\n';
    return ExitBadCommandLine;
  }
  const target::TargetSpec &spec = specs.front();
  if (spec.info->runner == target::RunnerKind::None) {
    errs << "error: motec run cannot run " << spec.triple
         << " on this machine (compile only; see 'motec targets')\n";
    return ExitUnsupported;
  }

  LoadedModule loaded = loadModelWithInterface(options.modulePath, options.interface, errs);
  if (!loaded.module)
    return loaded.failure;
  hlo::Module *module = loaded.module.get();
  const hlo::Computation &entry = *module->entry();
  std::vector<NamedLeaf> resultNames = ownResultLeaves(loaded);
  if (!options.outputPaths.empty() && options.outputPaths.size() != resultNames.size()) {
    errs << "error: the result has " << resultNames.size()
         << " array(s) in flattened tuple order but " << options.outputPaths.size()
         << " --output file(s) were given\n";
    for (size_t i = 0; i < resultNames.size(); ++i)
      errs << "note: result " << i << ": " << resultNames[i].name << ": "
           << resultNames[i].shape.toString(false) << '\n';
    return ExitBadCommandLine;
  }
  auto prepared = prepareArguments(loaded, options.inputPaths, options.seed, errs);
  if (auto *code = std::get_if<ExitCode>(&prepared))
    return *code;
  auto &arguments = std::get<std::vector<Literal>>(prepared);
  // The passes rewrite the module in place: keep what the caller sees first.
  hlo::Shape rootShape = evaluatedShape(*entry.root());

  auto compiled = compileForTarget(*module, spec, "", errs, options.target);
  if (auto *code = std::get_if<ExitCode>(&compiled))
    return *code;
  auto &model = std::get<output::CompiledModel>(compiled);
  auto object = output::emitModule(*model.module, *model.machine, output::EmitKind::Object);
  if (!object) {
    errs << "error: " << llvm::toString(object.takeError()) << '\n';
    return ExitInternalError;
  }

  RunRequest request;
  request.target = spec;
  request.symbolPrefix = model.signature.name;
  request.object = std::move(*object);
  request.timeoutSeconds = options.timeoutSeconds;
  request.keepDir = options.keepDir;
  auto argumentBytes = physicalArguments(arguments, model.signature);
  if (!argumentBytes)
    return reportToolError(argumentBytes.takeError(), errs);
  request.arguments = std::move(*argumentBytes);
  for (const codegen::TensorSignature &tensor : model.signature.results)
    request.resultBytes.push_back(tensor.byteSize);
  auto resultBytes = runModelObject(request);
  if (!resultBytes)
    return reportToolError(resultBytes.takeError(), errs);
  auto result = resultLiteral(rootShape, *resultBytes, model.signature);
  if (!result)
    return reportToolError(result.takeError(), errs);

  bool passed;
  Literal own = takeCheckVerdicts(std::move(*result), loaded, passed, errs);
  ExitCode code =
      printAndWriteResult(own, resultNames, options.outputPaths, options.printFull, out, errs);
  return code == ExitOk && !passed ? ExitInvalidInput : code;
}

} // namespace mote::tools
