//===- ControlFlow.cpp - while, conditional, call and value-passing ops ---===//

#include "eval/ControlFlow.h"

#include "eval/OperandChecks.h"
#include "hlo/Computation.h"
#include "hlo/Opcode.h"

#include "llvm/ADT/StringExtras.h"

namespace mote::eval {

using hlo::errorAt;
using hlo::Opcode;
using hlo::PrimitiveType;

Result evaluateWhile(Evaluator &evaluator, const hlo::Instruction &instruction,
                     const hlo::Literal &init, hlo::Literal *ownedInit) {
  if (instruction.calledComputations().size() != 2 || !instruction.calledComputation(0) ||
      !instruction.calledComputation(1))
    return errorAt(instruction, "while needs condition= and body= computations");
  const hlo::Computation &condition = *instruction.calledComputation(0);
  const hlo::Computation &body = *instruction.calledComputation(1);
  hlo::Literal current;
  const hlo::Literal *state = &init;
  if (ownedInit) {
    current = std::move(*ownedInit);
    state = &current;
  }
  const uint64_t limit = evaluator.options().maxWhileIterations;
  const uint64_t workLimit = evaluator.options().maxLoopInstructions;
  const uint64_t workStart = evaluator.instructionsExecuted();
  for (uint64_t iteration = 0;; ++iteration) {
    auto keepGoing = evaluator.call(condition, {state});
    if (!keepGoing)
      return keepGoing.takeError();
    if (!keepGoing->shape().isScalar() || keepGoing->shape().elementType() != PrimitiveType::Pred)
      return errorAt(instruction, "while condition returned " + keepGoing->shape().toString(false) +
                                      ", not a pred scalar");
    if (!keepGoing->get<bool>(0))
      break;
    if (iteration >= limit)
      return errorAt(instruction, "while loop still running after " + llvm::Twine(limit) +
                                      " iterations (the evaluator's limit)");
    if (uint64_t work = evaluator.instructionsExecuted() - workStart; work > workLimit)
      return errorAt(instruction, "while loop still running after " + llvm::Twine(iteration) +
                                      " iterations and " + llvm::Twine(work) +
                                      " evaluated instructions (the evaluator's budget for a "
                                      "loop is " +
                                      llvm::Twine(workLimit) + " instructions)");
    // Once the loop owns its state, the body takes it over and may update
    // it in place.
    llvm::Expected<hlo::Literal> next = [&] {
      if (state != &current)
        return evaluator.call(body, {state});
      std::vector<hlo::Literal> arguments;
      arguments.push_back(std::move(current));
      return evaluator.callOwned(body, std::move(arguments));
    }();
    if (!next)
      return next.takeError();
    current = std::move(*next);
    state = &current;
  }
  if (state == &init)
    return init;
  return std::move(current);
}

Result evaluateConditional(Evaluator &evaluator, const hlo::Instruction &instruction,
                           Operands operands) {
  llvm::ArrayRef<hlo::Computation *> branches = instruction.calledComputations();
  if (branches.empty() || operands.size() != branches.size() + 1)
    return errorAt(instruction, "conditional needs one operand per branch after the selector");
  const hlo::Literal &selector = *operands[0];
  if (!selector.shape().isScalar())
    return errorAt(instruction, "conditional selector must be a scalar");
  size_t index;
  if (selector.shape().elementType() == PrimitiveType::Pred) {
    if (branches.size() != 2)
      return errorAt(instruction, "a pred selector needs exactly two branches");
    index = selector.get<bool>(0) ? 0 : 1;
  } else if (hlo::isInteger(selector.shape().elementType())) {
    int64_t value = selector.getAsInt64(0);
    if (hlo::isUnsignedInteger(selector.shape().elementType()) &&
        selector.getAsUint64(0) > 0x7fffffffffffffffull)
      value = -1;
    index = value < 0 || value >= static_cast<int64_t>(branches.size())
                ? branches.size() - 1
                : static_cast<size_t>(value);
  } else {
    return errorAt(instruction, "conditional selector must be pred or an integer");
  }
  if (!branches[index])
    return errorAt(instruction, "conditional branch " + llvm::Twine(index) + " is missing");
  return evaluator.call(*branches[index], {operands[index + 1]});
}

Result evaluateCall(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands) {
  if (instruction.calledComputations().size() != 1 || !instruction.calledComputation(0))
    return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) +
                                    " needs exactly one called computation");
  return evaluator.call(*instruction.calledComputation(0), operands);
}

