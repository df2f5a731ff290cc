//===- CheckEvaluable.cpp - Refusing what the evaluator cannot run --------===//
//
// Runs before evaluation so that a module with, say, an all-reduce deep in a
// loop body fails at once with the instruction's location rather than after
// minutes of work.
//
//===----------------------------------------------------------------------===//

#include "eval/Evaluator.h"

#include "hlo/Computation.h"
#include "hlo/Diagnostics.h"
#include "hlo/Opcode.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace mote::eval {

using hlo::errorAt;
using hlo::Opcode;

namespace {

/// Whether `shape` (recursively) has a `?` dimension, whose size no value has.
bool hasUnboundedDims(const hlo::Shape &shape) {
  if (shape.isTuple()) {
    for (const hlo::Shape &element : shape.tupleElements())
      if (hasUnboundedDims(element))
        return true;
    return false;
  }
  return shape.isArray() && shape.hasUnboundedDims();
}

/// The first element type in `shape` (recursively) that the evaluator cannot
/// hold, if any.
std::optional<hlo::PrimitiveType> unsupportedType(const hlo::Shape &shape) {
  if (shape.isTuple()) {
    for (const hlo::Shape &element : shape.tupleElements())
      if (auto type = unsupportedType(element))
        return type;
    return std::nullopt;
  }
  if (shape.isToken())
    return std::nullopt;
  hlo::PrimitiveType type = shape.elementType();
  if (!shape.isArray())
    return type;
  return std::nullopt;
}

llvm::Error checkInstruction(const hlo::Instruction &instruction) {
  Opcode opcode = instruction.opcode();
  if (hlo::isMultiDevice(opcode))
    return errorAt(instruction,
                   llvm::Twine(hlo::opcodeName(opcode)) + " is not supported on a single device");
  if (opcode == Opcode::Constant && !instruction.constantValue())
    return errorAt(instruction,
                   "constant values were elided by the dumper ('{...}'); cannot evaluate");
  if (opcode == Opcode::CustomCall && instruction.attributes().customCallTarget != "TopK")
    return errorAt(instruction, "custom-call target '" + instruction.attributes().customCallTarget +
                                    "' is not supported");
  if (opcode == Opcode::DynamicReshape)
    return errorAt(instruction, "dynamic-reshape is not supported by the evaluator");
  if (hasUnboundedDims(instruction.shape()))
    return errorAt(instruction, "unbounded dynamic dimensions ('?') cannot be evaluated");
  if (auto type = unsupportedType(instruction.shape()))
    return errorAt(instruction, "element type " + hlo::primitiveTypeName(*type) +
                                    " is not supported by the evaluator");
  return llvm::Error::success();
}

} // namespace

llvm::Error checkEvaluable(const hlo::Module &module) {
  if (!module.entry())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "module '%s' has no entry computation",
                                   module.name().str().c_str());
  llvm::SmallPtrSet<const hlo::Computation *, 16> seen;
  llvm::SmallVector<const hlo::Computation *, 16> work{module.entry()};
  seen.insert(module.entry());
  while (!work.empty()) {
    const hlo::Computation *computation = work.pop_back_val();
    for (const auto &instruction : computation->instructions()) {
      if (llvm::Error error = checkInstruction(*instruction))
        return error;
      for (const hlo::Computation *called : instruction->calledComputations())
        if (called && seen.insert(called).second)
          work.push_back(called);
    }
  }
  return llvm::Error::success();
}

} // namespace mote::eval
