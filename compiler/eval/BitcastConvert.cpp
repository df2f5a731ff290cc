//===- BitcastConvert.cpp - Reinterpreting element bits -------------------===//
//
// Same-width types keep the dimensions. Between different widths the wider
// side has one element per row of an extra minor dimension on the narrower
// side (f32[5] <-> u8[5,4]), and the narrow pieces are the wide value's
// little-endian parts: piece 0 holds the least significant bits.
//
//===----------------------------------------------------------------------===//

#include "eval/OperandChecks.h"

#include "llvm/Support/SwapByteOrder.h"

#include <algorithm>

namespace mote::eval {

using hlo::errorAt;
using hlo::PrimitiveType;

namespace {

/// Bit `bit` of element `element` as a Literal stores it: sub-byte integers
/// in the low bits of their byte, wider values little-endian.
bool readBit(const uint8_t *data, int storage, int64_t element, int bit) {
  return (data[element * storage + bit / 8] >> (bit % 8)) & 1;
}

void writeBit(uint8_t *data, int storage, int64_t element, int bit, bool value) {
  uint8_t &byte = data[element * storage + bit / 8];
  byte = static_cast<uint8_t>(value ? byte | (1u << (bit % 8)) : byte & ~(1u << (bit % 8)));
}

} // namespace

Result evaluateBitcastConvert(const hlo::Instruction &instruction, Operands operands) {
  if (llvm::Error error = expectArrayOperands(instruction, operands, 1))
    return std::move(error);
  const hlo::Literal &operand = *operands[0];
  const hlo::Shape &from = operand.shape();
  const hlo::Shape &to = instruction.shape();
  if (!to.isArray())
    return errorAt(instruction, "bitcast-convert produces an array");
  PrimitiveType fromType = from.elementType();
  PrimitiveType toType = to.elementType();
  if (fromType == PrimitiveType::Pred || toType == PrimitiveType::Pred)
    return errorAt(instruction, "bitcast-convert of pred is not supported");
  const int fromBits = hlo::bitWidth(fromType);
  const int toBits = hlo::bitWidth(toType);

  // The dimensions the result must have.
  llvm::SmallVector<int64_t, 6> expected(from.dims().begin(), from.dims().end());
  bool shapeOk = true;
  if (fromBits > toBits) {
    expected.push_back(fromBits / toBits);
    shapeOk = fromBits % toBits == 0;
  } else if (fromBits < toBits) {
    shapeOk = toBits % fromBits == 0 && !expected.empty() && expected.back() == toBits / fromBits;
    if (shapeOk)
      expected.pop_back();
  }
  if (!shapeOk)
    return errorAt(instruction,
                   "cannot bitcast-convert " + from.toString(false) + " to " + to.toString(false));
  auto result = makeArrayResult(instruction, toType, expected);
  if (!result)
    return result.takeError();

  const int fromStorage = hlo::storageBytes(fromType);
  const int toStorage = hlo::storageBytes(toType);
  if (fromBits == 8 * fromStorage && toBits == 8 * toStorage) {
    // Whole-byte types: the buffers are the same little-endian bytes (the
    // host stores multi-byte values little-endian too).
    if (!llvm::sys::IsLittleEndianHost)
      return errorAt(instruction, "bitcast-convert needs a little-endian host");
    std::copy(operand.bytes().begin(), operand.bytes().end(), result->bytes().begin());
    return result;
  }

  // Sub-byte types: move the value bits one by one through one bit stream.
  const uint8_t *in = operand.bytes().data();
  uint8_t *out = result->bytes().data();
  const int64_t totalBits = operand.elementCount() * fromBits;
  for (int64_t bit = 0; bit < totalBits; ++bit) {
    bool value = readBit(in, fromStorage, bit / fromBits, static_cast<int>(bit % fromBits));
    writeBit(out, toStorage, bit / toBits, static_cast<int>(bit % toBits), value);
  }
  wrapSubByteIntegers(*result); // sign-extends signed sub-byte results
  return result;
}

} // namespace mote::eval
