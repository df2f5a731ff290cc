//===- ElementwiseOps.cpp - Dispatch of the elementwise ops ---------------===//
//
// Checks operand counts and shapes once, chooses the result buffer (a fresh
// literal, or a dying operand of the same shape), then hands each op to the
// file of its family (see Elementwise.h).
//
//===----------------------------------------------------------------------===//

#include "eval/Elementwise.h"

#include "hlo/Opcode.h"

namespace mote::eval {

using hlo::errorAt;
using hlo::Opcode;

llvm::Error expectSameArrayShape(const hlo::Instruction &instruction, const hlo::Literal &a,
                                 const hlo::Literal &b) {
  if (a.shape().elementType() != b.shape().elementType() || a.shape().dims() != b.shape().dims())
    return errorAt(instruction, "operand shapes " + a.shape().toString(false) + " and " +
                                    b.shape().toString(false) + " do not match");
  return llvm::Error::success();
}

llvm::Error checkOutput(const hlo::Instruction &instruction, const hlo::Literal &out,
                        hlo::PrimitiveType type, llvm::ArrayRef<int64_t> dims) {
  const hlo::Shape &shape = out.shape();
  if (!shape.isArray() || shape.elementType() != type || shape.dims() != dims)
    return errorAt(instruction, "result shape " + instruction.shape().toString(false) +
                                    " does not match the evaluated " +
                                    hlo::Shape::array(type, dims).toString(false));
  return llvm::Error::success();
}

namespace {

llvm::Error dispatch(const hlo::Instruction &instruction, Operands operands, hlo::Literal &out) {
  Opcode opcode = instruction.opcode();
  switch (opcode) {
  case Opcode::Select:
    return evaluateSelect(instruction, operands, out);
  case Opcode::Clamp:
    return evaluateClamp(instruction, operands, out);
  case Opcode::StochasticConvert:
    if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
      return error;
    return evaluateStochasticConvert(instruction, *operands[0], *operands[1], out);
  default:
    break;
  }

  if (hlo::isElementwiseUnary(opcode)) {
    if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
      return error;
    const hlo::Literal &operand = *operands[0];
    switch (opcode) {
    case Opcode::Convert:
      return evaluateConvert(instruction, operand, out);
    case Opcode::ReducePrecision:
      return evaluateReducePrecision(instruction, operand, out);
    case Opcode::Real:
    case Opcode::Imag:
      return evaluateRealOrImag(instruction, operand, out);
    default:
      return evaluateUnary(instruction, operand, out);
    }
  }

  if (hlo::isElementwiseBinary(opcode)) {
    if (llvm::Error error = expectArrayOperands(instruction, operands, 2))
      return error;
    const hlo::Literal &lhs = *operands[0];
    const hlo::Literal &rhs = *operands[1];
    if (lhs.shape().dims() != rhs.shape().dims())
      return errorAt(instruction, "operand shapes " + lhs.shape().toString(false) + " and " +
                                      rhs.shape().toString(false) + " do not match");
    if (opcode == Opcode::Compare)
      return evaluateCompare(instruction, lhs, rhs, out);
    if (opcode == Opcode::Complex)
      return evaluateComplex(instruction, lhs, rhs, out);
    if (llvm::Error error = expectSameArrayShape(instruction, lhs, rhs))
      return error;
    return evaluateBinary(instruction, lhs, rhs, out);
  }

  return errorAt(instruction, llvm::Twine(hlo::opcodeName(opcode)) + " is not elementwise");
}

} // namespace

Result evaluateElementwise(const hlo::Instruction &instruction, Operands operands,
                           hlo::Literal *reuse) {
  const hlo::Shape &shape = instruction.shape();
  // A scalar selector may pick a whole tuple (older HLO): no buffer to fill.
  if (instruction.opcode() == Opcode::Select && operands.size() == 3 &&
      operands[1]->shape().isTuple()) {
    if (!operands[0]->shape().isScalar() ||
        operands[0]->shape().elementType() != hlo::PrimitiveType::Pred ||
        !operands[1]->shape().compatible(operands[2]->shape()))
      return errorAt(instruction, "selecting between tuples needs a scalar pred and equal shapes");
    return operands[0]->get<bool>(0) ? *operands[1] : *operands[2];
  }
  if (!shape.isArray())
    return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) +
                                    " produces an array, not " + shape.toString(false));
  if (reuse && (!reuse->shape().isArray() || reuse->shape().elementType() != shape.elementType() ||
                reuse->shape().dims() != shape.dims()))
    reuse = nullptr;
  hlo::Literal fresh;
  if (!reuse)
    fresh = hlo::Literal(shape);
  hlo::Literal &out = reuse ? *reuse : fresh;
  if (llvm::Error error = dispatch(instruction, operands, out))
    return std::move(error);
  hlo::Literal result = std::move(out);
  result.setLayout(shape.layout());
  return result;
}

Result evaluateElementwise(const hlo::Instruction &instruction, Operands operands) {
  return evaluateElementwise(instruction, operands, nullptr);
}

} // namespace mote::eval
