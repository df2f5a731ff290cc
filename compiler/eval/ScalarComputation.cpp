//===- ScalarComputation.cpp - Calling and recognising to_apply -----------===//

#include "eval/ScalarComputation.h"

#include "hlo/Diagnostics.h"

namespace mote::eval {

using hlo::Computation;
using hlo::Instruction;
using hlo::Opcode;

namespace {

/// The parameter number if `instruction` is a scalar parameter, else -1.
int64_t scalarParameterNumber(const Instruction *instruction) {
  if (!instruction || instruction->opcode() != Opcode::Parameter ||
      !instruction->shape().isScalar())
    return -1;
  return instruction->attributes().parameterNumber;
}

} // namespace

std::optional<ScalarBinary> matchScalarBinary(const Computation &computation,
                                              hlo::PrimitiveType type) {
  const Instruction *root = computation.root();
  if (!root || computation.parameterCount() != 2 || root->operandCount() != 2 ||
      !root->shape().isScalar() || root->shape().elementType() != type)
    return std::nullopt;
  switch (root->opcode()) {
  case Opcode::Add:
  case Opcode::Multiply:
  case Opcode::Maximum:
  case Opcode::Minimum:
    break;
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
    if (hlo::isFloatingPoint(type) || hlo::isComplex(type))
      return std::nullopt;
    break;
  default:
    return std::nullopt;
  }
  for (const Instruction *parameter : computation.parameters())
    if (!parameter || parameter->shape().elementType() != type || !parameter->shape().isScalar())
      return std::nullopt;
  int64_t first = scalarParameterNumber(root->operand(0));
  int64_t second = scalarParameterNumber(root->operand(1));
  if (first == 0 && second == 1)
    return ScalarBinary{root->opcode(), false};
  if (first == 1 && second == 0)
    return ScalarBinary{root->opcode(), true};
  return std::nullopt;
}

std::optional<ScalarBinary> halfReductionInF32(const Instruction &reduction) {
  if (reduction.opcode() != Opcode::Reduce || reduction.operandCount() != 2 ||
      reduction.calledComputations().size() != 1 || !reduction.operand(0)->shape().isArray())
    return std::nullopt;
  const hlo::PrimitiveType type = reduction.operand(0)->shape().elementType();
  if (type != hlo::PrimitiveType::F16 && type != hlo::PrimitiveType::BF16)
    return std::nullopt;
  // For floats matchScalarBinary accepts exactly add, multiply, maximum, minimum.
  return matchScalarBinary(*reduction.calledComputation(0), type);
}

bool returnsSecondParameter(const Computation &computation) {
  return computation.parameterCount() == 2 && scalarParameterNumber(computation.root()) == 1 &&
         computation.parameter(0) && computation.parameter(0)->shape().isScalar() &&
         computation.parameter(0)->shape().elementType() ==
             computation.root()->shape().elementType();
}

std::optional<ScalarCompare> matchScalarCompare(const Computation &computation) {
  const Instruction *root = computation.root();
  if (!root || root->opcode() != Opcode::Compare || root->operandCount() != 2 ||
      !root->shape().isScalar())
    return std::nullopt;
  int64_t lhs = scalarParameterNumber(root->operand(0));
  int64_t rhs = scalarParameterNumber(root->operand(1));
  if (lhs < 0 || rhs < 0 || lhs == rhs)
    return std::nullopt;
  const hlo::InstructionAttributes &attributes = root->attributes();
  return ScalarCompare{attributes.comparisonDirection, attributes.comparisonType, lhs, rhs};
}

ScalarCall::ScalarCall(Evaluator &evaluator, const Instruction &caller,
                       const Computation &computation, llvm::ArrayRef<hlo::PrimitiveType> types)
    : evaluator_(evaluator), caller_(caller), computation_(computation) {
  arguments_.reserve(types.size());
  for (hlo::PrimitiveType type : types)
    arguments_.emplace_back(hlo::Shape::scalar(type));
  for (const hlo::Literal &argument : arguments_)
    pointers_.push_back(&argument);
}

llvm::Error ScalarCall::run(size_t resultCount, std::vector<hlo::Literal> &results) {
  llvm::Expected<hlo::Literal> result = evaluator_.call(computation_, pointers_);
  if (!result)
    return result.takeError();
  results.resize(resultCount);
  if (result->shape().isTuple()) {
    if (result->tupleSize() != resultCount)
      return hlo::errorAt(caller_, "computation %" + computation_.name().str() + " returns " +
                                       std::to_string(result->tupleSize()) + " values, expected " +
                                       std::to_string(resultCount));
    for (size_t i = 0; i < resultCount; ++i)
      results[i] = std::move(result->element(i));
  } else {
    if (resultCount != 1)
      return hlo::errorAt(caller_, "computation %" + computation_.name().str() +
                                       " returns one value, expected " +
                                       std::to_string(resultCount));
    results[0] = std::move(*result);
  }
  for (const hlo::Literal &value : results)
    if (!value.shape().isScalar())
      return hlo::errorAt(caller_, "computation %" + computation_.name().str() +
                                       " must return scalars, got " + value.shape().toString());
  return llvm::Error::success();
}

llvm::Expected<bool> ScalarCall::runPredicate() {
  llvm::Expected<hlo::Literal> result = evaluator_.call(computation_, pointers_);
  if (!result)
    return result.takeError();
  if (!result->shape().isScalar() || result->shape().elementType() != hlo::PrimitiveType::Pred)
    return hlo::errorAt(caller_, "computation %" + computation_.name().str() +
                                     " must return pred[], got " + result->shape().toString());
  return result->get<bool>(0);
}

} // namespace mote::eval
