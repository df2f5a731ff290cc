//===- ElementalBinary.cpp - Two-operand elementwise ops and compare ------===//
//
// The rules of the reference evaluator (compiler/eval/ElementwiseBinary.cpp,
// Compare.cpp): integer arithmetic wraps; x / 0 is -1 (signed) or all ones
// (unsigned) and x % 0 is x; INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0;
// shifts by at least the width give 0 or the sign fill. Float maximum and
// minimum propagate NaN. Every guard is a select, so loops stay vectorisable.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"
#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"
#include "codegen/MathEmitter.h"
#include "codegen/RoundedBounds.h"
#include "codegen/ScalarOps.h"

#include "hlo/Instruction.h"

#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

namespace mote::codegen {

using hlo::ComparisonDirection;
using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

/// Whether `value` is a float constant (scalar or vector) without a NaN.
bool isNumberConstant(llvm::Value *value) {
  auto *constant = llvm::dyn_cast<llvm::Constant>(value);
  if (!constant)
    return false;
  auto number = [](llvm::Constant *element) {
    auto *fp = llvm::dyn_cast_or_null<llvm::ConstantFP>(element);
    return fp && !fp->isNaN();
  };
  return allConstantElements(constant, number);
}

/// Whether the function being built is x86 code, where LLVM lowers
/// `x < c ? c : x` to maxps(c, x) and `c < x ? c : x` to minps(c, x): they
/// return their second operand, x, when either is NaN (a signalling NaN
/// unchanged) and when both are zeros, which are std::max's and std::min's
/// rules for a bound c that is not NaN, -0 and +0 included. LLVM 16 lowers
/// the same selects for AArch64 to fmax and fmin, which give +0 for
/// max(-0, +0) and quiet a signalling NaN: other targets keep the guards.
bool selectsAreX86MinMax(llvm::IRBuilderBase &b) {
  llvm::BasicBlock *block = b.GetInsertBlock();
  return block && block->getModule() && llvm::Triple(block->getModule()->getTargetTriple()).isX86();
}

llvm::Value *emitFloatBinary(llvm::IRBuilderBase &b, Opcode opcode, llvm::Value *x,
                             llvm::Value *y) {
  switch (opcode) {
  case Opcode::Add:
    return b.CreateFAdd(x, y);
  case Opcode::Subtract:
    return b.CreateFSub(x, y);
  case Opcode::Multiply:
    return b.CreateFMul(x, y);
  case Opcode::Divide:
    return b.CreateFDiv(x, y);
  case Opcode::Maximum:
  case Opcode::Minimum: {
    // std::max(x, y) is (x < y ? y : x); std::min(x, y) is (y < x ? y : x);
    // a NaN on either side wins, x's first. Equal operands give x: LLVM 16
    // may turn the compare and select into AArch64's fmax and fmin, which
    // give +0 for max(-0, +0) where std::max keeps the -0, so the equal
    // case is chosen apart.
    llvm::Value *takeY = opcode == Opcode::Maximum ? b.CreateFCmpOLT(x, y) : b.CreateFCmpOLT(y, x);
    llvm::Value *chosen = b.CreateSelect(takeY, y, x);
    if (isNumberConstant(y) && selectsAreX86MinMax(b))
      return chosen; // a relu's one maxps: NaN and equal x give x already
    chosen = b.CreateSelect(b.CreateFCmpOEQ(x, y), x, chosen);
    chosen = b.CreateSelect(emitIsNan(b, y), y, chosen);
    return b.CreateSelect(emitIsNan(b, x), x, chosen);
  }
  case Opcode::Power: {
    llvm::Value *one = llvm::ConstantFP::get(x->getType(), 1.0);
    llvm::Value *trivial = b.CreateOr(b.CreateFCmpOEQ(x, one),
                                      b.CreateFCmpOEQ(y, llvm::ConstantFP::get(x->getType(), 0.0)));
    return b.CreateSelect(trivial, one, math::emitPow(b, x, y));
  }
  case Opcode::Atan2:
    return math::emitAtan2(b, x, y);
  case Opcode::Remainder:
    return math::emitFmod(b, x, y);
  default:
    return nullptr;
  }
}

/// x^y by squaring, one step per exponent bit, so it stays straight-line
/// code; arithmetic wraps like the evaluator's. A negative signed exponent
/// gives 0 (x^y with |x| > 1 truncates to 0), except 1^y = 1 and x^0 = 1.
llvm::Value *emitIntegerPower(llvm::IRBuilderBase &b, bool isSigned, llvm::Value *x,
                              llvm::Value *y) {
  llvm::Type *type = x->getType();
  const unsigned bits = type->getIntegerBitWidth();
  llvm::Value *one = llvm::ConstantInt::get(type, 1);
  llvm::Value *zero = llvm::ConstantInt::get(type, 0);
  llvm::Value *result = one, *base = x, *exponent = y;
  for (unsigned step = 0; step < bits; ++step) {
    llvm::Value *bitSet = b.CreateICmpNE(b.CreateAnd(exponent, one), zero);
    result = b.CreateSelect(bitSet, b.CreateMul(result, base), result);
    base = b.CreateMul(base, base);
    exponent = b.CreateLShr(exponent, one);
  }
  llvm::Value *trivial = b.CreateOr(b.CreateICmpEQ(x, one), b.CreateICmpEQ(y, zero));
  if (isSigned)
    result = b.CreateSelect(b.CreateICmpSLT(y, zero), zero, result);
  return b.CreateSelect(trivial, one, result);
}

llvm::Value *emitIntegerBinary(llvm::IRBuilderBase &b, Opcode opcode, bool isSigned, llvm::Value *x,
                               llvm::Value *y) {
  llvm::Type *type = x->getType();
  const unsigned bits = type->getIntegerBitWidth();
  llvm::Value *zero = llvm::ConstantInt::get(type, 0);
  llvm::Value *minusOne = llvm::ConstantInt::getAllOnesValue(type);
  llvm::Value *one = llvm::ConstantInt::get(type, 1);
  auto shiftOutOfRange = [&] { return b.CreateICmpUGE(y, llvm::ConstantInt::get(type, bits)); };
  switch (opcode) {
  case Opcode::Add:
    return b.CreateAdd(x, y);
  case Opcode::Subtract:
    return b.CreateSub(x, y);
  case Opcode::Multiply:
    return b.CreateMul(x, y);
  case Opcode::Power:
    return emitIntegerPower(b, isSigned, x, y);
  case Opcode::Divide:
  case Opcode::Remainder: {
    const bool divide = opcode == Opcode::Divide;
    llvm::Value *byZero = b.CreateICmpEQ(y, zero);
    // Divide by a safe divisor, then patch the special cases in.
    llvm::Value *special = byZero;
    if (isSigned)
      special = b.CreateOr(special, b.CreateICmpEQ(y, minusOne));
    llvm::Value *safe = b.CreateSelect(special, one, y);
    llvm::Value *quotient = divide ? (isSigned ? b.CreateSDiv(x, safe) : b.CreateUDiv(x, safe))
                                   : (isSigned ? b.CreateSRem(x, safe) : b.CreateURem(x, safe));
    if (divide) {
      if (isSigned)
        quotient = b.CreateSelect(b.CreateICmpEQ(y, minusOne), b.CreateNeg(x), quotient);
      return b.CreateSelect(byZero, minusOne, quotient);
    }
    if (isSigned)
      quotient = b.CreateSelect(b.CreateICmpEQ(y, minusOne), zero, quotient);
    return b.CreateSelect(byZero, x, quotient);
  }
  case Opcode::Maximum:
    return b.CreateSelect(isSigned ? b.CreateICmpSLT(x, y) : b.CreateICmpULT(x, y), y, x);
  case Opcode::Minimum:
    return b.CreateSelect(isSigned ? b.CreateICmpSLT(y, x) : b.CreateICmpULT(y, x), y, x);
  case Opcode::And:
    return b.CreateAnd(x, y);
  case Opcode::Or:
    return b.CreateOr(x, y);
  case Opcode::Xor:
    return b.CreateXor(x, y);
  case Opcode::ShiftLeft: {
    llvm::Value *safe = b.CreateSelect(shiftOutOfRange(), zero, y);
    return b.CreateSelect(shiftOutOfRange(), zero, b.CreateShl(x, safe));
  }
  case Opcode::ShiftRightLogical: {
    llvm::Value *safe = b.CreateSelect(shiftOutOfRange(), zero, y);
    return b.CreateSelect(shiftOutOfRange(), zero, b.CreateLShr(x, safe));
  }
  case Opcode::ShiftRightArithmetic: {
    // Shifting by width - 1 gives the sign fill the evaluator defines.
    llvm::Value *clamped =
        b.CreateSelect(shiftOutOfRange(), llvm::ConstantInt::get(type, bits - 1), y);
    return b.CreateAShr(x, clamped);
  }
  default:
    return nullptr;
  }
}

llvm::Value *emitPredBinary(llvm::IRBuilderBase &b, Opcode opcode, llvm::Value *x, llvm::Value *y) {
  switch (opcode) {
  case Opcode::And:
  case Opcode::Multiply:
  case Opcode::Minimum:
    return b.CreateAnd(x, y);
  case Opcode::Or:
  case Opcode::Add:
  case Opcode::Maximum:
    return b.CreateOr(x, y);
  case Opcode::Xor:
  case Opcode::Subtract:
    return b.CreateXor(x, y);
  case Opcode::Power:
    return b.CreateOr(x, b.CreateNot(y));
  case Opcode::Divide:
    return b.CreateSelect(y, x, b.getTrue());
  case Opcode::Remainder:
    return b.CreateSelect(y, b.getFalse(), x);
  default:
    return nullptr;
  }
}

llvm::CmpInst::Predicate integerPredicate(ComparisonDirection direction, bool isSigned) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return llvm::CmpInst::ICMP_EQ;
  case ComparisonDirection::NE:
    return llvm::CmpInst::ICMP_NE;
  case ComparisonDirection::GE:
    return isSigned ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE;
  case ComparisonDirection::GT:
    return isSigned ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT;
  case ComparisonDirection::LE:
    return isSigned ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE;
  case ComparisonDirection::LT:
    return isSigned ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT;
  }
  return llvm::CmpInst::ICMP_EQ;
}

