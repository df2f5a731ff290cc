//===- ComplexInverse.cpp - Complex asin, acos, asinh, acosh, atan, atanh -===//
//
// glibc's casin, cacos, casinh, cacosh, catan and catanh, which the
// evaluator's std::complex calls, on the inline real math:
//  - asinh of a finite nonzero z is computed in the first quadrant by cases
//    of |re| and |im| (large parts through log(2z); near the imaginary axis
//    through log, log1p and atan2 of forms that do not cancel; elsewhere as
//    log(z + sqrt(z^2 + 1))), and the signs of z put back. acos and acosh
//    take the same cases on i z with the imaginary part measured from pi/2
//    (glibc's "adjusted" kernel), asin is -i asinh(iz).
//  - atanh: the real part is log((1 + x)^2 + y^2) / ((1 - x)^2 + y^2) / 4,
//    through log1p when the quotient is near one; the imaginary part is
//    atan2(2y, 1 - x^2 - y^2) / 2 with the denominator formed without
//    cancellation; very large parts take the asymptotic forms.
//    atan(x + iy) is atanh(y + ix) with the parts exchanged, term for term
//    the formulas glibc's catan writes out.
// Every case is computed and the right one selected (no branches), and the
// cases share one log, log1p, atan2, clog and csqrt by selecting their
// arguments first.
//
//===----------------------------------------------------------------------===//

#include "codegen/ComplexSupport.h"

#include "llvm/IR/Intrinsics.h"

#include <cfloat>
#include <cmath>

