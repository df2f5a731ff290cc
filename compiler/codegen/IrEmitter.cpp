//===- IrEmitter.cpp - A scheduled, buffer-assigned module to LLVM IR -----===//

#include "codegen/IrEmitter.h"

#include "codegen/ScalarOps.h"

#include "codegen/FunctionEmitter.h"

#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"
#include "codegen/LoopNest.h"

#include "hlo/Diagnostics.h"
#include "hlo/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"

namespace mote::codegen {

size_t leafCount(const hlo::Shape &shape) {
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  shape.collectLeaves(leaves);
  return leaves.size();
}

using hlo::Opcode;
using passes::BufferSlice;

namespace {

llvm::Error checkInstruction(const hlo::Instruction &instruction) {
  switch (instruction.opcode()) {
  case Opcode::Constant:
    if (llvm::Error error = hlo::checkConstantHasValue(instruction))
      return error;
    break;
  case Opcode::Parameter:
  case Opcode::Tuple:
  case Opcode::GetTupleElement:
  case Opcode::While:
  case Opcode::Conditional:
  case Opcode::OptimizationBarrier:
  case Opcode::AddDependency:
  case Opcode::AfterAll:
    break;
  case Opcode::Fusion: {
    std::string why;
    const hlo::Instruction *culprit = &instruction;
    if (!isFusionSupported(instruction, &why, &culprit))
      return hlo::errorAt(*culprit, why);
    break;
  }
  case Opcode::Rng:
  case Opcode::RngGetAndUpdateState: {
    std::string why;
    if (!hasCodegenTypes(instruction, &why) || !isStatefulRngSupported(instruction, &why))
      return hlo::errorAt(instruction, why);
    break;
  }
  case Opcode::DynamicUpdateSlice:
    if (!isCodegenElementType(instruction.shape().elementType()))
      return hlo::errorAt(instruction, "code generation does not support values of type " +
                                           instruction.shape().toString(false));
    break;
  default: {
    // Ops of the non-elemental families explain themselves best; the rest
    // get the elemental emitter's reason.
    std::string nonElementalWhy, why;
    if (isNonElementalSupported(instruction, &nonElementalWhy) || isElemental(instruction, &why))
      break;
    switch (instruction.opcode()) {
    case Opcode::Sort:
    case Opcode::Scatter:
    case Opcode::SelectAndScatter:
    case Opcode::RngBitGenerator:
    case Opcode::TopK:
    case Opcode::CustomCall:
    case Opcode::Fft:
    case Opcode::Cholesky:
    case Opcode::TriangularSolve:
      return hlo::errorAt(instruction, nonElementalWhy);
    case Opcode::Reduce:
    case Opcode::ReduceWindow:
      return hlo::errorAt(instruction, instruction.shape().isTuple() ? nonElementalWhy : why);
    default:
      return hlo::errorAt(instruction, why);
    }
  }
  }
  // Array leaves the code must hold need a type code generation knows.
  llvm::SmallVector<const hlo::Shape *, 4> leaves;
  instruction.shape().collectLeaves(leaves);
  for (const hlo::Shape *leaf : leaves)
    if (leaf->isArray() && !isCodegenElementType(leaf->elementType()))
      return hlo::errorAt(instruction, "code generation does not support values of type " +
                                           leaf->toString(false));
  return llvm::Error::success();
}

/// Whether `spec` rounds to nearest even in one instruction.
bool roundsToNearestEvenNatively(const target::TargetSpec &spec) {
  llvm::Triple triple(spec.triple);
  if (triple.isAArch64())
    return true;
  // LLVM 16 lowers Arm's vrintn only for vectors, and calls roundevenf for
  // scalars.
  return triple.isX86() && target::hasFeature(spec, "sse4.1");
}

} // namespace

llvm::Error checkCodegenSupport(const hlo::Module &module, const passes::Schedule &schedule) {
  // Constants are read by the scalar computations ops apply (to_apply,
  // comparators) as well as by the scheduled ones.
  if (llvm::Error error = hlo::checkConstantsHaveValues(module))
    return error;
  for (const auto &computation : module.computations()) {
    if (!schedule.has(computation.get()))
      continue;
    for (const hlo::Instruction *instruction : schedule.order(computation.get()))
      if (llvm::Error error = checkInstruction(*instruction))
        return error;
  }
  return llvm::Error::success();
}

llvm::Error emitEntryFunction(const hlo::Module &hloModule, const passes::Schedule &schedule,
                              const passes::BufferAssignment &assignment, llvm::StringRef prefix,
                              llvm::Module &module, const target::TargetSpec *target,
                              eval::ContractionArithmetic contraction, WeightsBlob *weights,
                              uint64_t weightsReserve, bool nativeHalfSums, bool rhsPanels) {
  if (llvm::Error error = checkCodegenSupport(hloModule, schedule))
    return error;
  llvm::LLVMContext &context = module.getContext();
  if (target && target::convertsHalfElementwise(*target))
    markHardwareF16Conversions(module);
  markReductionRuns(module, target);
  llvm::FunctionType *type = llvm::FunctionType::get(
      llvm::Type::getInt32Ty(context), {llvm::PointerType::getUnqual(context)}, false);
  llvm::Function *function =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, prefix + "_entry", module);
  function->addParamAttr(0, llvm::Attribute::NoAlias);
  function->addParamAttr(0, llvm::Attribute::ReadOnly);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  function->addFnAttr(llvm::Attribute::NoFree);
  function->addFnAttr(llvm::Attribute::NoSync);
  if (target && roundsToNearestEvenNatively(*target) && !module.getModuleFlag(kNativeRoundEvenFlag))
    module.addModuleFlag(llvm::Module::Max, kNativeRoundEvenFlag, 1);
  FunctionEmitter emitter(schedule, assignment, module, function);
  emitter.setTarget(target);
  emitter.setContraction(contraction);
  emitter.setNativeHalfSums(nativeHalfSums && target && target::hasHalfMultiplyAdd(*target));
  emitter.setNativeBf16Dots(nativeHalfSums && target && target::hasBf16DotProduct(*target));
  if (weights)
    emitter.setWeightsBlob(weights, weightsReserve);
  emitter.setRhsPanels(rhsPanels);
  emitter.emit(*hloModule.entry());
  return emitter.takeFailure();
}

} // namespace mote::codegen