/// IEEE comparisons: every direction but NE is false on NaN.
llvm::CmpInst::Predicate floatPredicate(ComparisonDirection direction) {
  switch (direction) {
  case ComparisonDirection::EQ:
    return llvm::CmpInst::FCMP_OEQ;
  case ComparisonDirection::NE:
    return llvm::CmpInst::FCMP_UNE;
  case ComparisonDirection::GE:
    return llvm::CmpInst::FCMP_OGE;
  case ComparisonDirection::GT:
    return llvm::CmpInst::FCMP_OGT;
  case ComparisonDirection::LE:
    return llvm::CmpInst::FCMP_OLE;
  case ComparisonDirection::LT:
    return llvm::CmpInst::FCMP_OLT;
  }
  return llvm::CmpInst::FCMP_OEQ;
}

/// The bits of a float as a signed integer ordered like TOTALORDER:
/// negative values have their magnitude bits flipped.
llvm::Value *totalOrderKey(llvm::IRBuilderBase &b, PrimitiveType type, llvm::Value *value) {
  llvm::Value *bits = value;
  if (!isHalfType(type))
    bits = b.CreateBitCast(value, b.getIntNTy(value->getType()->getPrimitiveSizeInBits()));
  llvm::Type *intType = bits->getType();
  const unsigned width = intType->getIntegerBitWidth();
  llvm::Value *magnitudeMask =
      llvm::ConstantInt::get(intType, llvm::APInt::getSignedMaxValue(width));
  llvm::Value *negative = b.CreateICmpSLT(bits, llvm::ConstantInt::get(intType, 0));
  return b.CreateSelect(negative, b.CreateXor(bits, magnitudeMask), bits);
}

} // namespace

