//===- ComplexSupport.h - Pieces shared by the complex emitters -*- C++ -*-===//
///
/// \file
/// Internal to the Complex*.cpp emitters: constants and classification of
/// the parts (float or double, scalars or vectors), the per-type limits
/// glibc's complex functions scale by, and (sin y, cos y) taken the way
/// those functions take them.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_COMPLEXSUPPORT_H
#define MOTE_CODEGEN_COMPLEXSUPPORT_H

#include "codegen/ComplexOps.h"
#include "codegen/MathEmitter.h"
#include "codegen/ScalarOps.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace mote::codegen::complex {

inline bool isDouble(llvm::Value *x) { return x->getType()->getScalarType()->isDoubleTy(); }

inline llvm::Value *constant(llvm::Value *like, double value) {
  return llvm::ConstantFP::get(like->getType(), value);
}

inline llvm::Value *isFinite(llvm::IRBuilderBase &b, llvm::Value *x) {
  return b.CreateFCmpOLT(emitFabs(b, x), llvm::ConstantFP::getInfinity(x->getType()));
}

inline llvm::Value *isInf(llvm::IRBuilderBase &b, llvm::Value *x) {
  return b.CreateFCmpOEQ(emitFabs(b, x), llvm::ConstantFP::getInfinity(x->getType()));
}

inline llvm::Value *isNan(llvm::IRBuilderBase &b, llvm::Value *x) { return emitIsNan(b, x); }

inline llvm::Value *isZero(llvm::IRBuilderBase &b, llvm::Value *x) {
  return b.CreateFCmpOEQ(x, constant(x, 0.0));
}

inline llvm::Value *signBit(llvm::IRBuilderBase &b, llvm::Value *x) {
  const unsigned width = x->getType()->getScalarSizeInBits();
  llvm::Type *integer = x->getType()->getWithNewType(b.getIntNTy(width));
  return b.CreateICmpSLT(b.CreateBitCast(x, integer), llvm::ConstantInt::get(integer, 0));
}

inline llvm::Value *emitSqrt(llvm::IRBuilderBase &b, llvm::Value *x) {
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
}

inline Complex select(llvm::IRBuilderBase &b, llvm::Value *condition, Complex x, Complex y) {
  return {b.CreateSelect(condition, x.re, y.re), b.CreateSelect(condition, x.im, y.im)};
}

/// The constants of glibc's complex functions for the part type.
struct Limits {
  double max;      ///< largest finite value
  double min;      ///< smallest normal value
  double epsilon;  ///< machine epsilon
  int mantissa;    ///< digits, 24 or 53
  double expLimit; ///< t = (int)((MAX_EXP - 1) * ln 2): exp(t) is finite
};
Limits limitsFor(llvm::Value *x);
/// exp(v) in the part type, computed on the host (the compiler runs where
/// constants are made; the evaluator's libm gives the same value).
double hostExp(llvm::Value *like, double v);

/// (sin y, cos y), or (y, 1) when |y| is not above the smallest normal
/// value, as glibc's complex functions take them. Returned as {re: sin,
/// im: cos}.
Complex emitSinCos(llvm::IRBuilderBase &b, llvm::Value *y);

/// x^2 + y^2 - 1 for 0.5 <= x < 1, accurate where it cancels (glibc's
/// __x2y2m1): in double for float parts, else from exact squares.
llvm::Value *squaresMinusOne(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y);

/// sinh and cosh of a real part (ElementalUnary's inline versions).
llvm::Value *emitSinh(llvm::IRBuilderBase &b, llvm::Value *x);
llvm::Value *emitCosh(llvm::IRBuilderBase &b, llvm::Value *x);

} // namespace mote::codegen::complex

#endif // MOTE_CODEGEN_COMPLEXSUPPORT_H