namespace mote::codegen::math {

using namespace complex;

namespace {

/// `value` rounded to the part type of `like`, as a constant.
llvm::Value *partConstant(llvm::Value *like, double value) {
  return constant(like, isDouble(like) ? value : double(float(value)));
}

/// Whether z has an infinite or NaN part, or is zero: the inputs the
/// functions answer without the kernel.
llvm::Value *isSpecial(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *finite = b.CreateAnd(isFinite(b, z.re), isFinite(b, z.im));
  llvm::Value *zero = b.CreateAnd(isZero(b, z.re), isZero(b, z.im));
  return b.CreateOr(b.CreateNot(finite), zero);
}

/// One case of the asinh kernel: the real part is log(logArgument),
/// log1p(log1pArgument) / 2 or the clog of clogArgument; the imaginary part
/// atan2(b, a) (adjusted: atan2(a, copysign(b, Im z))) or clog's.
struct KernelCase {
  llvm::Value *taken;
  enum Form { Log, Log1p, Clog } form;
  llvm::Value *argument; // log or log1p argument; unused for Clog
  llvm::Value *a, *b;    // the angle's parts; unused for Clog
};

/// asinh of a finite nonzero z; with `adjust`, the imaginary part is
/// pi/2 minus asinh's (the form acos and acosh use).
Complex asinhKernel(llvm::IRBuilderBase &b, Complex z, bool adjust) {
  llvm::Value *x = z.re, *y = z.im;
  const Limits limits = limitsFor(x);
  const double eps = limits.epsilon;
  auto k = [&](double value) { return constant(x, value); };
  llvm::Value *one = k(1.0), *two = k(2.0), *half = k(0.5);
  llvm::Value *rx = emitFabs(b, x), *ix = emitFabs(b, y);
  auto lt = [&](llvm::Value *v, double c) { return b.CreateFCmpOLT(v, k(c)); };
  auto ge = [&](llvm::Value *v, double c) { return b.CreateFCmpOGE(v, k(c)); };
  auto all = [&](std::initializer_list<llvm::Value *> conditions) {
    llvm::Value *result = nullptr;
    for (llvm::Value *c : conditions)
      result = result ? b.CreateAnd(result, c) : c;
    return result;
  };

  // The near-axis forms with r1 = sqrt((d -+ t + rx^2) / 2) from
  // d = sqrt(t^2 + f), f = rx^2 (2 + rx^2 + 2 ix^2), t = ix^2 - 1 above
  // the branch point and 1 - ix^2 below it.
  auto nearAxis = [&](llvm::Value *t, bool above) {
    llvm::Value *rx2 = b.CreateFMul(rx, rx);
    llvm::Value *f = b.CreateFMul(
        rx2, b.CreateFAdd(b.CreateFAdd(two, rx2), b.CreateFMul(two, b.CreateFMul(ix, ix))));
    llvm::Value *d = emitSqrt(b, b.CreateFAdd(b.CreateFMul(t, t), f));
    llvm::Value *dp = b.CreateFAdd(d, t);
    llvm::Value *dm = b.CreateFDiv(f, dp);
    llvm::Value *r1 = emitSqrt(b, b.CreateFDiv(b.CreateFAdd(above ? dm : dp, rx2), two));
    llvm::Value *r2 = b.CreateFDiv(b.CreateFMul(rx, ix), r1);
    llvm::Value *argument =
        b.CreateFAdd(b.CreateFAdd(rx2, above ? dp : dm),
                     b.CreateFMul(two, b.CreateFAdd(b.CreateFMul(rx, r1), b.CreateFMul(ix, r2))));
    return std::array<llvm::Value *, 3>{argument, b.CreateFAdd(rx, r1), b.CreateFAdd(ix, r2)};
  };

  llvm::SmallVector<KernelCase, 12> cases;
  // Large parts: asinh z = log(2z), nearly.
  cases.push_back(
      {b.CreateOr(ge(rx, 1 / eps), ge(ix, 1 / eps)), KernelCase::Clog, nullptr, nullptr, nullptr});
  // Near the real axis, rx >= 1/2.
  llvm::Value *hypotOne = emitHypot(b, one, rx);
  cases.push_back({all({ge(rx, 0.5), lt(ix, eps / 8)}), KernelCase::Log, b.CreateFAdd(rx, hypotOne),
                   hypotOne, ix});
  // Near the imaginary axis above the branch point 1.5.
  llvm::Value *ix2m1 = b.CreateFMul(b.CreateFAdd(ix, one), b.CreateFSub(ix, one));
  llvm::Value *rootIx2m1 = emitSqrt(b, ix2m1);
  cases.push_back({all({lt(rx, eps / 8), ge(ix, 1.5)}), KernelCase::Log,
                   b.CreateFAdd(ix, rootIx2m1), rx, rootIx2m1});
  // 1 < ix < 1.5, rx < 1/2.
  llvm::Value *justAbove = all({b.CreateFCmpOGT(ix, one), lt(ix, 1.5), lt(rx, 0.5)});
  cases.push_back({all({justAbove, lt(rx, eps * eps)}), KernelCase::Log1p,
                   b.CreateFMul(two, b.CreateFAdd(ix2m1, b.CreateFMul(ix, rootIx2m1))), rx,
                   rootIx2m1});
  auto above = nearAxis(ix2m1, true);
  cases.push_back({justAbove, KernelCase::Log1p, above[0], above[1], above[2]});
  // ix == 1, rx < 1/2.
  llvm::Value *onBranch = all({b.CreateFCmpOEQ(ix, one), lt(rx, 0.5)});
  llvm::Value *rootRx = emitSqrt(b, rx);
  cases.push_back({all({onBranch, lt(rx, eps / 8)}), KernelCase::Log1p,
                   b.CreateFMul(two, b.CreateFAdd(rx, rootRx)), rootRx, one});
  llvm::Value *rxrx = b.CreateFMul(rx, rx);
  llvm::Value *d = b.CreateFMul(rx, emitSqrt(b, b.CreateFAdd(k(4.0), rxrx)));
  llvm::Value *s1 = emitSqrt(b, b.CreateFDiv(b.CreateFAdd(d, rxrx), two));
  llvm::Value *s2 = emitSqrt(b, b.CreateFDiv(b.CreateFSub(d, rxrx), two));
  cases.push_back({onBranch, KernelCase::Log1p,
                   b.CreateFAdd(b.CreateFAdd(rxrx, d),
                                b.CreateFMul(two, b.CreateFAdd(b.CreateFMul(rx, s1), s2))),
                   b.CreateFAdd(rx, s1), b.CreateFAdd(one, s2)});
  // ix < 1, rx < 1/2.
  llvm::Value *below = all({lt(ix, 1.0), lt(rx, 0.5)});
  llvm::Value *onemix2 = b.CreateFMul(b.CreateFAdd(one, ix), b.CreateFSub(one, ix));
  llvm::Value *rootOnemix2 = emitSqrt(b, onemix2);
  llvm::Value *belowNotTiny = all({below, ge(ix, eps)});
  cases.push_back({all({belowNotTiny, lt(rx, eps * eps)}), KernelCase::Log1p,
                   b.CreateFDiv(b.CreateFMul(two, rx), rootOnemix2), rootOnemix2, ix});
  auto under = nearAxis(onemix2, false);
  cases.push_back({belowNotTiny, KernelCase::Log1p, under[0], under[1], under[2]});
  cases.push_back({below, KernelCase::Log1p,
                   b.CreateFMul(b.CreateFMul(two, rx), b.CreateFAdd(rx, hypotOne)), hypotOne, ix});

  // The first case that holds, else log(z + sqrt(z^2 + 1)) in the first
  // quadrant: cases are selected from the last to the first.
  llvm::Type *flag = cases.front().taken->getType(); // i1 or a vector of i1
  llvm::Value *isLog = llvm::ConstantInt::getFalse(flag), *isLog1p = isLog;
  llvm::Value *logArgument = one, *log1pArgument = k(0.0), *angleA = one, *angleB = one;
  for (const KernelCase &c : llvm::reverse(cases)) {
    isLog = b.CreateSelect(c.taken, llvm::ConstantInt::get(flag, c.form == KernelCase::Log), isLog);
    isLog1p =
        b.CreateSelect(c.taken, llvm::ConstantInt::get(flag, c.form == KernelCase::Log1p), isLog1p);
    if (c.form == KernelCase::Clog)
      continue;
    llvm::Value *&argument = c.form == KernelCase::Log ? logArgument : log1pArgument;
    argument = b.CreateSelect(c.taken, c.argument, argument);
    angleA = b.CreateSelect(c.taken, c.a, angleA);
    angleB = b.CreateSelect(c.taken, c.b, angleB);
  }
  llvm::Value *isLarge = cases.front().taken;

  // The clog cases: log(2z) as log z + ln 2, or log(z + sqrt(z^2 + 1)).
  Complex root = emitComplexSqrt(
      b, {b.CreateFAdd(b.CreateFMul(b.CreateFSub(rx, ix), b.CreateFAdd(rx, ix)), one),
          b.CreateFMul(b.CreateFMul(two, rx), ix)});
  Complex w = select(b, isLarge, Complex{rx, ix},
                     Complex{b.CreateFAdd(root.re, rx), b.CreateFAdd(root.im, ix)});
  if (adjust)
    w = {emitCopysign(b, w.im, y), w.re};
  Complex logW = emitComplexLog(b, w);
  logW.re = b.CreateSelect(isLarge, b.CreateFAdd(logW.re, partConstant(x, M_LN2)), logW.re);

  llvm::Value *re = b.CreateSelect(
      isLog, emitLog(b, logArgument),
      b.CreateSelect(isLog1p, b.CreateFMul(emitLog1p(b, log1pArgument), half), logW.re));
  llvm::Value *angle =
      adjust ? emitAtan2(b, angleA, emitCopysign(b, angleB, y)) : emitAtan2(b, angleB, angleA);
  llvm::Value *im = b.CreateSelect(b.CreateOr(isLog, isLog1p), angle, logW.im);
  return {emitCopysign(b, re, x), adjust ? emitFabs(b, im) : emitCopysign(b, im, y)};
}

/// casinh where isSpecial(z): infinities and NaNs as C99 Annex G, z for 0.
Complex asinhSpecial(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  llvm::Value *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  llvm::Value *zero = constant(x, 0.0);
  llvm::Value *xNan = emitIsNan(b, x), *xInf = isInf(b, x), *xFinite = isFinite(b, x);
  Complex infiniteY{
      emitCopysign(b, inf, x),
      b.CreateSelect(
          xNan, nan,
          emitCopysign(b, b.CreateSelect(xFinite, partConstant(x, M_PI_2), partConstant(x, M_PI_4)),
                       y))};
  llvm::Value *zeroIm =
      b.CreateOr(b.CreateAnd(xInf, isFinite(b, y)), b.CreateAnd(xNan, isZero(b, y)));
  Complex nonFiniteX{x, b.CreateSelect(zeroIm, emitCopysign(b, zero, y), nan)};
  Complex nonFinite = select(b, isInf(b, y), infiniteY,
                             select(b, b.CreateNot(xFinite), nonFiniteX, Complex{nan, nan}));
  return select(b, b.CreateAnd(xFinite, isFinite(b, y)), z, nonFinite);
}

/// casin where isSpecial(z).
Complex asinSpecial(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *nan = llvm::ConstantFP::getNaN(z.re->getType());
  llvm::Value *anyNan = b.CreateOr(emitIsNan(b, z.re), emitIsNan(b, z.im));
  Complex withNan = select(
      b, isZero(b, z.re), z,
      select(b, b.CreateOr(isInf(b, z.re), isInf(b, z.im)),
             Complex{nan, emitCopysign(b, llvm::ConstantFP::getInfinity(z.re->getType()), z.im)},
             Complex{nan, nan}));
  Complex r = asinhSpecial(b, {b.CreateFNeg(z.im), z.re});
  return select(b, anyNan, withNan, {r.im, b.CreateFNeg(r.re)});
}

/// catanh (catan(x + iy) is catanh(y + ix) with the parts of the result
/// exchanged: glibc writes the same steps for both).
Complex atanhOf(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  const Limits limits = limitsFor(x);
  const double eps = limits.epsilon;
  auto k = [&](double value) { return constant(x, value); };
  llvm::Value *one = k(1.0), *zero = k(0.0);
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  llvm::Value *halfPi = partConstant(x, M_PI_2);
  llvm::Value *ax = emitFabs(b, x), *ay = emitFabs(b, y);

  // Very large parts: atanh z ~ 1/z.
  llvm::Value *large =
      b.CreateOr(b.CreateFCmpOGE(ax, k(16 / eps)), b.CreateFCmpOGE(ay, k(16 / eps)));
  llvm::Value *h = emitHypot(b, b.CreateFDiv(x, k(2.0)), b.CreateFDiv(y, k(2.0)));
  llvm::Value *largeRe =
      b.CreateSelect(b.CreateFCmpOLE(ay, one), b.CreateFDiv(one, x),
                     b.CreateSelect(b.CreateFCmpOLE(ax, one), b.CreateFDiv(b.CreateFDiv(x, y), y),
                                    b.CreateFDiv(b.CreateFDiv(b.CreateFDiv(x, h), h), k(4.0))));
  Complex largeResult{largeRe, emitCopysign(b, halfPi, y)};

  // The real part: log of (1 + x)^2 + y^2 over (1 - x)^2 + y^2, over 4.
  llvm::Value *atPole = b.CreateAnd(b.CreateFCmpOEQ(ax, one), b.CreateFCmpOLT(ay, k(eps * eps)));
  llvm::Value *y2 = b.CreateSelect(b.CreateFCmpOGE(ay, k(eps * eps)), b.CreateFMul(y, y), zero);
  llvm::Value *numerator = b.CreateFAdd(one, x);
  numerator = b.CreateFAdd(y2, b.CreateFMul(numerator, numerator));
  llvm::Value *denominator = b.CreateFSub(one, x);
  denominator = b.CreateFAdd(y2, b.CreateFMul(denominator, denominator));
  llvm::Value *quotient = b.CreateFDiv(numerator, denominator);
  llvm::Value *logValue = emitLog(b, b.CreateSelect(atPole, ay, quotient));
  llvm::Value *quarter = k(0.25);
  llvm::Value *viaLog1p =
      b.CreateFMul(quarter, emitLog1p(b, b.CreateFDiv(b.CreateFMul(k(4.0), x), denominator)));
  llvm::Value *re = b.CreateSelect(
      atPole,
      b.CreateFMul(emitCopysign(b, k(0.5), x), b.CreateFSub(partConstant(x, M_LN2), logValue)),
      b.CreateSelect(b.CreateFCmpOLT(quotient, k(0.5)), b.CreateFMul(quarter, logValue), viaLog1p));

  // The imaginary part: atan2(2y, 1 - x^2 - y^2) / 2.
  llvm::Value *swap = b.CreateFCmpOLT(ax, ay);
  llvm::Value *big = b.CreateSelect(swap, ay, ax), *small = b.CreateSelect(swap, ax, ay);
  llvm::Value *oneMinusBig2 = b.CreateFMul(b.CreateFSub(one, big), b.CreateFAdd(one, big));
  llvm::Value *plain = b.CreateFSub(oneMinusBig2, b.CreateFMul(small, small));
  llvm::Value *tinySmall = b.CreateFCmpOLT(small, k(eps / 2));
  llvm::Value *cancels =
      b.CreateAnd(b.CreateFCmpOLT(big, one),
                  b.CreateOr(b.CreateFCmpOGE(big, k(0.75)), b.CreateFCmpOGE(small, k(0.5))));
  // A zero denominator is +0, whatever the sign its product had.
  llvm::Value *tinyDenominator =
      b.CreateSelect(b.CreateFCmpOEQ(oneMinusBig2, zero), zero, oneMinusBig2);
  llvm::Value *den =
      b.CreateSelect(tinySmall, tinyDenominator,
                     b.CreateSelect(cancels, b.CreateFNeg(squaresMinusOne(b, big, small)), plain));
  llvm::Value *im = b.CreateFMul(k(0.5), emitAtan2(b, b.CreateFMul(k(2.0), y), den));
  Complex finite = select(b, large, largeResult, Complex{re, im});

  // Infinite and NaN parts.
  Complex infiniteY{emitCopysign(b, zero, x), emitCopysign(b, halfPi, y)};
  Complex zeroOrInfiniteX{emitCopysign(b, zero, x),
                          b.CreateSelect(isFinite(b, y), emitCopysign(b, halfPi, y), nan)};
  Complex nonFinite =
      select(b, isInf(b, y), infiniteY,
             select(b, b.CreateOr(isInf(b, x), isZero(b, x)), zeroOrInfiniteX, Complex{nan, nan}));
  llvm::Value *bothFinite = b.CreateAnd(isFinite(b, x), isFinite(b, y));
  llvm::Value *bothZero = b.CreateAnd(isZero(b, x), isZero(b, y));
  return select(b, bothFinite, select(b, bothZero, z, finite), nonFinite);
}

} // namespace

Complex emitComplexAsinh(llvm::IRBuilderBase &b, Complex z) {
  return select(b, isSpecial(b, z), asinhSpecial(b, z), asinhKernel(b, z, false));
}

Complex emitComplexAsin(llvm::IRBuilderBase &b, Complex z) {
  // asin z = -i asinh(iz).
  Complex iz{b.CreateFNeg(z.im), z.re};
  Complex r = asinhKernel(b, iz, false);
  return select(b, isSpecial(b, z), asinSpecial(b, z), {r.im, b.CreateFNeg(r.re)});
}

Complex emitComplexAcos(llvm::IRBuilderBase &b, Complex z) {
  // Special values: pi/2 - asin z, with a zero real part +0.
  Complex s = asinSpecial(b, z);
  llvm::Value *re = b.CreateFSub(partConstant(z.re, M_PI_2), s.re);
  re = b.CreateSelect(isZero(b, re), constant(re, 0.0), re);
  Complex special{re, b.CreateFNeg(s.im)};
  Complex r = asinhKernel(b, {b.CreateFNeg(z.im), z.re}, true);
  return select(b, isSpecial(b, z), special, {r.im, r.re});
}

Complex emitComplexAcosh(llvm::IRBuilderBase &b, Complex z) {
  llvm::Value *x = z.re, *y = z.im;
  llvm::Value *inf = llvm::ConstantFP::getInfinity(x->getType());
  llvm::Value *nan = llvm::ConstantFP::getNaN(x->getType());
  llvm::Value *zero = constant(x, 0.0);
  llvm::Value *halfPi = partConstant(x, M_PI_2);
  const bool wide = isDouble(x);
  llvm::Value *threeQuarterPi =
      constant(x, wide ? M_PI - M_PI_4 : double(float(M_PI) - float(M_PI_4)));
  llvm::Value *xNan = emitIsNan(b, x), *xInf = isInf(b, x);
  // Infinite or NaN parts.
  llvm::Value *infAngle = b.CreateSelect(
      xInf, b.CreateSelect(b.CreateFCmpOLT(x, zero), threeQuarterPi, partConstant(x, M_PI_4)),
      halfPi);
  Complex infiniteY{inf, b.CreateSelect(xNan, nan, emitCopysign(b, infAngle, y))};
  Complex infiniteX{
      inf,
      b.CreateSelect(isFinite(b, y),
                     emitCopysign(b, b.CreateSelect(signBit(b, x), partConstant(x, M_PI), zero), y),
                     nan)};
  Complex otherNan{nan, b.CreateSelect(isZero(b, x), halfPi, nan)};
  Complex nonFinite = select(b, isInf(b, y), infiniteY, select(b, xInf, infiniteX, otherNan));
  Complex bothZero{zero, emitCopysign(b, halfPi, y)};
  llvm::Value *bothFinite = b.CreateAnd(isFinite(b, x), isFinite(b, y));
  Complex special = select(b, bothFinite, bothZero, nonFinite);

  Complex r = asinhKernel(b, {b.CreateFNeg(y), x}, true);
  llvm::Value *negative = signBit(b, y);
  Complex general{b.CreateSelect(negative, r.re, b.CreateFNeg(r.re)),
                  b.CreateSelect(negative, b.CreateFNeg(r.im), r.im)};
  return select(b, isSpecial(b, z), special, general);
}

Complex emitComplexAtanh(llvm::IRBuilderBase &b, Complex z) { return atanhOf(b, z); }

Complex emitComplexAtan(llvm::IRBuilderBase &b, Complex z) {
  Complex r = atanhOf(b, {z.im, z.re});
  return {r.im, r.re};
}

} // namespace mote::codegen::math