llvm::Value *emitBinaryOp(llvm::IRBuilderBase &builder, Opcode opcode, PrimitiveType type,
                          llvm::Value *lhs, llvm::Value *rhs) {
  if (type == PrimitiveType::Pred)
    return emitPredBinary(builder, opcode, lhs, rhs);
  if (hlo::isComplex(type))
    return emitComplexBinaryOp(builder, opcode, lhs, rhs);
  if (hlo::isInteger(type))
    return emitIntegerBinary(builder, opcode, hlo::isSignedInteger(type), lhs, rhs);
  if (opcode == Opcode::Maximum || opcode == Opcode::Minimum) {
    rhs = foldConstantLoad(rhs); // a relu's zero
    if (type == PrimitiveType::F16)
      if (llvm::Value *bounded = emitRoundedBound(builder, opcode, lhs, rhs))
        return bounded;
  }
  llvm::Value *result = emitFloatBinary(builder, opcode, toCompute(builder, type, lhs),
                                        toCompute(builder, type, rhs));
  if (result && (opcode == Opcode::Maximum || opcode == Opcode::Minimum))
    return fromComputeSelected(builder, type, result, {lhs, rhs}); // one of the operands
  return result ? fromCompute(builder, type, result) : nullptr;
}

llvm::Value *ElementalEmitter::emitBinary(const hlo::Instruction &instruction, IndexRef index) {
  return emitBinaryOp(builder_, instruction.opcode(), instruction.operand(0)->shape().elementType(),
                      operandAt(instruction, 0, index), operandAt(instruction, 1, index));
}

