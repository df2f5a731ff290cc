//===- MathSupport.h - Building blocks of the inline math library -*- C++ -*-===//
///
/// \file
/// A thin layer over IRBuilder for writing the float algorithms of
/// MathEmitter once for f32 and f64, scalar or vector: splatted constants,
/// Horner polynomials, bit casts to the same-width integer, exact two-term
/// sums and products, and the argument-reduced kernels several functions
/// share. Private to the Math*.cpp files.
///
//===----------------------------------------------------------------------===//
#ifndef MOTE_CODEGEN_MATHSUPPORT_H
#define MOTE_CODEGEN_MATHSUPPORT_H

#include "llvm/IR/IRBuilder.h"

#include <cmath>
#include <initializer_list>
#include <utility>

namespace mote::codegen::math {

/// A value split as hi + lo with |lo| <= ulp(hi) / 2.
struct Pair {
  llvm::Value *hi;
  llvm::Value *lo;
};

/// Emits float arithmetic of one type (f32 or f64, scalar or vector). The
/// builder's fast-math flags are cleared for the object's lifetime: the
/// algorithms depend on every operation rounding exactly once.
class MathIR {
public:
  MathIR(llvm::IRBuilderBase &builder, llvm::Type *type);

  llvm::IRBuilderBase &b;
  llvm::Type *ty;    ///< float/double or a vector of them
  llvm::Type *intTy; ///< i32/i64 of the same shape
  bool f64;
  int mantBits; ///< 23 or 52
  int bias;     ///< 127 or 1023

  llvm::Value *c(double v) const;
  llvm::Value *ci(int64_t v) const;
  /// A constant from its f32 or f64 bit pattern.
  llvm::Value *cbits(uint64_t f32Or64Bits) const;
  /// The f32 constant when working in f32, the f64 one otherwise.
  llvm::Value *c2(double f32Value, double f64Value) const { return c(f64 ? f64Value : f32Value); }

  llvm::Value *add(llvm::Value *a, llvm::Value *x) { return b.CreateFAdd(a, x); }
  llvm::Value *sub(llvm::Value *a, llvm::Value *x) { return b.CreateFSub(a, x); }
  llvm::Value *mul(llvm::Value *a, llvm::Value *x) { return b.CreateFMul(a, x); }
  llvm::Value *div(llvm::Value *a, llvm::Value *x) { return b.CreateFDiv(a, x); }
  llvm::Value *neg(llvm::Value *a) { return b.CreateFNeg(a); }
  /// a * x + y, fused only where the target has the instruction.
  llvm::Value *fma(llvm::Value *a, llvm::Value *x, llvm::Value *y);
  /// Horner's rule; coefficients from the highest degree down.
  llvm::Value *poly(llvm::Value *x, std::initializer_list<double> coeffs);
  llvm::Value *poly(llvm::Value *x, llvm::ArrayRef<llvm::Value *> coeffs);

  llvm::Value *lt(llvm::Value *a, llvm::Value *x) { return b.CreateFCmpOLT(a, x); }
  llvm::Value *le(llvm::Value *a, llvm::Value *x) { return b.CreateFCmpOLE(a, x); }
  llvm::Value *gt(llvm::Value *a, llvm::Value *x) { return b.CreateFCmpOGT(a, x); }
  llvm::Value *ge(llvm::Value *a, llvm::Value *x) { return b.CreateFCmpOGE(a, x); }
  llvm::Value *eq(llvm::Value *a, llvm::Value *x) { return b.CreateFCmpOEQ(a, x); }
  llvm::Value *isNan(llvm::Value *a) { return b.CreateFCmpUNO(a, a); }
  llvm::Value *isInf(llvm::Value *a) { return eq(abs(a), c(INFINITY)); }
  llvm::Value *signBit(llvm::Value *a);
  llvm::Value *sel(llvm::Value *cond, llvm::Value *t, llvm::Value *f) {
    return b.CreateSelect(cond, t, f);
  }
  llvm::Value *abs(llvm::Value *a);
  llvm::Value *copysign(llvm::Value *mag, llvm::Value *sign);
  llvm::Value *sqrt(llvm::Value *a);

  llvm::Value *bits(llvm::Value *a) { return b.CreateBitCast(a, intTy); }
  llvm::Value *fromBits(llvm::Value *i) { return b.CreateBitCast(i, ty); }
  /// Rounds to the nearest integer (ties to even) with the 1.5 * 2^p trick;
  /// exact for |a| < 2^(p-1), a NaN stays NaN.
  llvm::Value *rint(llvm::Value *a);
  /// fptosi; the caller keeps `a` integral and in range (a NaN is mapped to 0
  /// first so no poison escapes).
  llvm::Value *toInt(llvm::Value *a);
  llvm::Value *toFloat(llvm::Value *i) { return b.CreateSIToFP(i, ty); }
  /// 2^k for k in the normal exponent range.
  llvm::Value *pow2(llvm::Value *k);
  /// a * 2^k for |k| up to twice the exponent range, rounding once.
  llvm::Value *scale(llvm::Value *a, llvm::Value *k);

  /// hi + lo == a + x exactly.
  Pair twoSum(llvm::Value *a, llvm::Value *x);
  /// hi + lo == a * x exactly (Dekker; needs no FMA). |a|, |x| below 2^995
  /// (f64) or 2^115 (f32) so the split does not overflow.
  Pair twoProd(llvm::Value *a, llvm::Value *x);

private:
  llvm::IRBuilderBase::FastMathFlagGuard guard;
};

/// exp(r) for |r| <= ln2/2 + a little: the core polynomial of exp.
llvm::Value *expReduced(MathIR &m, llvm::Value *r);
/// expm1(r) for |r| <= ln2/2 (Taylor; exact for r == 0).
llvm::Value *expm1Reduced(MathIR &m, llvm::Value *r);
/// exp(hi + lo) for any hi (clamped here: huge hi give inf or 0, NaN gives
/// NaN) and finite |lo| <= 1/4. Used by exp, pow and erf.
llvm::Value *expPair(MathIR &m, llvm::Value *hi, llvm::Value *lo);
/// log(x) + extra for positive finite x (subnormals included). `extra` may be
/// null; log1p passes its rounding correction there.
llvm::Value *logPositive(MathIR &m, llvm::Value *x, llvm::Value *extra);
/// log(x) as hi + lo with ~2^-20 ulp relative error, for pow. x positive,
/// finite and normal or subnormal.
Pair logPositivePair(MathIR &m, llvm::Value *x);
/// x - n pi/2 as hi + lo (|hi| <= pi/4 + a little) for any finite x, by
/// Payne-Hanek; `quarter` gets n mod 4 in m.intTy. Meant for |x| >= 2^14
/// (f32) or 2^24 (f64); infinities and NaNs give garbage the caller replaces.
Pair reduceHalfPiLarge(MathIR &m, llvm::Value *x, llvm::Value *&quarter);

} // namespace mote::codegen::math

#endif // MOTE_CODEGEN_MATHSUPPORT_H
