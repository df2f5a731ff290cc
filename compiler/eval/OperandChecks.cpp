//===- OperandChecks.cpp - Guards shared by the op evaluators -------------===//

#include "eval/OperandChecks.h"

#include "hlo/Opcode.h"

namespace mote::eval {

using hlo::errorAt;
using hlo::PrimitiveType;

llvm::Error expectArrayOperands(const hlo::Instruction &instruction, Operands operands,
                                size_t count) {
  if (operands.size() != count)
    return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) + " expects " +
                                    llvm::Twine(count) + " operand" + (count == 1 ? "" : "s") +
                                    ", got " + llvm::Twine(operands.size()));
  for (size_t i = 0; i < count; ++i)
    if (!operands[i] || !operands[i]->shape().isArray())
      return errorAt(instruction, "operand " + llvm::Twine(i) + " of " +
                                      hlo::opcodeName(instruction.opcode()) + " must be an array");
  return llvm::Error::success();
}

llvm::Expected<hlo::Literal> makeArrayResult(const hlo::Instruction &instruction,
                                             PrimitiveType type, llvm::ArrayRef<int64_t> dims) {
  const hlo::Shape &shape = instruction.shape();
  if (!shape.isArray() || shape.elementType() != type || shape.dims() != dims)
    return errorAt(instruction, "result shape " + shape.toString(false) +
                                    " does not match the evaluated " +
                                    hlo::Shape::array(type, dims).toString(false));
  return hlo::Literal(shape);
}

llvm::Error unsupportedElementType(const hlo::Instruction &instruction, PrimitiveType type) {
  return errorAt(instruction, llvm::Twine(hlo::opcodeName(instruction.opcode())) +
                                  " does not support element type " + hlo::primitiveTypeName(type));
}

bool isSubByteInteger(PrimitiveType type) {
  return type == PrimitiveType::S2 || type == PrimitiveType::S4 || type == PrimitiveType::U2 ||
         type == PrimitiveType::U4;
}

void wrapSubByteIntegers(hlo::Literal &literal) {
  PrimitiveType type = literal.shape().elementType();
  if (!isSubByteInteger(type))
    return;
  int bits = hlo::bitWidth(type);
  uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  bool isSigned = hlo::isSignedInteger(type);
  for (uint8_t &byte : literal.bytes()) {
    uint8_t low = byte & mask;
    // Sign-extend from `bits` for signed types: shift the sign bit to bit 7
    // and back with an arithmetic shift.
    byte =
        isSigned ? static_cast<uint8_t>(static_cast<int8_t>(low << (8 - bits)) >> (8 - bits)) : low;
  }
}

} // namespace mote::eval