llvm::Value *ElementalEmitter::emitCompare(const hlo::Instruction &instruction, IndexRef index) {
  PrimitiveType type = instruction.operand(0)->shape().elementType();
  llvm::Value *lhs = operandAt(instruction, 0, index);
  llvm::Value *rhs = operandAt(instruction, 1, index);
  const hlo::InstructionAttributes &attributes = instruction.attributes();
  ComparisonDirection direction = attributes.comparisonDirection;
  if (type == PrimitiveType::Pred)
    return builder_.CreateICmp(integerPredicate(direction, /*isSigned=*/false), lhs, rhs);
  if (hlo::isComplex(type)) {
    // Equal when both parts are (IEEE: a NaN part makes them unequal).
    Complex x = splitComplex(builder_, lhs), y = splitComplex(builder_, rhs);
    llvm::Value *equal =
        builder_.CreateAnd(builder_.CreateFCmpOEQ(x.re, y.re), builder_.CreateFCmpOEQ(x.im, y.im));
    return direction == ComparisonDirection::EQ ? equal : builder_.CreateNot(equal);
  }
  if (hlo::isInteger(type)) {
    bool isSigned = hlo::isSignedInteger(type);
    if (attributes.comparisonType == hlo::ComparisonType::Signed)
      isSigned = true;
    else if (attributes.comparisonType == hlo::ComparisonType::Unsigned)
      isSigned = false;
    return builder_.CreateICmp(integerPredicate(direction, isSigned), lhs, rhs);
  }
  if (attributes.comparisonType == hlo::ComparisonType::TotalOrder)
    return builder_.CreateICmp(integerPredicate(direction, /*isSigned=*/true),
                               totalOrderKey(builder_, type, lhs),
                               totalOrderKey(builder_, type, rhs));
  return builder_.CreateFCmp(floatPredicate(direction), toCompute(builder_, type, lhs),
                             toCompute(builder_, type, rhs));
}

llvm::Value *ElementalEmitter::emitSelectOrClamp(const hlo::Instruction &instruction,
                                                 IndexRef index) {
  // A scalar operand broadcasts (select's predicate, clamp's bounds).
  auto at = [&](size_t i) {
    if (instruction.operand(i)->shape().isScalar() && !index.empty())
      return operandAt(instruction, i, {});
    return operandAt(instruction, i, index);
  };
  if (instruction.opcode() == Opcode::Select)
    return builder_.CreateSelect(at(0), at(1), at(2));

  PrimitiveType type = instruction.shape().elementType();
  llvm::Value *low = at(0), *x = at(1), *high = at(2);
  // clamp = min(high, max(x, low)) with std::min/std::max orders.
  if (type == PrimitiveType::Pred) {
    llvm::Value *raised = builder_.CreateOr(x, low);
    return builder_.CreateAnd(raised, high);
  }
  if (hlo::isInteger(type)) {
    const bool isSigned = hlo::isSignedInteger(type);
    llvm::Value *raised = builder_.CreateSelect(
        isSigned ? builder_.CreateICmpSLT(x, low) : builder_.CreateICmpULT(x, low), low, x);
    return builder_.CreateSelect(isSigned ? builder_.CreateICmpSLT(raised, high)
                                          : builder_.CreateICmpULT(raised, high),
                                 raised, high);
  }
  llvm::Value *lo = toCompute(builder_, type, low);
  llvm::Value *value = toCompute(builder_, type, x);
  llvm::Value *hi = toCompute(builder_, type, high);
  // Constant bounds that are numbers other than zero (a quantized model's
  // -128 and 127) cannot tie with x's zero or be NaN: x < low ? low : x
  // keeps a NaN x by itself and is what targets lower to one max (AArch64's
  // NaN-propagating fmax), and likewise for the high side.
  const std::optional<double> lowConstant = scalarConstantValue(*instruction.operand(0));
  const std::optional<double> highConstant = scalarConstantValue(*instruction.operand(2));
  auto plainNumber = [](std::optional<double> bound) {
    return bound && *bound == *bound && *bound != 0.0;
  };
  if (plainNumber(lowConstant) && plainNumber(highConstant)) {
    llvm::Value *raised = builder_.CreateSelect(builder_.CreateFCmpOLT(value, lo), lo, value);
    return fromComputeSelected(
        builder_, type, builder_.CreateSelect(builder_.CreateFCmpOGT(raised, hi), hi, raised),
        {low, x, high});
  }
  // x >= low ? x : low, and raised >= high ? high : raised: std::max and
  // std::min but for NaN, which the selects below fix. Not x < low ? low : x,
  // which LLVM 16 lowers for AArch64 to fmax when low is 0.0 (max(-0, +0) is
  // +0 there, where clamp keeps -0), and likewise fminnm for the high side.
  llvm::Value *raised = builder_.CreateSelect(builder_.CreateFCmpOGE(value, lo), value, lo);
  llvm::Value *clamped = builder_.CreateSelect(builder_.CreateFCmpOGE(raised, hi), hi, raised);
  // With a NaN anywhere the first NaN of (low, x, high) wins.
  clamped = builder_.CreateSelect(emitIsNan(builder_, hi), hi, clamped);
  clamped = builder_.CreateSelect(emitIsNan(builder_, value), value, clamped);
  clamped = builder_.CreateSelect(emitIsNan(builder_, lo), lo, clamped);
  return fromComputeSelected(builder_, type, clamped, {low, x, high}); // one of them
}

} // namespace mote::codegen
