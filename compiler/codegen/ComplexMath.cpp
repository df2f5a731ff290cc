//===- ComplexMath.cpp - Complex log, sqrt, pow, tanh, tan ----------------===//
//
// glibc's clog, csqrt, cpow and ctanh on the inline real math:
//  - log: log|z| + i atan2(im, re), with log|z| from log1p(|z|^2 - 1) / 2
//    near the unit circle (|z|^2 - 1 formed exactly enough: in double for
//    c64, with split products and compensated sums for c128) and from
//    log(hypot) elsewhere, scaled away from overflow and underflow;
//  - sqrt: the half-angle formulas on hypot, using 2 re im = Im z to avoid
//    cancellation, with glibc's scaling near the ends of the range;
//  - pow(x, y) = exp(y log x);
//  - tanh from sinh, cosh, sin and cos of the parts, its imaginary part
//    scaled for large |re|; tan(z) = -i tanh(iz).
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexSupport.h"

#include "llvm/IR/Intrinsics.h"

#include <cmath>

namespace mote::codegen::math {

using namespace complex;

namespace {

/// a + b as a rounded sum and its exact error (Knuth's TwoSum).
std::pair<llvm::Value *, llvm::Value *> twoSum(llvm::IRBuilderBase &b, llvm::Value *x,
                                               llvm::Value *y) {
  llvm::Value *sum = b.CreateFAdd(x, y);
  llvm::Value *yPart = b.CreateFSub(sum, x);
  llvm::Value *xPart = b.CreateFSub(sum, yPart);
  llvm::Value *error = b.CreateFAdd(b.CreateFSub(x, xPart), b.CreateFSub(y, yPart));
  return {sum, error};
}

/// x * x as a rounded product and its exact error (Veltkamp's split, no FMA).
std::pair<llvm::Value *, llvm::Value *> exactSquare(llvm::IRBuilderBase &b, llvm::Value *x) {
  llvm::Value *split = b.CreateFMul(x, constant(x, 134217729.0)); // 2^27 + 1
  llvm::Value *high = b.CreateFSub(split, b.CreateFSub(split, x));
  llvm::Value *low = b.CreateFSub(x, high);
  llvm::Value *square = b.CreateFMul(x, x);
  llvm::Value *error = b.CreateFAdd(b.CreateFAdd(b.CreateFSub(b.CreateFMul(high, high), square),
                                                 b.CreateFMul(b.CreateFAdd(high, high), low)),
                                    b.CreateFMul(low, low));
  return {square, error};
}

} // namespace

} // namespace mote::codegen::math

namespace mote::codegen::complex {

using namespace math;

llvm::Value *squaresMinusOne(llvm::IRBuilderBase &b, llvm::Value *x, llvm::Value *y) {
  if (!isDouble(x)) {
    llvm::Type *wide = x->getType()->getWithNewType(b.getDoubleTy());
    llvm::Value *dx = b.CreateFPExt(x, wide), *dy = b.CreateFPExt(y, wide);
    llvm::Value *one = constant(dx, 1.0);
    llvm::Value *value = b.CreateFAdd(b.CreateFMul(b.CreateFSub(dx, one), b.CreateFAdd(dx, one)),
                                      b.CreateFMul(dy, dy));
    return b.CreateFPTrunc(value, x->getType());
  }
  // After the cancellation in x^2 - 1 + y^2 the rounding errors of the
  // squares are as large as the sum: they join it exactly too, and only
  // the small errors of those additions are summed plainly.
  auto [xx, xxError] = exactSquare(b, x);
  auto [yy, yyError] = exactSquare(b, y);
  auto [s1, e1] = twoSum(b, xx, constant(x, -1.0));
  auto [s2, e2] = twoSum(b, s1, yy);
  auto [s3, e3] = twoSum(b, s2, xxError);
  auto [s4, e4] = twoSum(b, s3, yyError);
  llvm::Value *tail = b.CreateFAdd(b.CreateFAdd(e1, e2), b.CreateFAdd(e3, e4));
  return b.CreateFAdd(s4, tail);
}

} // namespace mote::codegen::complex