Result evaluateCustomCall(const hlo::Instruction &instruction, Operands operands) {
  const std::string &target = instruction.attributes().customCallTarget;
  if (target == "TopK")
    return evaluateTopK(instruction, operands);
  return errorAt(instruction, "custom-call target '" + target + "' is not supported");
}

Result evaluateRngGetAndUpdateState(Evaluator &evaluator, const hlo::Instruction &instruction) {
  const hlo::Shape &shape = instruction.shape();
  if (!shape.isArray() || shape.elementType() != PrimitiveType::U64 ||
      shape.dims() != llvm::ArrayRef<int64_t>{2})
    return errorAt(instruction, "rng-get-and-update-state produces u64[2]");
  const hlo::RawAttribute *delta = instruction.attributes().findRaw("delta");
  int64_t step = 0;
  if (!delta || llvm::StringRef(delta->value).trim().getAsInteger(10, step))
    return errorAt(instruction, "rng-get-and-update-state needs an integer delta=");
  // XLA keeps a 128-bit state and returns it as {low, high} words; ours is
  // the low word, the high word stays zero.
  hlo::Literal result(shape);
  uint64_t &state = evaluator.rngState();
  result.set<uint64_t>(0, state);
  result.set<uint64_t>(1, 0);
  state += static_cast<uint64_t>(step);
  return result;
}

Result evaluateValueOp(const hlo::Instruction &instruction, Operands operands) {
  auto expectOperands = [&](size_t count) -> llvm::Error {
    if (operands.size() < count)
      return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) + " needs " +
                                      llvm::Twine(count) + " operand(s)");
    return llvm::Error::success();
  };
  switch (instruction.opcode()) {
  case Opcode::Tuple: {
    std::vector<hlo::Literal> elements;
    elements.reserve(operands.size());
    for (const hlo::Literal *operand : operands)
      elements.push_back(*operand);
    return hlo::Literal::tuple(std::move(elements));
  }
  case Opcode::GetTupleElement: {
    if (llvm::Error error = expectOperands(1))
      return std::move(error);
    int64_t index = instruction.attributes().tupleIndex;
    if (!operands[0]->shape().isTuple() || index < 0 ||
        index >= static_cast<int64_t>(operands[0]->tupleSize()))
      return errorAt(instruction, "index=" + llvm::Twine(index) + " is not an element of " +
                                      operands[0]->shape().toString(false));
    return operands[0]->element(index);
  }
  case Opcode::Copy: {
    if (llvm::Error error = expectOperands(1))
      return std::move(error);
    hlo::Literal result = *operands[0];
    if (result.shape().isArray())
      result.setLayout(instruction.shape().layout());
    return result;
  }
  case Opcode::AddDependency:
  case Opcode::OptimizationBarrier:
  case Opcode::Domain:
  case Opcode::SetDimensionSize:
    // The data is unchanged (set-dimension-size only changes the dynamic
    // size, which evaluated values do not carry).
    if (llvm::Error error = expectOperands(1))
      return std::move(error);
    return *operands[0];
  case Opcode::AfterAll:
    return hlo::Literal(hlo::Shape::token());
  case Opcode::PartitionId:
  case Opcode::ReplicaId:
    return hlo::Literal::scalar<uint32_t>(PrimitiveType::U32, 0);
  case Opcode::GetDimensionSize: {
    if (llvm::Error error = expectOperands(1))
      return std::move(error);
    const auto &dimensions = instruction.attributes().dimensions;
    const hlo::Shape &shape = operands[0]->shape();
    if (!shape.isArray() || dimensions.size() != 1 || dimensions[0] < 0 ||
        dimensions[0] >= shape.rank())
      return errorAt(instruction, "get-dimension-size needs dimensions={d} naming an operand "
                                  "dimension");
    return hlo::Literal::scalar<int32_t>(PrimitiveType::S32,
                                         static_cast<int32_t>(shape.dim(dimensions[0])));
  }
  default:
    return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) +
                                    " is not a value-passing op");
  }
}

} // namespace mote::eval
