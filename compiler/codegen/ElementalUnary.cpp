//===- ElementalUnary.cpp - One-operand elementwise ops -------------------===//
//
// Floats: f16/bf16 widen to f32, compute, and round back once, as XLA does.
// Transcendentals come from MathEmitter (inline, no libm). Integers follow the
// reference evaluator: two's complement, wrapping.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexOps.h"
#include "codegen/ElementTypes.h"
#include "codegen/ElementalEmitter.h"
#include "codegen/MathEmitter.h"
#include "codegen/ScalarOps.h"

#include "llvm/IR/Intrinsics.h"

namespace mote::codegen {

using hlo::Opcode;
using hlo::PrimitiveType;

namespace {

llvm::Value *floatConstant(llvm::Value *like, double value) {
  return llvm::ConstantFP::get(like->getType(), value);
}

/// sqrt(1 - x*x) computed as sqrt((1 - x)(1 + x)), accurate near |x| = 1.
llvm::Value *emitSqrtOneMinusSquare(llvm::IRBuilderBase &b, llvm::Value *x) {
  llvm::Value *one = floatConstant(x, 1.0);
  llvm::Value *product = b.CreateFMul(b.CreateFSub(one, x), b.CreateFAdd(one, x));
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, product);
}


/// sinh|x| or cosh|x| for a = |x|, given `small`, their value for a below
/// the point where e^-a no longer counts (10 for f32, 22 for f64): from
/// there on e^a / 2 (one rounding of exp), and where e^a itself overflows
/// but the result does not, (w / 2) w with w = e^(a / 2).
llvm::Value *emitHyperbolicLarge(llvm::IRBuilderBase &b, llvm::Value *a, llvm::Value *small) {
  const bool isDouble = a->getType()->getScalarType()->isDoubleTy();
  auto constant = [&](double value) { return llvm::ConstantFP::get(a->getType(), value); };
  llvm::Value *half = constant(0.5);
  llvm::Value *large = b.CreateFMul(math::emitExp(b, a), half);
  llvm::Value *w = math::emitExp(b, b.CreateFMul(a, half));
  llvm::Value *huge = b.CreateFMul(b.CreateFMul(w, half), w);
  llvm::Value *value =
      b.CreateSelect(b.CreateFCmpOGE(a, constant(isDouble ? 709.0 : 88.0)), huge, large);
  return b.CreateSelect(b.CreateFCmpOGE(a, constant(isDouble ? 22.0 : 10.0)), value, small);
}

llvm::Value *emitFloatUnary(llvm::IRBuilderBase &b, Opcode opcode, llvm::Value *x) {
  llvm::Value *one = floatConstant(x, 1.0);
  llvm::Value *zero = floatConstant(x, 0.0);
  switch (opcode) {
  case Opcode::Abs:
    return emitFabs(b, x);
  case Opcode::Negate:
    return b.CreateFNeg(x);
  case Opcode::Sign: {
    llvm::Value *magnitude = b.CreateSelect(b.CreateFCmpUNE(x, zero), one, zero);
    return b.CreateSelect(emitIsNan(b, x), x, emitCopysign(b, magnitude, x));
  }
  case Opcode::Floor:
    return emitRound(b, x, RoundingMode::Floor);
  case Opcode::Ceil:
    return emitRound(b, x, RoundingMode::Ceil);
  case Opcode::RoundNearestAfz:
    return emitRound(b, x, RoundingMode::HalfAwayFromZero);
  case Opcode::RoundNearestEven:
    return emitRound(b, x, RoundingMode::HalfToEven);
  case Opcode::Exp:
    return math::emitExp(b, x);
  case Opcode::Expm1:
    return math::emitExpm1(b, x);
  case Opcode::Log:
    return math::emitLog(b, x);
  case Opcode::Log1p:
    return math::emitLog1p(b, x);
  case Opcode::Logistic:
    return math::emitLogistic(b, x);
  case Opcode::Sqrt:
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
  case Opcode::Rsqrt:
    return math::emitRsqrt(b, x);
  case Opcode::Cbrt:
    return math::emitCbrt(b, x);
  case Opcode::Sin:
    return math::emitSin(b, x);
  case Opcode::Cos:
    return math::emitCos(b, x);
  case Opcode::Tan:
    return math::emitTan(b, x);
  case Opcode::Tanh:
    return math::emitTanh(b, x);
  case Opcode::Erf:
    return math::emitErf(b, x);
  case Opcode::Atan:
    return math::emitAtan2(b, x, one);
  case Opcode::Asin:
    return math::emitAtan2(b, x, emitSqrtOneMinusSquare(b, x));
  case Opcode::Acos:
    return math::emitAtan2(b, emitSqrtOneMinusSquare(b, x), x);
  case Opcode::Sinh: {
    // (e^x - e^-x) / 2 through expm1 keeps small |x| accurate:
    // sinh(x) = (u + u / (u + 1)) / 2 with u = expm1(|x|), sign restored.
    // Where e^-|x| no longer counts, e^|x| / 2 as (w / 2) w with
    // w = e^(|x| / 2), which stays finite as long as the result does.
    llvm::Value *a = emitFabs(b, x);
    llvm::Value *u = math::emitExpm1(b, a);
    llvm::Value *small =
        b.CreateFMul(b.CreateFAdd(u, b.CreateFDiv(u, b.CreateFAdd(u, one))), floatConstant(x, 0.5));
    return emitCopysign(b, emitHyperbolicLarge(b, a, small), x);
  }
  case Opcode::Cosh: {
    llvm::Value *a = emitFabs(b, x);
    llvm::Value *e = math::emitExp(b, a);
    llvm::Value *small = b.CreateFMul(b.CreateFAdd(e, b.CreateFDiv(one, e)), floatConstant(x, 0.5));
    return emitHyperbolicLarge(b, a, small);
  }
  case Opcode::Asinh: {
    // asinh|x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); large |x|: log(2|x|).
    llvm::Value *a = emitFabs(b, x);
    llvm::Value *square = b.CreateFMul(a, a);
    llvm::Value *root = b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, b.CreateFAdd(one, square));
    llvm::Value *small =
        math::emitLog1p(b, b.CreateFAdd(a, b.CreateFDiv(square, b.CreateFAdd(one, root))));
    const bool isDouble = x->getType()->getScalarType()->isDoubleTy();
    llvm::Value *large =
        b.CreateFAdd(math::emitLog(b, a), floatConstant(x, 0.69314718055994530942));
    llvm::Value *value =
        b.CreateSelect(b.CreateFCmpOGT(a, floatConstant(x, isDouble ? 1e150 : 1e18)), large, small);
    return emitCopysign(b, value, x);
  }
  case Opcode::Acosh: {
    // log(x + sqrt(x^2 - 1)) = log1p(t + sqrt(2t + t^2)) with t = x - 1.
    llvm::Value *t = b.CreateFSub(x, one);
    llvm::Value *root = b.CreateUnaryIntrinsic(
        llvm::Intrinsic::sqrt, b.CreateFAdd(b.CreateFAdd(t, t), b.CreateFMul(t, t)));
    const bool isDouble = x->getType()->getScalarType()->isDoubleTy();
    llvm::Value *large =
        b.CreateFAdd(math::emitLog(b, x), floatConstant(x, 0.69314718055994530942));
    llvm::Value *value =
        b.CreateSelect(b.CreateFCmpOGT(x, floatConstant(x, isDouble ? 1e150 : 1e18)), large,
                       math::emitLog1p(b, b.CreateFAdd(t, root)));
    // Below 1 there is no acosh.
    return b.CreateSelect(b.CreateFCmpOLT(x, one), llvm::ConstantFP::getNaN(x->getType()), value);
  }
  case Opcode::Atanh: {
    // atanh(x) = sign(x) log1p(2|x| / (1 - |x|)) / 2: on |x| the ratio is
    // never below 0, where log1p would cancel near x = -1.
    llvm::Value *a = emitFabs(b, x);
    llvm::Value *ratio = b.CreateFDiv(b.CreateFAdd(a, a), b.CreateFSub(one, a));
    return emitCopysign(b, b.CreateFMul(math::emitLog1p(b, ratio), floatConstant(x, 0.5)), x);
  }
  default:
    return nullptr;
  }
}

