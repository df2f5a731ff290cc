//===- ElementalReducePrecision.cpp - reduce-precision on float bits ------===//
//
// XLA's reduce-precision, on the bits of the value as the evaluator computes
// it (eval/Convert.cpp): round the mantissa to nearest even, then flush
// values outside the reduced exponent range to signed zero or infinity. NaN
// stays the same NaN, or becomes +inf when no mantissa bits remain.
//
//===----------------------------------------------------------------------===//

#include "codegen/ElementalEmitter.h"

#include "codegen/ElementTypes.h"

namespace mote::codegen {

using hlo::PrimitiveType;

llvm::Value *ElementalEmitter::emitReducePrecision(const hlo::Instruction &instruction,
                                                   IndexRef index) {
  llvm::IRBuilderBase &b = builder_;
  const PrimitiveType type = instruction.shape().elementType();
  llvm::Value *value = operandAt(instruction, 0, index);
  // A narrow float is reduced as the f32 it widens to, then rounded back
  // (the evaluator's order).
  const bool narrow = hlo::isF8(type);
  if (narrow)
    value = toCompute(b, type, value);
  int srcExponent = 8, srcMantissa = 23;
  if (type == PrimitiveType::F64) {
    srcExponent = 11;
    srcMantissa = 52;
  } else if (type == PrimitiveType::F16) {
    srcExponent = 5;
    srcMantissa = 10;
  } else if (type == PrimitiveType::BF16) {
    srcMantissa = 7;
  }
  const unsigned width = 1 + srcExponent + srcMantissa;
  llvm::IntegerType *bitsType = b.getIntNTy(width);
  // Halves are held as their bits already.
  llvm::Value *original = isHalfType(type) ? value : b.CreateBitCast(value, bitsType);
  auto constant = [&](uint64_t v) { return llvm::ConstantInt::get(bitsType, v); };
  const uint64_t exponentMask = ((uint64_t(1) << srcExponent) - 1) << srcMantissa;
  const uint64_t mantissaMask = (uint64_t(1) << srcMantissa) - 1;
  llvm::Value *isNan =
      b.CreateAnd(b.CreateICmpEQ(b.CreateAnd(original, constant(exponentMask)),
                                 constant(exponentMask)),
                  b.CreateICmpNE(b.CreateAnd(original, constant(mantissaMask)), constant(0)));

  const int64_t exponentBits = instruction.attributes().exponentBits;
  const int64_t mantissaBits = instruction.attributes().mantissaBits;
  llvm::Value *x = original;
  if (mantissaBits < srcMantissa) {
    const uint64_t lastMantissaBit = uint64_t(1) << (srcMantissa - mantissaBits);
    llvm::Value *lastBit = b.CreateLShr(b.CreateAnd(x, constant(lastMantissaBit)),
                                        constant(uint64_t(srcMantissa - mantissaBits)));
    x = b.CreateAdd(x, b.CreateAdd(lastBit, constant((lastMantissaBit >> 1) - 1)));
    x = b.CreateAnd(x, constant(~(lastMantissaBit - 1)));
  }
  if (exponentBits < srcExponent) {
    const uint64_t signBit = uint64_t(1) << (width - 1);
    const uint64_t bias = (uint64_t(1) << (srcExponent - 1)) - 1;
    const uint64_t reducedBias = (uint64_t(1) << (exponentBits - 1)) - 1;
    llvm::Value *exponent = b.CreateAnd(x, constant(exponentMask));
    llvm::Value *signedZero = b.CreateAnd(x, constant(signBit));
    llvm::Value *overflows = b.CreateICmpUGT(exponent, constant((bias + reducedBias) << srcMantissa));
    llvm::Value *underflows =
        b.CreateICmpULE(exponent, constant((bias - reducedBias) << srcMantissa));
    x = b.CreateSelect(overflows, b.CreateOr(signedZero, constant(exponentMask)),
                       b.CreateSelect(underflows, signedZero, x));
  }
  x = b.CreateSelect(isNan, mantissaBits > 0 ? original : constant(exponentMask), x);
  llvm::Value *result = isHalfType(type) ? x : b.CreateBitCast(x, value->getType());
  return narrow ? fromCompute(b, type, result) : result;
}

} // namespace mote::codegen