namespace mote::codegen::math {

Complex emitComplexLog(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  const Limits limits = limitsFor(x);
  auto k = [&](double value) { return constant(x, value); };
  llvm::Value *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  llvm::Value *fx = emitFabs(b, x), *fy = emitFabs(b, y);
  llvm::Value *swap = b.CreateFCmpOLT(fx, fy);
  llvm::Value *ax = b.CreateSelect(swap, fy, fx), *ay = b.CreateSelect(swap, fx, fy);

  // Scale by 1/2 near the top of the range, by 2^mantissa when both parts
  // are subnormal; log|z| then subtracts scale * ln 2.
  llvm::Value *high = b.CreateFCmpOGT(ax, k(limits.max / 2));
  llvm::Value *low =
      b.CreateAnd(b.CreateNot(high), b.CreateAnd(b.CreateFCmpOLT(ax, k(limits.min)),
                                                 b.CreateFCmpOLT(ay, k(limits.min))));
  const double up = std::ldexp(1.0, limits.mantissa);
  ax = b.CreateSelect(high, b.CreateFMul(ax, k(0.5)),
                      b.CreateSelect(low, b.CreateFMul(ax, k(up)), ax));
  llvm::Value *halfY =
      b.CreateSelect(b.CreateFCmpOGE(ay, k(limits.min * 2)), b.CreateFMul(ay, k(0.5)), k(0.0));
  ay = b.CreateSelect(high, halfY, b.CreateSelect(low, b.CreateFMul(ay, k(up)), ay));
  llvm::Value *unscaled = b.CreateNot(b.CreateOr(high, low));
  // scale * ln 2 in the part type, as glibc forms it.
  const bool wide = isDouble(x);
  auto scaledLn2 = [&](int scale) {
    return wide ? double(scale) * M_LN2 : double(float(scale) * float(M_LN2));
  };
  llvm::Value *offset = b.CreateSelect(high, k(scaledLn2(-1)),
                                       b.CreateSelect(low, k(scaledLn2(limits.mantissa)), k(0.0)));

  llvm::Value *one = k(1.0), *half = k(0.5);
  llvm::Value *xm1xp1 = b.CreateFMul(b.CreateFSub(ax, one), b.CreateFAdd(ax, one));
  llvm::Value *yy = b.CreateFMul(ay, ay);
  // The cases of glibc's clog, tried in order.
  llvm::Value *onCircle = b.CreateAnd(unscaled, b.CreateFCmpOEQ(ax, one));
  llvm::Value *justAbove = b.CreateAnd(
      unscaled, b.CreateAnd(b.CreateAnd(b.CreateFCmpOGT(ax, one), b.CreateFCmpOLT(ax, k(2.0))),
                            b.CreateFCmpOLT(ay, one)));
  llvm::Value *belowRange =
      b.CreateAnd(unscaled, b.CreateAnd(b.CreateFCmpOLT(ax, one), b.CreateFCmpOGE(ax, half)));
  llvm::Value *tinyY = b.CreateAnd(belowRange, b.CreateFCmpOLT(ay, k(limits.epsilon / 2)));
  llvm::Value *justBelow =
      b.CreateAnd(belowRange, b.CreateFCmpOGE(b.CreateFAdd(b.CreateFMul(ax, ax), yy), half));
  llvm::Value *aboveSum =
      b.CreateSelect(b.CreateFCmpOGE(ay, k(limits.epsilon)), b.CreateFAdd(xm1xp1, yy), xm1xp1);
  llvm::Value *d2m1 =
      b.CreateSelect(onCircle, yy,
                     b.CreateSelect(justAbove, aboveSum,
                                    b.CreateSelect(tinyY, xm1xp1, squaresMinusOne(b, ax, ay))));
  llvm::Value *nearCircle =
      b.CreateOr(b.CreateOr(onCircle, justAbove), b.CreateOr(tinyY, justBelow));
  llvm::Value *viaLog1p = b.CreateFDiv(emitLog1p(b, d2m1), k(2.0));
  llvm::Value *viaLog = b.CreateFSub(emitLog(b, emitHypot(b, ax, ay)), offset);
  llvm::Value *finiteRe = b.CreateSelect(nearCircle, viaLog1p, viaLog);

  llvm::Value *zero = k(0.0);
  llvm::Value *bothZero = b.CreateAnd(isZero(b, x), isZero(b, y));
  llvm::Value *zeroIm = emitCopysign(b, b.CreateSelect(signBit(b, x), k(M_PI), zero), y);
  llvm::Value *anyNan = b.CreateOr(emitIsNan(b, x), emitIsNan(b, y));
  llvm::Value *anyInf = b.CreateOr(isInf(b, x), isInf(b, y));
  llvm::Value *re =
      b.CreateSelect(bothZero, b.CreateFNeg(inf),
                     b.CreateSelect(anyNan, b.CreateSelect(anyInf, inf, nan), finiteRe));
  llvm::Value *im =
      b.CreateSelect(bothZero, zeroIm, b.CreateSelect(anyNan, nan, emitAtan2(b, y, x)));
  return {re, im};
}

Complex emitComplexSqrt(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  const Limits limits = limitsFor(x);
  auto k = [&](double value) { return constant(x, value); };
  llvm::Value *zero = k(0.0), *half = k(0.5);
  llvm::Value *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  llvm::Value *negative = b.CreateFCmpOLT(x, zero);

  // A part infinite or NaN.
  Complex infiniteY{inf, y};
  Complex infiniteX =
      select(b, negative, {b.CreateSelect(emitIsNan(b, y), nan, zero), emitCopysign(b, inf, y)},
             {x, b.CreateSelect(emitIsNan(b, y), nan, emitCopysign(b, zero, y))});
  Complex special =
      select(b, isInf(b, y), infiniteY, select(b, isInf(b, x), infiniteX, Complex{nan, nan}));

  // Imaginary part zero: the real square root.
  Complex realAxis = select(b, negative, {zero, emitCopysign(b, emitSqrt(b, b.CreateFNeg(x)), y)},
                            {emitFabs(b, emitSqrt(b, x)), emitCopysign(b, zero, y)});
  // Real part zero: sqrt(|y| / 2) on both parts.
  llvm::Value *fy = emitFabs(b, y);
  llvm::Value *r0 =
      b.CreateSelect(b.CreateFCmpOGE(fy, k(2 * limits.min)), emitSqrt(b, b.CreateFMul(half, fy)),
                     b.CreateFMul(half, emitSqrt(b, b.CreateFMul(k(2.0), fy))));
  Complex imaginaryAxis{r0, emitCopysign(b, r0, y)};

  // General case, scaled by 1/4 near the top of the range and by 2^(2k)
  // (k = -(mantissa + 1) / 2) when both parts are tiny.
  const int tinyScale = -((limits.mantissa + 1) / 2);
  llvm::Value *bigX = b.CreateFCmpOGT(emitFabs(b, x), k(limits.max / 4));
  llvm::Value *bigY = b.CreateAnd(b.CreateNot(bigX), b.CreateFCmpOGT(fy, k(limits.max / 4)));
  llvm::Value *scaledDown = b.CreateOr(bigX, bigY);
  llvm::Value *tiny = b.CreateAnd(b.CreateNot(scaledDown),
                                  b.CreateAnd(b.CreateFCmpOLT(emitFabs(b, x), k(2 * limits.min)),
                                              b.CreateFCmpOLT(fy, k(2 * limits.min))));
  llvm::Value *up = k(std::ldexp(1.0, -2 * tinyScale)), *quarter = k(0.25);
  llvm::Value *xBigY = b.CreateSelect(b.CreateFCmpOGE(emitFabs(b, x), k(4 * limits.min)),
                                      b.CreateFMul(x, quarter), zero);
  llvm::Value *sx =
      b.CreateSelect(bigX, b.CreateFMul(x, quarter),
                     b.CreateSelect(bigY, xBigY, b.CreateSelect(tiny, b.CreateFMul(x, up), x)));
  llvm::Value *sy = b.CreateSelect(scaledDown, b.CreateFMul(y, quarter),
                                   b.CreateSelect(tiny, b.CreateFMul(y, up), y));
  llvm::Value *d = emitHypot(b, sx, sy);
  llvm::Value *earlyUnscale = b.CreateAnd(scaledDown, b.CreateFCmpOLT(emitFabs(b, sy), k(1.0)));
  llvm::Value *two = k(2.0);
  // Re z > 0: r from d + x, s from Im z / r; else s from d - x, r from Im z / s.
  llvm::Value *rPositive = emitSqrt(b, b.CreateFMul(half, b.CreateFAdd(d, sx)));
  llvm::Value *sPositive = b.CreateSelect(earlyUnscale, b.CreateFDiv(sy, rPositive),
                                          b.CreateFMul(half, b.CreateFDiv(sy, rPositive)));
  rPositive = b.CreateSelect(earlyUnscale, b.CreateFMul(rPositive, two), rPositive);
  llvm::Value *sOther = emitSqrt(b, b.CreateFMul(half, b.CreateFSub(d, sx)));
  llvm::Value *rOther = b.CreateSelect(earlyUnscale, emitFabs(b, b.CreateFDiv(sy, sOther)),
                                       emitFabs(b, b.CreateFMul(half, b.CreateFDiv(sy, sOther))));
  sOther = b.CreateSelect(earlyUnscale, b.CreateFMul(sOther, two), sOther);
  llvm::Value *positive = b.CreateFCmpOGT(sx, zero);
  llvm::Value *r = b.CreateSelect(positive, rPositive, rOther);
  llvm::Value *s = b.CreateSelect(positive, sPositive, sOther);
  llvm::Value *lateScale =
      b.CreateSelect(b.CreateAnd(scaledDown, b.CreateNot(earlyUnscale)), two,
                     b.CreateSelect(tiny, k(std::ldexp(1.0, tinyScale)), k(1.0)));
  r = b.CreateFMul(r, lateScale);
  s = b.CreateFMul(s, lateScale);
  Complex general{r, emitCopysign(b, s, y)};

  Complex finite =
      select(b, isZero(b, y), realAxis, select(b, isZero(b, x), imaginaryAxis, general));
  return select(b, b.CreateAnd(isFinite(b, x), isFinite(b, y)), finite, special);
}

Complex emitComplexPow(llvm::IRBuilderBase &b, Complex x, Complex y) {
  return emitComplexExp(b, emitComplexMultiply(b, y, emitComplexLog(b, x)));
}

Complex emitComplexTanh(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  const Limits limits = limitsFor(x);
  auto k = [&](double value) { return constant(x, value); };
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  Complex sc = emitSinCos(b, y);
  llvm::Value *sine = sc.re, *cosine = sc.im;
  llvm::Value *one = emitCopysign(b, k(1.0), x);

  // tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y).
  const double t = double(int(limits.expLimit / 2));
  const double exp2t = hostExp(x, 2 * t);
  llvm::Value *ax = emitFabs(b, x);
  llvm::Value *large = b.CreateFCmpOGT(ax, k(t));
  // Large |x|: re = +-1, im = 4 sin y cos y / exp(2|x|), divided in steps.
  llvm::Value *rest = b.CreateFSub(ax, k(t));
  llvm::Value *im = b.CreateFDiv(b.CreateFMul(b.CreateFMul(k(4.0), sine), cosine), k(exp2t));
  llvm::Value *restLarge = b.CreateFCmpOGT(rest, k(t));
  llvm::Value *smallRest = b.CreateSelect(restLarge, k(0.0), rest);
  im = b.CreateFDiv(
      im, b.CreateSelect(restLarge, k(exp2t), emitExp(b, b.CreateFMul(k(2.0), smallRest))));
  Complex largeResult{one, im};
  llvm::Value *normal = b.CreateFCmpOGT(ax, k(limits.min));
  llvm::Value *smallX = b.CreateSelect(large, k(0.0), x);
  llvm::Value *sinhX = b.CreateSelect(normal, emitSinh(b, smallX), x);
  llvm::Value *coshX = b.CreateSelect(normal, emitCosh(b, smallX), k(1.0));
  llvm::Value *cos2 = b.CreateFMul(cosine, cosine);
  llvm::Value *denominator = b.CreateSelect(
      b.CreateFCmpOGT(emitFabs(b, sinhX), b.CreateFMul(emitFabs(b, cosine), k(limits.epsilon))),
      b.CreateFAdd(b.CreateFMul(sinhX, sinhX), cos2), cos2);
  Complex smallResult{b.CreateFDiv(b.CreateFMul(sinhX, coshX), denominator),
                      b.CreateFDiv(b.CreateFMul(sine, cosine), denominator)};
  Complex finite = select(b, large, largeResult, smallResult);

  // Real part infinite: +-1 and a zero signed like sin 2y (when |y| > 1).
  llvm::Value *zero = k(0.0);
  llvm::Value *bigY = b.CreateAnd(isFinite(b, y), b.CreateFCmpOGT(emitFabs(b, y), k(1.0)));
  Complex infinite{one, b.CreateSelect(bigY, emitCopysign(b, zero, b.CreateFMul(sine, cosine)),
                                       emitCopysign(b, zero, y))};
  Complex other = select(b, isZero(b, y), z, {b.CreateSelect(isZero(b, x), x, nan), nan});
  Complex special = select(b, isInf(b, x), infinite, other);
  return select(b, b.CreateAnd(isFinite(b, x), isFinite(b, y)), finite, special);
}

Complex emitComplexTan(llvm::IRBuilderBase &b, Complex z) {
  // tan(x + iy) = -i tanh(-y + ix).
  Complex r = emitComplexTanh(b, {b.CreateFNeg(z.im), z.re});
  return {r.im, b.CreateFNeg(r.re)};
}

} // namespace mote::codegen::math
