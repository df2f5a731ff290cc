//===- ComplexExp.cpp - Complex exp, sinh, cosh, sin, cos -----------------===//
//
// glibc's cexp, csinh and ccosh: exp(re) times (cos im, sin im), with the
// real exponent reduced by t = (int)((MAX_EXP - 1) ln 2) up to twice (the
// factor exp(t) multiplied into the sine and cosine first) so results that
// are finite do not overflow on the way, and C99 Annex G's values for
// infinite and NaN parts. sin(z) = -i sinh(iz) and cos(z) = cosh(iz).
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexSupport.h"

#include "codegen/ElementalEmitter.h"

#include <cfloat>
#include <cmath>

namespace mote::codegen {

namespace complex {

Limits limitsFor(llvm::Value *x) {
  if (isDouble(x))
    return {DBL_MAX, DBL_MIN, DBL_EPSILON, DBL_MANT_DIG, double(int((DBL_MAX_EXP - 1) * M_LN2))};
  return {FLT_MAX, FLT_MIN, FLT_EPSILON, FLT_MANT_DIG, double(int((FLT_MAX_EXP - 1) * M_LN2))};
}

double hostExp(llvm::Value *like, double v) {
  return isDouble(like) ? std::exp(v) : double(std::exp(float(v)));
}

Complex emitSinCos(llvm::IRBuilderBase &b, llvm::Value *y) {
  llvm::Value *normal = b.CreateFCmpOGT(emitFabs(b, y), constant(y, limitsFor(y).min));
  return {b.CreateSelect(normal, math::emitSin(b, y), y),
          b.CreateSelect(normal, math::emitCos(b, y), constant(y, 1.0))};
}

llvm::Value *emitSinh(llvm::IRBuilderBase &b, llvm::Value *x) {
  return emitUnaryOp(b, hlo::Opcode::Sinh,
                     isDouble(x) ? hlo::PrimitiveType::F64 : hlo::PrimitiveType::F32, x);
}

llvm::Value *emitCosh(llvm::IRBuilderBase &b, llvm::Value *x) {
  return emitUnaryOp(b, hlo::Opcode::Cosh,
                     isDouble(x) ? hlo::PrimitiveType::F64 : hlo::PrimitiveType::F32, x);
}

} // namespace complex

namespace math {

using namespace complex;

namespace {

/// exp(rx) * (c, s) for rx >= 0 whose exp may overflow although the product
/// does not: rx is reduced by t (the first factor exp(t) * `firstScale` is
/// already folded in by the caller when `reduced`), once more if needed, and
/// beyond 3t the result is MAX times the factors (an overflow to infinity
/// unless they are zero).
Complex scaledExp(llvm::IRBuilderBase &b, llvm::Value *rx, Complex sc, double firstScale) {
  const Limits limits = limitsFor(rx);
  const double t = limits.expLimit, expT = hostExp(rx, t);
  llvm::Value *threshold = constant(rx, t);
  llvm::Value *s = sc.re, *c = sc.im;
  llvm::Value *first = b.CreateFCmpOGT(rx, threshold);
  rx = b.CreateSelect(first, b.CreateFSub(rx, threshold), rx);
  llvm::Value *factor =
      constant(rx, isDouble(rx) ? expT * firstScale : double(float(expT * firstScale)));
  s = b.CreateSelect(first, b.CreateFMul(s, factor), s);
  c = b.CreateSelect(first, b.CreateFMul(c, factor), c);
  llvm::Value *second = b.CreateAnd(first, b.CreateFCmpOGT(rx, threshold));
  rx = b.CreateSelect(second, b.CreateFSub(rx, threshold), rx);
  s = b.CreateSelect(second, b.CreateFMul(s, constant(rx, expT)), s);
  c = b.CreateSelect(second, b.CreateFMul(c, constant(rx, expT)), c);
  llvm::Value *overflow = b.CreateFCmpOGT(rx, threshold);
  llvm::Value *e = emitExp(b, rx), *max = constant(rx, limits.max);
  return {b.CreateSelect(overflow, b.CreateFMul(max, c), b.CreateFMul(e, c)),
          b.CreateSelect(overflow, b.CreateFMul(max, s), b.CreateFMul(e, s))};
}

} // namespace

Complex emitComplexExp(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  llvm::Value *zero = constant(x, 0.0), *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  Complex sc = emitSinCos(b, y);
  // Both parts finite (exp(x) with x below -t is 0 and needs no scaling).
  const Limits limits = limitsFor(x);
  llvm::Value *large = b.CreateFCmpOGT(x, constant(x, limits.expLimit));
  Complex scaled = scaledExp(b, b.CreateSelect(large, x, zero), sc, 1.0);
  llvm::Value *e = emitExp(b, x);
  Complex finite = select(b, large, scaled, {b.CreateFMul(e, sc.im), b.CreateFMul(e, sc.re)});
  // Real part infinite: +inf or 0 in the direction of (cos y, sin y).
  llvm::Value *negative = signBit(b, x);
  llvm::Value *value = b.CreateSelect(negative, zero, inf);
  Complex infiniteFiniteY = select(b, isZero(b, y), {value, y},
                                   {emitCopysign(b, value, sc.im), emitCopysign(b, value, sc.re)});
  Complex infiniteOther =
      select(b, negative, {zero, emitCopysign(b, zero, y)}, {inf, b.CreateFSub(y, y)});
  Complex infinite = select(b, isFinite(b, y), infiniteFiniteY, infiniteOther);
  Complex notANumber{nan, b.CreateSelect(isZero(b, y), y, nan)};
  Complex finiteX = select(b, isFinite(b, y), finite, {nan, nan});
  return select(b, isFinite(b, x), finiteX, select(b, isInf(b, x), infinite, notANumber));
}

Complex emitComplexSinh(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *y = z.im;
  llvm::Value *negate = signBit(b, z.re);
  llvm::Value *x = emitFabs(b, z.re);
  llvm::Value *zero = constant(x, 0.0), *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  const Limits limits = limitsFor(x);
  Complex sc = emitSinCos(b, y);
  llvm::Value *cosine = b.CreateSelect(negate, b.CreateFNeg(sc.im), sc.im);
  llvm::Value *large = b.CreateFCmpOGT(x, constant(x, limits.expLimit));
  Complex scaled = scaledExp(b, b.CreateSelect(large, x, zero), {sc.re, cosine}, 0.5);
  Complex small{b.CreateFMul(emitSinh(b, x), cosine), b.CreateFMul(emitCosh(b, x), sc.re)};
  Complex finite = select(b, large, scaled, small);
  Complex finiteOther =
      select(b, isZero(b, x), {b.CreateSelect(negate, constant(x, -0.0), zero), b.CreateFSub(y, y)},
             {nan, nan});
  llvm::Value *signedInf = b.CreateSelect(negate, b.CreateFNeg(inf), inf);
  Complex infiniteNonzero{b.CreateSelect(negate, b.CreateFNeg(emitCopysign(b, inf, sc.im)),
                                         emitCopysign(b, inf, sc.im)),
                          emitCopysign(b, inf, sc.re)};
  Complex infinite =
      select(b, isFinite(b, y), select(b, isZero(b, y), {signedInf, y}, infiniteNonzero),
             {inf, b.CreateFSub(y, y)});
  Complex notANumber{nan, b.CreateSelect(isZero(b, y), y, nan)};
  return select(b, isFinite(b, x), select(b, isFinite(b, y), finite, finiteOther),
                select(b, isInf(b, x), infinite, notANumber));
}

Complex emitComplexCosh(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  llvm::Value *zero = constant(x, 0.0), *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  const Limits limits = limitsFor(x);
  Complex sc = emitSinCos(b, y);
  llvm::Value *ax = emitFabs(b, x);
  llvm::Value *large = b.CreateFCmpOGT(ax, constant(x, limits.expLimit));
  llvm::Value *sine = b.CreateSelect(signBit(b, x), b.CreateFNeg(sc.re), sc.re);
  Complex scaled = scaledExp(b, b.CreateSelect(large, ax, zero), {sine, sc.im}, 0.5);
  Complex small{b.CreateFMul(emitCosh(b, x), sc.im), b.CreateFMul(emitSinh(b, x), sc.re)};
  Complex finite = select(b, large, scaled, small);
  Complex finiteOther{b.CreateFSub(y, y), b.CreateSelect(isZero(b, x), zero, nan)};
  llvm::Value *signOfX = emitCopysign(b, constant(x, 1.0), x);
  Complex infiniteNonzero{emitCopysign(b, inf, sc.im),
                          b.CreateFMul(emitCopysign(b, inf, sc.re), signOfX)};
  Complex infinite = select(
      b, isFinite(b, y), select(b, isZero(b, y), {inf, b.CreateFMul(y, signOfX)}, infiniteNonzero),
      {inf, b.CreateFSub(y, y)});
  Complex notANumber{nan, b.CreateSelect(isZero(b, y), y, nan)};
  return select(b, isFinite(b, x), select(b, isFinite(b, y), finite, finiteOther),
                select(b, isInf(b, x), infinite, notANumber));
}

Complex emitComplexSin(llvm::IRBuilderBase &b, Complex z) {
  // sin(x + iy) = -i sinh(-y + ix), except that glibc's csin gives +inf
  // as the imaginary part when y is infinite and x infinite or NaN (the
  // sign is unspecified there).
  Complex r = emitComplexSinh(b, {b.CreateFNeg(z.im), z.re});
  llvm::Value *positiveInf = b.CreateAnd(isInf(b, z.im), b.CreateNot(isFinite(b, z.re)));
  return {r.im, b.CreateSelect(positiveInf, llvm::ConstantFP::getInfinity(z.im->getType()),
                               b.CreateFNeg(r.re))};
}

Complex emitComplexCos(llvm::IRBuilderBase &b, Complex z) {
  // cos(x + iy) = cosh(-y + ix).
  return emitComplexCosh(b, {b.CreateFNeg(z.im), z.re});
}

} // namespace math

} // namespace mote::codegen