llvm::Value *emitIntegerUnary(llvm::IRBuilderBase &b, Opcode opcode, PrimitiveType type,
                              llvm::Value *x) {
  llvm::Value *zero = llvm::Constant::getNullValue(x->getType());
  const bool isSigned = hlo::isSignedInteger(type);
  switch (opcode) {
  case Opcode::Abs:
    return isSigned ? b.CreateSelect(b.CreateICmpSLT(x, zero), b.CreateNeg(x), x) : x;
  case Opcode::Negate:
    return b.CreateNeg(x);
  case Opcode::Not:
    return b.CreateNot(x);
  case Opcode::Sign: {
    if (!isSigned)
      return b.CreateZExt(b.CreateICmpNE(x, zero), x->getType());
    llvm::Value *positive = b.CreateZExt(b.CreateICmpSGT(x, zero), x->getType());
    llvm::Value *negative = b.CreateZExt(b.CreateICmpSLT(x, zero), x->getType());
    return b.CreateSub(positive, negative);
  }
  case Opcode::PopCount:
    return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
  case Opcode::Clz:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
  default:
    return nullptr;
  }
}

} // namespace

llvm::Value *emitUnaryOp(llvm::IRBuilderBase &builder, Opcode opcode, PrimitiveType type,
                         llvm::Value *operand) {
  if (type == PrimitiveType::Pred)
    return opcode == Opcode::Not ? builder.CreateNot(operand) : nullptr;
  if (hlo::isComplex(type))
    return emitComplexUnaryOp(builder, opcode, operand);
  if (hlo::isInteger(type))
    return emitIntegerUnary(builder, opcode, type, operand);
  llvm::Value *x = toCompute(builder, type, operand);
  if (opcode == Opcode::IsFinite)
    return builder.CreateFCmpOLT(emitFabs(builder, x), llvm::ConstantFP::getInfinity(x->getType()));
  llvm::Value *result = emitFloatUnary(builder, opcode, x);
  return result ? fromCompute(builder, type, result) : nullptr;
}

llvm::Value *ElementalEmitter::emitUnary(const hlo::Instruction &instruction, IndexRef index) {
  return emitUnaryOp(builder_, instruction.opcode(), instruction.operand(0)->shape().elementType(),
                     operandAt(instruction, 0, index));
}

} // namespace mote::codegen
