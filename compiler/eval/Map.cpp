//===- Map.cpp - map: a scalar computation applied per element ------------===//

#include "eval/OperandChecks.h"

#include "hlo/Computation.h"

#include <cstring>

namespace mote::eval {

using hlo::errorAt;

Result evaluateMap(Evaluator &evaluator, const hlo::Instruction &instruction, Operands operands) {
  if (instruction.calledComputations().size() != 1 || !instruction.calledComputation(0))
    return errorAt(instruction, "map needs to_apply=<computation>");
  const hlo::Computation &function = *instruction.calledComputation(0);
  if (llvm::Error error = expectArrayOperands(instruction, operands, operands.size()))
    return std::move(error);
  const hlo::Shape &shape = instruction.shape();
  if (!shape.isArray())
    return errorAt(instruction, "map produces an array");
  for (const hlo::Literal *operand : operands)
    if (operand->shape().dims() != shape.dims())
      return errorAt(instruction, "map operand " + operand->shape().toString(false) +
                                      " does not match the result " + shape.toString(false));
  auto result = makeArrayResult(instruction, shape.elementType(), shape.dims());
  if (!result)
    return result.takeError();

  // One scalar per operand, refilled for every element.
  std::vector<hlo::Literal> scalars;
  std::vector<const hlo::Literal *> arguments;
  scalars.reserve(operands.size());
  for (const hlo::Literal *operand : operands)
    scalars.emplace_back(hlo::Shape::scalar(operand->shape().elementType()));
  for (const hlo::Literal &scalar : scalars)
    arguments.push_back(&scalar);

  const int resultBytes = hlo::storageBytes(shape.elementType());
  for (int64_t i = 0, n = result->elementCount(); i < n; ++i) {
    for (size_t k = 0; k < operands.size(); ++k) {
      const size_t bytes = scalars[k].bytes().size();
      std::memcpy(scalars[k].bytes().data(), operands[k]->bytes().data() + i * bytes, bytes);
    }
    auto value = evaluator.call(function, arguments);
    if (!value)
      return value.takeError();
    if (!value->shape().isScalar() || value->shape().elementType() != shape.elementType())
      return errorAt(instruction, "map computation returned " + value->shape().toString(false) +
                                      ", expected a " +
                                      hlo::primitiveTypeName(shape.elementType()) + " scalar");
    std::memcpy(result->bytes().data() + i * resultBytes, value->bytes().data(), resultBytes);
  }
  return result;
}

} // namespace mote::eval
