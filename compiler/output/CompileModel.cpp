//===- CompileModel.cpp - HLO module to native code, end to end -----------===//

#include "output/CompileModel.h"

#include "codegen/ContractionKernel.h"
#include "codegen/IrEmitter.h"
#include "codegen/ModelDescriptor.h"
#include "codegen/SignatureBuilder.h"
#include "output/ResourceLimits.h"
#include "passes/BufferAssignment.h"
#include "passes/Pass.h"
#include "passes/Schedule.h"

#include "hlo/Diagnostics.h"
#include "hlo/Verifier.h"

#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

namespace mote::output {

std::string symbolPrefixFor(llvm::StringRef moduleName) {
  return codegen::toIdentifier(moduleName.empty() ? "model" : moduleName);
}

namespace {

/// The caller-visible byte sizes must survive the passes: layout
/// normalisation may change a parameter's dims, never its bytes.
llvm::Error checkInterfaceUnchanged(const hlo::Module &module,
                                    const codegen::ModelSignature &signature) {
  llvm::SmallVector<const hlo::Shape *, 8> leaves;
  for (const hlo::Instruction *parameter : module.entry()->parameters())
    parameter->shape().collectLeaves(leaves);
  bool same = leaves.size() == signature.args.size();
  for (size_t i = 0; same && i < leaves.size(); ++i)
    same = uint64_t(leaves[i]->elementCount()) * hlo::storageBytes(leaves[i]->elementType()) ==
           signature.args[i].byteSize;
  leaves.clear();
  module.entry()->root()->shape().collectLeaves(leaves);
  same = same && leaves.size() == signature.results.size();
  for (size_t i = 0; same && i < leaves.size(); ++i)
    same = uint64_t(leaves[i]->elementCount()) * hlo::storageBytes(leaves[i]->elementType()) ==
           signature.results[i].byteSize;
  if (!same)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: the passes changed the model's interface");
  return llvm::Error::success();
}

uint64_t constantBytes(const hlo::Module &module, const passes::Schedule &schedule) {
  uint64_t total = 0;
  for (const auto &computation : module.computations())
    if (schedule.has(computation.get()))
      for (const hlo::Instruction *instruction : schedule.order(computation.get()))
        if (instruction->opcode() == hlo::Opcode::Constant && instruction->attributes().literal)
          total += instruction->attributes().literal->bytes().size();
  return total;
}

} // namespace

llvm::Expected<CompiledModel> compileModel(hlo::Module &module, const CompileOptions &options) {
  const target::TargetSpec &spec = options.target;
  // A dump's elided constants have no bytes to put in the object.
  if (llvm::Error error = hlo::checkConstantsHaveValues(module))
    return std::move(error);
  std::string name = options.name.empty() ? symbolPrefixFor(module.name()) : options.name;
  llvm::Expected<codegen::ModelSignature> signature = codegen::buildSignature(module, name);
  if (!signature)
    return signature.takeError();
  signature->triple = spec.triple;
  signature->cpu = spec.cpu;
  // What the machine that loads the code must have, implied features included.
  signature->features = target::requiredFeatures(spec);

  passes::Pipeline pipeline;
  // One choice for folding and code alike, so folded dots hold what the
  // compiled ones would compute.
  const eval::ContractionArithmetic contraction = codegen::contractionArithmetic(spec);
  passes::PipelineOptions pipelineOptions;
  pipelineOptions.fusion = options.fusion;
  pipelineOptions.contraction = contraction;
  passes::buildCompilePipeline(pipeline, pipelineOptions);
  auto phase = [&](llvm::StringRef name, const llvm::Twine &detail) {
    if (options.progress)
      options.progress->phase(name, detail.str());
  };
  phase("passes", llvm::Twine(module.instructionCount()) + " instructions");
  if (llvm::Error error = pipeline.run(module))
    return std::move(error);
  if (llvm::Error error = checkInterfaceUnchanged(module, *signature))
    return std::move(error);

  phase("schedule and memory plan", llvm::Twine(module.instructionCount()) + " instructions");
  passes::Schedule schedule = passes::scheduleModule(module);
  passes::BufferAssignmentOptions bufferOptions;
  bufferOptions.alignment = target::preferredAlignment(spec);
  llvm::Expected<passes::BufferAssignment> assignment =
      passes::assignBuffers(module, schedule, bufferOptions);
  if (!assignment)
    return assignment.takeError();
  signature->scratchSize = assignment->arenaSize();
  signature->scratchAlignment = assignment->alignment();
  CompiledModel compiled;
  // The weights pointer takes the scratch's first word; the arena follows,
  // still aligned.
  const uint64_t weightsReserve = options.weightsOutsideCode ? assignment->alignment() : 0;
  if (options.weightsOutsideCode) {
    compiled.weights = std::make_unique<codegen::WeightsBlob>();
    signature->scratchSize += weightsReserve;
  }

  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine = target::createTargetMachine(spec);
  if (!machine)
    return machine.takeError();
  unsigned pointerBits = (*machine)->createDataLayout().getPointerSizeInBits();
  if (llvm::Error error =
          checkResourceLimits(module, assignment->arenaSize(), spec.triple, pointerBits))
    return std::move(error);
  compiled.machine = std::move(*machine);
  compiled.context = std::make_unique<llvm::LLVMContext>();
  compiled.module = std::make_unique<llvm::Module>(name, *compiled.context);
  compiled.module->setTargetTriple(compiled.machine->getTargetTriple().str());
  compiled.module->setDataLayout(compiled.machine->createDataLayout());

  phase("code generation", "");
  if (llvm::Error error = codegen::emitEntryFunction(
          module, schedule, *assignment, name, *compiled.module, &spec, contraction,
          compiled.weights.get(), weightsReserve, options.nativeHalfSums, options.rhsPanels))
    return std::move(error);
  if (compiled.weights) {
    signature->weightsSize = compiled.weights->size();
    signature->weightsAlignment = codegen::WeightsBlob::kBaseAlignment;
  }
  codegen::emitModelDescriptor(*signature, *compiled.module);
  target::setLevelTuning(spec, *compiled.module);

  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*compiled.module, &stream))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: generated invalid LLVM IR: " + problems);
  phase("optimisation", llvm::Twine(compiled.module->size()) + " functions");
  optimizeModule(*compiled.module, *compiled.machine, options.optLevel);

  compiled.signature = std::move(*signature);
  compiled.stats.arenaBytes = assignment->arenaSize();
  compiled.stats.arenaLowerBound = assignment->lowerBound();
  compiled.stats.constantBytes = constantBytes(module, schedule);
  compiled.stats.instructionCount = module.instructionCount();
  compiled.stats.contraction = contraction;
  return compiled;
}

} // namespace mote::output
